"""The system-requirement checks: each requirement cuda.lock records, against what is here.

A requirement is met by the first candidate whose version satisfies its spec. A
candidate known only by its major (the soname ``libcudnn.so.8``) may or may not
satisfy ``>=8.6,<9``: that is a warning, not a failure.
"""

from __future__ import annotations

import dataclasses

from typing import TYPE_CHECKING
from typing import Literal

from packaging.specifiers import InvalidSpecifier
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion

from poetry_cuda.doctor.findings import fail
from poetry_cuda.doctor.findings import ok
from poetry_cuda.doctor.findings import warn
from poetry_cuda.messages import message
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.doctor.findings import Finding
    from poetry_cuda.doctor.installed import Environment
    from poetry_cuda.doctor.libraries import Library
    from poetry_cuda.messages import Message
    from poetry_cuda.planning.plan import SystemRequirement
    from poetry_cuda.planning.targets import Target


Match = Literal["yes", "maybe", "no"]
NVCC_WHEELS = ("nvidia-cuda-nvcc", "nvidia-cuda-nvcc-cu11", "nvidia-cuda-nvcc-cu12")
TENSORRT_WHEELS = ("tensorrt", "tensorrt-cu11", "tensorrt-cu12", "tensorrt-cu13")


@frozen
class LibraryFound:
    """Something on this machine that may meet a requirement."""

    version: str
    where: str  # "at /usr/lib/x86_64-linux-gnu/libcudnn.so.8 (ldconfig)"
    major_only: bool = False

    def describe(self) -> str:
        version = f"{self.version}.x (minor unknown)" if self.major_only else self.version
        return f"{version} {self.where}"


def admits(spec: str, found: LibraryFound) -> Match:
    """Whether `found`'s version satisfies `spec` ("maybe": only its major is known)."""
    if not spec.strip():
        return "yes"
    try:
        specifier = SpecifierSet(spec)
        if not found.major_only:
            return "yes" if specifier.contains(found.version, prereleases=True) else "no"
        major = int(found.version.split(".")[0])
    except (InvalidSpecifier, InvalidVersion, ValueError):
        return "no"
    minors = (f"{major}.{minor}.{patch}" for minor in range(100) for patch in (0, 99))
    return "maybe" if any(specifier.contains(v, prereleases=True) for v in minors) else "no"


def _library(lib: Library) -> LibraryFound:
    version = lib.version
    parts = version.split(".")
    # libcudart.so.11.0 is the soname of every CUDA 11.x runtime, not of 11.0 alone.
    major_only = len(parts) == 1 or (lib.kind == "cuda-runtime" and parts[1:] == ["0"])
    return LibraryFound(
        parts[0] if major_only else version, f"at {lib.path} ({lib.source})", major_only
    )


def candidates(
    kind: str, target: Target, libraries: Sequence[Library], environment: Environment | None
) -> list[LibraryFound]:
    """Everything of `kind` found here, best evidence first."""
    profile = target.profile
    found: list[LibraryFound] = []
    if kind == "cuda-runtime":
        found += [LibraryFound(t.version, f"(CUDA toolkit at {t.root})") for t in profile.toolkits]
    elif kind == "nvcc":
        found += [LibraryFound(t.version, f"at {t.nvcc}") for t in profile.toolkits if t.nvcc]
        for name in NVCC_WHEELS:
            dist = environment.get(name) if environment else None
            if dist is not None:
                found.append(LibraryFound(dist.version, f"({dist.name} wheel in the environment)"))
    elif kind == "cudnn":
        for cudnn in profile.cudnn:
            major_only = "." not in cudnn.version
            found.append(
                LibraryFound(cudnn.version, f"at {cudnn.path} ({cudnn.source})", major_only)
            )
    elif kind == "tensorrt":
        for name in TENSORRT_WHEELS:
            dist = environment.get(name) if environment else None
            if dist is not None:
                found.append(LibraryFound(dist.version, f"({dist.name} wheel in the environment)"))
    elif kind == "driver" and target.driver is not None:
        found.append(LibraryFound(str(target.driver), "(the NVIDIA driver)"))
    found += [_library(lib) for lib in libraries if lib.kind == kind]
    return found


def check_system(
    requirements: Sequence[SystemRequirement],
    target: Target,
    libraries: Sequence[Library],
    environment: Environment | None,
    *,
    gpu_less: bool = False,
) -> list[Finding]:
    """Each recorded requirement, found with its version, or the fix from cuda.lock.

    On a machine without a GPU that doctor spares (`checks.gpu_less`) a missing library is a
    warning: only a GPU build running on a GPU loads it. nvcc stays a failure: a source
    build compiles with it on any machine.
    """
    if not requirements:
        return [ok("system", "requirements", message("doctor.no-requirement"))]
    if target.os == "macos":
        return [ok("system", "requirements", message("doctor.macos-no-requirement"))]
    found = []
    for req in requirements:
        if req.satisfied_by:
            met = message("doctor.system-met-by", needs=_needs(req), by=req.satisfied_by)
            found.append(ok("system", req.kind, met, subject=req.package))
        else:
            finding = _check(req, candidates(req.kind, target, libraries, environment))
            if gpu_less and finding.status == "fail" and req.kind != "nvcc":
                finding = dataclasses.replace(finding, status="warn")
            found.append(finding)
    return found


def _needs(req: SystemRequirement) -> Message:
    spec = f" {req.spec}" if req.spec else ""
    return message("system.needs", package=req.package, kind=req.kind, spec=spec)


def _check(req: SystemRequirement, seen: Sequence[LibraryFound]) -> Finding:
    spec = f" {req.spec}" if req.spec else ""
    wanted = _needs(req)
    verdicts = [(admits(req.spec, c), c) for c in seen]
    subject = req.package
    for verdict, candidate in verdicts:
        if verdict == "yes":
            found = message("doctor.system-found", needs=wanted, found=candidate.describe())
            return ok("system", req.kind, found, subject=subject)
    maybe = [c for v, c in verdicts if v == "maybe"]
    if maybe:
        return warn(
            "system",
            req.kind,
            message("doctor.system-version-unknown", needs=wanted, found=maybe[0].describe()),
            message("doctor.system-version-unknown-fix", spec=spec, satisfy=req.satisfy),
            subject=subject,
        )
    if seen:
        others = "; ".join(c.describe() for c in seen[:3])
        unmet = message("doctor.system-found-only", needs=wanted, reason=req.reason, others=others)
    else:
        unmet = message("doctor.system-none-found", needs=wanted, reason=req.reason)
    fix = message("doctor.recorded-fix", satisfy=req.satisfy)
    return fail("system", req.kind, unmet, fix, subject=subject)
