"""The script's front end: one argparse parser, generated from the commands' specs.

It reads a command's options as the plugin's cleo reads the same specs, owns the help
pages and usage errors, and loads no cleo.
"""

from __future__ import annotations

import ast

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from cleo.application import Application
from cleo.io.inputs.argv_input import ArgvInput
from hypothesis import given
from hypothesis import strategies as st

from poetry_cuda import __version__
from poetry_cuda.cli import registry
from poetry_cuda.cli.commands.base import CudaCommand
from poetry_cuda.cli.commands.cleo_command import cleo_command
from poetry_cuda.cli.registry import COMMANDS
from poetry_cuda.cli.registry import command
from poetry_cuda.cli.script import GLOBALS
from poetry_cuda.cli.script import command_help
from poetry_cuda.cli.script import read_command
from poetry_cuda.cli.script import read_globals
from poetry_cuda.cli.script import run_script
from poetry_cuda.errors import UsageError


if TYPE_CHECKING:
    from tests.support.cli import Cli


PACKAGE = Path(__file__).resolve().parents[2] / "poetry_cuda"


def cleo_values(name: str, tokens: list[str]) -> dict[str, Any]:
    """What cleo reads from `cuda NAME TOKENS...` (the plugin), or a CleoError."""
    body = command(name)
    cleo = cleo_command(body, name)
    Application().add(cleo)  # for the application's own options, as inside Poetry
    cleo.merge_application_definition()
    given = ArgvInput(["poetry", name, *tokens])
    given.bind(cleo.definition)
    given.validate()
    values = {o.name: given.option(o.name) for o in body.options}
    values.update({a.name: given.argument(a.name) for a in body.arguments})
    return values


def script_values(name: str, tokens: list[str]) -> dict[str, Any] | None:
    try:
        return read_command(command(name), tokens)[0]
    except UsageError:
        return None


TOKENS = st.lists(
    st.sampled_from(
        [
            "--json",
            "--target",
            "--target=a.json",
            "--cuda",
            "12.4",
            "--cuda=cu124",
            "-v",
            "--cuda=",
            "",
            "-",
            "--",
            "--policy",
            "native",
            "--shell",
            "fish",
            "--dry-run",
            "--deep",
            "--check",
            "--adopt",
            "--prune",
            "--check-index",
            "nvcc",
            "-x",
            "--regenerate=1",
            "-q",
        ]
    ),
    max_size=6,
)
# `run` reads everything after its command's name as that command's, where cleo reads on.
OPTIONED = sorted(name for name in COMMANDS if name != "run")


@pytest.mark.parametrize("name", OPTIONED)
@given(tokens=TOKENS)
def test_where_the_script_and_cleo_both_read_a_line_they_read_it_alike(
    name: str, tokens: list[str]
) -> None:
    ours = script_values(name, tokens)
    try:
        theirs = cleo_values(name, tokens)
    except Exception:  # noqa: BLE001 - cleo refuses the line
        return
    if ours is not None:
        assert ours == theirs


@pytest.mark.parametrize(
    ("name", "tokens"),
    [
        ("plan", ["--json", "--cuda", "12.4", "--target", "a.json", "--target=b.json"]),
        ("lock", ["--dry-run", "--adopt", "--policy=native"]),
        ("env", ["--shell", "fish"]),
        ("doctor", []),
        ("store", ["--prune", "--json"]),
        ("sync", ["--dry-run"]),
        ("detect", ["--json", "--target", "a.json"]),
    ],
)
def test_the_common_lines_read_as_cleo_reads_them(name: str, tokens: list[str]) -> None:
    assert script_values(name, tokens) == cleo_values(name, tokens)


@pytest.mark.parametrize(
    ("tokens", "cmd"),
    [
        (["python", "-V"], ["python", "-V"]),
        (["--", "python", "-V"], ["python", "-V"]),
        (["-v", "python", "-c", "print(1)"], ["python", "-c", "print(1)"]),
        (["nvcc", "--version", "--", "-q"], ["nvcc", "--version", "--", "-q"]),
        (["--", "--", "x"], ["--", "x"]),
        ([], []),
        (["--"], []),
    ],
)
def test_everything_after_the_name_of_the_command_to_run_is_its_own(
    tokens: list[str], cmd: list[str]
) -> None:
    values, given = read_command(command("run"), tokens)
    assert values == {"cmd": cmd}
    assert given == ({"verbose": 1} if tokens[:1] == ["-v"] else {})


@pytest.mark.parametrize(
    ("argv", "given", "words"),
    [
        (
            ["-v", "-C", "dir", "plan", "--json"],
            {"verbose": 1, "directory": "dir"},
            ["plan", "--json"],
        ),
        (
            ["--project=p", "-qn", "env"],
            {"project": "p", "quiet": True, "no-interaction": True},
            ["env"],
        ),
        (["--", "plan"], {}, ["plan"]),
        ([], {}, []),
    ],
)
def test_the_scripts_own_options_come_before_the_command(
    argv: list[str], given: dict[str, Any], words: list[str]
) -> None:
    found, rest = read_globals(argv)
    assert rest == words
    assert {name: value for name, value in found.items() if value} == given


