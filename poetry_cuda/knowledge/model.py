"""The knowledge base as typed, immutable values.

The rows themselves live in ``data/*.toml``, each with the source it was taken from
and how sure we are of it (`Confidence`). `poetry_cuda.knowledge.loader` reads and
validates them; the code that uses them only ever sees these types.
"""

from __future__ import annotations

from dataclasses import field
from dataclasses import replace
from typing import TYPE_CHECKING
from typing import Literal
from typing import get_args

from poetry_cuda.accelerators import build_accelerator
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.accelerators import Accelerator
    from poetry_cuda.host.profiles import OperatingSystem
    from poetry_cuda.knowledge.base_images import BaseImage
    from poetry_cuda.versions import ComputeCapability
    from poetry_cuda.versions import CudaVersion
    from poetry_cuda.versions import DriverVersion


Confidence = Literal["verified", "third-party", "uncertain"]
"""verified: read in the primary source; third-party: a copy of it; uncertain: not confirmed."""


RequirementKind = Literal["cuda-runtime", "cudnn", "nccl", "nvcc", "tensorrt", "driver"]
REQUIREMENT_KINDS: tuple[RequirementKind, ...] = get_args(RequirementKind)

PLATFORMS = ("linux-x86_64", "linux-aarch64", "windows-x86_64", "macos-arm64", "macos-x86_64")
"""The platform names variants and `Release.pypi` use: ``{os}-{machine}``."""


@frozen
class ToolkitDriver:
    """The minimum driver a CUDA toolkit release needs (release notes, Table 3).

    `linux` is None for a release known to exist whose minimum was not found: no driver
    is mapped to it, and its builds run only through minor-version compatibility.
    """

    cuda: CudaVersion
    linux: DriverVersion | None
    windows: DriverVersion | None
    source: str
    confidence: Confidence


@frozen
class CompatFloor:
    """Minor-version compatibility: drivers from `linux`/`windows` on run any `major`.x."""

    major: int
    linux: DriverVersion
    windows: DriverVersion
    source: str
    confidence: Confidence


@frozen
class ArchRange:
    """The compute capabilities a CUDA major can compile SASS for."""

    major: int
    oldest: ComputeCapability
    source: str
    confidence: Confidence


@frozen
class Nvidia:
    toolkits: tuple[ToolkitDriver, ...]  # sorted by `cuda`, ascending
    floors: tuple[CompatFloor, ...]  # sorted by `major`, ascending
    arches: tuple[ArchRange, ...]

    def toolkit_driver(self, cuda: CudaVersion, os: OperatingSystem) -> DriverVersion | None:
        """The driver that runs `cuda` natively (and JIT-compiles its PTX)."""
        for row in self.toolkits:
            if row.cuda == cuda:
                return row.linux if os == "linux" else row.windows
        return None

    def max_cuda(self, driver: DriverVersion, os: OperatingSystem) -> CudaVersion | None:
        """The newest CUDA whose toolkit driver is <= `driver` (what nvidia-smi reports)."""
        best = None
        for row in self.toolkits:
            floor = row.linux if os == "linux" else row.windows
            if floor is not None and floor <= driver:
                best = row.cuda
        return best

    def floor(self, major: int, os: OperatingSystem) -> DriverVersion | None:
        """The minor-version-compatibility floor of a CUDA major, None before CUDA 11."""
        for row in self.floors:
            if row.major == major:
                return row.linux if os == "linux" else row.windows
        return None

    def oldest_arch(self, major: int) -> ComputeCapability | None:
        """The oldest compute capability CUDA `major`.x compiles SASS for."""
        return next((row.oldest for row in self.arches if row.major == major), None)


@frozen
class SystemNeed:
    """A library or tool a package needs that no resolver installs."""

    kind: RequirementKind
    spec: str  # a PEP 440 specifier set on the library's version: ">=8.6,<9"
    reason: str
    satisfy: str  # how to get it: apt/dnf package, NVIDIA download, or another variant
    source: str
    # Rows nested in a variant or flavour share its confidence; top-level rows carry their own.
    confidence: Confidence = "verified"
    # nvcc rows: the package also runs nvcc at run time (JIT-compiled ops), so prebuilt
    # wheels do not remove the need.
    at_run_time: bool = False


@frozen
class PlatformArches:
    """A platform whose build of a variant ships other architectures than the default.

    PyTorch's Linux aarch64 wheels drop pre-Ampere SASS, and its Windows CUDA 13 wheels
    carry no PTX: the variant's `sass`/`ptx` describe Linux x86_64.
    """

    platform: str
    sass: tuple[ComputeCapability, ...]
    ptx: tuple[ComputeCapability, ...]
    source: str
    confidence: Confidence


