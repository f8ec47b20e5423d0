"""Poetry as a `PackageManager`: its runner and its editor behind the one interface."""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.backends.base import lockfile_problem
from poetry_cuda.backends.poetry import editor
from poetry_cuda.backends.poetry import runner


if TYPE_CHECKING:
    from collections.abc import Collection
    from collections.abc import Mapping
    from collections.abc import Sequence
    from pathlib import Path

    from poetry_cuda.backends.base import Ahead
    from poetry_cuda.backends.base import InstallCommand
    from poetry_cuda.backends.base import LockedEntry
    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.messages import Localized
    from poetry_cuda.planning.managed import Managed


class PoetryManager:
    name = "poetry"
    lockfile = runner.LOCKFILE
    install_hint = "poetry install"

    def check_pyproject(self, project: Path, pyproject: Mapping[str, Any]) -> None:
        runner.check_pyproject(project, pyproject)

    def rewrite(
        self, text: str, managed: Managed, previous: Collection[str], families: Sequence[Family]
    ) -> str:
        return editor.rewrite(text, managed, previous, families)

    def prepare(self, project: Path, dropped: Collection[str]) -> None:
        editor.prepare(project, dropped)

    def run_lock(self, project: Path, *, regenerate: bool, ahead: Ahead | None = None) -> None:
        # Nothing of Poetry's starts ahead; uv's, started for a project that locks with Poetry
        # after all, is stopped at exit.
        runner.run_lock(project, regenerate=regenerate)

    def locked(self, project: Path, name: str) -> list[LockedEntry]:
        return runner.locked(project, name)

    def lockfile_problem(self, project: Path) -> Localized | None:
        return lockfile_problem(project / self.lockfile, "metadata")

    def outdated(self, project: Path) -> str | None:
        return runner.outdated(project)

    def outdated_offline(self, project: Path) -> str | None:
        return None  # Poetry's check loads its whole application: seconds, not a fraction

    def environment(self, project: Path, environ: Mapping[str, str]) -> Path | None:
        return runner.environment(project, environ)

    def install_command(self, extras: Sequence[str], groups: Sequence[str]) -> InstallCommand:
        return runner.install_command(extras, groups)

    def install(self, project: Path, command: InstallCommand) -> None:
        runner.install(project, command)
