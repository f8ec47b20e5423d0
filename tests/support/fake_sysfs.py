"""Fake Linux file systems with AMD and Intel GPUs, as the kernel shows them in sysfs.

A `FakeSysfs` writes below a root what `poetry_cuda.host.amd` and `poetry_cuda.host.intel`
read: KFD topology nodes, ``/dev/kfd``, ``/sys/module/amdgpu/version``,
``/opt/rocm/.info/version``, PCI devices with their bound driver, Level Zero libraries, and
stand-in ROCm tools (shell scripts that print a captured output). The machines below are
built from captured or sourced values::

    sysfs = FakeSysfs(tmp_path)
    mi300x(sysfs)
    found = detect_amd(root=sysfs.root, environ={"PATH": ""})

The MI300X node texts are a captured KFD topology (CPU node 0, GPU node 1); the other GPU
nodes change only what tells GPUs apart (``gfx_target_version``, ``device_id``,
``location_id``, ``simd_count``).
"""

from __future__ import annotations

import os
import stat

from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path


KFD = "sys/devices/virtual/kfd/kfd/topology/nodes"

# A captured MI300X-class machine's KFD nodes (CPU node, then one GPU node).
MI300X_CPU_NODE = """\
cpu_cores_count 96
simd_count 0
mem_banks_count 1
caches_count 0
io_links_count 5
p2p_links_count 3
cpu_core_id_base 0
simd_id_base 0
max_waves_per_simd 0
lds_size_in_kb 0
gds_size_in_kb 0
num_gws 0
wave_front_size 0
array_count 0
simd_arrays_per_engine 0
cu_per_simd_array 0
simd_per_cu 0
max_slots_scratch_cu 0
gfx_target_version 0
vendor_id 0
device_id 0
location_id 0
domain 0
drm_render_minor 0
hive_id 0
num_sdma_engines 0
num_sdma_xgmi_engines 0
num_sdma_queues_per_engine 0
num_cp_queues 0
max_engine_clk_ccompute 2400
"""
MI300X_GPU_NODE = """\
cpu_cores_count 0
simd_count 1216
mem_banks_count 1
caches_count 626
io_links_count 7
p2p_links_count 1
cpu_core_id_base 0
simd_id_base 2147487784
max_waves_per_simd 8
lds_size_in_kb 64
gds_size_in_kb 0
num_gws 64
wave_front_size 64
array_count 32
simd_arrays_per_engine 1
cu_per_simd_array 10
simd_per_cu 4
max_slots_scratch_cu 32
gfx_target_version 90402
vendor_id 4098
device_id 29857
location_id 18176
domain 0
drm_render_minor 128
hive_id 10631624818852212319
num_sdma_engines 2
num_sdma_xgmi_engines 14
num_sdma_queues_per_engine 8
num_cp_queues 24
max_engine_clk_fcompute 2100
local_mem_size 0
fw_version 166
capability 746037888
debug_prop 1511
sdma_fw_version 22
unique_id 4376936076086227261
num_xcc 8
max_engine_clk_ccompute 2400
"""
# rocminfo on an MI300A with ROCm 6.3.1 (ROCm/ROCm issue 4273), the parts that matter: a
# CPU agent named like the APU, then the GPU agent with its ISA names.
ROCMINFO_MI300A = """\
ROCk module version 6.10.5 is loaded
=====================
HSA System Attributes
=====================
Runtime Version:         1.14
=====================
HSA Agents
==========
*******
Agent 1
*******
  Name:                    AMD Instinct MI300A Accelerator
  Uuid:                    CPU-XX
  Marketing Name:          AMD Instinct MI300A Accelerator
  Vendor Name:             CPU
  Feature:                 None specified
  Node:                    0
  Device Type:             CPU
*******
Agent 6
*******
  Name:                    gfx942
  Uuid:                    GPU-eaa69826c47efb9c
  Marketing Name:          AMD Instinct MI300A
  Vendor Name:             AMD
  Feature:                 KERNEL_DISPATCH
  Node:                    5
  Device Type:             GPU
  Chip ID:                 29856(0x74a0)
  BDFID:                   16640
  ISA Info:
    ISA 1
      Name:                    amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-
"""
# `amd-smi version` with ROCm 7.0.2, and the amdsmi CHANGELOG's example without ROCm.
AMD_SMI_VERSION = (
    "AMDSMI Tool: 26.0.2+39589fda | AMDSMI Library version: 26.0.2 | ROCm version: 7.0.2 | "
    "amdgpu version: 6.14.14 | amd_hsmp version: N/A"
)
AMD_SMI_VERSION_NO_ROCM = (
    "AMDSMI Tool: 24.7.1+b446d6c-dirty | AMDSMI Library version: 24.7.2.0 | "
    "ROCm version: N/A | amdgpu version: 6.10.10 | amd_hsmp version: 2.2"
)


