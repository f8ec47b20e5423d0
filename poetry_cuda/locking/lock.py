"""`lock`: plan, write the managed configuration, run the backend's lock, verify, record.

The whole step is one transaction (see `transaction`): if resolution or verification
fails, or the process is interrupted (SIGINT, SIGTERM), pyproject.toml, the backend's
lock file and cuda.lock are put back as they were, where they still hold what this run
wrote.
"""

from __future__ import annotations

import dataclasses
import difflib
import re

from dataclasses import dataclass
from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda import backends
from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.errors import ResolutionError
from poetry_cuda.files import read_text
from poetry_cuda.files import starts_with_bom
from poetry_cuda.locking import lockfile
from poetry_cuda.locking import transaction
from poetry_cuda.locking.lockfile import CudaLock
from poetry_cuda.locking.lockfile import LockedPackage
from poetry_cuda.locking.lockfile import TargetFacts
from poetry_cuda.locking.managed import Managed


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping
    from pathlib import Path

    from poetry_cuda.backends import Backend
    from poetry_cuda.backends import LockedEntry
    from poetry_cuda.planning.plan import Choice
    from poetry_cuda.planning.plan import Plan
    from poetry_cuda.planning.plan import SystemRequirement
    from poetry_cuda.planning.planner import Planned


@dataclass(frozen=True)
class Outcome:
    planned: Planned
    cuda_lock: CudaLock
    diff: str  # unified diff of pyproject.toml (empty when unchanged)
    stale: tuple[str, ...] = ()  # --check: why the lock is stale


def build_lock(
    planned: Planned,
    backend: str,
    locked: dict[str, str | None],
    requirements: tuple[SystemRequirement, ...] | None = None,
) -> CudaLock:
    """cuda.lock for the plan; `requirements` as cross-checked with the lock (default: the plan's)."""
    plan = planned.plan
    return CudaLock(
        content_hash="",
        backend=backend,
        policy=plan.policy,
        cuda=planned.settings.cuda.text,
        targets=tuple(TargetFacts.of(t) for t in planned.targets),
        packages=tuple(
            LockedPackage(
                name=c.name,
                variant=c.variant,
                cuda=c.cuda,
                source=c.source.name,
                url=c.source.url,
                version=locked.get(c.name, c.version),
                arches=c.arches,
                reason=c.reason,
            )
            for c in plan.packages
        ),
        system_requirements=plan.system_requirements if requirements is None else requirements,
        managed_sources=Managed.of(plan).source_names,
    ).sealed(planned.pyproject)


def staleness(
    current: CudaLock | None,
    wanted: CudaLock,
    pyproject: Mapping[str, Any],
    text: str,
    new_text: str,
) -> list[str]:
    """Why the recorded lock no longer matches the project and its targets."""
    if current is None:
        return [f"{lockfile.FILENAME} does not exist"]
    reasons = []
    if not current.is_fresh(pyproject):
        reasons.append("the CUDA-relevant parts of pyproject.toml changed since the lock")
    if text != new_text:
        reasons.append("the managed entries in pyproject.toml differ from the plan")
    if current.targets != wanted.targets:
        reasons.append("the targets' facts (driver, CUDA, GPUs) changed since the lock")
    chosen = {(p.name, p.variant, p.source, p.url) for p in wanted.packages}
    recorded = {(p.name, p.variant, p.source, p.url) for p in current.packages}
    for name, variant, source, _ in sorted(chosen - recorded):
        reasons.append(f"{name}: the plan chooses {variant} from {source}")
    for name, variant, source, _ in sorted(recorded - chosen):
        reasons.append(f"{name}: {lockfile.FILENAME} records {variant} from {source}")
    needed = {(r.package, r.kind) for r in wanted.system_requirements}
    noted = {(r.package, r.kind) for r in current.system_requirements}
    for package, kind in sorted(needed - noted):
        reasons.append(f"{package}: the plan finds a system {kind} requirement")
    for package, kind in sorted(noted - needed):
        reasons.append(
            f"{package}: {lockfile.FILENAME} records a {kind} requirement the plan drops"
        )
    return reasons


def lockfile_staleness(plan: Plan, project: Path, backend: Backend) -> str | None:
    """Why the backend's lock file does not hold what `lock` would leave there, if it does not."""
    problem = backend.lockfile_problem(project)
    if problem is None:
        try:
            verify(plan, project, backend)
        except PoetryCudaError as error:
            problem = error.what
    return problem


# The wheel that carries the CUDA runtime: nvidia-cuda-runtime-cu11/-cu12, and from
# CUDA 13 on nvidia-cuda-runtime. Its version is the CUDA version a build links against.
CUDA_RUNTIME_WHEEL = re.compile(r"nvidia-cuda-runtime(-cu\d+)?")


def verify(plan: Plan, project: Path, backend: Backend) -> dict[str, str | None]:
    """Check every managed package is locked from its source with its label and CUDA."""
    found: dict[str, str | None] = {}
    for choice in plan.packages:
        entries = backend.locked(project, choice.name)
        matches = [
            e
            for e in entries
            if e.is_from(choice.source)
            and (choice.source.is_pypi or e.version.endswith(choice.label))
        ]
        if not matches:
            seen = ", ".join(e.describe() for e in entries) or "nothing"
            raise ResolutionError(
                f"{backend.lockfile} does not lock {choice.name} {choice.variant} from "
                f"{choice.source.name}: it locks {seen}",
                why="the lock must install the chosen build on the CUDA platforms",
                fix=f"check that {choice.source.url} serves {choice.name}"
                + (f" with versions ending in {choice.label}" if choice.label else ""),
            )
        if choice.cuda is not None:
            for entry in matches:
                _verify_runtime(choice, entry, project, backend)
        found[choice.name] = matches[-1].version
    return found


