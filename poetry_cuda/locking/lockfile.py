"""`cuda.lock`: what the resolver cannot record, committed beside poetry.lock / uv.lock.

It holds the schema `version` (2; a version-1 file, from before each package recorded
its `accelerator`, is read as CUDA or CPU builds by their CUDA version), a `content-hash` over the CUDA-relevant parts of
pyproject.toml (so staleness is detectable), the policy and cuda request, the targets'
facts at lock time, each package's chosen variant, CUDA version, source and locked
version with the architectures it serves, the hidden system requirements, which
pyproject entries poetry-cuda manages, for a multi-variant project, the extras (or
groups) that install each build and, for `toolkit = "redist"`, the redist release and
the archives of the project's nvcc per platform. It is parsed as data, never evaluated.
"""

from __future__ import annotations

import dataclasses
import json

from typing import TYPE_CHECKING
from typing import Literal
from typing import TypeVar

from packaging.specifiers import SpecifierSet

from poetry_cuda.accelerators import ACCELERATORS
from poetry_cuda.accelerators import build_accelerator
from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import InputFileError
from poetry_cuda.files import CUDA_LOCK_LIMIT
from poetry_cuda.files import read_toml
from poetry_cuda.host.profiles import DEVICE_IP
from poetry_cuda.host.profiles import GFX
from poetry_cuda.host.profiles import OPERATING_SYSTEMS
from poetry_cuda.host.profiles import STACK_VERSION
from poetry_cuda.host.profiles import Driver
from poetry_cuda.host.profiles import Gpu
from poetry_cuda.host.profiles import HostProfile
from poetry_cuda.host.profiles import OperatingSystem
from poetry_cuda.host.profiles import Rocm
from poetry_cuda.host.profiles import Xpu
from poetry_cuda.host.profiles import canonical_machine
from poetry_cuda.knowledge.base_images import TAG
from poetry_cuda.knowledge.model import Variant
from poetry_cuda.messages import message
from poetry_cuda.planning.plan import SystemRequirement
from poetry_cuda.planning.plan import project_cuda
from poetry_cuda.planning.variant_metadata import is_label
from poetry_cuda.planning.variant_metadata import is_property_line
from poetry_cuda.records import frozen
from poetry_cuda.redist.manifest import ARCHIVE_LIMIT
from poetry_cuda.redist.manifest import Archive
from poetry_cuda.redist.manifest import check_component
from poetry_cuda.redist.manifest import check_platform
from poetry_cuda.redist.manifest import check_relative_path
from poetry_cuda.redist.manifest import check_sha256
from poetry_cuda.redist.manifest import check_version
from poetry_cuda.request.settings import NAME_LIMIT
from poetry_cuda.request.settings import PATH_LIMIT
from poetry_cuda.request.settings import POLICIES
from poetry_cuda.request.settings import TEXT_LIMIT
from poetry_cuda.request.settings import CudaRequest
from poetry_cuda.request.settings import Policy
from poetry_cuda.request.settings import overlong
from poetry_cuda.schema import Table
from poetry_cuda.schema import Voice
from poetry_cuda.urls import URL_LIMIT
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion


if TYPE_CHECKING:
    import re

    from collections.abc import Callable
    from collections.abc import Collection
    from collections.abc import Iterable
    from pathlib import Path

    from poetry_cuda.accelerators import Accelerator
    from poetry_cuda.messages import Message
    from poetry_cuda.planning.targets import Target


FILENAME = "cuda.lock"
VERSION = 2
VERSIONS = (1, VERSION)  # version 1: no `accelerator` per package
T = TypeVar("T")
HEADER = (
    "This file is written by poetry-cuda (`lock`) and is meant to be committed.\n"
    "It records the CUDA decision and the host facts behind it; do not edit it by hand."
)


def _distinct(values: Iterable[str | None]) -> tuple[str, ...]:
    return tuple(sorted({value for value in values if value}))


