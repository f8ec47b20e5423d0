"""AMD detection: the parsers on captured outputs, and the probes on fake sysfs trees."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from hypothesis import given
from hypothesis import strategies as st

from poetry_cuda.host.amd import AmdGpu
from poetry_cuda.host.amd import Rocm
from poetry_cuda.host.amd import base_gfx
from poetry_cuda.host.amd import detect_amd
from poetry_cuda.host.amd import gfx_name
from poetry_cuda.host.amd import is_gfx
from poetry_cuda.host.amd import nvidia_pci_gpus
from poetry_cuda.host.amd import parse_agent_enumerator
from poetry_cuda.host.amd import parse_amd_smi_static
from poetry_cuda.host.amd import parse_amd_smi_version
from poetry_cuda.host.amd import parse_kfd_properties
from poetry_cuda.host.amd import parse_rocm_version
from poetry_cuda.host.amd import parse_rocminfo
from poetry_cuda.host.amd import parse_rocminfo_module
from poetry_cuda.host.amd import rocm_targets
from poetry_cuda.host.pci import read_pci_devices
from tests.support import fake_sysfs
from tests.support.fake_sysfs import AMD_SMI_VERSION
from tests.support.fake_sysfs import AMD_SMI_VERSION_NO_ROCM
from tests.support.fake_sysfs import MI300X_CPU_NODE
from tests.support.fake_sysfs import MI300X_GPU_NODE
from tests.support.fake_sysfs import ROCMINFO_MI300A
from tests.support.fake_sysfs import FakeSysfs
from tests.support.fake_sysfs import environ


if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def sysfs(tmp_path: Path) -> FakeSysfs:
    return FakeSysfs(tmp_path / "root")


# --- parsers ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "gfx"),
    [
        # libhsakmt.h: major = v/10000 % 100, minor = v/100 % 100, stepping = v % 100;
        # rocm_agent_enumerator prints minor and stepping in hex.
        (90010, "gfx90a"),
        (90012, "gfx90c"),
        (90402, "gfx942"),
        (90500, "gfx950"),
        (90000, "gfx900"),
        (90006, "gfx906"),
        (100300, "gfx1030"),
        (100306, "gfx1036"),
        (110000, "gfx1100"),
        (110003, "gfx1103"),
        (110501, "gfx1151"),
        (120001, "gfx1201"),
    ],
)
def test_gfx_name_decodes_kfd_target_versions(version: int, gfx: str) -> None:
    assert gfx_name(version) == gfx


@pytest.mark.parametrize("version", [0, -1, 110099, 91600, 60000, 99_999_999])
def test_gfx_name_refuses_what_no_gpu_reports(version: int) -> None:
    assert gfx_name(version) is None


@given(st.integers(min_value=7, max_value=15), st.integers(0, 15), st.integers(0, 15))
def test_gfx_name_is_a_well_formed_name(major: int, minor: int, stepping: int) -> None:
    name = gfx_name(major * 10000 + minor * 100 + stepping)
    assert name is not None
    assert is_gfx(name)
    assert base_gfx(f"{name}:sramecc+:xnack-") == name


def test_captured_kfd_nodes_parse() -> None:
    cpu = parse_kfd_properties(MI300X_CPU_NODE)
    gpu = parse_kfd_properties(MI300X_GPU_NODE)
    assert (cpu["simd_count"], cpu["gfx_target_version"]) == (0, 0)
    assert gpu["gfx_target_version"] == 90402
    assert (gpu["vendor_id"], gpu["device_id"], gpu["location_id"]) == (4098, 29857, 18176)
    assert gpu["hive_id"] == 10631624818852212319


def test_kfd_properties_skip_lines_of_other_shapes() -> None:
    text = "simd_count 4\ngarbage\nname value\nnum_xcc -1\n\ngfx_target_version 110000 x\n"
    assert parse_kfd_properties(text) == {"simd_count": 4}


@given(st.text())
def test_parsers_never_raise(text: str) -> None:
    parse_kfd_properties(text)
    parse_rocminfo(text)
    parse_rocminfo_module(text)
    parse_agent_enumerator(text)
    parse_amd_smi_version(text)
    parse_amd_smi_static(text)
    for gfx in parse_agent_enumerator(text):
        assert is_gfx(gfx)
    version = parse_rocm_version(text)
    assert version is None or version.replace(".", "").isdigit()


def test_rocminfo_capture_lists_the_gpu_agent_only() -> None:
    # The CPU agent is named "AMD Instinct MI300A Accelerator": never classify by name.
    assert parse_rocminfo(ROCMINFO_MI300A) == (("gfx942", "AMD Instinct MI300A"),)
    assert parse_rocminfo_module(ROCMINFO_MI300A) == "6.10.5"
    assert parse_rocminfo_module("ROCk module is loaded\n") is None


def test_rocminfo_with_a_generic_isa_first() -> None:
    # ROCm 7.2 lists a generic ISA before the agent's own; the agent's Name wins.
    text = (
        "*******\nAgent 2\n*******\n  Name:                    gfx942\n"
        "  Device Type:             GPU\n  ISA Info:\n    ISA 1\n"
        "      Name:                    amdgcn-amd-amdhsa--gfx9-4-generic:sramecc+:xnack-\n"
    )
    assert parse_rocminfo(text) == (("gfx942", None),)


def test_agent_enumerator_output() -> None:
    # Older versions print gfx000 for the CPU node; one line per GPU node.
    text = "gfx000\ngfx90a\ngfx90a:sramecc+:xnack-\ngfx1100\n"
    assert parse_agent_enumerator(text) == ("gfx90a", "gfx90a", "gfx1100")


def test_amd_smi_version_lines() -> None:
    assert parse_amd_smi_version(AMD_SMI_VERSION) == {
        "AMDSMI Tool": "26.0.2+39589fda",
        "AMDSMI Library version": "26.0.2",
        "ROCm version": "7.0.2",
        "amdgpu version": "6.14.14",
    }
    assert "ROCm version" not in parse_amd_smi_version(AMD_SMI_VERSION_NO_ROCM)


def test_amd_smi_static_target() -> None:
    text = "GPU: 0\n    ASIC:\n        TARGET_GRAPHICS_VERSION: gfx1100\nGPU: 1\n"
    assert parse_amd_smi_static(text) == ("gfx1100",)


@pytest.mark.parametrize(
    ("text", "version"),
    [("6.4.0-47\n", "6.4.0"), ("6.1.2-98", "6.1.2"), ("7.2.4", "7.2.4"), ("7.14", "7.14")],
)
def test_rocm_version_file(text: str, version: str) -> None:
    assert parse_rocm_version(text) == version


@pytest.mark.parametrize("text", ["", "rocm", "N/A", "6"])
def test_rocm_version_file_without_a_version(text: str) -> None:
    assert parse_rocm_version(text) is None


# --- probes on fake trees -----------------------------------------------------------------


def test_mi300x_from_kfd(sysfs: FakeSysfs) -> None:
    fake_sysfs.mi300x(sysfs, gpus=8)
    found = detect_amd(root=sysfs.root, environ=environ())
    assert [gpu.gfx for gpu in found.gpus] == ["gfx942"] * 8
    assert found.gpus[0] == AmdGpu(
        index=0,
        name="AMD Instinct MI300X",
        gfx="gfx942",
        integrated=False,
        source="kfd",
        pci_device=0x74A1,
    )
    assert found.rocm == Rocm(version="6.4.0", kernel_driver="6.12.12", source="kfd")
    assert found.compute
    assert found.reports[0].result == "found"
    assert {report.probe: report.result for report in found.reports}["rocminfo"] == "skipped"


def test_rocm_path_names_the_user_space(sysfs: FakeSysfs) -> None:
    fake_sysfs.mi300x(sysfs)
    sysfs.rocm_version("7.2.4", home="opt/rocm-7.2.4")
    found = detect_amd(root=sysfs.root, environ=environ(ROCM_PATH="/opt/rocm-7.2.4"))
    assert found.rocm is not None
    assert found.rocm.version == "7.2.4"


def test_partitions_of_one_card_are_one_gpu(sysfs: FakeSysfs) -> None:
    # A CPX-partitioned card shows one KFD node per partition at one PCI location.
    sysfs.cpu_node()
    for node in (1, 2, 3):
        sysfs.gpu_node(node, gfx_target_version=90402, device_id=29856, location_id=29952)
    found = detect_amd(root=sysfs.root, environ=environ())
    assert [(gpu.gfx, gpu.integrated) for gpu in found.gpus] == [("gfx942", True)]


def test_mi250x_in_tree_driver(sysfs: FakeSysfs) -> None:
    fake_sysfs.mi250x(sysfs)
    found = detect_amd(root=sysfs.root, environ=environ())
    assert [gpu.gfx for gpu in found.gpus] == ["gfx90a", "gfx90a"]
    # In-tree amdgpu writes no module version; no /opt/rocm.
    assert found.rocm == Rocm(version=None, kernel_driver=None, source="kfd")


def test_rx7900xtx(sysfs: FakeSysfs) -> None:
    fake_sysfs.rx7900xtx(sysfs)
    found = detect_amd(root=sysfs.root, environ=environ())
    assert [(gpu.gfx, gpu.integrated) for gpu in found.gpus] == [("gfx1100", False)]
    assert found.rocm == Rocm(version=None, kernel_driver="6.8.5", source="kfd")


@pytest.mark.parametrize("gfx", ["gfx1103", "gfx1036", "gfx90c"])
def test_apus_are_integrated_and_stay_targets_alone(sysfs: FakeSysfs, gfx: str) -> None:
    fake_sysfs.apu(sysfs, gfx)
    found = detect_amd(root=sysfs.root, environ=environ())
    assert [(gpu.gfx, gpu.integrated) for gpu in found.gpus] == [(gfx, True)]
    # Alone, an APU is a ROCm target: whether a build serves it is the knowledge's call.
    targets, ignored = rocm_targets(found.gpus, nvidia_gpus=0)
    assert targets == found.gpus
    assert ignored == ()


def test_amd_igpu_next_to_nvidia_is_no_target(sysfs: FakeSysfs) -> None:
    fake_sysfs.nvidia_with_amd_igpu(sysfs)
    found = detect_amd(root=sysfs.root, environ=environ())
    nvidia = nvidia_pci_gpus(read_pci_devices(sysfs.root / "sys"))
    assert nvidia == 1
    targets, ignored = rocm_targets(found.gpus, nvidia_gpus=nvidia)
    assert targets == ()
    assert [item.gpu.gfx for item in ignored] == ["gfx1036"]
    assert "integrated GPU of an APU next to 1 NVIDIA GPU" in ignored[0].reason


def test_a_discrete_amd_gpu_next_to_nvidia_stays_a_target(sysfs: FakeSysfs) -> None:
    fake_sysfs.rx7900xtx(sysfs)
    sysfs.pci("0000:01:00.0", vendor=0x10DE, device=0x2684, class_code=0x030000, driver="nvidia")
    found = detect_amd(root=sysfs.root, environ=environ())
    targets, ignored = rocm_targets(found.gpus, nvidia_gpus=1)
    assert [gpu.gfx for gpu in targets] == ["gfx1100"]
    assert ignored == ()


def test_pci_only_gpu_has_no_architecture(sysfs: FakeSysfs) -> None:
    fake_sysfs.amd_without_kfd(sysfs)
    found = detect_amd(root=sysfs.root, environ=environ())
    assert [(gpu.gfx, gpu.source, gpu.pci_device) for gpu in found.gpus] == [(None, "pci", 0x744C)]
    assert found.rocm == Rocm(version=None, kernel_driver=None, source="pci")
    assert not found.compute
    results = {report.probe: report.result for report in found.reports}
    assert results == {
        "kfd": "absent",
        "rocminfo": "absent",
        "rocm_agent_enumerator": "absent",
        "amd-smi": "absent",
        "pci": "found",
        "dev-kfd": "absent",
    }
    targets, ignored = rocm_targets(found.gpus, nvidia_gpus=0)
    assert targets == ()
    assert "architecture is unknown" in ignored[0].reason


def test_an_npu_is_no_gpu(sysfs: FakeSysfs) -> None:
    fake_sysfs.amd_npu_only(sysfs)
    found = detect_amd(root=sysfs.root, environ=environ())
    assert found.gpus == ()
    assert found.rocm is None


def test_no_amd_at_all(sysfs: FakeSysfs) -> None:
    found = detect_amd(root=sysfs.root, environ=environ())
    assert (found.gpus, found.rocm, found.compute) == ((), None, False)


def test_rocminfo_fallback_when_kfd_is_unreadable(sysfs: FakeSysfs) -> None:
    sysfs.tool("rocminfo", ROCMINFO_MI300A)
    found = detect_amd(root=sysfs.root, environ=environ())
    assert [(gpu.gfx, gpu.name, gpu.source) for gpu in found.gpus] == [
        ("gfx942", "AMD Instinct MI300A", "rocminfo")
    ]
    # rocminfo names the kernel driver where sysfs could not be read.
    assert found.rocm == Rocm(version=None, kernel_driver="6.10.5", source="rocminfo")


def test_agent_enumerator_after_a_failing_rocminfo(sysfs: FakeSysfs) -> None:
    sysfs.tool("rocminfo", "hsa api call failure at: rocminfo.cc:1306\n", code=1)
    sysfs.tool("rocm_agent_enumerator", "gfx000\ngfx1100\ngfx1100\n")
    found = detect_amd(root=sysfs.root, environ=environ())
    assert [gpu.gfx for gpu in found.gpus] == ["gfx1100", "gfx1100"]
    results = {report.probe: report.result for report in found.reports}
    assert results["rocminfo"] == "error"
    assert results["rocm_agent_enumerator"] == "found"
    assert results["amd-smi"] == "skipped"


def test_amd_smi_that_exits_zero_without_an_answer_is_no_answer(sysfs: FakeSysfs) -> None:
    sysfs.tool("amd-smi", "Driver not initialized (amdgpu not found in modules)\n")
    fake_sysfs.amd_without_kfd(sysfs)
    found = detect_amd(root=sysfs.root, environ=environ())
    results = {report.probe: report.result for report in found.reports}
    assert results["amd-smi"] == "error"
    assert [gpu.source for gpu in found.gpus] == ["pci"]


def test_programs_can_be_left_out(sysfs: FakeSysfs) -> None:
    sysfs.tool("rocminfo", ROCMINFO_MI300A)
    found = detect_amd(root=sysfs.root, environ=environ(), programs=False)
    assert found.gpus == ()


def test_kfd_topology_without_the_device_node(sysfs: FakeSysfs) -> None:
    # A container that sees the host's sysfs but was given no /dev/kfd.
    fake_sysfs.mi300x(sysfs)
    (sysfs.root / "dev" / "kfd").unlink()
    found = detect_amd(root=sysfs.root, environ=environ())
    assert [gpu.gfx for gpu in found.gpus] == ["gfx942"]
    assert not found.compute
    report = found.reports[-1]
    assert (report.probe, report.result) == ("dev-kfd", "absent")
    assert "--device=/dev/kfd" in report.detail


def test_a_topology_with_only_the_cpu_node(sysfs: FakeSysfs) -> None:
    sysfs.cpu_node()
    found = detect_amd(root=sysfs.root, environ=environ())
    assert found.gpus == ()
    assert (found.reports[0].result, found.reports[0].detail.endswith("no GPU node")) == (
        "absent",
        True,
    )
