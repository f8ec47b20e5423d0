"""The PCI devices the kernel lists in ``/sys/bus/pci/devices`` (Linux), read without lspci.

AMD and Intel detection use this as their last word on which GPUs are present: it needs no
driver and no vendor tool, but it names only vendor, device and class, never the GPU's
architecture. Each device directory holds ``vendor``, ``device`` and ``class`` as hex
strings (``0x1002``, ``0x74a1``, ``0x030000``) and, when a driver is bound, a ``driver``
link whose target's name is the kernel module (``amdgpu``, ``i915``, ``xe``).
"""

from __future__ import annotations

import re

from typing import TYPE_CHECKING

from poetry_cuda.host.system_files import read_small
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from pathlib import Path


VENDOR_AMD = 0x1002
VENDOR_INTEL = 0x8086
VENDOR_NVIDIA = 0x10DE
# Base classes (the class code's top byte): 0x03 display controllers (VGA 0x0300, 3D
# 0x0302, other 0x0380), 0x12 processing accelerators (AMD Instinct MI300-class cards, and
# also AMD's XDNA NPUs, which are no GPUs).
CLASS_DISPLAY = 0x03
CLASS_ACCELERATOR = 0x12
_HEX = re.compile(r"^(?:0x)?([0-9a-fA-F]{1,8})$")


@frozen
class PciDevice:
    """One PCI function: its address (``0000:03:00.0``), ids, class code and bound driver."""

    address: str
    vendor: int
    device: int
    class_code: int
    driver: str | None = None

    @property
    def base_class(self) -> int:
        return (self.class_code >> 16) & 0xFF


def parse_hex(text: str) -> int | None:
    """A sysfs hex attribute (``0x8086\\n``) as a number, or None when it is not one."""
    match = _HEX.match(text.strip())
    return int(match.group(1), 16) if match else None


def _attribute(directory: Path, name: str) -> int | None:
    try:
        return parse_hex(read_small(directory / name))
    except OSError:
        return None


def read_pci_devices(sys_root: Path) -> tuple[PciDevice, ...]:
    """Every readable device under `sys_root`/bus/pci/devices, in address order.

    A device whose vendor, device or class cannot be read is left out: the kernel always
    writes them, so a missing one means the entry is not a device.
    """
    base = sys_root / "bus" / "pci" / "devices"
    try:
        entries = sorted(base.iterdir(), key=lambda entry: entry.name)
    except OSError:
        return ()
    devices = []
    for entry in entries:
        vendor = _attribute(entry, "vendor")
        device = _attribute(entry, "device")
        class_code = _attribute(entry, "class")
        if vendor is None or device is None or class_code is None:
            continue
        driver_link = entry / "driver"
        try:
            driver = driver_link.readlink().name if driver_link.is_symlink() else None
        except OSError:
            driver = None
        devices.append(PciDevice(entry.name, vendor, device, class_code, driver))
    return tuple(devices)
