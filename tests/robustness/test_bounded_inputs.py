"""Input files are read only when they are regular files of a sane size.

A named pipe would block the read for ever and a device (/dev/zero) never ends: each is
refused with exit 2 and one message, through the real `poetry-cuda`, with a bounded wait
so that a hang fails the test instead of the suite.
"""

from __future__ import annotations

import os
import shutil
import sys

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import InputFileError
from poetry_cuda.files import CUDA_LOCK_LIMIT
from poetry_cuda.files import PROFILE_LIMIT
from poetry_cuda.files import TOML_LIMIT
from poetry_cuda.files import read_toml
from poetry_cuda.files import read_toml_once
from tests.support.example import EXAMPLES
from tests.support.projects import TORCH
from tests.support.projects import make_project


if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.support.cli import Cli
    from tests.support.cli import Result


pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero are POSIX")
WAIT = 120  # a hang fails the test after this many seconds; a pass takes one or two
TARGETS_LINE = 'targets = ["hosts/*.json"]'


@pytest.fixture
def example(tmp_path: Path) -> Path:
    project = tmp_path / "torch_project"
    shutil.copytree(EXAMPLES / "torch_project", project)
    return project


def without_targets(project: Path) -> Path:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(TARGETS_LINE, ""))
    return project


def fifo(path: Path) -> Path:
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    return path


def link_to_dev_zero(path: Path) -> Path:
    path.unlink(missing_ok=True)
    path.symlink_to("/dev/zero")
    return path


def sparse(path: Path, size: int) -> Path:
    """A regular file of `size` bytes that takes no room on disk."""
    with path.open("wb") as handle:
        handle.truncate(size)
    return path


def refused(result: Result, name: str, problem: str) -> None:
    assert result.code == 2, result
    assert name in result.stderr and problem in result.stderr, result.stderr
    assert "Fix:" in result.stderr
    assert result.stderr.count("\n") <= 3, result.stderr  # one message: what, why, fix


def test_a_fifo_as_poetry_cuda_target(cli: Cli, example: Path) -> None:
    pipe = fifo(example / "host.json")
    result = cli.run(
        "plan", cwd=without_targets(example), env={"POETRY_CUDA_TARGET": str(pipe)}, timeout=WAIT
    )
    refused(result, "host.json", "named pipe")


def test_a_fifo_as_target_option(cli: Cli, example: Path) -> None:
    fifo(example / "host.json")
    result = cli.run("plan", "--target", "host.json", cwd=example, timeout=WAIT)
    refused(result, "host.json", "named pipe")


def test_a_fifo_matched_by_targets(cli: Cli, example: Path) -> None:
    fifo(example / "hosts" / "pipe.json")
    result = cli.run("plan", cwd=example, timeout=WAIT)
    refused(result, "hosts/pipe.json", "named pipe")


def test_a_target_linked_to_dev_zero(cli: Cli, example: Path) -> None:
    link_to_dev_zero(example / "zero.json")
    result = cli.run("plan", "--target", "zero.json", cwd=example, timeout=WAIT)
    refused(result, "zero.json", "character device")


def test_a_target_linked_to_a_fifo_in_the_project(cli: Cli, example: Path) -> None:
    fifo(example / "hosts" / "pipe")
    (example / "hosts" / "pipe.json").symlink_to("pipe")
    result = cli.run("plan", cwd=example, timeout=WAIT)
    refused(result, "hosts/pipe.json", "named pipe")


def test_an_oversized_target(cli: Cli, example: Path) -> None:
    sparse(example / "hosts" / "huge.json", PROFILE_LIMIT + 1)
    result = cli.run("plan", cwd=example, timeout=WAIT)
    refused(result, "hosts/huge.json", "larger than 4 MiB")


def test_a_target_linked_to_a_regular_file_is_read(cli: Cli, example: Path) -> None:
    hosts = example / "hosts"
    (hosts / "laptop-macos.json").unlink()
    (example / "rtx.json").symlink_to(hosts / "workstation-rtx4090.json")
    result = cli.run("plan", "--target", "rtx.json", cwd=example, timeout=WAIT)
    assert result.code == 0, result
    assert "cu124" in result.stdout


CUDA_LOCK_CASES: dict[str, tuple[Callable[[Path], object], str]] = {
    "fifo": (fifo, "named pipe"),
    "dev-zero": (link_to_dev_zero, "character device"),
    "oversized": (lambda path: sparse(path, CUDA_LOCK_LIMIT + 1), "larger than 8 MiB"),
}


@pytest.mark.parametrize("case", sorted(CUDA_LOCK_CASES))
def test_a_cuda_lock_that_is_not_a_regular_file(cli: Cli, tmp_path: Path, case: str) -> None:
    project = make_project(tmp_path / "app", **TORCH)  # type: ignore[arg-type]
    make, problem = CUDA_LOCK_CASES[case]
    make(project / "cuda.lock")
    refused(cli.run("env", cwd=project, timeout=WAIT), "cuda.lock", problem)
    doctor = cli.run("doctor", cwd=project, timeout=WAIT)
    assert doctor.code == 1, doctor
    assert problem in doctor.stdout


@pytest.mark.parametrize("name", ["poetry.lock", "uv.lock", "pyproject.toml"])
@pytest.mark.parametrize("reader", [read_toml, read_toml_once])
def test_toml_readers_refuse_pipes_devices_and_huge_files(
    tmp_path: Path, name: str, reader: Callable[[Path], object]
) -> None:
    path = tmp_path / name
    for make, problem in (
        (fifo, "named pipe"),
        (link_to_dev_zero, "character device"),
        (lambda p: sparse(p, TOML_LIMIT + 1), "larger than 64 MiB"),
    ):
        make(path)
        with pytest.raises(ConfigError, match=problem):
            reader(path)
        path.unlink()


def test_a_cuda_lock_reader_error_is_an_input_error(tmp_path: Path) -> None:
    from poetry_cuda.locking import lockfile

    with pytest.raises(InputFileError, match="named pipe"):
        lockfile.read(fifo(tmp_path / "cuda.lock"))
