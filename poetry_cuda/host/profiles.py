"""What was detected: the host profile, and its JSON form.

`detect --json` prints a `HostProfile`; `--target FILE` reads one. A target file may
omit everything but ``os``; `driver.cuda` may then be derived from `driver.version`
with NVIDIA's table (see `poetry_cuda.knowledge`), which is the caller's job. A profile
that `detect --kubernetes` wrote for a group of cluster nodes also says which `nodes` it
stands for, and is called after them ("the 4 nodes of k8s-a100-535").

Schema 2 describes other GPUs than NVIDIA's: each GPU names its `vendor` (``nvidia``,
``amd``, ``intel``; NVIDIA when absent), an AMD GPU its ``gfx`` target instead of a
compute capability, an Intel GPU its `device_ip` where known, and the host its ROCm
(`rocm`) and Intel XPU (`xpu`) stacks. A schema-1 profile stays valid and means NVIDIA
GPUs only; `detect --json` writes schema 2. The host's accelerators follow from its GPUs
(`HostProfile.accelerators`).
"""

from __future__ import annotations

import dataclasses
import json
import re

from dataclasses import field
from pathlib import PurePath
from typing import TYPE_CHECKING
from typing import Any
from typing import Literal

from poetry_cuda.accelerators import VENDOR_ACCELERATOR
from poetry_cuda.accelerators import VENDOR_NAMES
from poetry_cuda.accelerators import VENDORS
from poetry_cuda.accelerators import Accelerator
from poetry_cuda.accelerators import Vendor
from poetry_cuda.display import ECHO_CONTROL
from poetry_cuda.display import echoed
from poetry_cuda.display import quoted
from poetry_cuda.errors import DetectionError
from poetry_cuda.errors import InputFileError
from poetry_cuda.files import PROFILE_LIMIT
from poetry_cuda.files import read_bounded
from poetry_cuda.files import refused
from poetry_cuda.messages import localize
from poetry_cuda.messages import message
from poetry_cuda.records import frozen
from poetry_cuda.schema import Table
from poetry_cuda.schema import Voice
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion


if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from poetry_cuda.messages import Localized


SCHEMA = 2
SCHEMAS = (1, 2)  # schema 1: NVIDIA GPUs only
OperatingSystem = Literal["linux", "windows", "macos"]
OPERATING_SYSTEMS: tuple[OperatingSystem, ...] = ("linux", "windows", "macos")
# Other spellings of the machines: Windows' AMD64, x64 in target files, arm64 on Linux.
MACHINE_ALIASES = {"amd64": "x86_64", "x64": "x86_64", "arm64": "aarch64"}


# A machine as platform.machine() names it, lower case (x86_64, aarch64, ppc64le).
MACHINE = re.compile(r"[a-z0-9_]{1,32}")
MACHINE_EXAMPLES = "x86_64, aarch64"


def canonical_machine(machine: str) -> str:
    """`x86_64` or `aarch64` (or the name as given, lowercased, when it is neither)."""
    machine = machine.lower()
    return MACHINE_ALIASES.get(machine, machine)


@frozen
class Driver:
    """The NVIDIA driver and the highest CUDA version it supports."""

    version: DriverVersion | None
    cuda: CudaVersion | None
    source: str
    # Where `cuda` came from when another probe than `source` gave it ("nvidia-smi",
    # or "driver table" when derived from the version with NVIDIA's table).
    cuda_source: str | None = None

    def describe(self) -> str:
        version = str(self.version) if self.version else "of unknown version"
        cuda = f"CUDA <= {self.cuda}" if self.cuda else "an unknown CUDA version"
        return f"driver {version} supports {cuda}"