class FakeSysfs:
    """A fake Linux root: each method adds one thing the probes read."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def write(self, relative: str, text: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="ascii")
        return path

    def kfd_node(self, node: int, properties: str) -> None:
        self.write(f"{KFD}/{node}/properties", properties)
        self.write(f"{KFD}/{node}/gpu_id", "0\n" if "simd_count 0\n" in properties else "1\n")

    def cpu_node(self, node: int = 0) -> None:
        self.kfd_node(node, MI300X_CPU_NODE)

    def gpu_node(
        self,
        node: int,
        *,
        gfx_target_version: int,
        device_id: int,
        location_id: int,
        domain: int = 0,
        simd_count: int = 1216,
    ) -> None:
        """A GPU node shaped like the captured MI300X one, with its own identity."""
        fields = {
            "simd_count": simd_count,
            "gfx_target_version": gfx_target_version,
            "device_id": device_id,
            "location_id": location_id,
            "domain": domain,
            "drm_render_minor": 128 + node - 1,
        }
        lines = []
        for line in MI300X_GPU_NODE.splitlines():
            name = line.split()[0]
            lines.append(f"{name} {fields[name]}" if name in fields else line)
        self.kfd_node(node, "\n".join(lines) + "\n")

    def dev_kfd(self) -> None:
        self.write("dev/kfd", "")

    def amdgpu_version(self, version: str) -> None:
        self.write("sys/module/amdgpu/version", f"{version}\n")

    def rocm_version(self, text: str, home: str = "opt/rocm") -> None:
        self.write(f"{home}/.info/version", f"{text}\n")

    def pci(
        self, address: str, *, vendor: int, device: int, class_code: int, driver: str | None
    ) -> None:
        base = f"sys/bus/pci/devices/{address}"
        self.write(f"{base}/vendor", f"0x{vendor:04x}\n")
        self.write(f"{base}/device", f"0x{device:04x}\n")
        self.write(f"{base}/class", f"0x{class_code:06x}\n")
        if driver is not None:
            target = self.root / "sys" / "bus" / "pci" / "drivers" / driver
            target.mkdir(parents=True, exist_ok=True)
            (self.root / base / "driver").symlink_to(os.path.relpath(target, self.root / base))

    def tool(self, name: str, output: str, *, code: int = 0, home: str = "opt/rocm") -> None:
        """A stand-in ROCm tool in ``<home>/bin`` that prints `output` and exits `code`."""
        self.write(f"{home}/.tool-output/{name}", output)
        # Shell builtins only: the probes run tools with the caller's PATH, often empty.
        script = self.write(
            f"{home}/bin/{name}",
            "#!/bin/sh\n"
            'while IFS= read -r line || [ -n "$line" ]; do printf \'%s\\n\' "$line"; done'
            f" < '{self.root / home / '.tool-output' / name}'\nexit {code}\n",
        )
        script.chmod(script.stat().st_mode | stat.S_IXUSR)

    def level_zero(self, driver_file: str | None = "libze_intel_gpu.so.1.6.32224") -> None:
        """Level Zero's loader and Intel's GPU driver library (`driver_file` None: the loader
        alone)."""
        lib = "usr/lib/x86_64-linux-gnu"
        self.write(f"{lib}/libze_loader.so.1", "")
        if driver_file is not None:
            self.write(f"{lib}/{driver_file}", "")
            if driver_file != "libze_intel_gpu.so.1":
                (self.root / lib / "libze_intel_gpu.so.1").symlink_to(driver_file)


def environ(**extra: str) -> Mapping[str, str]:
    """An environment with no PATH of this machine's, so no real ROCm tool is run."""
    return {"PATH": "", **extra}


# --- AMD machines -------------------------------------------------------------------------


def mi300x(sysfs: FakeSysfs, *, gpus: int = 1) -> None:
    """MI300X (gfx942, 1002:74a1) with AMD's DKMS driver of ROCm 6.4 (module 6.12.12)."""
    sysfs.cpu_node()
    sysfs.kfd_node(1, MI300X_GPU_NODE)
    for i in range(1, gpus):
        sysfs.gpu_node(i + 1, gfx_target_version=90402, device_id=29857, location_id=18176 + i)
    sysfs.dev_kfd()
    sysfs.amdgpu_version("6.12.12")
    sysfs.rocm_version("6.4.0-47")
    sysfs.pci("0000:05:00.0", vendor=0x1002, device=0x74A1, class_code=0x120000, driver="amdgpu")


