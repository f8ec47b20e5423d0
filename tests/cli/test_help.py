"""Every command's --help, from the script and from the plugin."""

from __future__ import annotations

import re

from typing import TYPE_CHECKING

import pytest

from poetry_cuda import __version__
from poetry_cuda.cli.registry import COMMANDS
from poetry_cuda.cli.registry import command


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Cli


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_of_every_command(name: str, cli: Cli, tmp_path: Path) -> None:
    script = cli.run(name, "--help", cwd=tmp_path)
    assert script.code == 0, script.stderr
    assert "Help:" in script.stdout
    assert "Exit codes" in script.stdout
    plugin = cli.run("cuda", name, "--help", cwd=tmp_path, program="poetry")
    assert plugin.code == 0, plugin.stderr
    assert script.stdout.split("Help:")[1] == plugin.stdout.split("Help:")[1]


def test_doctor_help_shows_its_json_as_written(cli: Cli, tmp_path: Path) -> None:
    text = cli.run("doctor", "--help", cwd=tmp_path).stdout
    assert '{"schema": 1, "project": "<folder or null>"' in text


def _lists_every_command(text: str, prefix: str = "") -> None:
    for name in COMMANDS:
        description = command(name).description
        assert re.search(
            rf"^ +{re.escape(prefix + name)} +{re.escape(description)}$", text, re.MULTILINE
        ), (
            name,
            text,
        )


@pytest.mark.parametrize("args", [("--help",), ("-h",), ()], ids=["--help", "-h", "alone"])
def test_the_script_shows_its_usage_and_commands(
    args: tuple[str, ...], cli: Cli, tmp_path: Path
) -> None:
    result = cli.run(*args, cwd=tmp_path)
    assert result.code == 0, result.stderr
    assert result.stdout.startswith("poetry-cuda (version ")
    assert "Usage:" in result.stdout
    assert "Lists commands." in result.stdout  # the list, not the list command's help page
    assert "The list command lists all commands" not in result.stdout
    _lists_every_command(result.stdout)


@pytest.mark.parametrize("args", [("cuda",), ("cuda", "--help"), ("help", "cuda")])
def test_the_plugin_lists_the_cuda_commands(
    args: tuple[str, ...], cli: Cli, tmp_path: Path
) -> None:
    result = cli.run(*args, cwd=tmp_path, program="poetry")
    assert result.code == 0, result.stderr
    assert "does not exist" not in result.stdout + result.stderr
    assert "Documentation:" not in result.stdout + result.stderr
    _lists_every_command(result.stdout, "" if "--help" in args or "help" in args else "cuda ")


@pytest.mark.parametrize(
    ("program", "args", "message"),
    [
        ("poetry-cuda", ("lokc",), 'The command "lokc" does not exist. Did you mean lock?'),
        (
            "poetry-cuda",
            ("plna", "--json"),
            'The command "plna" does not exist. Did you mean plan?',
        ),
        ("poetry-cuda", ("frobnicate",), 'The command "frobnicate" does not exist.'),
        (
            "poetry",
            ("cuda", "lokc"),
            'The command "cuda lokc" does not exist. Did you mean cuda lock?',
        ),
        (
            "poetry",
            ("cuda", "dcotor", "--json"),
            'The command "cuda dcotor" does not exist. Did you mean cuda doctor?',
        ),
    ],
)
def test_a_mistyped_command_is_one_usage_error_with_a_suggestion(
    program: str, args: tuple[str, ...], message: str, cli: Cli, tmp_path: Path
) -> None:
    result = cli.run(*args, cwd=tmp_path, program=program)
    assert result.code == 2, result
    assert result.stdout == ""
    first, fix = result.stderr.strip().splitlines()
    assert first == message
    assert fix.startswith("Fix: `poetry")


def test_the_script_prints_its_version(cli: Cli, tmp_path: Path) -> None:
    result = cli.run("--version", cwd=tmp_path)
    assert result.code == 0
    assert result.stdout.strip() == f"poetry-cuda (version {__version__})"


@pytest.mark.parametrize("name", ["plan", "run"])
def test_help_names_a_command_in_the_script_and_the_plugin_alike(
    name: str, cli: Cli, tmp_path: Path
) -> None:
    script = cli.run("help", name, cwd=tmp_path)
    plugin = cli.run("cuda", "help", name, cwd=tmp_path, program="poetry")
    assert (script.code, plugin.code) == (0, 0), (script, plugin)
    assert script.stdout.split("Help:")[1] == plugin.stdout.split("Help:")[1]
    assert f"poetry-cuda {name}" in script.stdout  # the usage line names the program
    assert f"cuda {name}" in plugin.stdout


def test_the_plugins_list_says_how_to_run_a_command(cli: Cli, tmp_path: Path) -> None:
    result = cli.run("cuda", cwd=tmp_path, program="poetry")
    assert "  poetry cuda <command> [options] [arguments]\n" in result.stdout
    assert "  command [options] [arguments]\n" not in result.stdout  # cleo's generic line


def test_poetry_cuda_list_lists_the_cuda_commands(cli: Cli, tmp_path: Path) -> None:
    """`poetry cuda list` lists what `poetry cuda` and Poetry's `poetry list cuda` list, as
    the script's `poetry-cuda list` does (issue 39, item 9g)."""
    listed = cli.run("cuda", "list", cwd=tmp_path, program="poetry")
    assert listed.code == 0, listed
    assert "does not exist" not in listed.stdout + listed.stderr
    _lists_every_command(listed.stdout, "cuda ")
    assert listed.stdout == cli.run("cuda", cwd=tmp_path, program="poetry").stdout
    poetrys = cli.run("list", "cuda", cwd=tmp_path, program="poetry")
    assert poetrys.code == 0, poetrys
    _lists_every_command(poetrys.stdout, "cuda ")
    script = cli.run("list", cwd=tmp_path)
    assert script.code == 0, script
    _lists_every_command(script.stdout)
