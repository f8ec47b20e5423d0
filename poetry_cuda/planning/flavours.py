"""Flavours the project names itself, and the system requirements no resolver sees.

`cupy-cuda12x` or `jax[cuda12]` fix their CUDA major by name or extra: poetry-cuda
checks that every target can run them. Some builds also load a system CUDA runtime or
cuDNN (paddlepaddle-gpu 2.x from PyPI, `jax[cuda12-local]`, CuPy without `[ctk]`), and
packages that compile CUDA code at install time need an nvcc whose major matches
torch's CUDA. Those become `SystemRequirement`s of the plan.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from poetry_cuda.errors import NoVariantError
from poetry_cuda.planning.candidates import python_gap
from poetry_cuda.planning.compat import arch_names
from poetry_cuda.planning.compat import kernels_for
from poetry_cuda.planning.plan import PYPI
from poetry_cuda.planning.plan import Availability
from poetry_cuda.planning.plan import Choice
from poetry_cuda.planning.plan import SystemRequirement
from poetry_cuda.records import frozen
from poetry_cuda.request import constraints
from poetry_cuda.versions import CudaVersion


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import FixedFlavour
    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.knowledge.model import SystemNeed
    from poetry_cuda.planning.targets import Target
    from poetry_cuda.request.dependencies import Dependency
    from poetry_cuda.request.settings import Settings
    from poetry_cuda.versions import ComputeCapability


SATISFY = {
    "nvcc": "install a CUDA toolkit of that version (NVIDIA's cuda-toolkit-X-Y package) or set "
    'toolkit = "wheels" in [tool.poetry-cuda] for a per-project nvcc',
    "cudnn": "install cuDNN of that version (NVIDIA's libcudnnN packages) on the library path",
    "cuda-runtime": "install the CUDA runtime of that version (NVIDIA's cuda-runtime-X-Y package)",
    "nccl": "install NCCL of that version (NVIDIA's libnccl2 package)",
    "tensorrt": "install TensorRT of that version (the tensorrt wheel or NVIDIA's libnvinfer)",
    "driver": "upgrade the NVIDIA driver",
}


def _lowest_cuda(spec: str) -> CudaVersion | None:
    specifier = SpecifierSet(spec)
    for major in range(7, 20):
        for minor in range(10):
            if specifier.contains(f"{major}.{minor}", prereleases=True):
                return CudaVersion(major, minor)
    return None


def _floor(versions: str) -> Version:
    """The lowest version a row's specifier admits, as its lower bounds say."""
    bounds = [
        Version(spec.version)
        for spec in SpecifierSet(versions)
        if spec.operator in (">=", ">", "==", "~=") and "*" not in spec.version
    ]
    return max(bounds, default=Version("0"))


def _groups_for(dep: Dependency, kb: KnowledgeBase) -> list[list[FixedFlavour]]:
    """The rows of the flavour `dep` names that its constraint admits, by versions, newest
    first; the rows of one group differ by platform."""
    rows = [
        row
        for row in kb.fixed
        if row.package == dep.name
        and (row.extra is None or row.extra in dep.extras)
        and constraints.overlaps(row.versions, dep.constraint)
    ]
    # An extra that names a flavour is more specific than the bare package name.
    if any(row.extra is not None for row in rows):
        rows = [row for row in rows if row.extra is not None]
    groups: dict[str, list[FixedFlavour]] = {}
    for row in rows:
        groups.setdefault(row.versions, []).append(row)
    return sorted(groups.values(), key=lambda group: _floor(group[0].versions), reverse=True)


def from_data(package: str, requirement: SystemNeed) -> SystemRequirement:
    return SystemRequirement(
        package=package,
        kind=requirement.kind,
        spec=requirement.spec,
        reason=requirement.reason,
        satisfy=requirement.satisfy,
    )


@frozen
class _Fit:
    """A group's rows that serve every GPU target (per target), and the facts that say so."""

    rows: list[FixedFlavour]
    facts: list[str]


def _kernels(row: FixedFlavour, cc: ComputeCapability, target: Target) -> str | None:
    """Why `row`'s wheels have no kernels for `cc` on `target`, or None when they do."""
    if not (row.sass or row.ptx):
        if row.oldest_arch is not None and cc < row.oldest_arch:
            return f"supports GPUs from {row.oldest_arch.sm}; the target has {cc.sm}"
        return None
    found = kernels_for(row.sass, row.ptx, cc)
    shipped = arch_names(row.sass, row.ptx)
    if found is None:
        return f"has no kernels for {cc.sm} (it ships {shipped})"
    assert target.cuda is not None
    if found[0] == "ptx" and row.built is not None and row.built > target.cuda:
        return (
            f"has no SASS for {cc.sm} and its PTX (built with CUDA {row.built}) needs a driver "
            f"for CUDA {row.built}; the driver supports CUDA <= {target.cuda}"
        )
    return None


