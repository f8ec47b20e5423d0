"""Work started ahead: the NVML worker, and uv's check of uv.lock, run beside a command's
own imports and planning.

Starting a Python process that imports pynvml takes as long as a command's imports; a
command that will detect this machine starts it first (`host.nvml.start_early`) and hands
it to detection (`early=`), which collects its answer. A command that plans for given targets (an
option, the environment, `targets` in pyproject.toml, the targets cuda.lock records for
`lock --check`) starts none. In a uv project, `lock` also starts uv's part of the lock
(`backends.uv.runner.start_ahead`), which writes nothing in the project and is used only if
the plan leaves pyproject.toml as it was.

What was started is one `Prefetched`, which the command holds and hands down: the NVML
worker to detection (`early`), uv's handle to the lock (`ahead`); whatever nothing
collected is stopped when the command ends (`Prefetched.stop`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.files import read_toml
from poetry_cuda.request.project import nearest_project


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping
    from pathlib import Path

    from poetry_cuda.backends.base import Ahead
    from poetry_cuda.host.nvml import EarlyWorker


class Prefetched:
    """What was started ahead of a command: `early`, the NVML worker detection collects, and
    `ahead`, the package manager's part of a lock, which the lock takes (`run_lock(ahead=)`)."""

    def __init__(self, early: EarlyWorker | None = None, ahead: Ahead | None = None) -> None:
        self.early = early
        self.ahead = ahead

    def stop(self) -> None:
        """Stop what nothing collected."""
        if self.early is not None:
            self.early.stop()
        if self.ahead is not None:
            self.ahead.stop()


def start_ahead(
    command: str, option: Callable[[str], Any], environ: Mapping[str, str], start: Path
) -> Prefetched:
    """Start what `command`, as invoked, is going to wait for."""
    ahead = None
    if command == "lock" and not any(option(name) for name in ("check", "dry-run", "regenerate")):
        ahead = _start_uv_lock(environ, start)
    return Prefetched(early=_start_detection(command, option, environ, start), ahead=ahead)


def _start_uv_lock(environ: Mapping[str, str], start: Path) -> Ahead | None:
    project = nearest_project(start)
    if project is None or not _is_uv_project(project):
        return None
    from poetry_cuda.backends.uv import runner  # a Poetry project never loads the uv backend

    try:
        return runner.start_ahead(runner.find_uv(environ), project)
    except PoetryCudaError:
        return None  # the lock says what is wrong with uv, if it comes to run it


def _is_uv_project(project: Path) -> bool:
    """Whether the lock's own choice of backend (`backends.choice.choose`) is going to be uv."""
    from poetry_cuda.backends.choice import choose
    from poetry_cuda.request.settings import parse_settings

    try:
        pyproject = read_toml(project / "pyproject.toml")
        return choose(parse_settings(pyproject).backend, project, pyproject) == "uv"
    except PoetryCudaError:
        return False  # the lock says what is wrong with pyproject.toml


def _start_detection(
    command: str, option: Callable[[str], Any], environ: Mapping[str, str], start: Path
) -> EarlyWorker | None:
    """Start the NVML worker now when `command`, as invoked, is going to detect."""
    if command == "doctor" or (command == "detect" and not option("target")):
        pass
    elif (
        command not in ("plan", "lock")
        or option("target")
        or _given_targets(command == "lock" and option("check"), environ, start)
    ):
        return None
    from poetry_cuda.host.nvml import start_early

    return start_early(environ)


def _given_targets(checking: bool, environ: Mapping[str, str], start: Path) -> bool:
    """Whether the plan has targets other than this machine (or may: an unreadable file),
    and detects nothing: `plan` and `lock` detect it even for the targets cuda.lock records,
    to say when they leave its GPU unused; `lock --check` (`checking`) does not."""
    from poetry_cuda.planning.targets import TARGET_ENV

    if environ.get(TARGET_ENV):
        return True
    project = nearest_project(start)
    if project is None:
        return True  # the command stops before detecting
    if checking and (project / "cuda.lock").is_file():
        return True  # it plans again for the targets cuda.lock records
    try:
        tool = read_toml(project / "pyproject.toml").get("tool", {})
    except PoetryCudaError:
        return True
    table = tool.get("poetry-cuda") if isinstance(tool, dict) else None
    return isinstance(table, dict) and bool(table.get("targets"))