@frozen
class TargetFacts:
    label: str
    os: OperatingSystem
    machine: str
    driver: DriverVersion | None
    cuda: CudaVersion | None
    compute_capabilities: tuple[ComputeCapability, ...]
    # What the torch family's ROCm and XPU builds are chosen by (`planning.gpu_stacks`):
    # the AMD GPUs' gfx targets and the amdgpu kernel driver's version, the Intel GPUs'
    # device IPs and the Level Zero driver's version. Written only where present, each
    # distinct value once (sorted), as the compute capabilities: a plan depends on which
    # architectures a host has, not on how many GPUs of each.
    amd_gfx: tuple[str, ...] = ()
    amdgpu: str | None = None
    intel_device_ips: tuple[str, ...] = ()
    level_zero: str | None = None

    @classmethod
    def of(cls, target: Target) -> TargetFacts:
        profile = target.profile
        return cls(
            label=target.label,
            os=target.os,
            machine=profile.machine,
            driver=target.driver,
            cuda=target.cuda,
            compute_capabilities=profile.capabilities,
            amd_gfx=_distinct(gpu.gfx for gpu in profile.gpus),
            amdgpu=profile.rocm.kernel_driver if profile.rocm else None,
            intel_device_ips=_distinct(gpu.device_ip for gpu in profile.gpus),
            level_zero=profile.xpu.driver if profile.xpu else None,
        )

    @property
    def facts(self) -> tuple[object, ...]:
        """What makes two targets the same host: everything but the label (a path's spelling)."""
        machine = canonical_machine(self.machine)
        # A lock written before the values were kept distinct lists one per GPU.
        amd, intel = _distinct(self.amd_gfx), _distinct(self.intel_device_ips)
        stacks = (amd, self.amdgpu, intel, self.level_zero)
        return (self.os, machine, self.driver, self.cuda, self.compute_capabilities, *stacks)

    def profile(self) -> HostProfile:
        """The host these facts describe, to plan for it again: targets are part of the lock."""
        driver = None
        if self.driver is not None or self.cuda is not None:
            driver = Driver(self.driver, self.cuda, source=FILENAME)
        nvidia = [(capability, None, None) for capability in self.compute_capabilities]
        amd = [(None, gfx, None) for gfx in self.amd_gfx]
        intel = [(None, None, ip) for ip in self.intel_device_ips]
        gpus = tuple(
            Gpu(
                index,
                f"GPU {index}",
                capability,
                FILENAME,
                vendor="amd" if gfx else "intel" if ip else "nvidia",
                gfx=gfx,
                device_ip=ip,
            )
            for index, (capability, gfx, ip) in enumerate([*nvidia, *amd, *intel])
        )
        rocm = Rocm(None, self.amdgpu, FILENAME) if self.amd_gfx else None
        xpu = Xpu(self.level_zero, FILENAME) if self.level_zero else None
        return HostProfile(
            self.os, self.machine, driver, gpus, label=self.label, rocm=rocm, xpu=xpu
        )


@frozen
class LockedPackage:
    name: str
    variant: str
    cuda: CudaVersion | None
    source: str
    url: str
    version: str | None  # as locked by the package manager
    arches: tuple[str, ...]
    reason: str
    # The wheel variant's label (PEP 825: ``cuda12.8``, ``null``) where a variant wheel was
    # chosen; None, and not written, otherwise.
    variant_label: str | None = None
    # That label's properties as its variant index publishes them, one per value
    # (``nvidia :: sm_arch :: 86_real``); written with the label only.
    variant_properties: tuple[str, ...] = ()

    @property
    def accelerator(self) -> Accelerator:
        """What the locked build runs on: written per package, and read back only where it
        agrees with the variant and its CUDA version (`accelerators.build_accelerator`)."""
        return build_accelerator(self.variant, has_cuda=self.cuda is not None)


SASS, PTX = "sm_", "compute_"  # how an architecture is spelled: sm_89 SASS, compute_90 PTX
ExtraKind = Literal["extra", "group", "marker"]  # marker: a platform fork
EXTRA_KINDS: tuple[ExtraKind, ...] = ("extra", "group", "marker")