def _fit(
    group: list[FixedFlavour], dep: Dependency, spelled: str, gpu_targets: Sequence[Target]
) -> _Fit | NoVariantError:
    """The rows of `group` that run on every GPU target, or the error of the first that does not."""
    rows: list[FixedFlavour] = []
    facts = []
    for target in gpu_targets:
        assert target.cuda is not None
        prefix = f"{target.label}: " if len(gpu_targets) > 1 else ""
        row = next((r for r in group if not r.platforms or target.platform in r.platforms), None)
        if row is None:
            versions = group[0].versions
            return NoVariantError(
                f"{prefix}{spelled} {versions} has no GPU build for {target.platform}",
                why=f"the knowledge base knows GPU builds of {spelled} {versions} only for "
                + ", ".join(sorted({p for r in group for p in r.platforms})),
                fix=f"allow a version of {dep.name} that has a GPU build for {target.platform}",
            )
        lowest = _lowest_cuda(row.cuda)
        if lowest is not None and target.cuda.major < lowest.major:
            return NoVariantError(
                f"{prefix}{spelled} needs a driver for CUDA {lowest.major}.x; the driver "
                f"supports CUDA <= {target.cuda}",
                why=f"{spelled} is built for CUDA {row.cuda}, which this driver cannot run",
                fix=f"upgrade the driver, or depend on the CUDA {target.cuda.major} flavour "
                f"of {dep.name}",
            )
        for cc in target.profile.capabilities:
            missing = _kernels(row, cc, target)
            if missing is not None:
                return NoVariantError(
                    f"{prefix}{spelled} {missing}",
                    why=f"{spelled} {row.versions} ships no kernels {cc.sm} can run",
                    fix=f"use an older CUDA flavour or version of {dep.name}",
                )
        rows.append(row)
        facts.append(f"{prefix}driver supports CUDA <= {target.cuda}")
    return _Fit(rows or group[:1], facts)


def _python_fit(
    group: list[FixedFlavour], spelled: str, python: str | None
) -> NoVariantError | None:
    """Why the project's Pythons cannot install `group`'s versions, or None when they can."""
    row = group[0]
    gap = python_gap(row.requires_python, python)
    if not gap:
        return None
    them = "it" if len(gap) == 1 else "them"
    return NoVariantError(
        f"{spelled} {row.versions} requires Python {row.requires_python} and the project's "
        f"requires-python admits {', '.join(gap)}",
        why="Poetry locks a version only when every Python the project admits can install it",
        fix=f"narrow the project's requires-python to leave {them} out, or allow older "
        f"versions of {row.package}",
    )


def select_fixed(
    deps: Sequence[Dependency],
    targets: Sequence[Target],
    kb: KnowledgeBase,
    python: str | None = None,
) -> tuple[list[Choice], list[SystemRequirement], list[str]]:
    """Check every fixed flavour the project names against every target: the newest
    versions whose builds serve them all and that every Python of the project's
    requires-python (`python`) installs, the newer ones passed over named and bounded."""
    choices: list[Choice] = []
    requirements: list[SystemRequirement] = []
    warnings: list[str] = []
    gpu_targets = [t for t in targets if t.runs_cuda]
    for dep in deps:
        groups = _groups_for(dep, kb)
        if not groups or any(c.name == dep.name for c in choices):
            continue
        first = groups[0][0]
        spelled = f"{dep.name}[{first.extra}]" if first.extra else dep.name
        passed: list[tuple[str, NoVariantError]] = []
        fit: _Fit | None = None
        for group in groups:
            found = _python_fit(group, spelled, python) or _fit(group, dep, spelled, gpu_targets)
            if isinstance(found, _Fit):
                fit = found
                break
            passed.append((group[0].versions, found))
        if fit is None:
            raise passed[0][1]
        row = fit.rows[0]
        warnings.extend(f"{spelled} {v} passed over: {error.what}" for v, error in passed)
        if not gpu_targets:
            warnings.append(f"{spelled} is a CUDA build, but no target has an NVIDIA driver")
        variant = row.extra or dep.name.rsplit("-", 1)[-1]
        arches = arch_names(row.sass, row.ptx).split(", ") if row.sass or row.ptx else ()
        where = ", ".join(row.platforms) or "every platform"
        choices.append(
            Choice(
                name=dep.name,
                family=row.package,
                variant=variant,
                cuda=_lowest_cuda(row.cuda),
                source=PYPI,
                version=None,
                arches=tuple(arches)
                or ((f"from {row.oldest_arch.sm}",) if row.oldest_arch else ()),
                reason=f"the project names {spelled} (CUDA {row.cuda})"
                + ("; " + "; ".join(fit.facts) if fit.facts else ""),
                bound=f"<{min(_floor(v) for v, _ in passed)}" if passed else "",
                requires_python=row.requires_python,
                availability=Availability(
                    f"{spelled} {row.versions} is a CUDA {row.cuda} build for {where}",
                    row.source,
                    row.confidence,
                ),
            )
        )
        for used in dict.fromkeys(fit.rows):
            requirements.extend(from_data(dep.name, r) for r in used.requirements)
    return choices, requirements, warnings


def build_requirements(
    deps: Sequence[Dependency], choices: Sequence[Choice], settings: Settings, kb: KnowledgeBase
) -> list[SystemRequirement]:
    """nvcc for packages that compile CUDA code, and the user's own rules."""
    found: list[SystemRequirement] = []
    torch = next((c for c in choices if c.family == "torch" and c.cuda is not None), None)
    names = {dep.name for dep in deps}
    for package, requirement in kb.builds_with_nvcc:
        if package not in names:
            continue
        spec, reason = requirement.spec, requirement.reason
        if not spec and torch is not None and torch.cuda is not None:
            major = torch.cuda.major
            spec = f">={major}.0,<{major + 1}"
            reason += f"; its nvcc major must match torch's CUDA {torch.cuda}"
        found.append(
            SystemRequirement(package, requirement.kind, spec, reason, requirement.satisfy)
        )
    for rule in settings.packages:
        for kind, spec in rule.needs:
            found.append(
                SystemRequirement(
                    package=rule.name,
                    kind=kind,
                    spec=spec,
                    reason=f"declared in [tool.poetry-cuda.packages.{rule.name}]",
                    satisfy=SATISFY[kind],
                )
            )
    return found