# Integrated GPUs (APUs), by architecture: gfx90c Renoir/Cezanne/Lucienne/Barcelo, gfx1033
# Van Gogh, gfx1035 Rembrandt (Radeon 680M), gfx1036 Raphael, gfx1037 Mendocino, gfx1103
# Phoenix/Hawk Point (Radeon 780M), gfx1150 Strix Point, gfx1151 Strix Halo, gfx1152
# Krackan, gfx1153 (Radeon 820M). Sources: ROCm/TheRock RELEASES.md ("Supported Python
# [device-*] install extras": Radeon 680M gfx1035, Raphael iGPU gfx1036, Ryzen 7 7840U
# gfx1103, Ryzen AI 9 HX 375 gfx1150, Ryzen AI Max+ PRO 395 gfx1151, Ryzen AI 7 350 gfx1152,
# Radeon 820M gfx1153, Van Gogh gfx1033); easydiffusion/torchruntime gpu_db.py
# AMD_INTEGRATED_GPUS (gfx90c, gfx1037). MI300A (gfx942) is an APU too, but a data-centre
# one: it is told by its PCI device id, 0x74a0.
INTEGRATED_GFX = frozenset(
    {
        "gfx90c",
        "gfx1033",
        "gfx1035",
        "gfx1036",
        "gfx1037",
        "gfx1103",
        "gfx1150",
        "gfx1151",
        "gfx1152",
        "gfx1153",
    }
)


@frozen
class Gpu:
    """One GPU: an NVIDIA GPU by its compute capability, an AMD GPU by its ``gfx`` target
    (``gfx90a``), an Intel GPU by its `device_ip` (``12.55.8``) where known."""

    index: int
    name: str
    compute_capability: ComputeCapability | None  # NVIDIA GPUs only, where they have one
    source: str
    uuid: str | None = None
    memory_mib: int | None = None
    vendor: Vendor = "nvidia"
    gfx: str | None = None  # AMD GPUs
    device_ip: str | None = None  # Intel GPUs

    @property
    def accelerator(self) -> Accelerator:
        """The stack its builds are made for: CUDA, ROCm or XPU."""
        return VENDOR_ACCELERATOR[self.vendor]

    def describe(self) -> str:
        """``AMD Instinct MI250X (gfx90a)``: its name, with what tells builds apart."""
        detail = self.gfx or self.device_ip or self.compute_capability
        return f"{self.name} ({detail})" if detail else self.name


@frozen
class Rocm:
    """AMD's ROCm stack: its user-space version (None when none is installed: the ROCm
    wheels bring their own), the amdgpu kernel driver's, and the probe."""

    version: str | None
    kernel_driver: str | None
    source: str


@frozen
class Xpu:
    """Intel's GPU stack: the driver's version and the probe that read it."""

    driver: str
    source: str


@frozen
class Toolkit:
    """A system CUDA toolkit (a folder with nvcc or CUDA libraries)."""

    version: str
    root: str
    nvcc: str | None
    source: str

    @property
    def cuda(self) -> CudaVersion:
        return CudaVersion.parse(self.version)


@frozen
class Cudnn:
    version: str
    path: str
    source: str


@frozen
class Problem:
    """A probe found something present but wrong; `fix` says what to do."""

    probe: str
    message: str
    fix: str


@frozen
class ProbeReport:
    """What one probe did: ``found``, ``absent``, ``error``, ``timeout`` or ``skipped``.

    `detail` is what it says in English (as profiles record it); `said`, where the probe
    says it with a catalogue message, is that message, shown in the reader's language.
    """

    probe: str
    result: str
    detail: str
    said: Localized = field(default="", compare=False, repr=False)

    @classmethod
    def saying(cls, probe: str, result: str, said: Localized) -> ProbeReport:
        return cls(probe, result, localize(said, "en"), said)

    @property
    def shown(self) -> Localized:
        """The detail to show: the message where there is one, else the detail as recorded."""
        return self.said or self.detail


# A Kubernetes node's name is a DNS subdomain name, at most 253 characters. A profile
# records the names of up to 10,000 nodes (about 2.5 MiB, under PROFILE_LIMIT) and the
# count of them all; no cluster comes near a million nodes.
NODE_NAME_LIMIT = 253
# Its shape, as the API server checks it (lower-case letters, digits, '-' and '.').
NODE_NAME = re.compile(rf"[a-z0-9](?:[a-z0-9.-]{{0,{NODE_NAME_LIMIT - 2}}}[a-z0-9])?")
NODE_NAMES_RECORDED = 10_000
NODE_COUNT_LIMIT = 1_000_000


@frozen
class Nodes:
    """The Kubernetes nodes a profile stands for: how many, and their names (sorted; the
    first `NODE_NAMES_RECORDED` of them where there are more)."""

    count: int
    names: tuple[str, ...]

    def label(self, group: str) -> str:
        """How plans and messages call the profile: ``the 4 nodes of k8s-a100-535``."""
        return f"the {self.count} node{'s' * (self.count != 1)} of {group}"