def _verify_runtime(choice: Choice, entry: LockedEntry, project: Path, backend: Backend) -> None:
    """A build that pins the CUDA runtime wheel must pin the chosen CUDA version's.

    PyPI's torch carries no label: its `nvidia-cuda-runtime-cu12==12.4.127` pin is
    what says it is a CUDA 12.4 build.
    """
    assert choice.cuda is not None
    wanted = f"{choice.cuda.major}.{choice.cuda.minor}"
    for name, _ in entry.dependencies:
        if not CUDA_RUNTIME_WHEEL.fullmatch(name):
            continue
        versions = [e.version for e in backend.locked(project, name)]
        if versions and not any(_major_minor(v) == wanted for v in versions):
            raise ResolutionError(
                f"{backend.lockfile} locks {choice.name} {entry.version} with {name} "
                f"{', '.join(versions)}, a CUDA runtime other than the chosen {wanted}",
                why=f"{choice.variant} means CUDA {wanted}; this lock would install "
                "another CUDA version's libraries",
                fix=f"check what {choice.source.url} serves for {choice.name}, "
                "then run `poetry cuda lock --regenerate`",
            )


def cross_check(planned: Planned, project: Path, backend: Backend) -> tuple[SystemRequirement, ...]:
    """The plan's system requirements, each marked where the lock itself meets it.

    paddlepaddle-gpu 3.x pins nvidia-cudnn-cu12, so cuDNN comes with it; a flash-attn
    locked only as wheels compiles nothing. Rules the user declared are kept as written.
    """
    from poetry_cuda.knowledge import load
    from poetry_cuda.planning.flavours import LIBRARY_WHEELS
    from poetry_cuda.planning.flavours import met_by_lock

    run_time = {package for package, r in load().builds_with_nvcc if r.at_run_time}
    declared = {(rule.name, kind) for rule in planned.settings.packages for kind, _ in rule.needs}
    found = []
    for requirement in planned.plan.system_requirements:
        if (requirement.package, requirement.kind) in declared:
            found.append(requirement)
            continue
        entries = backend.locked(project, requirement.package)
        pattern = LIBRARY_WHEELS.get(requirement.kind)
        wheels = {
            name: [e.version for e in backend.locked(project, name)]
            for entry in entries
            for name, _ in entry.dependencies
            if pattern is not None and pattern.fullmatch(name)
        }
        met = met_by_lock(requirement, entries, wheels, runs_nvcc=requirement.package in run_time)
        found.append(dataclasses.replace(requirement, satisfied_by=met))
    return tuple(found)


def _major_minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def lock(
    planned: Planned,
    *,
    regenerate: bool,
    check: bool,
    dry_run: bool,
    notify: Callable[[str], None],
) -> Outcome:
    """Lock the planned project; call within `transaction.session` unless checking."""
    project = planned.project
    backend = backends.load(backends.choose(planned.settings.backend, project, planned.pyproject))
    pyproject = project / "pyproject.toml"
    cuda_lock_path = project / lockfile.FILENAME
    current = lockfile.read(cuda_lock_path) if cuda_lock_path.exists() else None
    previous = current.managed_sources if current else ()
    if backend.name == "poetry" and starts_with_bom(pyproject):
        raise ConfigError(
            "pyproject.toml starts with a UTF-8 byte order mark (BOM)",
            why="Poetry cannot read a pyproject.toml that starts with a BOM, so it could not "
            "lock what poetry-cuda writes (uv can)",
            fix="save pyproject.toml as UTF-8 without a BOM (in VS Code: 'UTF-8', not "
            "'UTF-8 with BOM')",
        )
    text = read_text(pyproject)
    managed = Managed.of(planned.plan)
    new_text = backend.rewrite(text, managed, previous)
    diff = "".join(
        difflib.unified_diff(
            text.splitlines(keepends=True),
            new_text.splitlines(keepends=True),
            "pyproject.toml",
            "pyproject.toml (planned)",
        )
    )
    predicted = build_lock(planned, backend.name, {})
    if check or dry_run:
        stale = (
            tuple(staleness(current, predicted, planned.pyproject, text, new_text)) if check else ()
        )
        problem = lockfile_staleness(planned.plan, project, backend) if check else None
        stale += (problem,) if problem else ()
        if check and transaction.pending(project):
            stale += (
                (
                    f"a run that stopped before it finished left {transaction.JOURNAL}; "
                    "`lock` undoes it"
                ),
            )
        return Outcome(planned, predicted, diff, stale)

    names = ("pyproject.toml", backend.lockfile, lockfile.FILENAME)
    with transaction.transaction(project, names, notify) as edits:
        if new_text != text:
            edits.write("pyproject.toml", new_text)
        with edits.tool_writes(backend.lockfile):
            backend.prepare(project, set(previous) - set(managed.source_names))
            backend.run_lock(project, regenerate=regenerate)
        versions = verify(planned.plan, project, backend)
        result = build_lock(planned, backend.name, versions, cross_check(planned, project, backend))
        content = result.dumps()
        if not cuda_lock_path.exists() or read_text(cuda_lock_path) != content:
            edits.write(lockfile.FILENAME, content)
    return Outcome(planned, result, diff)
