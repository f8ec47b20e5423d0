"""Intel GPUs and the XPU runtime they need, detected from sysfs and the library path (Linux).

* ``pci``: ``/sys/bus/pci/devices`` with vendor 0x8086 and a display class (0x03). The PCI
  device id names the product family and, through Intel's table, the device IP version
  Level Zero would report (``12.55.8`` for Arc A770). The bound kernel driver (the device's
  ``driver`` link) is ``i915`` or ``xe``; Lunar Lake and Battlemage need ``xe``.
* ``level-zero``: PyTorch's ``+xpu`` wheels bring the SYCL and compiler runtime as wheels
  but not Level Zero nor Intel's GPU driver (pytorch/pytorch .ci/manywheel/build_xpu.sh):
  the host needs ``libze_loader.so.1`` and ``libze_intel_gpu.so.1`` (compute-runtime;
  Ubuntu packages ``libze1``, ``libze-intel-gpu1``), as Intel's variant provider loads them
  (wheelnext/intel-variant-provider ze.py). Without them the profile's ``xpu`` is None.

Device IP versions are ``architecture.release.revision``; the revision is the silicon
stepping, so comparisons use the first two numbers.
"""

from __future__ import annotations

import re

from typing import TYPE_CHECKING
from typing import Literal

from poetry_cuda.host.pci import CLASS_DISPLAY
from poetry_cuda.host.pci import VENDOR_INTEL
from poetry_cuda.host.pci import read_pci_devices
from poetry_cuda.host.profiles import ProbeReport
from poetry_cuda.messages import message
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from poetry_cuda.host.pci import PciDevice


@frozen
class IntelFamily:
    """A product family: its device IP (production stepping), name, and whether it is an
    integrated GPU."""

    key: str
    device_ip: str | None
    name: str
    integrated: bool


# Device IPs: wheelnext/intel-variant-provider intel_variant_provider/devices.py
# (`_intel_devips`, after intel/compute-runtime hw_ip_version.h). PTL's IP differs between
# its H (30.0.4) and U (30.1.0) parts, which the ids read here do not tell apart.
FAMILIES = {
    family.key: family
    for family in (
        IntelFamily("tgl", "12.0.0", "Intel Iris Xe / UHD Graphics (Tiger Lake)", True),
        IntelFamily("rkl", "12.1.0", "Intel UHD Graphics (Rocket Lake)", True),
        IntelFamily("adl-s", "12.2.0", "Intel UHD Graphics (Alder/Raptor Lake-S)", True),
        IntelFamily("adl-p", "12.3.0", "Intel Iris Xe Graphics (Alder/Raptor Lake-P)", True),
        IntelFamily("adl-n", "12.4.0", "Intel UHD Graphics (Alder Lake-N)", True),
        IntelFamily("dg1", "12.10.0", "Intel Iris Xe MAX (DG1)", False),
        IntelFamily("acm-g10", "12.55.8", "Intel Arc A-series (Alchemist, ACM-G10)", False),
        IntelFamily("acm-g11", "12.56.5", "Intel Arc A-series (Alchemist, ACM-G11)", False),
        IntelFamily("acm-g12", "12.57.0", "Intel Arc A-series (Alchemist, ACM-G12)", False),
        IntelFamily("pvc", "12.60.7", "Intel Data Center GPU Max (Ponte Vecchio)", False),
        IntelFamily("mtl-u", "12.70.4", "Intel Graphics (Meteor/Arrow Lake-U/S)", True),
        IntelFamily("mtl-h", "12.71.4", "Intel Arc Graphics (Meteor Lake-H)", True),
        IntelFamily("arl-h", "12.74.4", "Intel Arc Graphics (Arrow Lake-H)", True),
        IntelFamily("bmg-g21", "20.1.0", "Intel Arc B-series (Battlemage, BMG-G21)", False),
        IntelFamily("bmg-g31", "20.2.0", "Intel Arc B-series (Battlemage, BMG-G31)", False),
        IntelFamily("lnl-m", "20.4.4", "Intel Arc Graphics (Lunar Lake)", True),
        IntelFamily("ptl", None, "Intel Arc Graphics (Panther Lake)", True),
    )
}


def _ids(family: str, *ids: int) -> dict[int, str]:
    return dict.fromkeys(ids, family)


