"""May this cuda.lock be installed: the one install gate.

`sync` refuses what the gate finds (`require_installable`, `require_manager_lock`), the
plugin's install hook warns with it (`cli.hooks`), doctor reports it
(`doctor.facts.LockState`). Whether the builds the lock records serve this machine's GPU
is `locking.recorded.unserved`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Literal

from poetry_cuda.errors import InputFileError
from poetry_cuda.files import read_toml
from poetry_cuda.locking import lockfile
from poetry_cuda.locking import transaction
from poetry_cuda.locking.freshness import is_fresh
from poetry_cuda.messages import message
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from poetry_cuda.backends.base import PackageManager
    from poetry_cuda.messages import Localized


def lock_command(backend: str | None) -> str:
    """How a fix names `lock` for a project of `backend` (None: not known yet)."""
    if backend == "uv":
        return "`uv run poetry-cuda lock` (or `poetry-cuda lock`)"
    return "`poetry cuda lock` (or `poetry-cuda lock`)"


@frozen
class Gate:
    """What stands between a cuda.lock and its install: a run's journal, a stale cuda.lock."""

    run: Literal["live", "dead"] | None  # a poetry-cuda run's journal in the project
    fresh: bool  # cuda.lock's content hash matches pyproject.toml

    @property
    def open(self) -> bool:
        return self.run is None and self.fresh

    def run_said(self, lock: str) -> str | None:
        """The run whose journal is in the way, in one line; None: none is."""
        if self.run == "live":
            return (
                "another poetry-cuda run is changing pyproject.toml and the locks now "
                f"({transaction.JOURNAL} is its journal); install once it has finished"
            )
        if self.run == "dead":
            return (
                f"a poetry-cuda run stopped before it finished and left {transaction.JOURNAL}; "
                f"run {lock} to undo it before installing"
            )
        return None

    def reasons(self, lock: str) -> list[str]:
        """Each obstacle in one line; `lock` is how the fix names the lock command."""
        run = self.run_said(lock)
        found = [run] if run else []
        if not self.fresh:
            found.append(
                f"{lockfile.FILENAME} is stale: the CUDA-relevant parts of pyproject.toml "
                f"changed since it was written; run {lock}"
            )
        return found


def gate(project: Path, cuda_lock: lockfile.CudaLock, pyproject: dict[str, Any]) -> Gate:
    """The gate for `cuda_lock` of `project` (whose pyproject.toml is `pyproject`)."""
    return Gate(transaction.run_state(project), is_fresh(cuda_lock, pyproject))


def require_installable(
    project: Path, *, fix: Localized
) -> tuple[lockfile.CudaLock, dict[str, Any]]:
    """The project's cuda.lock and pyproject.toml; InputFileError (exit 2) when cuda.lock is
    missing, stale or left by a dead run. Call holding the project
    (`transaction.exclusive`): a journal there is a dead run's, never a live one's."""
    path = project / lockfile.FILENAME
    if not path.is_file():
        raise InputFileError(
            message("sync.no-lock", project=project),
            why=message("sync.no-lock-why"),
            fix=fix,
        )
    cuda_lock = lockfile.read(path)
    pyproject = read_toml(project / "pyproject.toml")
    found = gate(project, cuda_lock, pyproject)
    if found.run is not None:
        transaction.read_journal(project)  # one `lock` would refuse is refused as it says
        raise InputFileError(
            f"a poetry-cuda run stopped before it finished and left {transaction.JOURNAL}",
            why="the locks may hold half of what that run wrote",
            fix=f"{fix}: lock undoes the dead run's changes",
        )
    if not found.fresh:
        raise InputFileError(
            f"{lockfile.FILENAME} is stale: the CUDA-relevant parts of pyproject.toml changed "
            "since it was written",
            why="installing it would install a decision made for another pyproject.toml",
            fix=fix,
        )
    return cuda_lock, pyproject


def require_manager_lock(backend: PackageManager, project: Path, *, fix: Localized) -> None:
    """InputFileError (exit 2) unless the package manager's lock exists and fits
    pyproject.toml by the manager's own check (`uv lock --check`, Poetry's content hash):
    its install would refuse a stale one, or install what was locked for another
    pyproject.toml."""
    missing = backend.lockfile_problem(project)
    if missing:
        raise InputFileError(
            missing,
            why="sync installs what cuda.lock and the package manager's lock record, and never "
            "resolves anew",
            fix=fix,
        )
    outdated = backend.outdated(project)
    if outdated:
        raise InputFileError(
            f"{backend.lockfile} is stale: it no longer fits pyproject.toml ({outdated})",
            why="sync installs the locks as they are and never resolves anew; "
            f"{backend.name} would refuse to install this one",
            fix=fix,
        )
