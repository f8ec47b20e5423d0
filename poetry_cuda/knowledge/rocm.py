"""ROCm builds of the torch family, typed from ``data/accelerators/rocm.toml``.

The file's header says what each table holds and where it comes from. Reading checks every
row as `tables` does for the package families (an unknown key, a malformed version or gfx
name, a row without a source is an `InputFileError` naming the file and key) and the
invariants the planner relies on: releases and each release's builds in ascending order,
no gfx twice in a list, a driver row's ROCm range in order, every module version mapped to
a known driver release, and every `unserved` GPU absent from the builds before the release
said to serve it.
"""

from __future__ import annotations

import functools
import re

from pathlib import Path
from typing import TYPE_CHECKING

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from poetry_cuda.files import parse_toml
from poetry_cuda.knowledge.model import PLATFORMS
from poetry_cuda.knowledge.tables import SCHEMA
from poetry_cuda.knowledge.tables import provenance
from poetry_cuda.knowledge.tables import voice
from poetry_cuda.records import frozen
from poetry_cuda.schema import ABSENT
from poetry_cuda.schema import Table
from poetry_cuda.schema import by


if TYPE_CHECKING:
    from collections.abc import Iterable

    from poetry_cuda.knowledge.model import Confidence


DATA = Path(__file__).resolve().parent / "data" / "accelerators"
FILE = "rocm.toml"
_GFX = re.compile(r"^gfx[0-9]{1,2}[0-9a-f]{2}$")
_RELEASE = re.compile(r"^[0-9]{1,3}\.[0-9]{1,3}$")
_ROCM = re.compile(r"^[0-9]{1,3}\.[0-9]{1,3}(?:\.[0-9]{1,3})?$")
_OVERRIDE = re.compile(r"^[0-9]{1,2}\.[0-9]{1,3}\.[0-9]{1,3}$")


def version_key(text: str) -> Version:
    """A release or ROCm version as an ordered value (``6.2.4`` after ``6.2``)."""
    return Version(text)


def gfx_name(text: str) -> str:
    """`text` when it is a plain gfx name (``gfx90a``, ``gfx1100``), else a ValueError."""
    if not _GFX.match(text):
        raise ValueError(f"{text!r} is not a gfx name such as gfx90a or gfx1100")
    return text


def _matching(pattern: re.Pattern[str], what: str) -> functools.partial[str]:
    return functools.partial(_match, pattern, what)


def _match(pattern: re.Pattern[str], what: str, text: str) -> str:
    if not pattern.match(text):
        raise ValueError(f"{text!r} is not {what}")
    return text


release_version = _matching(_RELEASE, "a release such as 2.9")
rocm_version = _matching(_ROCM, "a ROCm version such as 6.4 or 6.2.4")


@frozen
class RocmBuild:
    """One ROCm build of a release: ``rocm6.4`` on download.pytorch.org/whl/rocm6.4, and
    the gfx targets it was compiled for."""

    rocm: str
    gfx: tuple[str, ...]
    source: str
    confidence: Confidence

    @property
    def variant(self) -> str:
        return f"rocm{self.rocm}"


@frozen
class RocmRelease:
    torch: str
    platform_tag: str
    builds: tuple[RocmBuild, ...]
    source: str
    confidence: Confidence


@frozen
class LibraryGap:
    """GPUs whose kernels the bundled libraries drop from ROCm `from_rocm` on."""

    gfx: tuple[str, ...]
    from_rocm: str
    reason: str
    source: str
    confidence: Confidence


@frozen
class KernelDriver:
    """An amdgpu driver release and the ROCm user spaces it runs (inclusive, major.minor)."""

    release: str
    rocm_min: str
    rocm_max: str
    source: str
    confidence: Confidence

    def admits(self, rocm: str) -> bool:
        """Whether the ROCm user space `rocm` (6.2.4 counts as 6.2) is in this row."""
        minor = version_key(".".join(rocm.split(".")[:2]))
        return version_key(self.rocm_min) <= minor <= version_key(self.rocm_max)


@frozen
class ModuleVersion:
    """``/sys/module/amdgpu/version``'s major.minor and the driver release it belongs to."""

    module: str
    release: str
    source: str
    confidence: Confidence


