"""XPU (Intel GPU) builds of the torch family, typed from ``data/accelerators/xpu.toml``.

Reading checks every row as `tables` does for the package families, and that releases are
in ascending order, every platform is a known one, every AOT target named by a release has
an ``aot_target`` row, and device IPs read ``architecture.release``.
"""

from __future__ import annotations

import re

from typing import TYPE_CHECKING

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from poetry_cuda.files import parse_toml
from poetry_cuda.knowledge.model import PLATFORMS
from poetry_cuda.knowledge.rocm import DATA
from poetry_cuda.knowledge.rocm import Triton
from poetry_cuda.knowledge.rocm import release_version
from poetry_cuda.knowledge.tables import SCHEMA
from poetry_cuda.knowledge.tables import provenance
from poetry_cuda.knowledge.tables import voice
from poetry_cuda.records import frozen
from poetry_cuda.schema import ABSENT
from poetry_cuda.schema import Table
from poetry_cuda.schema import by


if TYPE_CHECKING:
    from pathlib import Path

    from poetry_cuda.knowledge.model import Confidence


FILE = "xpu.toml"
MEMBERS = ("torch", "torchvision", "torchaudio")
_IP = re.compile(r"^([0-9]{1,3})\.([0-9]{1,3})$")


def device_ip(text: str) -> tuple[int, int]:
    """``12.55`` (architecture.release; a third number, the stepping, is cut) as numbers."""
    match = _IP.match(".".join(text.split(".")[:2]))
    if match is None:
        raise ValueError(f"{text!r} is not a device IP such as 12.55")
    return int(match[1]), int(match[2])


def _ip_text(text: str) -> str:
    device_ip(text)
    return text


@frozen
class XpuIndex:
    url: str
    variant: str
    source: str
    confidence: Confidence


@frozen
class XpuRequirement:
    """What the host needs: Level Zero and Intel's GPU driver (`libraries` on Linux,
    `windows_libraries` on Windows), how to install them, and the oldest supported IP."""

    libraries: tuple[str, ...]
    windows_libraries: tuple[str, ...]
    install: str
    min_device_ip: str
    source: str
    confidence: Confidence


@frozen
class XpuRelease:
    """One release's ``+xpu`` builds: platforms, the members built for Windows, and the GPUs
    compiled ahead of time per OS (others JIT-compile at first use)."""

    torch: str
    platforms: tuple[str, ...]
    windows_members: tuple[str, ...]
    aot_linux: tuple[str, ...]
    aot_windows: tuple[str, ...]
    source: str
    confidence: Confidence


@frozen
class AotTarget:
    name: str
    device_ips: tuple[str, ...]
    source: str
    confidence: Confidence


@frozen
class XpuKnowledge:
    index: XpuIndex
    requirement: XpuRequirement
    releases: tuple[XpuRelease, ...]
    aot_targets: tuple[AotTarget, ...]
    triton: tuple[Triton, ...] = ()

    def triton_for(self, torch: str) -> Triton | None:
        """The Triton distribution torch `torch`'s XPU wheels depend on, where known."""
        version = Version(torch.split("+")[0])
        return next(
            (row for row in self.triton if SpecifierSet(row.torch).contains(version, True)),
            None,
        )

    def release(self, torch: str) -> XpuRelease | None:
        """The release ``2.9`` of torch ``2.9`` or ``2.9.1`` (None without XPU builds)."""
        wanted = ".".join(torch.split("+")[0].split(".")[:2])
        return next((row for row in self.releases if row.torch == wanted), None)

    def supported(self, ip: str) -> bool:
        """Whether PyTorch XPU officially supports a GPU of device IP `ip`."""
        return device_ip(ip) >= device_ip(self.requirement.min_device_ip)

    def native(self, release: XpuRelease, ip: str, *, windows: bool = False) -> bool:
        """Whether `release` compiled kernels ahead of time for device IP `ip`."""
        names = release.aot_windows if windows else release.aot_linux
        wanted = device_ip(ip)
        return any(
            device_ip(target_ip) == wanted
            for target in self.aot_targets
            if target.name in names
            for target_ip in target.device_ips
        )


def _platforms(row: Table) -> tuple[str, ...]:
    platforms = row.texts("platforms")
    for i, platform in enumerate(platforms):
        if platform not in PLATFORMS:
            raise row.error(f"platforms[{i}]", f"{platform!r} is not one of {PLATFORMS}")
    return platforms


def _release(row: Table, targets: set[str]) -> XpuRelease:
    members = row.texts("windows_members", ())
    for i, member in enumerate(members):
        if member not in MEMBERS:
            raise row.error(f"windows_members[{i}]", f"{member!r} is not one of {MEMBERS}")
    aot = {}
    for key in ("aot_linux", "aot_windows"):
        names = row.texts(key)
        for i, name in enumerate(names):
            if name not in targets:
                raise row.error(f"{key}[{i}]", f"{name!r} has no aot_target row")
        aot[key] = names
    release = XpuRelease(
        torch=row.parsed("torch", release_version),
        platforms=_platforms(row),
        windows_members=members,
        aot_linux=aot["aot_linux"],
        aot_windows=aot["aot_windows"],
        source=provenance(row)[0],
        confidence=provenance(row)[1],
    )
    row.done()
    return release


def validate_xpu(document: dict[str, object]) -> XpuKnowledge:
    """The typed, checked content of a parsed ``xpu.toml``."""
    top = Table(document, voice(FILE))
    if (schema := top.value("schema", int, "the schema number")) != SCHEMA:
        raise top.error("schema", f"is {schema}; this poetry-cuda reads schema {SCHEMA}")
    row = top.table("index")
    index = XpuIndex(row.text("url"), row.text("variant"), *provenance(row))
    row.done()
    row = top.table("requirement")
    requirement = XpuRequirement(
        libraries=row.texts("libraries"),
        windows_libraries=row.texts("windows_libraries"),
        install=row.text("install"),
        min_device_ip=row.parsed("min_device_ip", _ip_text),
        source=provenance(row)[0],
        confidence=provenance(row)[1],
    )
    row.done()
    aot_targets = []
    for row in top.tables("aot_target", by("name")):
        ips = row.parsed_list("device_ip", _ip_text, ABSENT)
        aot_targets.append(AotTarget(row.text("name"), ips, *provenance(row)))
        row.done()
    names = {target.name for target in aot_targets}
    if len(names) != len(aot_targets):
        raise top.error("aot_target", "names a target twice")
    releases = tuple(_release(row, names) for row in top.tables("release", by("torch")))
    if not releases:
        raise top.error("release", "missing (expected at least one row)")
    listed = [Version(release.torch) for release in releases]
    if listed != sorted(set(listed)):
        raise top.error("release", "releases must be in ascending order, each once")
    triton = []
    for row in top.tables("triton", by("name")):
        spec = row.parsed("torch", lambda text: str(SpecifierSet(text)))
        triton.append(Triton(row.text("name"), spec, *provenance(row)))
        row.done()
    top.done()
    return XpuKnowledge(index, requirement, releases, tuple(aot_targets), tuple(triton))


def load_xpu(directory: Path = DATA) -> XpuKnowledge:
    """Read and check ``xpu.toml`` in `directory` (uncached; see `xpu`)."""
    try:
        text = (directory / FILE).read_text(encoding="utf-8")
    except OSError as error:
        raise voice(FILE).fail("", f"cannot be read ({error.strerror or error})") from None
    try:
        document = parse_toml(text)
    except ValueError as error:
        raise voice(FILE).fail("", f"not valid TOML: {error}") from None
    return validate_xpu(document)