@frozen
class LockedExtra:
    """One build of a multi-variant project and the extra (or group) that installs it."""

    name: str
    kind: ExtraKind
    family: str
    variant: str
    cuda: CudaVersion | None  # None for the CPU build
    arches: tuple[str, ...]  # sm_XY with SASS, compute_XY with PTX
    serves: tuple[str, ...]  # the labels of the targets it was the best fit for
    reason: str
    marker: str = ""  # the environments the fork holds in ("" everywhere)
    version: str | None = None  # the lead's version planned for the fork

    @property
    def described(self) -> Message:
        """How messages name it: "the cu128 extra", "the platform fork sys_platform == ..."."""
        if self.kind == "marker":
            return message("extra.described-fork", marker=self.marker)
        return message("extra.described-extra", name=self.name)

    @property
    def chosen_by_name(self) -> bool:
        """Whether it is installed by naming it (an extra or group), not by the platform."""
        return self.kind != "marker"

    def build(self) -> Variant:
        """The build as the knowledge base models one, to judge it on a host again."""
        sass = [ComputeCapability.parse(a) for a in self.arches if a.startswith(SASS)]
        ptx = [ComputeCapability.parse(a) for a in self.arches if a.startswith(PTX)]
        return Variant(self.variant, self.cuda, tuple(sorted(sass)), tuple(sorted(ptx)))


ToolkitLockMode = Literal["redist"]
TOOLKIT_LOCK_MODES: tuple[ToolkitLockMode, ...] = ("redist",)


@frozen
class LockedToolkit:
    """`toolkit = "redist"`: the manifest release and nvcc's archives for the targets."""

    release: str  # "13.0.2"
    archives: tuple[Archive, ...]
    mode: ToolkitLockMode = "redist"

    @property
    def cuda(self) -> CudaVersion:
        return CudaVersion.parse(self.release)

    def for_platform(self, platform: str) -> tuple[Archive, ...]:
        return tuple(a for a in self.archives if a.platform == platform)


@frozen
class PassedOver:
    """A build the index was found not to serve when the lock was made: the lock fell back
    from it, and a plan made offline for the same lock (`lock --check`) leaves it out too.
    `lock` itself checks the indexes again (one may have gained it)."""

    family: str
    version: str  # the family's lead version, plain: 2.5.1
    variant: str

    @property
    def key(self) -> tuple[str, str, str]:
        """The build, as the planner's `unavailable` names it."""
        return (self.family, self.version, self.variant)


@frozen
class CudaLock:
    content_hash: str
    backend: str
    policy: Policy
    cuda: str
    targets: tuple[TargetFacts, ...]
    packages: tuple[LockedPackage, ...]
    system_requirements: tuple[SystemRequirement, ...]
    managed_sources: tuple[str, ...]
    extras: tuple[LockedExtra, ...] = ()  # multi-variant projects only
    toolkit: LockedToolkit | None = None  # toolkit = "redist" only
    # The NVIDIA CUDA image that meets the system requirements (`planning.base_image`).
    base_image: str | None = None
    # The builds the lock fell back from, their indexes lacking them (`locking.available`).
    unavailable: tuple[PassedOver, ...] = ()

    def project_cuda(self, preferred: Collection[str]) -> CudaVersion | None:
        """The project's CUDA version (see `project_cuda`), as this lock records it."""
        cudas = ((p.name, p.cuda) for p in self.packages)
        return project_cuda(cudas, CudaRequest.parse(self.cuda), preferred)

    def package(self, name: str) -> LockedPackage | None:
        return next((p for p in self.packages if p.name == name), None)

    @property
    def names(self) -> frozenset[str]:
        """The packages the decision is about: the chosen ones, those with requirements, and
        the families the extras install."""
        return (
            frozenset(p.name for p in self.packages)
            | {r.package for r in self.system_requirements}
            | {e.family for e in self.extras}
        )


def content_hash(relevant: object) -> str:
    """sha256 over a JSON rendering of `relevant` that does not depend on key order."""
    import hashlib  # here, as in `knowledge.model`: reading cuda.lock needs no digest

    payload = json.dumps(relevant, sort_keys=True, separators=(",", ":"), default=str)
    return "sha256:" + hashlib.sha256(payload.encode()).hexdigest()


STRING = "a string"
VOICE = Voice(
    InputFileError,
    f"{FILENAME}: ",
    why=message("cuda-lock.damaged-why"),
    # `lock` reads the cuda.lock it replaces: a damaged one must go first.
    fix=message("cuda-lock.damaged-fix"),
)


def _specifier(text: str) -> object:
    return SpecifierSet(text) if text.strip() else None


def _cuda_request(text: str) -> object:
    try:
        return CudaRequest.parse(text)
    except ConfigError:
        raise ValueError(
            f"{text!r} is not a CUDA request ('auto', 'cpu', a version or a range)"
        ) from None