@frozen
class HostProfile:
    os: OperatingSystem
    machine: str
    driver: Driver | None
    gpus: tuple[Gpu, ...] = ()
    toolkits: tuple[Toolkit, ...] = ()
    cudnn: tuple[Cudnn, ...] = ()
    problems: tuple[Problem, ...] = ()
    probes: tuple[ProbeReport, ...] = ()
    label: str = "this machine"
    nodes: Nodes | None = None  # the cluster nodes a profile from `detect --kubernetes` stands for
    extra: dict[str, Any] = field(default_factory=dict, compare=False)
    rocm: Rocm | None = None
    xpu: Xpu | None = None

    @property
    def capabilities(self) -> tuple[ComputeCapability, ...]:
        """The compute capabilities of the NVIDIA GPUs."""
        return tuple(
            sorted({g.compute_capability for g in self.nvidia_gpus if g.compute_capability})
        )

    @property
    def nvidia_gpus(self) -> tuple[Gpu, ...]:
        return tuple(gpu for gpu in self.gpus if gpu.vendor == "nvidia")

    @property
    def accelerators(self) -> tuple[Accelerator, ...]:
        """The stacks its GPUs are for (CUDA, ROCm, XPU), in that order; none without a GPU."""
        present = {gpu.accelerator for gpu in self.gpus}
        return tuple(kind for kind in VENDOR_ACCELERATOR.values() if kind in present)

    def to_json(self) -> dict[str, Any]:
        """The SPEC's profile document (plus `problems` and `probes`, and `nodes` if any)."""
        document: dict[str, Any] = {
            "schema": SCHEMA,
            "os": self.os,
            "machine": self.machine,
            "driver": None
            if self.driver is None
            else {
                "version": str(self.driver.version) if self.driver.version else None,
                "cuda": str(self.driver.cuda) if self.driver.cuda else None,
                "source": self.driver.source,
                "cuda_source": self.driver.cuda_source or self.driver.source,
            },
            "gpus": [_gpu_json(gpu) for gpu in self.gpus],
            "toolkits": [
                {"version": t.version, "root": t.root, "nvcc": t.nvcc, "source": t.source}
                for t in self.toolkits
            ],
            "cudnn": [
                {"version": c.version, "path": c.path, "source": c.source} for c in self.cudnn
            ],
            "problems": [
                {"probe": p.probe, "message": p.message, "fix": p.fix} for p in self.problems
            ],
            "probes": [
                {"probe": p.probe, "result": p.result, "detail": p.detail} for p in self.probes
            ],
        }
        document["rocm"] = (
            None
            if self.rocm is None
            else {
                "version": self.rocm.version,
                "kernel_driver": self.rocm.kernel_driver,
                "source": self.rocm.source,
            }
        )
        document["xpu"] = (
            None
            if self.xpu is None
            else {
                "driver": self.xpu.driver,
                "source": self.xpu.source,
            }
        )
        if self.nodes is not None:
            document["nodes"] = {"count": self.nodes.count, "names": list(self.nodes.names)}
        return document


def _gpu_json(gpu: Gpu) -> dict[str, Any]:
    """A GPU's entry: its vendor's identifying fact (compute capability, gfx, device IP)."""
    entry: dict[str, Any] = {"index": gpu.index, "name": gpu.name, "vendor": gpu.vendor}
    if gpu.vendor == "nvidia":
        cc = gpu.compute_capability
        entry["compute_capability"] = None if cc is None else str(cc)
    elif gpu.vendor == "amd":
        entry["gfx"] = gpu.gfx
    else:
        entry["device_ip"] = gpu.device_ip
    entry.update(uuid=gpu.uuid, memory_mib=gpu.memory_mib, source=gpu.source)
    return entry


VOICE = Voice(
    InputFileError,
    "",
    why=message("profile.schema-why"),
    fix=message("profile.schema-fix"),
)
OBJECT = "an object"
OBJECTS = "a list of objects"


