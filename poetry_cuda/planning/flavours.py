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

from poetry_cuda.errors import NoVariantError
from poetry_cuda.planning.plan import PYPI
from poetry_cuda.planning.plan import Choice
from poetry_cuda.planning.plan import SystemRequirement
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


def _flavour_for(dep: Dependency, kb: KnowledgeBase) -> FixedFlavour | None:
    rows = [
        row
        for row in kb.fixed
        if row.package == dep.name
        and (row.extra is None or row.extra in dep.extras)
        and constraints.overlaps(row.versions, dep.constraint)
    ]
    # An extra that names a flavour is more specific than the bare package name.
    rows.sort(key=lambda row: row.extra is not None)
    return rows[-1] if rows else None


def from_data(package: str, requirement: SystemNeed) -> SystemRequirement:
    return SystemRequirement(
        package=package,
        kind=requirement.kind,
        spec=requirement.spec,
        reason=requirement.reason,
        satisfy=requirement.satisfy,
    )


def select_fixed(
    deps: Sequence[Dependency], targets: Sequence[Target], kb: KnowledgeBase
) -> tuple[list[Choice], list[SystemRequirement], list[str]]:
    """Check every fixed flavour the project names against every target."""
    choices: list[Choice] = []
    requirements: list[SystemRequirement] = []
    warnings: list[str] = []
    gpu_targets = [t for t in targets if t.runs_cuda]
    for dep in deps:
        row = _flavour_for(dep, kb)
        if row is None or any(c.name == dep.name for c in choices):
            continue
        lowest = _lowest_cuda(row.cuda)
        spelled = f"{dep.name}[{row.extra}]" if row.extra else dep.name
        facts = []
        for target in gpu_targets:
            assert target.cuda is not None
            prefix = f"{target.label}: " if len(gpu_targets) > 1 else ""
            if lowest is not None and target.cuda.major < lowest.major:
                raise NoVariantError(
                    f"{prefix}{spelled} needs a driver for CUDA {lowest.major}.x; the driver "
                    f"supports CUDA <= {target.cuda}",
                    why=f"{spelled} is built for CUDA {row.cuda}, which this driver cannot run",
                    fix=f"upgrade the driver, or depend on the CUDA {target.cuda.major} flavour "
                    f"of {dep.name}",
                )
            for cc in target.profile.capabilities:
                if row.oldest_arch is not None and cc < row.oldest_arch:
                    raise NoVariantError(
                        f"{prefix}{spelled} supports GPUs from {row.oldest_arch.sm}; the target "
                        f"has {cc.sm}",
                        why=f"{spelled} ships no kernels for {cc.sm}",
                        fix=f"use an older CUDA flavour of {dep.name}",
                    )
            facts.append(f"{prefix}driver supports CUDA <= {target.cuda}")
        if not gpu_targets:
            warnings.append(f"{spelled} is a CUDA build, but no target has an NVIDIA driver")
        variant = row.extra or dep.name.rsplit("-", 1)[-1]
        choices.append(
            Choice(
                name=dep.name,
                family=row.package,
                variant=variant,
                cuda=lowest,
                source=PYPI,
                version=None,
                arches=(f"from {row.oldest_arch.sm}",) if row.oldest_arch else (),
                reason=f"the project names {spelled} (CUDA {row.cuda})"
                + ("; " + "; ".join(facts) if facts else ""),
            )
        )
        requirements.extend(from_data(dep.name, r) for r in row.requirements)
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
