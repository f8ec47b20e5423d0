"""The lock use case, once: `lock --check` (`check_project`), `lock --dry-run`
(`preview_project`), `lock`, and the plugin's re-lock after `poetry add` and `poetry remove`
(`lock_project`).

Each plans as `plan` does (`recorded.plan_for_lock`: for the targets cuda.lock records
when none is given, else this machine; saying when those targets leave this machine's GPU
unused), chooses the backend, and hands the plan to `locking.lock`. What only the interface may create comes in
as arguments: this machine's detection (`detect`), the package-manager loader
(`load_manager`), uv's lock started ahead (`ahead`) and where progress is said (`notify`).
The callers render the outcome.
"""

from __future__ import annotations

import dataclasses

from contextlib import nullcontext
from typing import TYPE_CHECKING

from poetry_cuda.backends.choice import choose_for_lock
from poetry_cuda.locking import lock
from poetry_cuda.locking import transaction
from poetry_cuda.locking.recorded import COMMAND
from poetry_cuda.locking.recorded import plan_for_lock
from poetry_cuda.records import frozen
from poetry_cuda.request.project import find_project


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping
    from pathlib import Path

    from poetry_cuda.backends.base import Ahead
    from poetry_cuda.backends.base import PackageManager
    from poetry_cuda.host.profiles import HostProfile
    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.messages import Localized
    from poetry_cuda.messages import Message
    from poetry_cuda.planning.planner import Options
    from poetry_cuda.planning.planner import Planned


@frozen
class Ask:
    """What the user asked of a lock, and how they run it."""

    options: Options  # the planning options of the command line
    command: str = COMMAND  # `poetry cuda lock`, `poetry-cuda lock`: for the messages
    inside_poetry: str | None = None  # the Poetry command running poetry-cuda, if one does
    adopt: bool = False
    regenerate: bool = False


@frozen
class Checked:
    """`lock --check`: the plan, and why the locks are not what `lock` would leave."""

    planned: Planned
    stale: tuple[Localized, ...]


def _backend(
    planned: Planned, ask: Ask, load_manager: Callable[[str], PackageManager]
) -> tuple[PackageManager, Message]:
    """The package manager that locks the project, and why."""
    name, reason = choose_for_lock(
        planned.settings.backend,
        planned.project,
        planned.pyproject,
        inside_poetry=ask.inside_poetry,
    )
    return load_manager(name), reason


def check_project(
    start: Path,
    ask: Ask,
    kb: KnowledgeBase,
    environ: Mapping[str, str],
    *,
    detect: Callable[[Mapping[str, str]], HostProfile],
    load_manager: Callable[[str], PackageManager],
) -> Checked:
    """`lock --check`: why the project's locks are not what `lock` would leave; writes nothing.

    Offline, it cannot ask the indexes as `lock` does: the builds cuda.lock records as
    passed over (the index lacked them) are left out again, so a lock that fell back is fresh.
    """
    planned = plan_for_lock(
        start, ask.options, kb, environ, detect=detect, judge_here=False, offline=True
    )
    backend, _ = _backend(planned, ask, load_manager)
    return Checked(planned, lock.stale_reasons(planned, backend))


def preview_project(
    start: Path,
    ask: Ask,
    kb: KnowledgeBase,
    environ: Mapping[str, str],
    *,
    detect: Callable[[Mapping[str, str]], HostProfile],
    load_manager: Callable[[str], PackageManager],
) -> lock.Outcome:
    """`lock --dry-run`: what `lock` would write; writes and resolves nothing."""
    planned = plan_for_lock(
        start, ask.options, kb, environ, detect=detect, command=ask.command, offline=True
    )
    backend, reason = _backend(planned, ask, load_manager)
    outcome = lock.preview(planned, backend, adopt=ask.adopt, command=ask.command)
    return dataclasses.replace(outcome, backend_reason=reason)


def lock_project(
    start: Path,
    ask: Ask,
    kb: KnowledgeBase,
    environ: Mapping[str, str],
    *,
    detect: Callable[[Mapping[str, str]], HostProfile],
    load_manager: Callable[[str], PackageManager],
    notify: Callable[[Localized], None],
    ahead: Ahead | None = None,
    held: bool = False,
) -> lock.Outcome:
    """Plan, write the managed entries, run the manager's lock, verify, write cuda.lock.

    The project is held (`transaction.session`) from the plan to cuda.lock, so that the
    lock plans on what the run before it left; `held`: the caller holds it already (the
    plugin holds it through the whole `poetry add`).
    """
    project = find_project(start)
    with nullcontext() if held else transaction.session(project, notify):
        planned = plan_for_lock(
            project, ask.options, kb, environ, detect=detect, command=ask.command
        )
        backend, reason = _backend(planned, ask, load_manager)
        # The one place for what must hold of the plan before the package manager runs
        # (whether the chosen builds are served by their indexes): here, between the plan
        # and `lock.lock`, inside the project's hold.
        outcome = lock.lock(
            planned,
            backend,
            regenerate=ask.regenerate,
            notify=notify,
            environ=environ,
            adopt=ask.adopt,
            command=ask.command,
            ahead=ahead,
        )
    return dataclasses.replace(outcome, backend_reason=reason)
