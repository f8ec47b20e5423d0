"""AMD GPUs and the ROCm stack, detected without ROCm installed (Linux).

The facts, and the probe each comes from, in the order they are tried:

1. ``kfd``: the kernel's compute topology, ``/sys/devices/virtual/kfd/kfd/topology/
   nodes/*/properties`` (the same as ``/sys/class/kfd/kfd/topology``), one ``name value``
   pair per line. A GPU node has ``simd_count > 0``; its ``gfx_target_version`` is
   ``major*10000 + minor*100 + stepping`` and names the architecture as
   ``gfx{major}{minor:x}{stepping:x}`` (90010 is gfx90a), as ``rocm_agent_enumerator``
   writes it (ROCm/ROCR-Runtime libhsakmt/src/topology.c, libhsakmt.h; ROCm/rocminfo
   rocm_agent_enumerator). Nodes of one partitioned card share ``(domain, location_id)``,
   so GPUs are counted by that pair. ``/dev/kfd`` is the device compute opens.
2. ``rocminfo``, ``rocm_agent_enumerator``, ``amd-smi``: ROCm's own tools, where KFD's
   topology cannot be read. They print names like ``gfx90a:sramecc+:xnack-``.
3. ``pci``: ``/sys/bus/pci/devices`` with vendor 0x1002: a GPU is there, its architecture
   unknown (no amdgpu kernel driver bound, or no KFD).

The kernel driver's version is ``/sys/module/amdgpu/version``, written only by AMD's
out-of-tree (DKMS) driver: an in-tree amdgpu has none (rocminfo then prints "ROCk module is
loaded" without a version). The ROCm user space is ``$ROCM_PATH/.info/version`` or
``/opt/rocm/.info/version`` (``6.4.0-47``); the pytorch.org ROCm wheels up to rocm7.2
bundle their own user space, so it is recorded, not required.

Every reader takes the root of the file system it reads (``/`` on this machine, a fake tree
in tests); the parsers are pure functions of the text.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

from typing import TYPE_CHECKING
from typing import Literal

from poetry_cuda.errors import os_problem
from poetry_cuda.host.pci import CLASS_ACCELERATOR
from poetry_cuda.host.pci import CLASS_DISPLAY
from poetry_cuda.host.pci import VENDOR_AMD
from poetry_cuda.host.pci import VENDOR_NVIDIA
from poetry_cuda.host.pci import read_pci_devices
from poetry_cuda.host.profiles import INTEGRATED_GFX
from poetry_cuda.host.profiles import ProbeReport
from poetry_cuda.host.run import run
from poetry_cuda.host.system_files import read_small
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import message
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Mapping
    from pathlib import Path

    from poetry_cuda.host.pci import PciDevice
    from poetry_cuda.host.run import Completed
    from poetry_cuda.messages import Localized


AmdSource = Literal["kfd", "rocminfo", "rocm_agent_enumerator", "amd-smi", "pci"]
KFD_TOPOLOGY = ("sys/devices/virtual/kfd/kfd/topology/nodes", "sys/class/kfd/kfd/topology/nodes")
PROGRAMS: tuple[AmdSource, ...] = ("rocminfo", "rocm_agent_enumerator", "amd-smi")
_GFX = re.compile(r"gfx([0-9]{1,2})([0-9a-f])([0-9a-f])(?![0-9a-z])")
_GFX_NAME = re.compile(r"^gfx[0-9]{1,2}[0-9a-f]{2}$")
_ROCM_VERSION = re.compile(r"^([0-9]{1,4}\.[0-9]{1,4}(?:\.[0-9]{1,6})?)(?:[-.+][0-9A-Za-z.]*)?$")
_MODULE_VERSION = re.compile(r"^[0-9]{1,6}(?:\.[0-9]{1,9}){1,3}$")
# KFD writes unsigned 64-bit values (at most 20 digits) and numbers its node folders.
_KFD_VALUE = re.compile(r"[0-9]{1,20}")
_KFD_NODE = re.compile(r"[0-9]{1,9}")

# Names by PCI device id, for reports only (the architecture comes from KFD). Sources: KFD
# device_id 29857/29856 in captured MI300X/MI300A nodes and the rocminfo capture of
# ROCm/ROCm issue 4273 ("Chip ID: 29856(0x74a0)", "AMD Instinct MI300A"); lspci logs of
# Instinct cards (1002:74a1 MI300X, 74a5 MI325X, 75a0 MI350X, 75a3 MI355X); torchruntime
# gpu_db.py for the APUs (15bf Phoenix, 164e Raphael, 1586 Strix Halo, 150e Strix).
DEVICE_NAMES = {
    0x74A0: "AMD Instinct MI300A",
    0x74A1: "AMD Instinct MI300X",
    0x74A5: "AMD Instinct MI325X",
    0x75A0: "AMD Instinct MI350X",
    0x75A3: "AMD Instinct MI355X",
    0x15BF: "AMD Radeon 780M (Phoenix)",
    0x164E: "AMD Radeon Graphics (Raphael)",
    0x1586: "AMD Radeon 8060S (Strix Halo)",
    0x150E: "AMD Radeon 890M (Strix Point)",
}
MI300A = 0x74A0
# Instinct cards of PCI class 0x12 (a class AMD's XDNA NPUs share, so only these ids count).
ACCELERATOR_IDS = frozenset({0x74A0, 0x74A1, 0x74A5, 0x75A0, 0x75A3})


@frozen
class AmdGpu:
    """One AMD GPU as detection saw it; the fields wear the host profile's names.

    `gfx` is None when only PCI saw the GPU. `integrated` says it is an APU's GPU (from its
    architecture), None when the architecture is unknown.
    """

    index: int
    name: str | None
    gfx: str | None
    integrated: bool | None
    source: AmdSource
    pci_device: int | None = None
    vendor: Literal["amd"] = "amd"


@frozen
class Rocm:
    """The host profile's ``rocm``: the user-space ROCm version (None when none is
    installed), the amdgpu kernel driver's version (None for an in-tree driver), and the
    probe that found the GPUs."""

    version: str | None
    kernel_driver: str | None
    source: AmdSource


@frozen
class Ignored:
    """A GPU that is no ROCm target, and why."""

    gpu: AmdGpu
    reason: str


@frozen
class AmdDetection:
    """What the AMD probes found: the GPUs, `rocm` (None without AMD GPUs), whether
    ``/dev/kfd`` exists (`compute`), and every probe's report."""

    gpus: tuple[AmdGpu, ...]
    rocm: Rocm | None
    compute: bool
    reports: tuple[ProbeReport, ...]