@frozen
class Variant:
    """One build flavour of a release: ``cu124``, ``cpu``, ``cu12x``..."""

    name: str
    cuda: CudaVersion | None  # None for CPU builds
    sass: tuple[ComputeCapability, ...] = ()
    ptx: tuple[ComputeCapability, ...] = ()
    platforms: tuple[str, ...] = ()  # "linux-x86_64", "windows-x86_64", "linux-aarch64"
    requirements: tuple[SystemNeed, ...] = ()
    source: str = ""
    confidence: Confidence = "verified"
    platform_arches: tuple[PlatformArches, ...] = ()
    # The lead versions of its release this build is published for; empty: every one
    # (torch 2.12's cu129 builds came with 2.12.1 only).
    versions: tuple[str, ...] = ()

    @property
    def accelerator(self) -> Accelerator:
        """CUDA with a CUDA version, else what the label names: a ROCm or XPU build is no
        CPU build for having none."""
        return build_accelerator(self.name, has_cuda=self.cuda is not None)

    @property
    def is_cpu(self) -> bool:
        return self.accelerator == "cpu"

    def publishes(self, lead_version: str) -> bool:
        """Whether this build exists for `lead_version` of its release."""
        return not self.versions or lead_version in self.versions

    def on(self, platform: str) -> Variant:
        """This variant as built for `platform`: its architectures replaced where they differ."""
        row = next((p for p in self.platform_arches if p.platform == platform), None)
        if row is None:
            return self
        return replace(self, sass=row.sass, ptx=row.ptx, platform_arches=())


VersionForm = Literal["local", "post", "plain"]
"""How a variant shows in the version: 2.5.1+cu124, 2.6.2.post120, or not at all."""


@frozen
class LeadRange:
    """A member version built against the lead's stable ABI, which serves a range of leads.

    torchvision 0.29.2 (a ``py3-none`` wheel) requires ``torch>=2.14.0``: published with
    torch 2.15.0, it runs on every torch in the range, not only on the one it came with.
    """

    member: str
    version: str  # as in the release's pairs
    requires: str  # PEP 440 specifier on the lead's version: ">=2.14.0"


@frozen
class Release:
    """A release series of a family's lead package, e.g. torch 2.5.x.

    `pairs` lists, for each lead version, the version of every member published with
    it (torch 2.5.1 with torchvision 0.20.1 and torchaudio 2.5.1). A member version is
    made for that lead version alone, unless `ranges` gives it a range of lead versions
    (a stable-ABI build); it is published for this release's variants either way. A
    variant's `versions` narrow it to some lead versions; `requires_python` is the
    Requires-Python of the lead versions.
    `pypi` names, per platform, the variant that PyPI's own upload is; in the ``post``
    form that variant carries the plain version (paddlepaddle-gpu 2.6.2 is the cu118 build).
    """

    series: str  # "2.5"
    pairs: tuple[dict[str, str], ...]
    variants: tuple[Variant, ...]
    pypi: dict[str, str] = field(default_factory=dict)
    source: str = ""
    confidence: Confidence = "verified"

    # Overrides the family's version form for this series (paddle 2.x uses .postNNN).
    version_form: VersionForm | None = None
    # The member versions of `pairs` that serve a range of lead versions.
    ranges: tuple[LeadRange, ...] = ()
    # The lead versions' Requires-Python (PEP 440), None where the data does not say: a
    # project whose requires-python admits a Python it excludes cannot lock them.
    requires_python: str | None = None

    @property
    def versions(self) -> tuple[str, ...]:
        return tuple(pair[next(iter(pair))] for pair in self.pairs)

    @property
    def series_key(self) -> tuple[int, ...]:
        """The series as numbers, for ordering: "2.10" sorts after "2.9"."""
        return tuple(int(part) for part in self.series.split("."))

    def variant(self, name: str) -> Variant | None:
        return next((v for v in self.variants if v.name == name), None)


MIRROR_INFIX = "-mirror-"
"""In the name of a mirrored index: ``pytorch-cu124-mirror-<digest of its URL>``."""


@frozen
class Companion:
    """A package a family's index serves beside its members, without version pairing."""

    name: str
    # Whether its builds there carry the variant's label: torchao 0.13.0+cu128 does,
    # triton 3.1.0 on /whl/cu124 does not (the same wheel for every variant).
    labelled: bool
    source: str
    confidence: Confidence


