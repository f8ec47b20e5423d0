"""uv as a `PackageManager`: its runner and its editor behind the one interface."""

from __future__ import annotations

import os

from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.backends.base import lockfile_problem
from poetry_cuda.backends.uv import editor
from poetry_cuda.backends.uv import runner


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


class UvManager:
    name = "uv"
    lockfile = runner.LOCKFILE
    install_hint = "uv sync"

    def check_pyproject(self, project: Path, pyproject: Mapping[str, Any]) -> None:
        # uv reads every pyproject.toml poetry-cuda can (a BOM included).
        runner.refuse_user_mirrors(os.environ)

    def rewrite(
        self, text: str, managed: Managed, previous: Collection[str], families: Sequence[Family]
    ) -> str:
        return editor.rewrite(text, managed, previous, families)

    def prepare(self, project: Path, dropped: Collection[str]) -> None:
        editor.prepare(project, dropped)

    def run_lock(self, project: Path, *, regenerate: bool, ahead: Ahead | None = None) -> None:
        runner.run_lock(runner.find_uv(os.environ), project, regenerate=regenerate, ahead=ahead)

    def locked(self, project: Path, name: str) -> list[LockedEntry]:
        return runner.locked(project, name)

    def lockfile_problem(self, project: Path) -> Localized | None:
        return lockfile_problem(project / self.lockfile, "version")

    def outdated(self, project: Path) -> str | None:
        return runner.outdated(runner.find_uv(os.environ), project)

    def outdated_offline(self, project: Path) -> str | None:
        return runner.outdated_offline(project)

    def environment(self, project: Path, environ: Mapping[str, str]) -> Path | None:
        return runner.environment(project, environ)

    def install_command(self, extras: Sequence[str], groups: Sequence[str]) -> InstallCommand:
        return runner.install_command(extras, groups)

    def install(self, project: Path, command: InstallCommand) -> None:
        runner.install(project, command)
