"""`sync`: install the locked project with its package manager, the fitting extra included."""

from __future__ import annotations

import os

from typing import TYPE_CHECKING
from typing import Any
from typing import ClassVar

from poetry_cuda.cli.commands.base import CudaCommand
from poetry_cuda.cli.commands.base import Option
from poetry_cuda.cli.commands.base import backend_line
from poetry_cuda.cli.commands.base import labelled_line
from poetry_cuda.cli.commands.base import user_language
from poetry_cuda.cli.markup import escape
from poetry_cuda.messages import localize
from poetry_cuda.messages import message


if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from poetry_cuda.backends.base import PackageManager
    from poetry_cuda.doctor.extras import Pick
    from poetry_cuda.locking.lockfile import CudaLock


HELP = """\
Installs what the locks record, with the project's package manager, and never resolves
anew: `uv sync --locked` for a uv project, `poetry install` for a Poetry one.

A multi-variant project (cuda.lock records an extra per CUDA build) gets, for each
family, the extra that fits this machine: the highest-CUDA one whose build runs on its
driver and serves every GPU (native or minor-compatible; native only with the
recorded policy native), the CPU build where there is
no NVIDIA driver (on a GPU machine only with allow-cpu-fallback = true). uv installs it
with --extra NAME (--group NAME for a group), Poetry with --extras NAME (--with NAME).

With install = "shared", a Poetry project's locked wheels are first linked into
Poetry's own virtual environment from the per-user store (`store` lists it), and
`poetry install` then finds them in place.

--dry-run prints the extra chosen, why, and the command; it runs nothing.

A `lock` (or `poetry add`) in progress on the project is waited for, up to 30 minutes
(POETRY_CUDA_LOCK_TIMEOUT, in seconds, when set), and sync then installs what it locked;
none starts while sync installs.

Exit codes: 0 installed (or, with --dry-run, printed); 2 no cuda.lock, a stale one or a
stale package manager's lock (by its own check: `uv lock --check`, Poetry's content hash;
run `lock` first), a poetry.lock that installs two versions of one distribution here
(both named, with the pin that keeps one), or bad configuration; 3 no extra fits this machine (each extra is
named with the reason); 4 the package manager's install failed (its message is above).
"""
LOCK_FIRST = message("sync.lock-first")


class SyncCommand(CudaCommand):
    name = "sync"
    description = "Install the locked project; a multi-variant one with the extra fitting here."
    help = HELP
    options: ClassVar[tuple[Option, ...]] = (
        Option("dry-run", "Print the extra chosen and the command; run nothing."),
    )

    def run_command(self) -> int:
        from poetry_cuda.locking import transaction
        from poetry_cuda.request.project import find_project

        project = find_project(self.project_start())
        # One run per project: a lock in progress finishes first (its journal is no dead
        # run's), and no lock changes the files while they are installed.
        language = user_language()
        # It waits as long as a cold lock may take: what the lock leaves is what it installs.
        with transaction.exclusive(
            project,
            lambda said: self.line_error(escape(localize(said, language))),
            wait=transaction.RESULT_WAIT,
        ):
            return self._sync(project)

    def _sync(self, project: Path) -> int:
        from poetry_cuda.cli.registry import package_manager
        from poetry_cuda.locking.state import require_installable

        cuda_lock, pyproject = require_installable(project, fix=LOCK_FIRST)
        backend = package_manager(cuda_lock.backend)
        check_manager_lock(backend, project)
        from poetry_cuda.locking.duplicates import refuse_install

        refuse_install(project, backend.lockfile)  # two versions of one distribution here
        picks = fitting_extras(cuda_lock, pyproject) if cuda_lock.extras else ()
        extras, groups = selection(picks)
        command = backend.install_command(extras, groups)
        language = user_language()
        self.line(backend_line(backend.name, message("backend.recorded"), language))
        for pick in picks:
            if pick.extra is not None:  # always: `fitting_extras` refused the others
                chosen = message(
                    "sync.extra" if pick.extra.chosen_by_name else "sync.platform-fork",
                    extra=pick.extra.name,
                    family=pick.family,
                    reason=pick.reason,
                )
                self.line(labelled_line(chosen.text(language)))
        dry_run = bool(self.option("dry-run"))
        from poetry_cuda.wheelstore.project import shared_install

        say = lambda said: self.line(escape(localize(said, language)))
        shared_install(project, pyproject, backend.name, (extras, groups), say, dry_run)
        if dry_run:
            self.line(escape(message("sync.would-run", command=command).text(language)))
            return 0
        self.line(escape(message("sync.running", command=command).text(language)))
        backend.install(project, command)
        if cuda_lock.toolkit is not None:
            from poetry_cuda.cudaenv.project_env import ensure_redist_toolkit

            tree = ensure_redist_toolkit(project, load_manager=package_manager)
            if tree is not None:
                toolkit = message("sync.toolkit", toolkit=tree.describe())
                self.line(labelled_line(toolkit.text(language)))
        return 0


def check_manager_lock(backend: PackageManager, project: Path) -> None:
    """Exit 2 unless the package manager's lock fits pyproject.toml (`state.require_manager_lock`)."""
    if backend.name == "poetry":  # the same message as the install's, before Poetry's check
        from poetry_cuda.backends.poetry.runner import require_poetry

        require_poetry('cuda.lock records backend "poetry"')
    from poetry_cuda.locking.state import require_manager_lock

    require_manager_lock(backend, project, fix=LOCK_FIRST)


def fitting_extras(cuda_lock: CudaLock, pyproject: dict[str, Any]) -> tuple[Pick, ...]:
    """The extra of each family that fits this machine, as detected; exit 3 when one has none."""
    from poetry_cuda.doctor.extras import pick_extras
    from poetry_cuda.doctor.extras import refusal
    from poetry_cuda.host.detect import detect_this_machine
    from poetry_cuda.knowledge import packaged
    from poetry_cuda.knowledge.packaged import nvidia as packaged_nvidia
    from poetry_cuda.planning.gpu_stacks import GpuStacks
    from poetry_cuda.planning.targets import settle
    from poetry_cuda.request.settings import parse_settings

    settings = parse_settings(pyproject)
    nvidia = packaged_nvidia()
    target, _ = settle(detect_this_machine(os.environ), nvidia)
    picks = pick_extras(
        cuda_lock.extras,
        target,
        nvidia,
        GpuStacks(packaged.rocm(), packaged.xpu()),
        policy=cuda_lock.policy,
        allow_cpu_fallback=settings.allow_cpu_fallback,
    )
    error = refusal(picks, target)
    if error is not None:
        raise error
    return picks


def selection(picks: Sequence[Pick]) -> tuple[list[str], list[str]]:
    """The chosen extras' names: (extras, groups)."""
    chosen = [p.extra for p in picks if p.extra is not None]
    return (
        [e.name for e in chosen if e.kind == "extra"],
        [e.name for e in chosen if e.kind == "group"],
    )