@frozen
class Unserved:
    """A GPU no pytorch.org ROCm build lists (or none before `served_from`): why, what to
    do, and the documented but unsupported ``HSA_OVERRIDE_GFX_VERSION`` (`override`)."""

    gfx: str
    products: str
    integrated: bool
    served_from: str | None
    override: str | None
    reason: str
    hint: str
    warning: str | None
    source: str
    confidence: Confidence


@frozen
class Triton:
    """The Triton distribution ROCm wheels of the releases in `torch` depend on."""

    name: str
    torch: str
    source: str
    confidence: Confidence


@frozen
class RocmIndex:
    url: str
    platforms: tuple[str, ...]
    source: str
    confidence: Confidence


@frozen
class RocmKnowledge:
    index: RocmIndex
    releases: tuple[RocmRelease, ...]
    library_gaps: tuple[LibraryGap, ...]
    kernel_drivers: tuple[KernelDriver, ...]
    module_versions: tuple[ModuleVersion, ...]
    unserved: tuple[Unserved, ...]
    triton: tuple[Triton, ...]

    def release(self, torch: str) -> RocmRelease | None:
        """The release ``2.9`` of torch ``2.9`` or ``2.9.1`` (None without ROCm builds)."""
        wanted = ".".join(torch.split("+")[0].split(".")[:2])
        return next((row for row in self.releases if row.torch == wanted), None)

    def usable_gfx(self, build: RocmBuild) -> tuple[str, ...]:
        """`build`'s gfx list without the targets its bundled libraries no longer carry."""
        dropped = {
            gfx
            for gap in self.library_gaps
            if version_key(build.rocm) >= version_key(gap.from_rocm)
            for gfx in gap.gfx
        }
        return tuple(gfx for gfx in build.gfx if gfx not in dropped)

    def driver_release(self, module_version: str) -> KernelDriver | None:
        """The driver release of a DKMS module version (``6.12.12`` is 6.4), when known."""
        prefix = ".".join(module_version.split(".")[:2])
        row = next((row for row in self.module_versions if row.module == prefix), None)
        if row is None:
            return None
        return next(driver for driver in self.kernel_drivers if driver.release == row.release)

    def unserved_gpu(self, gfx: str) -> Unserved | None:
        return next((row for row in self.unserved if row.gfx == gfx), None)

    def triton_for(self, torch: str) -> Triton | None:
        version = Version(torch.split("+")[0])
        return next(
            (row for row in self.triton if SpecifierSet(row.torch).contains(version, True)),
            None,
        )


def _ascending(top: Table, key: str, values: Iterable[str]) -> None:
    listed = list(values)
    if [version_key(v) for v in listed] != sorted(version_key(v) for v in listed):
        raise top.error(key, f"must be in ascending order, got {', '.join(listed)}")
    if len(set(listed)) != len(listed):
        raise top.error(key, f"lists a version twice: {', '.join(listed)}")


def _gfx_list(row: Table, key: str) -> tuple[str, ...]:
    names = row.parsed_list(key, gfx_name, ABSENT)
    if not names:
        raise row.error(key, "must list at least one gfx name")
    if len(set(names)) != len(names):
        raise row.error(key, "names a gfx twice")
    return names


def _release(row: Table) -> RocmRelease:
    source, confidence = provenance(row)
    builds = []
    for build in row.tables("build", by("rocm")):
        own = provenance(build, (source, confidence))
        builds.append(RocmBuild(build.parsed("rocm", rocm_version), _gfx_list(build, "gfx"), *own))
        build.done()
    if not builds:
        raise row.error("build", "a release needs at least one ROCm build")
    _ascending(row, "build", (build.rocm for build in builds))
    release = RocmRelease(
        torch=row.parsed("torch", release_version),
        platform_tag=row.text("platform_tag"),
        builds=tuple(builds),
        source=source,
        confidence=confidence,
    )
    row.done()
    return release


def _rows(top: Table, key: str, label: str) -> list[Table]:
    rows = top.tables(key, by(label))
    if not rows:
        raise top.error(key, "missing (expected at least one row)")
    return rows


