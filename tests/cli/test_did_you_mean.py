"""A mistyped option, config key or config value gets the nearest known ones, as a mistyped
command does (issue 39, item 9d), from the console script and from Poetry alike."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Cli


PYPROJECT = """\
[project]
name = "app"
version = "0.1.0"
requires-python = ">=3.10"
dependencies = ["torch==2.5.1"]
"""


def _project(tmp_path: Path, table: str = "") -> Path:
    project = tmp_path / "app"
    project.mkdir(exist_ok=True)
    (project / "pyproject.toml").write_text(PYPROJECT + table)
    return project


@pytest.mark.parametrize("program", ["poetry-cuda", "poetry"])
def test_unknown_option_gets_did_you_mean(cli: Cli, tmp_path: Path, program: str) -> None:
    project = _project(tmp_path)
    prefix = ("cuda",) if program == "poetry" else ()
    result = cli.run(*prefix, "plan", "--tagret", "x.json", cwd=project, program=program)
    assert result.code == 2, result
    assert 'The option "--tagret" does not exist. Did you mean --target?' in result.stderr
    result = cli.run(*prefix, "env", "--shel", "sh", cwd=project, program=program)
    assert result.code == 2, result
    assert "Did you mean --shell" in result.stderr


def test_unknown_script_option_before_the_command_gets_did_you_mean(
    cli: Cli, tmp_path: Path
) -> None:
    result = cli.run("--verbsoe", "plan", cwd=_project(tmp_path))
    assert result.code == 2, result
    assert "Did you mean --verbose" in result.stderr


def test_unknown_config_key_gets_did_you_mean(cli: Cli, tmp_path: Path) -> None:
    project = _project(tmp_path, '\n[tool.poetry-cuda]\npolcy = "native"\n')
    result = cli.run("plan", cwd=project)
    assert result.code == 2, result
    assert '[tool.poetry-cuda] polcy: unknown key. Did you mean "policy"?' in result.stderr
    mirror = '\n[tool.poetry-cuda.mirrors]\npytroch = "https://mirror.example/{variant}"\n'
    result = cli.run("plan", cwd=_project(tmp_path, mirror))
    assert result.code == 2, result
    assert 'Did you mean "pytorch"?' in result.stderr


def test_bad_config_value_gets_did_you_mean(cli: Cli, tmp_path: Path) -> None:
    project = _project(tmp_path, '\n[tool.poetry-cuda]\npolicy = "nweest"\n')
    result = cli.run("plan", cwd=project)
    assert result.code == 2, result
    assert "'nweest' is not one of newest, native. Did you mean \"newest\"?" in result.stderr
    result = cli.run("plan", "--policy", "nativ", cwd=_project(tmp_path))
    assert result.code == 2, result
    assert "Did you mean newest" not in result.stderr and "Did you mean native?" in result.stderr


def test_a_word_near_nothing_gets_no_suggestion(cli: Cli, tmp_path: Path) -> None:
    project = _project(tmp_path, "\n[tool.poetry-cuda]\nzzzzzz = 1\n")
    result = cli.run("plan", cwd=project)
    assert result.code == 2, result
    assert "zzzzzz: unknown key" in result.stderr and "Did you mean" not in result.stderr


def test_one_did_you_mean_for_commands_options_keys_and_values(cli: Cli, tmp_path: Path) -> None:
    """Issue 39 item 8: one message, worded alike in both languages, whatever was mistyped."""
    from poetry_cuda.messages import CATALOGUE

    assert [id for id in CATALOGUE if "did-you-mean" in id] == ["did-you-mean"]
    chinese = {"LANG": "zh_CN.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}
    project = _project(tmp_path, '\n[tool.poetry-cuda]\npolcy = "native"\n')
    said = {
        "command": cli.run("lcok", cwd=project).stderr,
        "option": cli.run("plan", "--tagret", "x.json", cwd=project).stderr,
        "key": cli.run("plan", cwd=project).stderr,
        "command zh": cli.run("lcok", cwd=project, env=chinese).stderr,
        "option zh": cli.run("plan", "--tagret", "x.json", cwd=project, env=chinese).stderr,
        "key zh": cli.run("plan", cwd=project, env=chinese).stderr,
    }
    assert 'The command "lcok" does not exist. Did you mean lock?' in said["command"]
    assert 'The option "--tagret" does not exist. Did you mean --target?' in said["option"]
    assert 'polcy: unknown key. Did you mean "policy"?' in said["key"]
    assert '命令 "lcok" 不存在。你是不是想输入 lock？' in said["command zh"]
    assert '选项 "--tagret" 不存在。你是不是想输入 --target？' in said["option zh"]
    assert 'polcy：未知的键。你是不是想输入 "policy"？' in said["key zh"]
