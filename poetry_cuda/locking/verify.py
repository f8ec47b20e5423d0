"""Checking the resolver's lock against the plan, before cuda.lock records it.

`verify` makes sure every managed package is locked from its chosen source with its
label and CUDA runtime; `cross_check` marks the system requirements the lock itself
meets (a wheel that brings cuDNN); `lockfile_staleness` is `--check`'s use of both.
"""

from __future__ import annotations

import dataclasses
import re

from typing import TYPE_CHECKING

from packaging.specifiers import SpecifierSet

from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.errors import ResolutionError
from poetry_cuda.planning.extras import holds_on_linux


if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence
    from pathlib import Path

    from poetry_cuda.backends.base import LockedEntry
    from poetry_cuda.backends.base import PackageManager
    from poetry_cuda.messages import Localized
    from poetry_cuda.planning.plan import Choice
    from poetry_cuda.planning.plan import Plan
    from poetry_cuda.planning.plan import SystemRequirement
    from poetry_cuda.planning.planner import Planned


# The nvidia-* wheels that bring a kind's libraries: -cu11/-cu12 suffixes, none from CUDA 13.
LIBRARY_WHEELS = {
    "cuda-runtime": re.compile(r"nvidia-cuda-runtime(-cu\d+)?"),
    "cudnn": re.compile(r"nvidia-cudnn(-cu\d+)?"),
    "nccl": re.compile(r"nvidia-nccl(-cu\d+)?"),
}
SDIST_SUFFIXES = (".tar.gz", ".tgz", ".tar.bz2", ".zip")
# The wheel that carries the CUDA runtime (nvidia-cuda-runtime-cu12, from CUDA 13 on
# nvidia-cuda-runtime): its version is the CUDA version a build links against.
CUDA_RUNTIME_WHEEL = LIBRARY_WHEELS["cuda-runtime"]


def lockfile_staleness(plan: Plan, project: Path, backend: PackageManager) -> Localized | None:
    """Why the backend's lock file does not hold what `lock` would leave there, if it does not."""
    problem = backend.lockfile_problem(project)
    if problem is None:
        try:
            verify(plan, project, backend)
        except PoetryCudaError as error:
            problem = error.said
    # Last, the manager's own check: a lock that holds the plan may still miss a new dependency.
    return problem or backend.outdated(project)


def verify(plan: Plan, project: Path, backend: PackageManager) -> dict[str, str | None]:
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


def verify_extras(planned: Planned, project: Path, backend: PackageManager) -> None:
    """Each extra of a multi-variant project locks its own build of the family's lead.

    Only where the family labels its builds (torch 2.5.1+cu124): that label is what tells
    the extras' builds apart in the lock.
    """
    for extra in planned.plan.extras:
        family = next(f for f in planned.kb.families if f.name == extra.family)
        if family.version_form != "local":
            continue
        entries = backend.locked(project, family.lead)
        label = f"+{extra.variant}"
        # PyPI's CPU builds for macOS and Windows carry no label (its Linux builds are CUDA's).
        plain = extra.variant == "cpu" and not holds_on_linux(extra.marker)
        if not any(
            entry.version.endswith(label) or (plain and "+" not in entry.version)
            for entry in entries
        ):
            seen = ", ".join(e.describe() for e in entries) or "nothing"
            raise ResolutionError(
                f"{backend.lockfile} locks no {extra.variant} build of {family.lead} for the "
                f"{extra.name} {extra.kind}: it locks {seen}",
                why=f"each {extra.kind} of a project with one per build must install its own "
                "build, or `sync` would install another",
                fix=f"check that the index the {extra.name} {extra.kind} names serves "
                f"{family.lead} versions ending in {label}, and that [tool.uv] conflicts "
                "keeps the extras apart",
            )


def _verify_runtime(
    choice: Choice, entry: LockedEntry, project: Path, backend: PackageManager
) -> None:
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


def cross_check(
    planned: Planned, project: Path, backend: PackageManager
) -> tuple[SystemRequirement, ...]:
    """The plan's system requirements, each marked where the lock itself meets it.

    paddlepaddle-gpu 3.x pins nvidia-cudnn-cu12, so cuDNN comes with it; a flash-attn
    locked only as wheels compiles nothing. Rules the user declared are kept as written.
    """
    run_time = {package for package, r in planned.kb.builds_with_nvcc if r.at_run_time}
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


def met_by_lock(
    requirement: SystemRequirement,
    entries: Sequence[LockedEntry],
    wheel_versions: Mapping[str, Sequence[str]],
    *,
    runs_nvcc: bool,
) -> str:
    """What in the lock meets `requirement`, or "" when the system must.

    `entries` are the lock's entries of the requirement's package (one per platform
    build), `wheel_versions` the locked versions of the nvidia-* wheels they depend on.
    A library need is met when every entry depends on the wheel that carries it, at a
    version inside the spec; an install-time nvcc need when only wheels are locked.
    """
    if not entries:
        return ""
    wheels = LIBRARY_WHEELS.get(requirement.kind)
    if wheels is not None:
        spec = SpecifierSet(requirement.spec)
        met = set()
        for entry in entries:
            fitting = [
                name
                for name, _ in entry.dependencies
                if wheels.fullmatch(name)
                and any(spec.contains(v, prereleases=True) for v in wheel_versions.get(name, ()))
            ]
            if not fitting:
                return ""
            met.update(fitting)
        return f"{', '.join(sorted(met))} in the lock"
    if requirement.kind == "nvcc" and not runs_nvcc:
        files = [name for entry in entries for name in entry.files]
        if files and not any(name.endswith(SDIST_SUFFIXES) for name in files):
            return "prebuilt wheels in the lock (nothing is compiled at install)"
    return ""