Probe = Literal["torch", "paddle"]
"""torch: `torch.cuda.is_available()`, the devices and the build's architecture list;
paddle: `paddle.utils.run_check()`."""
PROBES: tuple[Probe, ...] = get_args(Probe)


@frozen
class Installed:
    """How an installed build of a package shows itself: what doctor reads in site-packages.

    `packages` are the distributions that install `module` (paddlepaddle-gpu and the CPU
    package paddlepaddle both install `paddle`).
    """

    packages: tuple[str, ...]
    module: str  # what `import` names
    # Where the build records the CUDA it was made for, relative to site-packages, and the
    # pattern whose first group is that version ("None"/"False" in a CPU build).
    version_file: str | None
    cuda_pattern: str | None
    # The libraries that hold the CUDA kernels, relative to site-packages, in the order tried.
    kernels: tuple[str, ...]
    # The framework's own check `doctor --deep` runs beside the import, if any.
    probe: Probe | None
    # Extensions are built against this package's CUDA: the project's CUDA is its.
    preferred: bool
    source: str
    confidence: Confidence


Mechanism = Literal["index", "fixed"]
"""index: builds live on per-variant indexes and poetry-cuda picks one (torch, paddle 3).
fixed: the project names the flavour (cupy-cuda12x, jax[cuda12]) and poetry-cuda checks it."""


@frozen
class Family:
    """Packages that must share one variant, served from the same indexes."""

    name: str
    lead: str  # the package whose release series the data is keyed on
    members: tuple[str, ...]  # every package of the family, lead included
    mechanism: Mechanism
    version_form: VersionForm
    index: str | None  # URL template with "{variant}"
    mirror_key: str | None  # the key in [tool.poetry-cuda.mirrors]
    source_prefix: str  # source names are f"{source_prefix}-{variant}"
    releases: tuple[Release, ...]  # sorted by series, ascending
    source: str
    # Packages served from the family's index that follow it without version pairing.
    companion_rows: tuple[Companion, ...] = ()
    confidence: Confidence = "verified"
    installed: Installed | None = None  # what doctor reads of its installed build

    @property
    def companions(self) -> tuple[str, ...]:
        return tuple(row.name for row in self.companion_rows)

    def labels(self, package: str) -> bool:
        """Whether the index's builds of `package` carry the variant's label; members do."""
        return next((row.labelled for row in self.companion_rows if row.name == package), True)

    def index_url(self, variant: str, mirror: str | None = None) -> str | None:
        template = mirror or self.index
        if template is None:
            return None
        if "{variant}" in template:
            return template.replace("{variant}", variant)
        return f"{template.rstrip('/')}/{variant}"

    def source_name(self, variant: str, url: str, *, mirrored: bool) -> str:
        """The name of the index poetry-cuda adds for `variant` (served at `url`)."""
        name = f"{self.source_prefix}-{variant}"
        if mirrored:
            # Poetry caches pages and hashes per source name: a mirror must never share one.
            # The digest also ties the name to its URL (see `names`). hashlib is imported
            # here, where a digest is made: its OpenSSL costs the commands that make none.
            import hashlib

            name += MIRROR_INFIX + hashlib.sha256(url.encode()).hexdigest()[:8]
        return name

    def names(self, name: str, url: str) -> bool:
        """Whether `name` is the name poetry-cuda gives this family's index at `url`.

        The name vouches for the URL: `pytorch-cu124` is only ever the family's own index
        of cu124, and a mirror's name ends with the digest of the mirror's URL.
        """
        head = f"{self.source_prefix}-"
        if self.index is None or not name.startswith(head):
            return False
        variant, mirrored, _ = name[len(head) :].partition(MIRROR_INFIX)
        if not variant:
            return False
        if mirrored:
            return (
                self.mirror_key is not None
                and variant in url
                and self.source_name(variant, url, mirrored=True) == name
            )
        return self.index_url(variant) == url


@frozen
class FixedFlavour:
    """A flavour a project picks by name or extra (`cupy-cuda12x`, `jax[cuda12]`)."""

    package: str  # distribution name, normalized
    extra: str | None  # the extra that selects it, or None when the name does
    versions: str  # PEP 440 specifier of the package versions this row covers
    cuda: str  # PEP 440 specifier on the CUDA version it runs with: ">=12.0,<13"
    oldest_arch: ComputeCapability | None
    requirements: tuple[SystemNeed, ...]
    source: str
    confidence: Confidence
    # The platforms whose wheels of these versions are GPU builds; empty: every platform
    # (TensorFlow has no GPU build on native Windows after 2.10).
    platforms: tuple[str, ...] = ()
    # The kernels the wheels ship where they were read (else `oldest_arch` is the floor),
    # and the CUDA they were built with, which a driver must run natively to JIT the PTX.
    sass: tuple[ComputeCapability, ...] = ()
    ptx: tuple[ComputeCapability, ...] = ()
    built: CudaVersion | None = None
    # The lowest Python these versions' wheels install on (their Requires-Python, or their
    # tags where those start higher); None where the data does not say.
    requires_python: str | None = None