def read(path: Path) -> CudaLock:
    """Parse and validate `cuda.lock`; every error names the bad key."""
    data = read_toml(path, kind=InputFileError, limit=CUDA_LOCK_LIMIT)
    found = overlong(data, _limit)
    if found is not None:
        where, length, limit = found
        raise InputFileError(
            message("cuda-lock.overlong", path=path, where=where, length=length, limit=limit),
            why=VOICE.why,
            fix=message("cuda-lock.damaged-fix"),
        )
    top = Table(data, dataclasses.replace(VOICE, prefix=f"{path}: "))
    version = top.value("version", int, "an integer")
    if version not in VERSIONS:
        raise InputFileError(
            message("cuda-lock.version", path=path, version=version, current=VERSION),
            why=message("cuda-lock.version-why"),
            fix=message("cuda-lock.version-fix"),
        )
    return CudaLock(
        content_hash=top.value("content-hash", str, STRING),
        backend=top.value("backend", str, STRING),
        policy=top.choice("policy", POLICIES),
        cuda=_checked(top, "cuda", _cuda_request),
        managed_sources=top.texts("managed-sources", ()),
        targets=tuple(
            TargetFacts(
                label=t.value("label", str, STRING),
                os=t.choice("os", OPERATING_SYSTEMS),
                machine=t.value("machine", str, STRING),
                driver=_parsed(t, "driver", DriverVersion.parse),
                cuda=_parsed(t, "cuda", CudaVersion.parse),
                compute_capabilities=t.parsed_list("compute-capabilities", ComputeCapability.parse),
                amd_gfx=t.parsed_list("amd-gfx", _whole(GFX, "a gfx target such as gfx90a")),
                amdgpu=_parsed(t, "amdgpu", _whole(STACK_VERSION, "a version such as 6.12.12")),
                intel_device_ips=t.parsed_list(
                    "intel-device-ips", _whole(DEVICE_IP, "a device IP such as 12.55.8")
                ),
                level_zero=_parsed(t, "level-zero", _whole(STACK_VERSION, "a driver version")),
            )
            for t in top.tables("targets")
        ),
        packages=tuple(_package(p, version) for p in top.tables("packages")),
        system_requirements=tuple(
            SystemRequirement(
                package=q.value("package", str, STRING),
                kind=q.value("kind", str, STRING),
                spec=_checked(q, "spec", _specifier),
                reason=q.value("reason", str, STRING),
                satisfy=q.value("satisfy", str, STRING),
                satisfied_by=q.value("satisfied-by", str, STRING, None) or "",
            )
            for q in top.tables("system-requirements")
        ),
        extras=tuple(
            LockedExtra(
                name=e.text("name"),
                kind=e.choice("kind", EXTRA_KINDS),
                family=e.text("family"),
                variant=e.text("variant"),
                cuda=_parsed(e, "cuda", CudaVersion.parse),
                arches=e.parsed_list("arches", _arch),
                serves=e.texts("serves", ()),
                reason=e.value("reason", str, STRING),
                marker=e.value("marker", str, STRING, None) or "",
                version=e.value("version", str, STRING, None),
            )
            for e in top.tables("extras")
        ),
        toolkit=_read_toolkit(top),
        base_image=_checked(top, "base-image", _base_image) if top.has("base-image") else None,
        unavailable=tuple(
            PassedOver(u.text("family"), u.text("version"), u.text("variant"))
            for u in top.tables("unavailable")
        ),
    )


def _base_image(text: str) -> str:
    if len(text) > NAME_LIMIT or TAG.fullmatch(text) is None:
        raise ValueError(
            f"{text[:80]!r} is not an image such as nvidia/cuda:12.4.1-base-ubuntu22.04"
        )
    return text


