"""`env`'s shell code sets exactly the values, whatever they hold, in the real shells.

Each value is set by evaluating `env`'s output in the shell it is written for (sh, bash,
zsh and fish wherever installed; tests that need one skip without it) and printed back
byte for byte. PowerShell cannot be installed from the registries this project uses, so its
quoting is checked against the language's rules for single-quoted strings, below.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.cudaenv.decide import ProjectEnv
from poetry_cuda.cudaenv.shells import render
from tests.support.projects import TORCH
from tests.support.projects import make_project


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Cli


pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="POSIX shells")

HOSTILE = [
    "plain",
    "",
    "it's",
    "'",
    "''\"\"",
    "a’; New-Item PWNED; ‘",  # PowerShell ends single quotes at U+2018..U+201B too
    "‘‚‛’'",
    "$(touch PWNED)",
    "`touch PWNED`",
    "${HOME}$HOME",
    "back\\slash\\\\ and \\' and \\",
    "new\nline\n",
    "\n",
    "tab\there",
    "semi; touch PWNED; #",
    "* ? [a] ~ {a,b} !x",
    "\x1b]52;c;ZWNobyBQV05FRA==\x07",  # OSC 52: would set the clipboard if printed raw
    "\r\x1b[2KFAIL hidden",
    "\x01\x7f\u0085\u009b\u202e\ufeff",
    "ünïcödé ✓ 中文 🚀",
    "/path/with spaces/and:colons",
]
NAMES = [f"POETRY_CUDA_TEST_{i}" for i in range(len(HOSTILE))]
LINUX_ENV = ProjectEnv("linux", None, None, (), (), (), ())


def shell(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed")
    return found


def evaluated(program: str, code: str, printer: str, cwd: Path) -> list[str]:
    """Run `code` then `printer` in `program`, with each test variable printed NUL-ended."""
    completed = subprocess.run(
        [program, "-c", f"{code}\n{printer}"], capture_output=True, timeout=60, check=True, cwd=cwd
    )
    return completed.stdout.decode().split("\0")[:-1]


RAW = "\x1b\x07\r\x01\x7f\u0085\u009b\u202e\ufeff"


def hostile_code(shell_name: str) -> str:
    """The code for every hostile value, which must print no control character raw (for a
    person who runs `env` to look at it) yet set each value exactly."""
    code = render(shell_name, dict(zip(NAMES, HOSTILE, strict=True)), (), LINUX_ENV)
    assert not any(char in code for char in RAW), repr(code)
    return code


def posix_printer() -> str:
    return "\n".join(f"printf '%s\\0' \"${name}\"" for name in NAMES)


@pytest.mark.parametrize("program", ["sh", "bash", "zsh"])
def test_posix_shells_set_every_value_exactly(program: str, tmp_path: Path) -> None:
    values = evaluated(shell(program), hostile_code("sh"), posix_printer(), tmp_path)
    assert values == HOSTILE
    assert not list(tmp_path.iterdir())  # nothing was executed


def test_fish_sets_every_value_exactly(tmp_path: Path) -> None:
    values = evaluated(shell("fish"), hostile_code("fish"), posix_printer(), tmp_path)
    assert values == HOSTILE
    assert not list(tmp_path.iterdir())


def test_fish_splits_a_path_variable_into_its_folders(tmp_path: Path) -> None:
    folders = ["/a b/bin", "/it's/bin", "/new\nline/bin", "/\x1b[2K/bin"]
    code = render("fish", {"PATH": ":".join(folders)}, (), LINUX_ENV)
    assert "\x1b" not in code
    assert evaluated(shell("fish"), code, "printf '%s\\0' $PATH", tmp_path) == folders


# --- PowerShell, by the language's rules -------------------------------------------------------
# A single-quoted string ends at any of ' U+2018 U+2019 U+201A U+201B; two of them in a row
# stand for the second (the tokenizer's ScanStringLiteral), and nothing else is special:
# no escapes, no variables, newlines included as they are. Our output is
# `$env:NAME = '...'`, or `$env:NAME = ('...' + [char]0xHHHH + ...)` for control characters.

PS_QUOTES = "'\u2018\u2019\u201a\u201b"


def ps_string(code: str, at: int) -> tuple[str, int]:
    assert code[at] in PS_QUOTES
    text, at = [], at + 1
    while True:
        char = code[at]  # IndexError: the string never ends
        if char in PS_QUOTES:
            if at + 1 < len(code) and code[at + 1] in PS_QUOTES:
                text.append(code[at + 1])
                at += 2
                continue
            return "".join(text), at + 1
        text.append(char)
        at += 1


def ps_term(code: str, at: int) -> tuple[str, int]:
    if code.startswith("[char]0x", at):
        digits = code[at + 8 : at + 12]
        return chr(int(digits, 16)), at + 12
    return ps_string(code, at)


def ps_assignments(code: str) -> dict[str, str]:
    """The variables `code` sets, read as PowerShell's tokenizer reads them; anything else
    in `code` (a second statement smuggled out of a string) fails the parse."""
    found, at = {}, 0
    while at < len(code):
        assert code.startswith("$env:", at), code[at:]
        end = code.index(" = ", at)
        name, at = code[at + 5 : end], end + 3
        if code[at] == "(":
            parts, at = [], at + 1
            while True:
                part, at = ps_term(code, at)
                parts.append(part)
                if code[at] == ")":
                    at += 1
                    break
                assert code.startswith(" + ", at), code[at:]
                at += 3
            value = "".join(parts)
        else:
            value, at = ps_string(code, at)
        found[name] = value
        assert at == len(code) or code[at] == "\n", code[at:]
        at += 1
    return found


def test_powershell_sets_every_value_exactly() -> None:
    assert ps_assignments(hostile_code("powershell")) == dict(zip(NAMES, HOSTILE, strict=True))


# --- through the real command: a project folder with a hostile name ---------------------------

# Each holds a typographic quote, which ended PowerShell's string: the injection shown first.
FOLDERS = ["a’; New-Item PWNED; ‘", "it's ‛$(touch PWNED) `x`", "new\nline \\ ‚ \x1b]52;c;eA==\x07"]


@pytest.mark.parametrize("folder", FOLDERS)
def test_env_in_a_project_with_a_hostile_name(cli: Cli, tmp_path: Path, folder: str) -> None:
    project = make_project(tmp_path / "app", **TORCH)  # type: ignore[arg-type]
    project = project.rename(tmp_path / folder)
    (project / ".venv" / "bin").mkdir(parents=True)
    json_result = cli.run("env", "--shell", "json", cwd=project)
    assert json_result.code == 0, json_result
    path = json.loads(json_result.stdout)["set"]["PATH"]
    assert str(project / ".venv" / "bin") in path.split(":")
    printer = "printf '%s\\0' \"$PATH\""
    sh = cli.run("env", "--shell", "sh", cwd=project)
    assert evaluated(shell("sh"), sh.stdout, printer, tmp_path) == [path]
    ps = cli.run("env", "--shell", "powershell", cwd=project)
    assert ps_assignments(ps.stdout.rstrip("\n"))["PATH"] == path
    if shutil.which("fish"):
        fish = cli.run("env", "--shell", "fish", cwd=project)
        fish_path = evaluated(shell("fish"), fish.stdout, printer, tmp_path)
        # fish joins a path variable with ':' when it prints it quoted, as when it exports it.
        assert fish_path == [path]
    assert not (tmp_path / "PWNED").exists() and not (project / "PWNED").exists()