Layout = Literal["simple", "flat"]
"""simple: a PEP 503 index (a page per project); flat: one listing of files (find-links)."""
LAYOUTS: tuple[Layout, ...] = get_args(Layout)


@frozen
class KnownMirror:
    """A mirror known by name (`pytorch = "sjtu"`): its URL template and layout."""

    family: str  # the key in [tool.poetry-cuda.mirrors]: "pytorch"
    name: str
    url: str  # a template with "{variant}"
    layout: Layout
    source: str
    confidence: Confidence


ToolkitRoot = Literal["nvidia/*", "nvidia/cu13"]
TOOLKIT_ROOTS: tuple[ToolkitRoot, ...] = get_args(ToolkitRoot)


@frozen
class ToolkitPin:
    """A toolkit wheel whose versions do not follow the CUDA version (nvidia-cuda-cccl
    13.3.4.x for CUDA 13.4): its pin for one minor."""

    package: str
    minor: CudaVersion
    spec: str  # a PEP 440 specifier: "==13.3.4.*"
    source: str
    confidence: Confidence


@frozen
class ToolkitWheels:
    """The PyPI wheels that make up one CUDA major's per-project toolkit (`toolkit = "wheels"`)."""

    cuda: int  # the major
    packages: tuple[str, ...]
    minors: tuple[CudaVersion, ...]
    nvcc: bool  # the set contains the nvcc compiler driver
    root: ToolkitRoot  # "nvidia/*" (a folder per wheel) or "nvidia/cu13" (one shared folder)
    source: str
    confidence: Confidence
    pins: tuple[ToolkitPin, ...] = ()  # where a package's version is not "==<minor>.*"

    def spec(self, package: str, minor: CudaVersion) -> str:
        """The specifier that pins `package` to the wheels of CUDA `minor`."""
        pin = next((p for p in self.pins if p.package == package and p.minor == minor), None)
        return f"=={minor}.*" if pin is None else pin.spec


@frozen
class NvccParts:
    """The components of NVIDIA's redistributables nvcc needs, from CUDA `first` until the
    next row's (`toolkit = "redist"`)."""

    first: CudaVersion
    components: tuple[str, ...]
    source: str
    confidence: Confidence


@frozen
class KnowledgeBase:
    nvidia: Nvidia
    families: tuple[Family, ...]
    fixed: tuple[FixedFlavour, ...]
    # Packages that compile CUDA code at install time and so need nvcc (name -> requirement).
    builds_with_nvcc: tuple[tuple[str, SystemNeed], ...] = ()
    # What doctor reads of the installed builds of packages that are no family's (fixed.toml).
    fixed_installed: tuple[Installed, ...] = ()
    mirrors: tuple[KnownMirror, ...] = ()
    toolkit_wheels: tuple[ToolkitWheels, ...] = ()
    nvcc_parts: tuple[NvccParts, ...] = ()  # sorted by `first`, ascending
    base_images: tuple[BaseImage, ...] = ()  # newest CUDA first

    def family_of(self, package: str) -> Family | None:
        for family in self.families:
            if package in family.members or package in family.companions:
                return family
        return None

    @property
    def installed(self) -> tuple[Installed, ...]:
        """What doctor reads of installed builds: the families' rows, then fixed.toml's."""
        own = tuple(f.installed for f in self.families if f.installed is not None)
        return own + self.fixed_installed

    @property
    def preferred(self) -> frozenset[str]:
        """The packages whose CUDA is the project's when they have a CUDA build."""
        return preferred_packages(self.installed)


def installed_of(rows: Sequence[Installed], package: str) -> Installed | None:
    """The first row naming the distribution `package` (a normalized name), if any."""
    return next((row for row in rows if package in row.packages), None)


def preferred_packages(rows: Sequence[Installed]) -> frozenset[str]:
    """The packages whose CUDA is the project's when they have a CUDA build (`project_cuda`)."""
    return frozenset(name for row in rows if row.preferred for name in row.packages)