def profile_from_json(data: object, origin: str) -> HostProfile:
    """Validate a profile document; `origin` names the file in error messages."""
    voice = dataclasses.replace(VOICE, prefix=f"{origin}: ")
    if not isinstance(data, dict):
        raise voice.fail("", "expected a JSON object")
    _refuse_control_characters(data, voice)
    top = Table(data, voice)
    schema = top.value("schema", int, "an integer", None)
    if schema is not None and schema not in SCHEMAS:
        raise top.error(
            "schema", f"unsupported schema {schema} (this version reads 1 and {SCHEMA})"
        )
    nvidia_only = schema == 1
    os_name = top.choice("os", OPERATING_SYSTEMS)
    machine = (top.value("machine", str, "a string", None) or "x86_64").lower()
    if not MACHINE.fullmatch(machine):
        raise top.error(
            "machine",
            f"{quoted(machine)} is not a machine architecture ({MACHINE_EXAMPLES})",
        )
    driver = _driver(top)
    gpus = tuple(
        _gpu(raw, i, nvidia_only)
        for i, raw in enumerate(top.tables("gpus", what=OBJECTS, item=OBJECT))
    )
    if driver is None and any(gpu.vendor == "nvidia" for gpu in gpus):
        raise top.error("driver", "NVIDIA GPUs are listed but no driver is given")
    rocm, xpu = _rocm(top, nvidia_only), _xpu(top, nvidia_only)

    toolkits = []
    for raw in top.tables("toolkits", what=OBJECTS, item=OBJECT):
        version = raw.value("version", str, "a string")
        raw.parse("version", version, CudaVersion.parse)
        toolkits.append(
            Toolkit(
                version=version,
                root=raw.value("root", str, "a string", None) or "",
                nvcc=raw.value("nvcc", str, "a string", None),
                source=raw.value("source", str, "a string", None) or "target",
            )
        )

    cudnn = [
        Cudnn(
            version=raw.value("version", str, "a string"),
            path=raw.value("path", str, "a string", None) or "",
            source=raw.value("source", str, "a string", None) or "target",
        )
        for raw in top.tables("cudnn", what=OBJECTS, item=OBJECT)
    ]

    nodes = _nodes(top)
    return HostProfile(
        os=os_name,
        machine=machine,
        driver=driver,
        gpus=gpus,
        toolkits=tuple(toolkits),
        cudnn=tuple(cudnn),
        label=origin if nodes is None else nodes.label(group_name(origin)),
        nodes=nodes,
        rocm=rocm,
        xpu=xpu,
    )


def _refuse_control_characters(data: dict[str, Any], voice: Voice) -> None:
    """Refuse a document with a control character (a line break, a tab, an escape) in any
    key or string: no field of a profile holds one, and a GPU name or path with a line
    break would print lines of its own wherever the profile is shown."""
    pending: list[tuple[str, object]] = [("", data)]
    while pending:
        where, value = pending.pop()
        if isinstance(value, str):
            if ECHO_CONTROL.search(value):
                raise voice.fail(
                    where, f"{quoted(value)} holds a control character (a line break?)"
                )
        elif isinstance(value, dict):
            for key, item in value.items():
                inner = f"{where}.{key}" if where else key
                if ECHO_CONTROL.search(key):
                    raise voice.fail(inner, "a key with a control character (a line break?)")
                pending.append((inner, item))
        elif isinstance(value, list):
            pending += ((f"{where}[{index}]", item) for index, item in enumerate(value))


def _driver(top: Table) -> Driver | None:
    """The NVIDIA driver: its version, its highest CUDA version, or both."""
    raw = top.table("driver", None, what=OBJECT)
    if raw is None:
        return None
    version_text = raw.value("version", str, "a string", None)
    cuda_text = raw.value("cuda", str, "a string", None)
    if version_text is None and cuda_text is None:
        raise top.error("driver", "give driver.version, driver.cuda or both")
    return Driver(
        version=raw.parse("version", version_text, DriverVersion.parse) if version_text else None,
        cuda=raw.parse("cuda", cuda_text, CudaVersion.parse) if cuda_text else None,
        source=raw.value("source", str, "a string", None) or "target",
    )