def test_the_scripts_own_options_may_follow_the_command_too() -> None:
    values, given = read_command(command("env"), ["-v", "--shell", "fish", "-C", "dir", "-vv"])
    assert values == {"shell": "fish"}
    assert given == {"verbose": 3, "directory": "dir"}


def test_no_command_option_shadows_the_scripts_own() -> None:
    own = {spec.name for spec in GLOBALS}
    for name in COMMANDS:
        assert own.isdisjoint(option.name for option in command(name).options), name


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_commands_help_page_shows_every_option_and_argument(name: str) -> None:
    body = command(name)
    page = "\n".join(command_help(body))
    for option in body.options:
        assert f"--{option.name}" in page
        assert option.description in page
    for argument in body.arguments:
        assert argument.description in page
    assert f"poetry-cuda {name}" in page
    assert page.split("<b>Help:</b>")[1].strip()


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_script(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_comes_three_ways(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    pages = [run(argv, capsys) for argv in ([name, "--help"], ["help", name], ["--help", name])]
    assert pages[0][0] == 0
    assert pages[0][1].startswith("Description:")
    assert pages[0] == pages[1] == pages[2]


@pytest.mark.parametrize("argv", [["--version"], ["-V", "-v"], ["plan", "--version"]])
def test_the_version(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(argv, capsys) == (0, f"poetry-cuda (version {__version__})\n", "")


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["lock", "--frobnicate"], 'The option "--frobnicate" does not exist.'),
        (["--frobnicate=1", "lock"], 'The option "--frobnicate" does not exist.'),
        (["-x", "plan"], 'The option "-x" does not exist.'),
        (["plan", "extra"], 'No arguments expected for "plan", got "extra".'),
        (["plan", "--cuda"], "--cuda"),
        (["plan", "--json=yes"], "--json"),
        (["env", "--shell"], "--shell"),
        (["-C"], "-C/--directory"),
        (["help", "lokc"], 'The command "lokc" does not exist. Did you mean lock?'),
        (["-C", "/no/such/folder", "plan"], "/no/such/folder"),
        (["-P", "/no/such/folder", "plan"], "/no/such/folder"),
    ],
)
def test_bad_usage_is_one_message_and_exit_2(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(argv, capsys)
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert says in lines[0]
    assert lines[-1].startswith("Fix: ")
    assert len(lines) <= 3


class Broken(CudaCommand):
    name = "store"
    description = "Raises what no command expects."

    def run_command(self) -> int:
        raise RuntimeError("a bug")


def test_a_bug_is_one_message_and_the_traceback_only_with_v(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(registry.COMMANDS, "store", lambda: Broken)
    code, out, err = run(["store"], capsys)
    assert code == 1
    assert out == ""
    assert err.splitlines()[0] == (
        "poetry-cuda stopped on an unexpected error: RuntimeError: a bug"
    )
    assert "Traceback" not in err
    code, out, err = run(["store", "-v"], capsys)
    assert code == 1
    assert "Traceback (most recent call last):" in err
    assert 'raise RuntimeError("a bug")' in err


def _loaded_imports(path: Path) -> set[str]:
    """The modules `path` imports as it loads (outside functions and TYPE_CHECKING)."""
    found = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_cleo_is_loaded_only_by_the_plugin_and_its_command_adapter() -> None:
    loads = sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if any(module.split(".")[0] == "cleo" for module in _loaded_imports(path))
    )
    assert loads == ["cli/commands/cleo_command.py", "cli/commands/namespace.py", "cli/plugin.py"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    from tests.support.projects import TORCH
    from tests.support.projects import make_project

    return make_project(tmp_path / "app", **TORCH)  # type: ignore[arg-type]


def test_directory_and_project_say_where_to_work(cli: Cli, project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    expected = cli.run("env", "--shell", "json", cwd=project)
    assert expected.code == 0, expected
    for args in (
        ("-C", str(project), "env", "--shell", "json"),
        ("--directory", "../app", "env", "--shell", "json"),
        ("env", "--shell", "json", "-P", str(project)),
        ("--project=../app", "env", "--shell", "json"),
    ):
        result = cli.run(*args, cwd=elsewhere)
        assert (result.code, result.stdout) == (0, expected.stdout), (args, result)
    moved = cli.run("-C", str(project), "run", "pwd", cwd=elsewhere)
    assert moved.stdout.strip() == str(project)
    stayed = cli.run("-P", str(project), "run", "pwd", cwd=elsewhere)
    assert stayed.stdout.strip() == str(elsewhere)