# PCI device ids: intel/compute-runtime shared/source/dll/devices/devices_base.inl; the
# ACM-G10/G11/G12 split of the DG2 ids follows the kernel's i915_pciids.h.
DEVICE_FAMILIES: dict[int, str] = {
    **_ids("tgl", 0x9A40, 0x9A49, 0x9A59, 0x9A60, 0x9A68, 0x9A70, 0x9A78),
    **_ids("rkl", 0x4C8A, 0x4C8B, 0x4C8C, 0x4C90, 0x4C9A),
    **_ids("adl-s", 0x4680, 0x4682, 0x4688, 0x468A, 0x468B, 0x4690, 0x4692, 0x4693, 0xA780),
    **_ids("adl-s", 0xA781, 0xA782, 0xA783, 0xA788, 0xA789, 0xA78A, 0xA78B),
    **_ids("adl-p", 0x46A0, 0x46A1, 0x46A3, 0x46A6, 0x46A8, 0x46AA, 0x462A, 0x4626, 0x4628),
    **_ids("adl-p", 0xA720, 0xA721, 0xA7A0, 0xA7A1, 0xA7A8, 0xA7A9, 0xA7AA, 0xA7AB, 0xA7AC),
    **_ids("adl-p", 0xA7AD),
    **_ids("adl-n", 0x46D0, 0x46D1, 0x46D2, 0x46D3, 0x46D4),
    **_ids("dg1", 0x4905, 0x4906, 0x4907, 0x4908, 0x4909),
    **_ids("acm-g10", 0x4F80, 0x4F81, 0x4F82, 0x4F83, 0x4F84, 0x5690, 0x5691, 0x5692),
    **_ids("acm-g10", 0x56A0, 0x56A1, 0x56A2, 0x56BE, 0x56BF, 0x56C0, 0x56C2),
    **_ids("acm-g11", 0x4F87, 0x4F88, 0x5693, 0x5694, 0x5695, 0x56A5, 0x56A6, 0x56B0, 0x56B1),
    **_ids("acm-g11", 0x56BA, 0x56BB, 0x56BC, 0x56BD, 0x56C1),
    **_ids("acm-g12", 0x5696, 0x5697, 0x56A3, 0x56A4, 0x56B2, 0x56B3),
    **_ids("pvc", 0x0BD0, 0x0BD4, 0x0BD5, 0x0BD6, 0x0BD7, 0x0BD8, 0x0BD9, 0x0BDA, 0x0BDB),
    **_ids("pvc", 0x0B69, 0x0B6E),
    **_ids("mtl-u", 0x7D40, 0x7D45, 0x7D41, 0x7D67),
    **_ids("mtl-h", 0x7D55, 0x7DD5),
    **_ids("arl-h", 0x7D51, 0x7DD1),
    **_ids("bmg-g21", 0xE202, 0xE209, 0xE20B, 0xE20C, 0xE20D, 0xE210, 0xE211, 0xE212),
    **_ids("bmg-g21", 0xE215, 0xE216),
    **_ids("bmg-g31", 0xE220, 0xE221, 0xE222, 0xE223),
    **_ids("lnl-m", 0x6420, 0x64A0, 0x64B0),
    **_ids("ptl", 0xB080, 0xB081, 0xB082, 0xB083, 0xB084, 0xB085, 0xB086, 0xB087, 0xB08F),
    **_ids("ptl", 0xB090, 0xB0A0, 0xB0B0, 0xFD80, 0xFD81),
}
# PyTorch warns that GPUs older than Arc (Alchemist) are "not officially supported by
# PyTorch XPU" (c10/xpu/XPUFunctions.cpp: architecture < intel_gpu_acm_g10).
FIRST_SUPPORTED_IP = (12, 55)
LEVEL_ZERO_LOADER = "libze_loader.so.1"
LEVEL_ZERO_DRIVER = "libze_intel_gpu.so.1"
LIBRARY_DIRS = ("usr/lib/x86_64-linux-gnu", "usr/lib64", "usr/lib", "usr/local/lib")
_IP = re.compile(r"^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$")


@frozen
class IntelGpu:
    """One Intel GPU as detection saw it; the fields wear the host profile's names.

    `family` and `device_ip` are None for a device id outside the table; `kernel_driver`
    is the bound kernel module (``i915``, ``xe``), None when none is bound.
    """

    index: int
    name: str
    pci_device: int
    family: str | None
    device_ip: str | None
    integrated: bool | None
    kernel_driver: str | None
    source: Literal["pci"] = "pci"
    vendor: Literal["intel"] = "intel"


@frozen
class Xpu:
    """The host profile's ``xpu``: Intel's Level Zero GPU driver, by the version its
    library's file name carries (the library name itself when it carries none)."""

    driver: str
    source: Literal["level-zero"] = "level-zero"


@frozen
class IntelDetection:
    gpus: tuple[IntelGpu, ...]
    xpu: Xpu | None
    reports: tuple[ProbeReport, ...]


@frozen
class IgnoredIntel:
    gpu: IntelGpu
    reason: str


