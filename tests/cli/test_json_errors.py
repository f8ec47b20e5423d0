"""`--json` on a failure prints `{"error": {...}}` on standard output with the command's
exit code, not nothing (issue 39, item 9e); the message stays on standard error."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

import pytest


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Cli


def _project(tmp_path: Path, dependencies: str, table: str = "") -> Path:
    project = tmp_path / "app"
    project.mkdir(exist_ok=True)
    (project / "pyproject.toml").write_text(
        '[project]\nname = "app"\nversion = "0.1.0"\nrequires-python = ">=3.10"\n'
        f"dependencies = [{dependencies}]\n{table}"
    )
    return project


@pytest.mark.parametrize(
    "args",
    [("plan", "--json"), ("lock", "--dry-run", "--json"), ("cuda", "plan", "--json")],
    ids=["plan", "lock-dry-run", "poetry-cuda-plan"],
)
def test_json_error_is_printed_on_stdout_with_the_exit_code(
    cli: Cli, tmp_path: Path, args: tuple[str, ...]
) -> None:
    program = "poetry" if args[0] == "cuda" else "poetry-cuda"
    bad = _project(tmp_path, '"torch==2.5.1"', '\n[tool.poetry-cuda]\npolicy = "nweest"\n')
    result = cli.run(*args, cwd=bad, program=program)
    assert result.code == 2, result
    error = json.loads(result.stdout)["error"]
    assert error["exit_code"] == 2
    assert error["what"].startswith("[tool.poetry-cuda] policy: 'nweest' is not one of")
    assert error["fix"] == 'write e.g. policy = "newest"'
    assert set(error) == {"what", "why", "fix", "exit_code"}
    assert "nweest" in result.stderr  # the message for people is where it was

    # torch 2.15.0 requires Python 3.11; this project admits 3.10: exit 3 (no variant).
    refused = _project(tmp_path, '"torch==2.15.0"')
    no_gpu = tmp_path / "cpu.json"
    no_gpu.write_text('{"os": "linux", "machine": "x86_64"}')
    result = cli.run(*args, "--target", str(no_gpu), cwd=refused, program=program)
    assert result.code == 3, result
    error = json.loads(result.stdout)["error"]
    assert error["exit_code"] == 3 and "Requires-Python" in error["why"]


def test_json_error_not_printed_without_json(cli: Cli, tmp_path: Path) -> None:
    bad = _project(tmp_path, '"torch==2.5.1"', '\n[tool.poetry-cuda]\npolicy = "nweest"\n')
    result = cli.run("plan", cwd=bad)
    assert result.code == 2 and result.stdout == "", result