@frozen
class KfdNode:
    """One node of the KFD topology (a CPU, a GPU, or a partition of one)."""

    node: int
    gfx_target_version: int
    simd_count: int
    vendor_id: int
    device_id: int
    domain: int
    location_id: int

    @property
    def is_gpu(self) -> bool:
        return self.simd_count > 0 and self.gfx_target_version > 0


# ---------------------------------------------------------------------------------------
# Pure parsers.


def parse_kfd_properties(text: str) -> dict[str, int]:
    """A node's ``properties``: ``name value`` lines with unsigned decimal values (of at
    most 20 digits, as a 64-bit value has).

    Lines of any other shape are skipped; field order and unknown fields do not matter
    (they differ between kernels).
    """
    values: dict[str, int] = {}
    for line in text.split("\n"):
        parts = line.split()
        if len(parts) == 2 and _KFD_VALUE.fullmatch(parts[1]):
            values.setdefault(parts[0], int(parts[1]))
    return values


def gfx_name(gfx_target_version: int) -> str | None:
    """The architecture a KFD ``gfx_target_version`` encodes: 90010 is gfx90a, 110003 is
    gfx1103; None for 0 (a CPU node) and for values no GPU has."""
    major, minor, stepping = (
        gfx_target_version // 10000 % 100,
        gfx_target_version // 100 % 100,
        gfx_target_version % 100,
    )
    if gfx_target_version <= 0 or gfx_target_version >= 1_000_000:
        return None
    if not 7 <= major <= 15 or minor > 15 or stepping > 15:
        return None
    return f"gfx{major}{minor:x}{stepping:x}"


