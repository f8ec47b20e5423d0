"""Every command's --help, from the script and from the plugin."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.cli.commands import COMMANDS


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


def test_the_script_names_itself(cli: Cli, tmp_path: Path) -> None:
    assert cli.run("--version", cwd=tmp_path).stdout.startswith("poetry-cuda (version ")