def parse_device_ip(text: str) -> tuple[int, int, int] | None:
    """``12.55.8`` as numbers, or None."""
    match = _IP.match(text.strip())
    return None if match is None else (int(match[1]), int(match[2]), int(match[3]))


def intel_gpu(index: int, device: PciDevice) -> IntelGpu:
    """What the id table says of the Intel display device `device`."""
    family = FAMILIES.get(DEVICE_FAMILIES.get(device.device, ""))
    return IntelGpu(
        index=index,
        name=family.name if family else f"Intel GPU 8086:{device.device:04x}",
        pci_device=device.device,
        family=family.key if family else None,
        device_ip=family.device_ip if family else None,
        integrated=family.integrated if family else None,
        kernel_driver=device.driver,
    )


def intel_gpus(devices: Iterable[PciDevice]) -> tuple[IntelGpu, ...]:
    """Intel's display controllers among PCI devices, in address order."""
    found = [d for d in devices if d.vendor == VENDOR_INTEL and d.base_class == CLASS_DISPLAY]
    return tuple(intel_gpu(i, device) for i, device in enumerate(found))


def driver_version(library_name: str) -> str | None:
    """The version a Level Zero driver file name carries: ``libze_intel_gpu.so.1.6.32224``
    gives ``1.6.32224``; the bare soname gives None."""
    match = re.fullmatch(r"libze_intel_gpu\.so\.([0-9]+(?:\.[0-9]+){1,3})", library_name)
    return match.group(1) if match else None


def xpu_targets(
    gpus: Iterable[IntelGpu], *, nvidia_gpus: int
) -> tuple[tuple[IntelGpu, ...], tuple[IgnoredIntel, ...]]:
    """The GPUs an ``+xpu`` build is chosen for, and the others with the reason."""
    targets = []
    ignored = []
    for gpu in gpus:
        ip = parse_device_ip(gpu.device_ip) if gpu.device_ip else None
        if gpu.integrated and nvidia_gpus:
            reason = (
                f"{gpu.name} is an integrated GPU next to {nvidia_gpus} NVIDIA GPU(s), "
                "which are the compute devices"
            )
        elif ip is None:
            reason = (
                f"{gpu.name}: its device IP is unknown, so whether PyTorch XPU supports it "
                "cannot be told"
            )
        elif ip[:2] < FIRST_SUPPORTED_IP:
            reason = (
                f"{gpu.name} (device IP {gpu.device_ip}) is older than Arc (Alchemist, 12.55): "
                "PyTorch XPU does not officially support it"
            )
        else:
            targets.append(gpu)
            continue
        ignored.append(IgnoredIntel(gpu, reason))
    return tuple(targets), tuple(ignored)


def find_level_zero(root: Path) -> tuple[Path | None, Path | None]:
    """The Level Zero loader and Intel's GPU driver library below `root`, where found."""
    found: dict[str, Path] = {}
    for directory in LIBRARY_DIRS:
        for name in (LEVEL_ZERO_LOADER, LEVEL_ZERO_DRIVER):
            path = root / directory / name
            if name not in found and path.exists():
                found[name] = path
    return found.get(LEVEL_ZERO_LOADER), found.get(LEVEL_ZERO_DRIVER)


def detect_intel(*, root: Path) -> IntelDetection:
    """Probe the Intel GPUs of the Linux file system at `root` (see the module docstring)."""
    gpus = intel_gpus(read_pci_devices(root / "sys"))
    if not gpus:
        report = ProbeReport.saying("pci", "absent", message("probe.no-pci-gpu", vendor="Intel"))
        skipped = ProbeReport.saying("level-zero", "skipped", message("probe.no-intel-gpu"))
        return IntelDetection(gpus=(), xpu=None, reports=(report, skipped))
    listed = ", ".join(f"{gpu.name} ({gpu.device_ip or 'IP unknown'})" for gpu in gpus)
    reports = [ProbeReport("pci", "found", listed)]
    loader, driver = find_level_zero(root)
    if loader is None or driver is None:
        missing = LEVEL_ZERO_LOADER if loader is None else LEVEL_ZERO_DRIVER
        reports.append(
            ProbeReport(
                "level-zero",
                "absent",
                f"{missing} not found: install Intel's GPU compute runtime (Ubuntu: libze1, "
                "libze-intel-gpu1)",
            )
        )
        return IntelDetection(gpus=gpus, xpu=None, reports=tuple(reports))
    resolved = driver.resolve().name
    xpu = Xpu(driver=driver_version(resolved) or resolved)
    reports.append(ProbeReport("level-zero", "found", f"{loader}, {driver} ({xpu.driver})"))
    return IntelDetection(gpus=gpus, xpu=xpu, reports=tuple(reports))