def is_gfx(text: str) -> bool:
    """Whether `text` is a plain architecture name: ``gfx90a``, ``gfx1100``."""
    return bool(_GFX_NAME.match(text))


def base_gfx(text: str) -> str | None:
    """The architecture in a target name: ``gfx90a:sramecc+:xnack-`` and
    ``amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-`` give gfx90a and gfx942."""
    match = _GFX.search(text.strip().lower())
    return None if match is None or match.group(0) == "gfx000" else match.group(0)


def kfd_node(node: int, properties: Mapping[str, int]) -> KfdNode:
    return KfdNode(
        node=node,
        gfx_target_version=properties.get("gfx_target_version", 0),
        simd_count=properties.get("simd_count", 0),
        vendor_id=properties.get("vendor_id", 0),
        device_id=properties.get("device_id", 0),
        domain=properties.get("domain", 0),
        location_id=properties.get("location_id", 0),
    )


def gpus_of_nodes(nodes: Iterable[KfdNode]) -> tuple[AmdGpu, ...]:
    """The physical AMD GPUs among KFD nodes: one per ``(domain, location_id)``, in node
    order (a partitioned MI300X shows one node per partition)."""
    seen: set[tuple[int, int]] = set()
    gpus: list[AmdGpu] = []
    for node in sorted(nodes, key=lambda node: node.node):
        if not node.is_gpu or node.vendor_id not in (0, VENDOR_AMD):
            continue
        place = (node.domain, node.location_id)
        if place in seen:
            continue
        seen.add(place)
        gfx = gfx_name(node.gfx_target_version)
        gpus.append(
            AmdGpu(
                index=len(gpus),
                name=DEVICE_NAMES.get(node.device_id),
                gfx=gfx,
                integrated=integrated(gfx, node.device_id),
                source="kfd",
                pci_device=node.device_id or None,
            )
        )
    return tuple(gpus)


def integrated(gfx: str | None, device_id: int | None = None) -> bool | None:
    """Whether the GPU is an APU's: by architecture (`INTEGRATED_GFX`) or MI300A's id."""
    if device_id == MI300A:
        return True
    return None if gfx is None else gfx in INTEGRATED_GFX


def parse_rocminfo(text: str) -> tuple[tuple[str, str | None], ...]:
    """The GPU agents of ``rocminfo`` output: ``(gfx, marketing name)`` per agent.

    An agent starts at an ``Agent N`` line; its own ``Name:`` is the first one in it (the
    ISA names below come later). CPU agents (``Device Type: CPU``) are skipped, whatever
    their name says: on MI300A the CPU agent too is named "AMD Instinct MI300A".
    """
    agents: list[dict[str, str]] = []
    for line in text.split("\n"):
        stripped = line.strip()
        if re.fullmatch(r"Agent [0-9]+", stripped):
            agents.append({})
            continue
        if not agents:
            continue
        key, colon, value = stripped.partition(":")
        if colon and key in ("Name", "Marketing Name", "Device Type"):
            agents[-1].setdefault(key, value.strip())
    found = []
    for agent in agents:
        gfx = base_gfx(agent.get("Name", ""))
        if agent.get("Device Type") == "GPU" and gfx is not None:
            found.append((gfx, agent.get("Marketing Name") or None))
    return tuple(found)