def _package(row: Table, version: int) -> LockedPackage:
    """One `[[packages]]` row; from version 2 on, its `accelerator` must agree with its build."""
    package = LockedPackage(
        name=row.value("name", str, STRING),
        variant=row.value("variant", str, STRING),
        cuda=_parsed(row, "cuda", CudaVersion.parse),
        source=row.value("source", str, STRING),
        url=row.value("url", str, STRING),
        version=row.value("version", str, STRING, None),
        arches=row.texts("arches", ()),
        reason=row.value("reason", str, STRING),
        variant_label=_variant_label(row),
        variant_properties=_variant_properties(row),
    )
    if version == 1:
        if row.has("accelerator"):
            raise row.error("accelerator", "a version-1 cuda.lock records none")
        return package
    recorded = row.choice("accelerator", ACCELERATORS)
    if recorded != package.accelerator:
        cuda = f"CUDA {package.cuda}" if package.cuda else "no CUDA version"
        raise row.error(
            "accelerator",
            f"{recorded!r} disagrees with the build: {package.variant} with {cuda} is a "
            f"{package.accelerator!r} build",
        )
    return package


def _variant_label(row: Table) -> str | None:
    label = row.value("variant-label", str, STRING, None)
    if label is None:
        return None
    if not is_label(label):
        raise row.error(
            "variant-label",
            f"{label[:80]!r} is no variant label (PEP 825: 0-9, a-z, '_' and '.', at most 64)",
        )
    return label


def _variant_properties(row: Table) -> tuple[str, ...]:
    if not row.has("variant-properties"):
        return ()
    if not row.has("variant-label"):
        raise row.error("variant-properties", "are a variant label's: the row records no label")
    lines = row.texts("variant-properties")
    for line in lines:
        if not is_property_line(line):
            raise row.error(
                "variant-properties",
                f"{line[:80]!r} is no property (PEP 825: 'namespace :: feature :: value')",
            )
    return lines


def _read_toolkit(top: Table) -> LockedToolkit | None:
    table = top.table("toolkit", None)
    if table is None:
        return None
    mode = table.choice("mode", TOOLKIT_LOCK_MODES)
    release = table.parsed("release", _release)
    archives = []
    for row in table.tables("archives"):
        size = row.value("size", int, "a number of bytes")
        if not 0 < size <= ARCHIVE_LIMIT:
            raise row.error("size", f"expected a positive number of bytes up to 8 GiB, got {size}")
        archives.append(
            Archive(
                component=row.parsed("component", check_component),
                version=row.parsed("version", check_version),
                platform=row.parsed("platform", check_platform),
                relative_path=row.parsed("relative-path", check_relative_path),
                sha256=row.parsed("sha256", check_sha256),
                size=size,
            )
        )
        row.done()
    table.done()
    return LockedToolkit(release, tuple(archives), mode)


def _limit(keys: tuple[str, ...]) -> int:
    """The most characters cuda.lock holds at `keys`: sentences, paths and URLs, names."""
    last = keys[-1] if keys else ""
    if last in ("reason", "satisfy", "satisfied-by"):
        return TEXT_LIMIT
    if last in ("label", "serves", "relative-path"):
        return PATH_LIMIT
    return URL_LIMIT if last == "url" else NAME_LIMIT


def _release(text: str) -> str:
    """A redist release as cuda.lock writes it: three numbers, "13.0.2"."""
    parts = text.split(".")
    if len(parts) != 3 or not all(part.isdigit() for part in parts):
        raise ValueError(f"{text!r} is not a release (expected e.g. '13.0.2')")
    return text


def _arch(text: str) -> str:
    """An architecture as cuda.lock writes it: sm_XY (SASS) or compute_XY (PTX)."""
    if not text.startswith((SASS, PTX)):
        raise ValueError(f"{text!r} is not an architecture (expected e.g. 'sm_89' or 'compute_90')")
    ComputeCapability.parse(text)
    return text


def _checked(table: Table, key: str, parser: Callable[[str], object]) -> str:
    """A string value that `parser` (e.g. CudaVersion.parse) must accept."""
    value = table.value(key, str, STRING)
    table.parse(key, value, parser)
    return value


def _whole(pattern: re.Pattern[str], what: str) -> Callable[[str], str]:
    """A parser that accepts a text `pattern` matches whole, else names `what` it expects."""

    def check(text: str) -> str:
        if not pattern.fullmatch(text):
            raise ValueError(f"expected {what}, got {text[:80]!r}")
        return text

    return check


def _parsed(table: Table, key: str, parser: Callable[[str], T]) -> T | None:
    """An optional string value as `parser` (e.g. CudaVersion.parse) reads it."""
    value = table.value(key, str, STRING, None)
    return None if value is None else table.parse(key, value, parser)
