"""`run CMD [ARGS...]`: everything after CMD's name is CMD's, in the script and in Poetry.

Inside Poetry, `poetry cuda run` is read from Poetry's own command line when the plugin
is activated (`cli.poetry_run`), before Poetry answers CMD's `-V` or `-h` as its own.
"""

from __future__ import annotations

import sys

from typing import TYPE_CHECKING

import pytest

from poetry.console.application import Application

from poetry_cuda.cli.poetry_run import read
from poetry_cuda.cli.poetry_run import taken_by_poetry
from tests.support.projects import TORCH
from tests.support.projects import make_project


if TYPE_CHECKING:
    from pathlib import Path

    from cleo.io.inputs.definition import Definition

    from tests.support.cli import Cli


pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX programs")
PROGRAMS = [("poetry-cuda", ()), ("poetry", ("cuda",))]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "app", **TORCH)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def definition() -> Definition:
    """Poetry's own options, as the plugin reads them."""
    return Application().definition


PYTHON = f"Python {sys.version_info.major}.{sys.version_info.minor}"


@pytest.mark.parametrize(("program", "prefix"), PROGRAMS)
@pytest.mark.parametrize(
    ("cmd", "said"),
    [
        (["python", "-V"], PYTHON),
        (
            ["python", "-c", "import sys; print(sys.argv[1:])", "-q", "--version", "-h"],
            "['-q', '--version', '-h']",
        ),
        (["sh", "-c", "echo $0 $1", "--version", "-q"], "--version -q"),
        (["--", "python", "-V"], PYTHON),
    ],
)
def test_the_command_gets_its_own_options(
    program: str, prefix: tuple[str, ...], cmd: list[str], said: str, cli: Cli, project: Path
) -> None:
    result = cli.run(*prefix, "run", *cmd, cwd=project, program=program)
    assert result.code == 0, result
    assert result.stdout.startswith(said), result


@pytest.mark.parametrize(("program", "prefix"), PROGRAMS)
def test_no_command_is_bad_usage(
    program: str, prefix: tuple[str, ...], cli: Cli, project: Path
) -> None:
    result = cli.run(*prefix, "run", cwd=project, program=program)
    assert result.code == 2
    assert "run: no command given" in result.stderr
    runs = "poetry cuda run" if program == "poetry" else "poetry-cuda run"
    assert f"Fix: write the command after run, e.g. `{runs} nvcc --version`" in result.stderr


def test_inside_poetry_a_directory_option_of_the_command_asks_for_dashes(
    cli: Cli, project: Path, tmp_path: Path
) -> None:
    """Poetry has moved to CMD's `-C DIR` before any plugin runs: said, not run elsewhere."""
    result = cli.run("cuda", "run", "ls", "-C", str(tmp_path), cwd=project, program="poetry")
    assert result.code == 2, result
    assert result.stdout == ""
    assert "Poetry read --directory in `ls -C" in result.stderr
    assert f"Fix: put the command after `--`: `poetry cuda run -- ls -C {tmp_path}`" in (
        result.stderr
    )
    dashed = cli.run(
        "cuda",
        "run",
        "--",
        "sh",
        "-c",
        "echo $0 $1; pwd",
        "-C",
        str(tmp_path),
        cwd=project,
        program="poetry",
    )
    assert dashed.code == 0, dashed
    assert dashed.stdout.split("\n")[:2] == [f"-C {tmp_path}", str(project)]


def test_poetrys_own_options_before_the_command_are_poetrys(
    cli: Cli, project: Path, tmp_path: Path
) -> None:
    moved = cli.run("-C", str(project), "cuda", "run", "pwd", cwd=tmp_path, program="poetry")
    assert (moved.code, moved.stdout.strip()) == (0, str(project))
    version = cli.run("cuda", "run", "-V", "python", cwd=project, program="poetry")
    assert version.stdout.startswith("Poetry (version ")
    helped = cli.run("cuda", "run", "--help", cwd=project, program="poetry")
    assert helped.code == 0
    assert "Everything after CMD's name is CMD's" in helped.stdout


@pytest.mark.parametrize(
    ("argv", "before", "cmd", "dashed"),
    [
        (["cuda", "run", "python", "-V"], set(), ["python", "-V"], False),
        (["-C", "x", "cuda", "run", "-v", "python"], {"directory", "verbose"}, ["python"], False),
        (
            ["cuda", "-Cx", "run", "-qn", "python"],
            {"directory", "quiet", "no-interaction"},
            ["python"],
            False,
        ),
        (
            ["--directory=x", "cuda", "run", "--", "ls", "-C", "y"],
            {"directory"},
            ["ls", "-C", "y"],
            True,
        ),
        (["cuda", "run", "-vvv", "--ansi", "nvcc"], {"verbose", "ansi"}, ["nvcc"], False),
    ],
)
def test_reading_poetrys_line(
    argv: list[str], before: set[str], cmd: list[str], dashed: bool, definition: Definition
) -> None:
    found = read(argv, definition)
    assert found is not None
    assert (set(found.before), list(found.argv), found.dashed) == (before, cmd, dashed)


@pytest.mark.parametrize(
    "argv",
    [
        ["cuda", "run"],
        ["cuda", "run", "--"],
        ["cuda", "run", "--help"],
        ["cuda", "run", "-h", "python"],
        ["cuda", "run", "-V", "python"],
        ["cuda", "run", "--frobnicate", "python"],
        ["cuda", "plan", "--json"],
        ["run", "python", "-V"],
        ["help", "cuda", "run"],
        ["cuda"],
        [],
    ],
)
def test_lines_left_to_poetry(argv: list[str], definition: Definition) -> None:
    assert read(argv, definition) is None


@pytest.mark.parametrize(
    ("arguments", "taken"),
    [
        (["-C", "/tmp"], ["--directory"]),
        (["-C/tmp"], ["--directory"]),
        (["--dir=/tmp"], ["--directory"]),  # Poetry reads a prefix of the name too
        (["-P", "p", "-C", "d"], ["--directory", "--project"]),
        (["-V", "-q", "-v", "--help"], []),
        (["--", "-C", "x"], []),
        (["-c", "print(1)"], []),
    ],
)
def test_what_poetry_took_from_the_commands_arguments(
    arguments: list[str], taken: list[str], definition: Definition
) -> None:
    assert taken_by_poetry(arguments, definition) == taken