def parse_rocminfo_module(text: str) -> str | None:
    """The kernel driver version in rocminfo's ``ROCk module version 6.10.5 is loaded``."""
    match = re.search(r"ROCk module version (\S+) is loaded", text)
    return parse_module_version(match.group(1)) if match else None


def parse_agent_enumerator(text: str) -> tuple[str, ...]:
    """``rocm_agent_enumerator`` output: one target per GPU node (``gfx000`` is a CPU)."""
    return tuple(gfx for line in text.split("\n") if (gfx := base_gfx(line)) is not None)


def parse_amd_smi_version(text: str) -> dict[str, str]:
    """``amd-smi version``: ``|``-separated ``key: value`` pairs, ``N/A`` left out.

    ``AMDSMI Tool: 26.0.2+39589fda | AMDSMI Library version: 26.0.2 | ROCm version: 7.0.2
    | amdgpu version: 6.14.14 | amd_hsmp version: N/A``
    """
    values = {}
    for cell in text.replace("\n", "|").split("|"):
        key, colon, value = cell.partition(":")
        if colon and value.strip() and value.strip() != "N/A":
            values[key.strip()] = value.strip()
    return values


def parse_amd_smi_static(text: str) -> tuple[str, ...]:
    """The ``TARGET_GRAPHICS_VERSION: gfx1100`` lines of ``amd-smi static``, one per GPU."""
    return tuple(
        gfx
        for match in re.finditer(r"TARGET_GRAPHICS_VERSION:\s*(\S+)", text)
        if (gfx := base_gfx(match.group(1))) is not None
    )


def parse_rocm_version(text: str) -> str | None:
    """A ROCm version file (``6.4.0-47``, ``7.2.4``): the version without the build."""
    match = _ROCM_VERSION.match(text.strip())
    return match.group(1) if match else None


def parse_module_version(text: str) -> str | None:
    """``/sys/module/amdgpu/version`` (``6.12.12``)."""
    text = text.strip()
    return text if _MODULE_VERSION.match(text) else None


def rocm_targets(
    gpus: Iterable[AmdGpu], *, nvidia_gpus: int
) -> tuple[tuple[AmdGpu, ...], tuple[Ignored, ...]]:
    """The GPUs a ROCm build is chosen for, and the others with the reason.

    An APU's GPU next to an NVIDIA GPU is the display's, not the compute device: the CUDA
    build serves the machine (uv's detection also tries NVIDIA first). A GPU of unknown
    architecture cannot be matched against any build's list.
    """
    targets = []
    ignored = []
    for gpu in gpus:
        label = gpu.gfx or "an AMD GPU"
        if gpu.integrated and nvidia_gpus:
            ignored.append(
                Ignored(
                    gpu,
                    f"{label} is the integrated GPU of an APU next to {nvidia_gpus} NVIDIA "
                    "GPU(s): the NVIDIA GPUs are the compute devices, so no ROCm build is "
                    "chosen for it",
                )
            )
        elif gpu.gfx is None:
            ignored.append(
                Ignored(
                    gpu,
                    "an AMD GPU is on the PCI bus but its architecture is unknown: the amdgpu "
                    "kernel driver exposes no KFD topology (driver not loaded, or not "
                    "installed); load amdgpu (or install AMD's driver) and run detect again",
                )
            )
        else:
            targets.append(gpu)
    return tuple(targets), tuple(ignored)


# ---------------------------------------------------------------------------------------
# Readers (I/O at the edges).