# What the other vendors' GPUs and stacks are known by: AMD's gfx targets (gfx90a,
# gfx1100: a decimal major, then the minor and stepping in hex), Intel's device IPs
# (12.55.8), and versions such as ROCm's 6.4.1 or 6.4.1-120.
GFX = re.compile(r"gfx[1-9][0-9]?[0-9a-f]{2}")
# rocminfo's and amd-smi's names add the target's features (gfx90a:sramecc+:xnack-); a
# build for the bare target runs in either mode of each, so a profile keeps the bare one.
GFX_NAME = re.compile(rf"({GFX.pattern})(?::[a-z0-9]{{1,16}}[+-]){{0,8}}")
DEVICE_IP = re.compile(r"[0-9]{1,4}(?:\.[0-9]{1,4}){1,2}")
STACK_VERSION = re.compile(r"[0-9]{1,5}(?:\.[0-9]{1,9}){0,3}(?:[-+][0-9A-Za-z.]{1,32})?")
SCHEMA_2 = "needs schema 2: a schema-1 profile describes NVIDIA GPUs only"
SCHEMA_2_FIX = 'set "schema": 2, or write the profile with `poetry-cuda detect --json`'


def _matching(pattern: re.Pattern[str], example: str) -> Callable[[str], str]:
    """A parser that accepts a text matching `pattern` whole (`example` shows one)."""

    def check(text: str) -> str:
        if not pattern.fullmatch(text):
            raise ValueError(f"{text!r} is not of the form {example!r}")
        return text

    return check


def _vendor_field(
    raw: Table, key: str, vendor: Vendor, owner: Vendor, parse: Callable[[str], str]
) -> str | None:
    """`key` of a GPU, which only a GPU of `owner` may carry."""
    if not raw.has(key):
        return None
    if vendor != owner:
        raise raw.error(key, f"only {VENDOR_NAMES[owner]} GPUs carry {key}; this one is {vendor}")
    return raw.parsed(key, parse)


def _gfx_target(text: str) -> str:
    """The gfx target a profile names, without rocminfo's feature flags."""
    name = GFX_NAME.fullmatch(text)
    if name is None:
        raise ValueError(f"{text!r} is not of the form 'gfx90a' (or 'gfx90a:sramecc+:xnack-')")
    return name.group(1)


def _gpu(raw: Table, position: int, nvidia_only: bool) -> Gpu:
    """One GPU entry: an NVIDIA GPU's compute capability, an AMD GPU's gfx target, an
    Intel GPU's device IP (where known)."""
    if nvidia_only:
        for key in ("vendor", "gfx", "device_ip"):
            if raw.has(key):
                raise raw.error(key, SCHEMA_2, fix=SCHEMA_2_FIX)
    vendor = raw.choice("vendor", VENDORS, "nvidia")
    capability = None
    if vendor == "nvidia":
        cc_text = raw.value("compute_capability", str, "a string")
        capability = raw.parse("compute_capability", cc_text, ComputeCapability.parse)
    elif raw.has("compute_capability"):
        raise raw.error("compute_capability", f"only NVIDIA GPUs have one; this one is {vendor}")
    gfx = _vendor_field(raw, "gfx", vendor, "amd", _gfx_target)
    if vendor == "amd" and gfx is None:
        raise raw.error("gfx", "missing (an AMD GPU is known by its gfx target, e.g. 'gfx90a')")
    index = raw.value("index", int, "an integer", None)
    return Gpu(
        index=position if index is None else index,
        name=raw.value("name", str, "a string", None) or f"{VENDOR_NAMES[vendor]} GPU",
        compute_capability=capability,
        source=raw.value("source", str, "a string", None) or "target",
        uuid=raw.value("uuid", str, "a string", None),
        memory_mib=raw.value("memory_mib", int, "an integer", None),
        vendor=vendor,
        gfx=gfx,
        device_ip=_vendor_field(raw, "device_ip", vendor, "intel", _matching(DEVICE_IP, "12.55.8")),
    )


def _stack(top: Table, key: str, nvidia_only: bool) -> Table | None:
    """The `rocm` or `xpu` object (null: the stack is absent)."""
    if nvidia_only and top.has(key) and top.data[key] is not None:
        raise top.error(key, SCHEMA_2, fix=SCHEMA_2_FIX)
    return top.table(key, None, what=f"{OBJECT} or null")