def mi250x(sysfs: FakeSysfs) -> None:
    """MI250X (gfx90a, 1002:740c): two dies, each its own KFD node and PCI function; an
    in-tree amdgpu (no module version) and no ROCm user space."""
    sysfs.cpu_node()
    sysfs.gpu_node(1, gfx_target_version=90010, device_id=0x740C, location_id=0xC100)
    sysfs.gpu_node(2, gfx_target_version=90010, device_id=0x740C, location_id=0xC600)
    sysfs.dev_kfd()
    for address in ("0000:c1:00.0", "0000:c6:00.0"):
        sysfs.pci(address, vendor=0x1002, device=0x740C, class_code=0x038000, driver="amdgpu")


def mi50(sysfs: FakeSysfs) -> None:
    """Instinct MI50 (gfx906, 1002:66a1), in-tree amdgpu: dropped from torch's rocm6.4 builds."""
    sysfs.cpu_node()
    sysfs.gpu_node(
        1, gfx_target_version=90006, device_id=0x66A1, location_id=0x0300, simd_count=240
    )
    sysfs.dev_kfd()
    sysfs.pci("0000:03:00.0", vendor=0x1002, device=0x66A1, class_code=0x038000, driver="amdgpu")


def rx7900xtx(sysfs: FakeSysfs) -> None:
    """Radeon RX 7900 XTX (gfx1100, 1002:744c), amdgpu-dkms of ROCm 6.2 (module 6.8.5)."""
    sysfs.cpu_node()
    sysfs.gpu_node(
        1, gfx_target_version=110000, device_id=0x744C, location_id=0x0300, simd_count=192
    )
    sysfs.dev_kfd()
    sysfs.amdgpu_version("6.8.5")
    sysfs.pci("0000:03:00.0", vendor=0x1002, device=0x744C, class_code=0x030000, driver="amdgpu")


# APUs: gfx_target_version and PCI device id (torchruntime gpu_db.py: 15bf Phoenix, 164e
# Raphael, 1638 Cezanne).
APUS = {"gfx1103": (110003, 0x15BF), "gfx1036": (100306, 0x164E), "gfx90c": (90012, 0x1638)}


def apu(sysfs: FakeSysfs, gfx: str) -> None:
    """A laptop or desktop APU whose only GPU is the integrated one."""
    version, device = APUS[gfx]
    sysfs.cpu_node()
    sysfs.gpu_node(
        1, gfx_target_version=version, device_id=device, location_id=0xC500, simd_count=24
    )
    sysfs.dev_kfd()
    sysfs.pci("0000:c5:00.0", vendor=0x1002, device=device, class_code=0x030000, driver="amdgpu")


def nvidia_with_amd_igpu(sysfs: FakeSysfs) -> None:
    """RTX 4090 (10de:2684) next to a Ryzen 7950X's Raphael iGPU (gfx1036)."""
    apu(sysfs, "gfx1036")
    sysfs.pci("0000:01:00.0", vendor=0x10DE, device=0x2684, class_code=0x030000, driver="nvidia")


def amd_without_kfd(sysfs: FakeSysfs) -> None:
    """An RX 7900 XTX on the PCI bus with no amdgpu bound (no KFD topology)."""
    sysfs.pci("0000:03:00.0", vendor=0x1002, device=0x744C, class_code=0x030000, driver=None)


def amd_npu_only(sysfs: FakeSysfs) -> None:
    """An AMD XDNA NPU (class 0x12 "Processing accelerators", like MI300X) and no GPU."""
    sysfs.pci("0000:c7:00.1", vendor=0x1002, device=0x17F0, class_code=0x120000, driver="amdxdna")


# --- Intel machines -----------------------------------------------------------------------


def arc_a770(sysfs: FakeSysfs, *, level_zero: bool = True) -> None:
    """Arc A770 (8086:56a0, ACM-G10, IP 12.55.8) on i915, with Level Zero unless told."""
    sysfs.pci("0000:03:00.0", vendor=0x8086, device=0x56A0, class_code=0x030000, driver="i915")
    if level_zero:
        sysfs.level_zero()


def max_1550(sysfs: FakeSysfs) -> None:
    """Data Center GPU Max 1550 (8086:0bd5, Ponte Vecchio, IP 12.60.7): a 3D controller."""
    sysfs.pci("0000:29:00.0", vendor=0x8086, device=0x0BD5, class_code=0x038000, driver="i915")
    sysfs.level_zero()


def intel_igpu(sysfs: FakeSysfs) -> None:
    """Core i7-12700's UHD Graphics 770 (8086:4680, ADL-S, IP 12.2.0) on i915."""
    sysfs.pci("0000:00:02.0", vendor=0x8086, device=0x4680, class_code=0x030000, driver="i915")
    sysfs.level_zero()


def lunar_lake(sysfs: FakeSysfs) -> None:
    """Lunar Lake's Arc Graphics (8086:64a0, IP 20.4.4) on xe."""
    sysfs.pci("0000:00:02.0", vendor=0x8086, device=0x64A0, class_code=0x030000, driver="xe")
    sysfs.level_zero()
