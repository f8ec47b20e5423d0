"""Intel detection on fake sysfs trees: families and device IPs, Level Zero, targets."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.host.amd import detect_amd
from poetry_cuda.host.intel import DEVICE_FAMILIES
from poetry_cuda.host.intel import FAMILIES
from poetry_cuda.host.intel import IntelGpu
from poetry_cuda.host.intel import Xpu
from poetry_cuda.host.intel import detect_intel
from poetry_cuda.host.intel import driver_version
from poetry_cuda.host.intel import parse_device_ip
from poetry_cuda.host.intel import xpu_targets
from poetry_cuda.host.pci import parse_hex
from poetry_cuda.host.pci import read_pci_devices
from tests.support import fake_sysfs
from tests.support.fake_sysfs import FakeSysfs


if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def sysfs(tmp_path: Path) -> FakeSysfs:
    return FakeSysfs(tmp_path / "root")


def test_every_device_id_names_a_family() -> None:
    assert set(DEVICE_FAMILIES.values()) <= set(FAMILIES)
    for family in FAMILIES.values():
        assert family.device_ip is None or parse_device_ip(family.device_ip) is not None


@pytest.mark.parametrize(
    ("device", "family", "ip"),
    [
        # intel/compute-runtime devices_base.inl ids; intel-variant-provider devices.py IPs.
        (0x56A0, "acm-g10", "12.55.8"),  # Arc A770
        (0x56A5, "acm-g11", "12.56.5"),  # Arc A380
        (0x0BD5, "pvc", "12.60.7"),  # Data Center GPU Max 1550
        (0xE20B, "bmg-g21", "20.1.0"),  # Arc B580
        (0x7D55, "mtl-h", "12.71.4"),  # Core Ultra (Meteor Lake-H) Arc Graphics
        (0x64A0, "lnl-m", "20.4.4"),  # Lunar Lake
        (0x4680, "adl-s", "12.2.0"),  # UHD Graphics 770
    ],
)
def test_known_devices(device: int, family: str, ip: str) -> None:
    assert DEVICE_FAMILIES[device] == family
    assert FAMILIES[family].device_ip == ip


def test_pci_hex_attributes() -> None:
    assert parse_hex("0x8086\n") == 0x8086
    assert parse_hex("0x030000") == 0x030000
    assert parse_hex("") is None
    assert parse_hex("0xzz") is None


def test_arc_a770(sysfs: FakeSysfs) -> None:
    fake_sysfs.arc_a770(sysfs)
    found = detect_intel(root=sysfs.root)
    assert found.gpus == (
        IntelGpu(
            index=0,
            name="Intel Arc A-series (Alchemist, ACM-G10)",
            pci_device=0x56A0,
            family="acm-g10",
            device_ip="12.55.8",
            integrated=False,
            kernel_driver="i915",
        ),
    )
    assert found.xpu == Xpu(driver="1.6.32224")
    assert [report.result for report in found.reports] == ["found", "found"]
    targets, ignored = xpu_targets(found.gpus, nvidia_gpus=0)
    assert targets == found.gpus
    assert ignored == ()


def test_arc_without_level_zero_has_no_xpu(sysfs: FakeSysfs) -> None:
    fake_sysfs.arc_a770(sysfs, level_zero=False)
    found = detect_intel(root=sysfs.root)
    assert found.xpu is None
    assert found.reports[1].result == "absent"
    assert "libze_loader.so.1 not found" in found.reports[1].detail


def test_loader_without_intels_driver_has_no_xpu(sysfs: FakeSysfs) -> None:
    fake_sysfs.arc_a770(sysfs, level_zero=False)
    sysfs.level_zero(driver_file=None)
    found = detect_intel(root=sysfs.root)
    assert found.xpu is None
    assert "libze_intel_gpu.so.1 not found" in found.reports[1].detail


def test_a_driver_library_without_a_version_in_its_name(sysfs: FakeSysfs) -> None:
    fake_sysfs.arc_a770(sysfs, level_zero=False)
    sysfs.level_zero(driver_file="libze_intel_gpu.so.1")
    assert detect_intel(root=sysfs.root).xpu == Xpu(driver="libze_intel_gpu.so.1")


def test_driver_version_from_a_file_name() -> None:
    assert driver_version("libze_intel_gpu.so.1.6.32224") == "1.6.32224"
    assert driver_version("libze_intel_gpu.so.1") is None
    assert driver_version("libze_loader.so.1.21.9") is None


def test_data_center_max_is_a_3d_controller(sysfs: FakeSysfs) -> None:
    fake_sysfs.max_1550(sysfs)
    found = detect_intel(root=sysfs.root)
    assert [(gpu.family, gpu.device_ip, gpu.integrated) for gpu in found.gpus] == [
        ("pvc", "12.60.7", False)
    ]


def test_lunar_lake_on_xe(sysfs: FakeSysfs) -> None:
    fake_sysfs.lunar_lake(sysfs)
    found = detect_intel(root=sysfs.root)
    assert [(gpu.device_ip, gpu.kernel_driver, gpu.integrated) for gpu in found.gpus] == [
        ("20.4.4", "xe", True)
    ]
    targets, _ = xpu_targets(found.gpus, nvidia_gpus=0)
    assert targets == found.gpus


def test_pre_arc_igpu_is_no_xpu_target(sysfs: FakeSysfs) -> None:
    fake_sysfs.intel_igpu(sysfs)
    found = detect_intel(root=sysfs.root)
    assert [gpu.device_ip for gpu in found.gpus] == ["12.2.0"]
    targets, ignored = xpu_targets(found.gpus, nvidia_gpus=0)
    assert targets == ()
    assert "older than Arc (Alchemist, 12.55)" in ignored[0].reason


def test_intel_igpu_next_to_nvidia_is_no_target(sysfs: FakeSysfs) -> None:
    fake_sysfs.lunar_lake(sysfs)
    sysfs.pci("0000:01:00.0", vendor=0x10DE, device=0x2684, class_code=0x030000, driver="nvidia")
    found = detect_intel(root=sysfs.root)
    targets, ignored = xpu_targets(found.gpus, nvidia_gpus=1)
    assert targets == ()
    assert "next to 1 NVIDIA GPU" in ignored[0].reason


def test_an_unknown_intel_device(sysfs: FakeSysfs) -> None:
    sysfs.pci("0000:03:00.0", vendor=0x8086, device=0xFFF0, class_code=0x030000, driver=None)
    found = detect_intel(root=sysfs.root)
    assert [(gpu.name, gpu.family, gpu.kernel_driver) for gpu in found.gpus] == [
        ("Intel GPU 8086:fff0", None, None)
    ]
    targets, ignored = xpu_targets(found.gpus, nvidia_gpus=0)
    assert targets == ()
    assert "device IP is unknown" in ignored[0].reason


def test_intel_devices_that_are_no_gpus_are_left_out(sysfs: FakeSysfs) -> None:
    # Host bridge and audio controller of an Intel machine.
    sysfs.pci("0000:00:00.0", vendor=0x8086, device=0x4650, class_code=0x060000, driver=None)
    sysfs.pci("0000:00:1f.3", vendor=0x8086, device=0x7AD0, class_code=0x040300, driver=None)
    found = detect_intel(root=sysfs.root)
    assert found.gpus == ()
    assert found.xpu is None
    assert len(read_pci_devices(sysfs.root / "sys")) == 2


def test_amd_and_intel_on_one_machine(sysfs: FakeSysfs) -> None:
    fake_sysfs.rx7900xtx(sysfs)
    fake_sysfs.intel_igpu(sysfs)
    amd = detect_amd(root=sysfs.root, environ=fake_sysfs.environ())
    intel = detect_intel(root=sysfs.root)
    assert [gpu.gfx for gpu in amd.gpus] == ["gfx1100"]
    assert [gpu.family for gpu in intel.gpus] == ["adl-s"]