def validate_rocm(document: dict[str, object]) -> RocmKnowledge:
    """The typed, checked content of a parsed ``rocm.toml``."""
    top = Table(document, voice(FILE))
    if (schema := top.value("schema", int, "the schema number")) != SCHEMA:
        raise top.error("schema", f"is {schema}; this poetry-cuda reads schema {SCHEMA}")
    index_row = top.table("index")
    platforms = index_row.texts("platforms")
    for i, platform in enumerate(platforms):
        if platform not in PLATFORMS:
            raise index_row.error(f"platforms[{i}]", f"{platform!r} is not one of {PLATFORMS}")
    index = RocmIndex(index_row.text("url"), platforms, *provenance(index_row))
    index_row.done()
    releases = tuple(_release(row) for row in _rows(top, "release", "torch"))
    _ascending(top, "release", (release.torch for release in releases))
    gaps = []
    for row in top.tables("library_gap", by("from_rocm")):
        gaps.append(
            LibraryGap(
                _gfx_list(row, "gfx"),
                row.parsed("from_rocm", rocm_version),
                row.text("reason"),
                *provenance(row),
            )
        )
        row.done()
    drivers = []
    for row in _rows(top, "kernel_driver", "release"):
        bounds = row.parsed_list("rocm", rocm_version, ABSENT)
        if len(bounds) != 2:
            raise row.error("rocm", "expected [lowest, highest] ROCm version")
        low, high = bounds
        if version_key(low) > version_key(high):
            raise row.error("rocm", f"the range {low} to {high} is empty")
        drivers.append(KernelDriver(row.text("release"), low, high, *provenance(row)))
        row.done()
    known = {driver.release for driver in drivers}
    modules = []
    for row in top.tables("module_version", by("module")):
        module = ModuleVersion(
            row.parsed("module", release_version), row.text("release"), *provenance(row)
        )
        if module.release not in known:
            raise row.error("release", f"{module.release} has no kernel_driver row")
        modules.append(module)
        row.done()
    unserved = tuple(_unserved(row, releases) for row in top.tables("unserved", by("gfx")))
    triton = []
    for row in _rows(top, "triton", "name"):
        spec = row.parsed("torch", lambda text: str(SpecifierSet(text)))
        triton.append(Triton(row.text("name"), spec, *provenance(row)))
        row.done()
    top.done()
    return RocmKnowledge(
        index=index,
        releases=releases,
        library_gaps=tuple(gaps),
        kernel_drivers=tuple(drivers),
        module_versions=tuple(modules),
        unserved=unserved,
        triton=tuple(triton),
    )


def _unserved(row: Table, releases: tuple[RocmRelease, ...]) -> Unserved:
    gfx = row.parsed("gfx", gfx_name)
    served_from = row.text("served_from", None)
    if served_from is not None:
        row.parse("served_from", served_from, release_version)
    for release in releases:
        listed = any(gfx in build.gfx for build in release.builds)
        later = served_from is not None and version_key(release.torch) >= version_key(served_from)
        if listed != later:
            state = "lists" if listed else "does not list"
            raise row.error("served_from", f"torch {release.torch} {state} {gfx}")
    override = row.text("override", None)
    if override is not None:
        row.parse("override", override, _matching(_OVERRIDE, "major.minor.stepping"))
    unserved = Unserved(
        gfx=gfx,
        products=row.text("products"),
        integrated=row.value("integrated", bool, "true or false"),
        served_from=served_from,
        override=override,
        reason=row.text("reason"),
        hint=row.text("hint"),
        warning=row.text("warning", None),
        source=provenance(row)[0],
        confidence=provenance(row)[1],
    )
    if override is not None and unserved.warning is None:
        raise row.error("warning", "an override needs a warning saying it is unsupported")
    row.done()
    return unserved


def load_rocm(directory: Path = DATA) -> RocmKnowledge:
    """Read and check ``rocm.toml`` in `directory` (uncached; see `rocm`)."""
    path = directory / FILE
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise voice(FILE).fail("", f"cannot be read ({error.strerror or error})") from None
    try:
        document = parse_toml(text)
    except ValueError as error:
        raise voice(FILE).fail("", f"not valid TOML: {error}") from None
    return validate_rocm(document)
