"""The targets a lock is made for, and whether they serve this machine's GPU.

Without a target given, `lock` (and so `plan`, which shows what `lock` will write) plans
for the targets cuda.lock records; only the first lock plans for this machine. A machine
whose GPU those targets leave unused is told so (`unserved`), by `plan`, `lock`, the
plugin's install hook and doctor alike.
"""

from __future__ import annotations

import dataclasses

from typing import TYPE_CHECKING
from typing import Protocol

from poetry_cuda.backends.readers import READERS
from poetry_cuda.knowledge import packaged
from poetry_cuda.locking import lockfile
from poetry_cuda.messages import message
from poetry_cuda.planning.compat import judge
from poetry_cuda.planning.gpu_stacks import GpuStacks
from poetry_cuda.planning.planner import plan_project
from poetry_cuda.planning.targets import RECORDED
from poetry_cuda.planning.targets import settle
from poetry_cuda.request.project import find_project


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterable
    from collections.abc import Mapping
    from pathlib import Path

    from poetry_cuda.host.profiles import HostProfile
    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.knowledge.model import Variant
    from poetry_cuda.messages import Localized
    from poetry_cuda.planning.planner import Options
    from poetry_cuda.planning.planner import Planned
    from poetry_cuda.planning.targets import Target
    from poetry_cuda.versions import CudaVersion


COMMAND = "poetry-cuda lock"  # how messages name `lock` where the caller does not say


def _recorded(project: Path) -> lockfile.CudaLock | None:
    """The project's cuda.lock (None before the first lock)."""
    path = project / lockfile.FILENAME
    return lockfile.read(path) if path.exists() else None


def plan_for_lock(
    start: Path,
    options: Options,
    kb: KnowledgeBase,
    environ: Mapping[str, str],
    *,
    detect: Callable[[Mapping[str, str]], HostProfile],
    command: str = COMMAND,
    judge_here: bool = True,
    offline: bool = False,
) -> Planned:
    """The plan `lock` makes for the project at or above `start`: for the targets given,
    else those cuda.lock records, else this machine; with a warning when the recorded
    targets leave this machine's GPU unused (`command` names the lock in it; `judge_here`
    False: this machine is not detected for it).

    `offline`: for the commands that ask no index (`plan`, `lock --dry-run`, `--check`),
    the builds cuda.lock records as passed over (their index lacked them) are left out
    again, so they show what the last lock wrote; `lock` itself asks the indexes anew."""
    project = find_project(start)
    cuda_lock = _recorded(project)
    # The hosts cuda.lock was made for, and the builds it fell back from.
    recorded = tuple(facts.profile() for facts in cuda_lock.targets) if cuda_lock else ()
    passed_over = frozenset(
        build.key for build in (cuda_lock.unavailable if cuda_lock and offline else ())
    )
    planned = plan_project(
        project,
        dataclasses.replace(options, recorded=recorded),
        kb,
        environ,
        detect=detect,
        readers=READERS,
        stacks=GpuStacks(packaged.rocm(), packaged.xpu()),
        unavailable=passed_over,
    )
    if passed_over:
        builds = ", ".join(" ".join(key) for key in sorted(passed_over))
        said = message("plan.recorded-fallback", builds=builds)
        plan = planned.plan
        planned = dataclasses.replace(
            planned, plan=dataclasses.replace(plan, warnings=(*plan.warnings, said))
        )
    if planned.targets_from != RECORDED or not judge_here:
        return planned
    this, _ = settle(detect(environ), kb.nvidia)
    plan = planned.plan
    warnings = unserved(
        plan.packages,
        planned.settings.cuda.text,
        this,
        kb,
        lock=f"`{command}`",
        where="as planned for the targets cuda.lock records",
    )
    if not warnings:
        return planned
    return dataclasses.replace(
        planned, plan=dataclasses.replace(plan, warnings=(*plan.warnings, *warnings))
    )


class Built(Protocol):
    """A build a lock records or a plan chooses (`LockedPackage`, `Choice`)."""

    @property
    def name(self) -> str: ...

    @property
    def variant(self) -> str: ...

    @property
    def cuda(self) -> CudaVersion | None: ...

    @property
    def version(self) -> str | None: ...


def unserved(
    builds: Iterable[Built],
    requested: str,
    this: Target,
    kb: KnowledgeBase,
    *,
    lock: str,
    where: str = f"from {lockfile.FILENAME}",
) -> list[str]:
    """Why the builds a lock records (or a plan chooses) leave this machine's GPU unused.

    `requested` is the lock's `cuda` request: CPU builds asked for (`cpu`) are no
    surprise. Only a machine with an NVIDIA driver is judged; one line per family, naming
    how to lock for this machine (`lock` is the lock command; `where` says whose builds).
    """
    if not this.runs_cuda or requested == "cpu":
        return []
    found = []
    seen: set[str] = set()
    for build in builds:
        family = kb.family_of(build.name)
        if family is None or family.name in seen:
            continue
        seen.add(family.name)
        if build.cuda is None:
            detail: Localized = f"{build.variant} is a CPU build"
        else:
            variant = _variant(build, kb)
            verdict = judge(variant, this, kb.nvidia) if variant is not None else None
            if verdict is None or verdict.ok:
                continue
            detail = verdict.detail
        found.append(
            f"{build.name} {build.variant} {where} will not use this machine's GPU: {detail}; "
            f"the lock's targets do not include this machine: run {_here(lock)}, or add "
            "this machine's profile (`detect --json`) to `targets`"
        )
    return found


def _here(lock: str) -> str:
    """`lock --target this` in each spelling `lock` gives."""
    return lock.replace(" lock`", " lock --target this`")


def _variant(build: Built, kb: KnowledgeBase) -> Variant | None:
    """The knowledge base's variant of `build`, from the release of its version if known."""
    family = kb.family_of(build.name)
    if family is None:
        return None
    releases = list(reversed(family.releases))
    if build.version:
        base = build.version.split("+", 1)[0]
        matching = [r for r in releases if any(pair.get(build.name) == base for pair in r.pairs)]
        releases = matching or releases
    return next((v for r in releases for v in r.variants if v.name == build.variant), None)