def _rocm(top: Table, nvidia_only: bool) -> Rocm | None:
    raw = _stack(top, "rocm", nvidia_only)
    if raw is None:
        return None
    version = _matching(STACK_VERSION, "6.4.1")
    user_space = raw.value("version", str, "a string", None)
    kernel_driver = raw.value("kernel_driver", str, "a string", None)
    return Rocm(
        version=None if user_space is None else raw.parse("version", user_space, version),
        kernel_driver=None
        if kernel_driver is None
        else raw.parse("kernel_driver", kernel_driver, version),
        source=raw.value("source", str, "a string", None) or "target",
    )


def _xpu(top: Table, nvidia_only: bool) -> Xpu | None:
    raw = _stack(top, "xpu", nvidia_only)
    if raw is None:
        return None
    return Xpu(
        driver=raw.parsed("driver", _matching(STACK_VERSION, "24.35.30872.22")),
        source=raw.value("source", str, "a string", None) or "target",
    )


def group_name(origin: str) -> str:
    """The node group a profile file is named after: ``k8s-a100-535`` for
    ``hosts/k8s-a100-535.json``."""
    return PurePath(origin).name.removesuffix(".json") or origin


def _nodes(top: Table) -> Nodes | None:
    """The profile's `nodes` entry: a count, and at most that many names."""
    raw = top.table("nodes", None, what=OBJECT)
    if raw is None:
        return None
    count = raw.value("count", int, "an integer")
    if not 1 <= count <= NODE_COUNT_LIMIT:
        raise raw.error("count", f"{count} is not a number of nodes (1 to {NODE_COUNT_LIMIT:,})")
    names = raw.texts("names", ())
    if len(names) > min(count, NODE_NAMES_RECORDED):
        raise raw.error(
            "names",
            f"{len(names)} names for {count} nodes (at most {NODE_NAMES_RECORDED:,} are recorded)",
        )
    for index, name in enumerate(names):
        if not (len(name) <= NODE_NAME_LIMIT and NODE_NAME.fullmatch(name)):
            raise raw.error(
                f"names[{index}]",
                f"not a node name ({quoted(name)}: a node name is 1 to "
                f"{NODE_NAME_LIMIT} lower-case letters, digits, '-' and '.')",
            )
    return Nodes(count, names)


def load_target(path: Path, *, label: str | None = None) -> HostProfile:
    """Read and validate a target profile file."""
    name = echoed(label or str(path))  # how messages and plans call it: a path is input too
    try:
        found = path.exists()
    except OSError as error:  # a name too long for the file system, a loop of links
        raise InputFileError(
            message("target.unreadable", name=name, problem=error.strerror or str(error)),
            fix=message("target.not-found-fix"),
        ) from None
    if not found:
        raise InputFileError(
            message("target.not-found", name=name), fix=message("target.not-found-fix")
        )
    data = read_bounded(path, limit=PROFILE_LIMIT, name=name)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        problem = f"{error.__class__.__name__}: {error}"
        raise InputFileError(
            message("target.unreadable", name=name, problem=problem),
            fix=message("target.make-utf8"),
        ) from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputFileError(
            message(
                "target.not-json",
                name=name,
                line=error.lineno,
                column=error.colno,
                problem=error.msg,
            ),
            why=message("target.is-profile"),
            fix=message("target.write-with-detect"),
        ) from None
    except (ValueError, RecursionError) as error:
        raise refused(
            InputFileError,
            f"{name}: not a readable profile",
            error,
            why=message("target.is-profile"),
            fix=message("target.write-with-detect"),
        ) from None
    return profile_from_json(document, name)


def host_os(platform_name: str) -> OperatingSystem:
    """``linux``, ``windows`` or ``macos`` for a `sys.platform` value."""
    if platform_name.startswith("linux"):
        return "linux"
    if platform_name in ("win32", "cygwin", "msys"):
        return "windows"
    if platform_name == "darwin":
        return "macos"
    raise DetectionError(
        f"cannot detect a CUDA host on {platform_name!r}",
        why="poetry-cuda knows Linux, Windows and macOS",
        fix="plan for the machine you deploy to with --target FILE",
    )


def host_machine(machine: str, os_name: OperatingSystem) -> str:
    """`platform.machine()`, lower case, with Linux's names on Linux and Windows."""
    machine = machine.lower()
    if os_name == "macos":
        return machine
    return canonical_machine(machine)