def read_kfd_nodes(root: Path) -> tuple[tuple[KfdNode, ...], str | None, tuple[Localized, ...]]:
    """The KFD topology's nodes under `root`, the topology directory read (None when there
    is none), and a note for each entry skipped: an unreadable node is skipped (schedulers
    may hide some), as is anything else the kernel does not write there."""
    for relative in KFD_TOPOLOGY:
        base = root / relative
        try:
            entries = sorted(base.iterdir(), key=lambda entry: entry.name)
        except OSError:
            continue
        nodes = []
        notes: list[Localized] = []
        for entry in entries:
            if not _KFD_NODE.fullmatch(entry.name):
                notes.append(message("probe.not-a-node", name=ascii(entry.name)))
                continue
            properties = entry / "properties"
            try:
                text = read_small(properties)
            except OSError as error:
                notes.append(
                    message("probe.file-skipped", path=properties, problem=os_problem(error))
                )
                continue
            nodes.append(kfd_node(int(entry.name), parse_kfd_properties(text)))
        ordered = tuple(sorted(nodes, key=lambda node: node.node))
        return ordered, str(base), tuple(notes)
    return (), None, ()


def _read(path: Path) -> str | None:
    try:
        return read_small(path)
    except OSError:
        return None


def read_kernel_driver(root: Path) -> str | None:
    """``/sys/module/amdgpu/version``: AMD's DKMS driver's version, None for in-tree."""
    text = _read(root / "sys" / "module" / "amdgpu" / "version")
    return None if text is None else parse_module_version(text)


def rocm_home(root: Path, environ: Mapping[str, str]) -> Path:
    """``$ROCM_PATH`` (read below `root`), else ``/opt/rocm``."""
    configured = environ.get("ROCM_PATH", "").strip()
    if configured.startswith("/"):
        return root / configured.lstrip("/")
    return root / "opt" / "rocm"


def read_rocm_version(root: Path, environ: Mapping[str, str]) -> str | None:
    """The user-space ROCm version in ``<ROCm home>/.info/version``."""
    text = _read(rocm_home(root, environ) / ".info" / "version")
    return None if text is None else parse_rocm_version(text)


def amd_pci_gpus(devices: Iterable[PciDevice]) -> tuple[PciDevice, ...]:
    """AMD's GPUs among PCI devices: display controllers, and the Instinct cards of class
    0x12 (not the NPUs that share that class)."""
    return tuple(
        device
        for device in devices
        if device.vendor == VENDOR_AMD
        and (
            device.base_class == CLASS_DISPLAY
            or (device.base_class == CLASS_ACCELERATOR and device.device in ACCELERATOR_IDS)
        )
    )


def nvidia_pci_gpus(devices: Iterable[PciDevice]) -> int:
    """How many NVIDIA display or 3D controllers the PCI bus lists."""
    return sum(
        1 for device in devices if device.vendor == VENDOR_NVIDIA and device.base_class == 0x03
    )


def _find_program(name: str, root: Path, environ: Mapping[str, str]) -> str | None:
    home = rocm_home(root, environ) / "bin"
    path = os.pathsep.join(part for part in (str(home), environ.get("PATH", "")) if part)
    return shutil.which(name, path=path)


def _program_gpus(
    name: AmdSource, completed: Completed
) -> tuple[tuple[tuple[str, str | None], ...], str | None]:
    if name == "rocminfo":
        return parse_rocminfo(completed.stdout), parse_rocminfo_module(completed.stdout)
    if name == "rocm_agent_enumerator":
        return tuple((gfx, None) for gfx in parse_agent_enumerator(completed.stdout)), None
    return tuple((gfx, None) for gfx in parse_amd_smi_static(completed.stdout)), None


def _run_program(
    name: AmdSource, root: Path, environ: Mapping[str, str], timeout: float
) -> tuple[tuple[AmdGpu, ...], str | None, ProbeReport]:
    program = _find_program(name, root, environ)
    if program is None:
        return (
            (),
            None,
            ProbeReport.saying(name, "absent", message("probe.not-installed", program=name)),
        )
    argv = [program, "static"] if name == "amd-smi" else [program]
    try:
        completed = run(argv, env=environ, timeout=timeout)
    except subprocess.TimeoutExpired:
        return (), None, ProbeReport(name, "timeout", f"{program} ran past {timeout:g}s")
    except OSError as error:
        return (), None, ProbeReport(name, "error", f"{program}: {error.strerror or error}")
    found, module = _program_gpus(name, completed)
    if not found:
        # amd-smi and rocm-smi may exit 0 on failure, so an empty answer is no answer.
        detail = completed.first_line() or f"exit {completed.returncode}, no GPU listed"
        return (), module, ProbeReport(name, "error", f"{program}: {detail}")
    gpus = tuple(
        AmdGpu(index=i, name=label, gfx=gfx, integrated=integrated(gfx), source=name)
        for i, (gfx, label) in enumerate(found)
    )
    return gpus, module, ProbeReport(name, "found", f"{program}: {_gfx_list(gpus)}")


