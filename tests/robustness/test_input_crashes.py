"""Inputs that crashed with exit 1 and a traceback: now exit 2 with one message and a fix."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from typing import TYPE_CHECKING

import pytest

from tests.support.cli import BIN
from tests.support.example import EXAMPLES
from tests.support.projects import TORCH
from tests.support.projects import make_project


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Cli


@pytest.fixture
def example(tmp_path: Path) -> Path:
    project = tmp_path / "torch_project"
    shutil.copytree(EXAMPLES / "torch_project", project)
    return project


@pytest.mark.parametrize(
    ("old", "new", "key"),
    [
        ('cuda = "auto"', 'cuda = "banana"', "cuda"),
        ('cuda = "12.4"', 'cuda = "banana"', "targets[0].cuda"),
        ('driver = "550.54.14"', 'driver = "banana"', "targets[0].driver"),
        ('"8.9"', '"banana"', "targets[0].compute-capabilities[0]"),
        (
            'accelerator = "cuda"\ncuda = "12.4"',
            'accelerator = "cuda"\ncuda = "banana"',
            "packages[0].cuda",
        ),
    ],
)
def test_a_cuda_lock_value_that_is_not_a_version(
    cli: Cli, tmp_path: Path, old: str, new: str, key: str
) -> None:
    project = make_project(tmp_path / "app", **TORCH)  # type: ignore[arg-type]
    path = project / "cuda.lock"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    for command in ("env", "doctor"):
        result = cli.run(command, cwd=project)
        output = result.stderr if command == "env" else result.stdout
        assert result.code == (2 if command == "env" else 1), result
        assert f"cuda.lock: {key}: " in output, output
        assert "banana" in output
        assert "Fix: restore it from version control" in output


@pytest.mark.parametrize("pattern", ["hosts/**.json", "**.json", "hosts/a**/*.json"])
def test_a_double_star_inside_a_name_in_targets(cli: Cli, example: Path, pattern: str) -> None:
    pyproject = example / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"hosts/*.json"', repr(pattern)))
    result = cli.run("plan", cwd=example)
    assert result.code == 2, result
    assert f"targets: {pattern!r} is not a valid pattern" in result.stderr
    assert "Fix: write 'hosts/**/*.json'" in result.stderr


def test_a_double_star_as_a_whole_part_is_a_pattern(cli: Cli, example: Path) -> None:
    pyproject = example / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"hosts/*.json"', '"hosts/**/*.json"'))
    result = cli.run("plan", "--json", cwd=example)
    assert result.code == 0, result


def run_with(stdout: int, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "poetry-cuda"), *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.skipif(sys.platform == "win32", reason="closes a POSIX file descriptor")
@pytest.mark.parametrize("args", [("plan",), ("plan", "--json"), ("detect",)])
def test_stdout_closed(example: Path, args: tuple[str, ...]) -> None:
    """`poetry-cuda plan >&-`: a message on stderr, exit 2, no traceback."""
    completed = subprocess.run(
        [str(BIN / "poetry-cuda"), *args],
        cwd=example,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=lambda: os.close(1),  # stdout closed in the child only
    )
    assert completed.returncode == 2, completed
    assert "Traceback" not in completed.stderr
    assert completed.stderr.startswith("standard output is closed\n"), completed.stderr
    assert "Fix: " in completed.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")
@pytest.mark.parametrize("args", [("plan",), ("plan", "--json"), ("doctor",)])
def test_a_reader_that_went_away(example: Path, args: tuple[str, ...]) -> None:
    """`poetry-cuda plan | head -c1`: the reader is gone before the first write."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        completed = run_with(write_end, example, *args)
    finally:
        os.close(write_end)
    assert completed.returncode == 141, completed  # as if stopped by SIGPIPE
    assert completed.stderr == ""