def _gfx_list(gpus: Iterable[AmdGpu]) -> str:
    return ", ".join(gpu.gfx or "unknown architecture" for gpu in gpus)


def _kfd_device_report(root: Path, *, compute: bool) -> ProbeReport:
    path = root / "dev" / "kfd"
    if compute:
        return ProbeReport("dev-kfd", "found", f"{path}: compute device present")
    # A container sees the host's sysfs but only the devices passed to it.
    return ProbeReport(
        "dev-kfd",
        "absent",
        f"{path} is missing, so ROCm cannot reach the GPUs: load amdgpu, or in a container "
        "pass the devices (docker run --device=/dev/kfd --device=/dev/dri)",
    )


def detect_amd(
    *, root: Path, environ: Mapping[str, str], timeout: float = 5.0, programs: bool = True
) -> AmdDetection:
    """Probe the AMD GPUs of the Linux file system at `root` (see the module docstring).

    `programs` allows the ROCm tools as fallbacks; `timeout` bounds each of them.
    """
    reports = []
    nodes, topology, notes = read_kfd_nodes(root)
    gpus = gpus_of_nodes(nodes)
    source: AmdSource = "kfd"
    module_from_tool = None
    if gpus:
        listed = Phrase((f"{topology}: {_gfx_list(gpus)}", *notes), "; ")
        reports.append(ProbeReport.saying("kfd", "found", listed))
    elif topology is not None:
        no_node = message("probe.no-gpu-node", topology=topology)
        reports.append(ProbeReport.saying("kfd", "absent", Phrase((no_node, *notes), "; ")))
    else:
        reports.append(ProbeReport.saying("kfd", "absent", message("probe.no-kfd")))
    for name in PROGRAMS:
        if gpus or not programs:
            reports.append(ProbeReport.saying(name, "skipped", message("probe.not-needed")))
            continue
        gpus, module_from_tool, report = _run_program(name, root, environ, timeout)
        reports.append(report)
        source = name
    devices = read_pci_devices(root / "sys")
    if not gpus:
        source = "pci"
        found = amd_pci_gpus(devices)
        gpus = tuple(
            AmdGpu(
                index=i,
                name=DEVICE_NAMES.get(device.device),
                gfx=None,
                integrated=integrated(None, device.device),
                source="pci",
                pci_device=device.device,
            )
            for i, device in enumerate(found)
        )
        if gpus:
            detail = ", ".join(f"{d.address} 1002:{d.device:04x}" for d in found)
            reports.append(ProbeReport("pci", "found", f"{detail} (architecture unknown)"))
        else:
            no_gpu = message("probe.no-pci-gpu", vendor="AMD")
            reports.append(ProbeReport.saying("pci", "absent", no_gpu))
    compute = (root / "dev" / "kfd").exists()
    if not gpus:
        return AmdDetection(gpus=(), rocm=None, compute=compute, reports=tuple(reports))
    reports.append(_kfd_device_report(root, compute=compute))
    rocm = Rocm(
        version=read_rocm_version(root, environ),
        kernel_driver=read_kernel_driver(root) or module_from_tool,
        source=source,
    )
    return AmdDetection(gpus=gpus, rocm=rocm, compute=compute, reports=tuple(reports))
