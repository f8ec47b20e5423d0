"""`detect_host` with AMD and Intel GPUs: the fake sysfs machines through the whole probe
chain, the schema-2 profile they give, and its readable and JSON reports."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.cli.commands.detect import render
from poetry_cuda.host.detect import detect_host
from poetry_cuda.host.paths import HostPaths
from poetry_cuda.host.profiles import profile_from_json
from tests.support import fake_sysfs
from tests.support.fake_sysfs import FakeSysfs


if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from poetry_cuda.host.profiles import HostProfile


def detect(sysfs: FakeSysfs, *, platform_name: str = "linux") -> HostProfile:
    return detect_host(
        environ=dict(fake_sysfs.environ()),
        timeout=10,
        paths=HostPaths.under(sysfs.root),
        platform_name=platform_name,
        machine="x86_64",
    )


def probes(profile: HostProfile) -> dict[str, str]:
    return {report.probe: f"{report.result}: {report.detail}" for report in profile.probes}


def round_trip(profile: HostProfile) -> HostProfile:
    return profile_from_json(json.loads(json.dumps(profile.to_json())), "detected.json")


def test_mi300x_fills_the_schema_2_profile(tmp_path: Path) -> None:
    sysfs = FakeSysfs(tmp_path)
    fake_sysfs.mi300x(sysfs, gpus=2)
    profile = detect(sysfs)
    assert [(gpu.vendor, gpu.gfx, gpu.name) for gpu in profile.gpus] == [
        ("amd", "gfx942", "AMD Instinct MI300X"),
        ("amd", "gfx942", "AMD Instinct MI300X"),
    ]
    assert profile.gpus[0].source == "kfd"
    assert profile.rocm is not None
    assert (profile.rocm.version, profile.rocm.kernel_driver) == ("6.4.0", "6.12.12")
    assert profile.accelerators == ("rocm",)
    document = profile.to_json()
    assert document["rocm"] == {"version": "6.4.0", "kernel_driver": "6.12.12", "source": "kfd"}
    assert document["gpus"][0]["gfx"] == "gfx942"
    assert round_trip(profile).gpus == profile.gpus
    text = "\n".join(render(profile))
    assert "AMD gfx942" in text
    assert "<info>ROCm</info>: 6.4.0, amdgpu 6.12.12 [kfd]" in text


def test_in_tree_driver_and_no_user_space(tmp_path: Path) -> None:
    sysfs = FakeSysfs(tmp_path)
    fake_sysfs.mi250x(sysfs)
    profile = detect(sysfs)
    assert [gpu.gfx for gpu in profile.gpus] == ["gfx90a", "gfx90a"]
    assert profile.rocm is not None
    assert profile.rocm.version is None
    assert profile.rocm.kernel_driver is None
    assert profile.to_json()["rocm"]["version"] is None
    assert round_trip(profile).rocm == profile.rocm
    text = "\n".join(render(profile))
    assert "no user space installed, amdgpu in-tree (version unknown)" in text


def test_amd_igpu_next_to_nvidia_is_not_a_target(tmp_path: Path) -> None:
    sysfs = FakeSysfs(tmp_path)
    fake_sysfs.nvidia_with_amd_igpu(sysfs)
    profile = detect(sysfs)
    assert profile.gpus == ()  # the fake NVIDIA GPU has no driver here; the iGPU is left out
    assert profile.rocm is None
    reason = probes(profile)["amd-target"]
    assert reason.startswith("skipped: AMD Radeon Graphics (Raphael): gfx1036 is the integrated")
    assert "NVIDIA" in reason
    text = "\n".join(render(profile))
    assert "Not a target</comment>: AMD Radeon Graphics (Raphael): gfx1036" in text
    assert any(p["probe"] == "amd-target" for p in profile.to_json()["probes"])


def test_apu_alone_is_a_target(tmp_path: Path) -> None:
    sysfs = FakeSysfs(tmp_path)
    fake_sysfs.apu(sysfs, "gfx1103")
    profile = detect(sysfs)
    assert [gpu.gfx for gpu in profile.gpus] == ["gfx1103"]
    assert "amd-target" not in probes(profile)


def test_amd_without_kfd_is_reported_with_its_fix(tmp_path: Path) -> None:
    sysfs = FakeSysfs(tmp_path)
    fake_sysfs.amd_without_kfd(sysfs)
    profile = detect(sysfs)
    assert profile.gpus == ()
    found = probes(profile)
    assert found["amd-pci"].startswith("found")
    assert "load amdgpu" in found["amd-target"]


@pytest.mark.parametrize(
    ("machine", "device_ip", "driver"),
    [
        (fake_sysfs.arc_a770, "12.55.8", "1.6.32224"),
        (fake_sysfs.max_1550, "12.60.7", "1.6.32224"),
        (fake_sysfs.lunar_lake, "20.4.4", "1.6.32224"),
    ],
)
def test_intel_gpus_with_level_zero(
    tmp_path: Path, machine: Callable[[FakeSysfs], None], device_ip: str, driver: str
) -> None:
    sysfs = FakeSysfs(tmp_path)
    machine(sysfs)
    profile = detect(sysfs)
    assert [(gpu.vendor, gpu.device_ip) for gpu in profile.gpus] == [("intel", device_ip)]
    assert profile.xpu is not None
    assert profile.xpu.driver == driver
    assert profile.to_json()["xpu"] == {"driver": driver, "source": "level-zero"}
    assert round_trip(profile).xpu == profile.xpu
    assert f"device IP {device_ip}" in "\n".join(render(profile))


def test_arc_without_level_zero_has_no_xpu(tmp_path: Path) -> None:
    sysfs = FakeSysfs(tmp_path)
    fake_sysfs.arc_a770(sysfs, level_zero=False)
    profile = detect(sysfs)
    assert [gpu.device_ip for gpu in profile.gpus] == ["12.55.8"]
    assert profile.xpu is None
    assert probes(profile)["level-zero"].startswith("absent: libze_loader.so.1 not found")


def test_pre_arc_intel_igpu_is_not_a_target(tmp_path: Path) -> None:
    sysfs = FakeSysfs(tmp_path)
    fake_sysfs.intel_igpu(sysfs)
    profile = detect(sysfs)
    assert profile.gpus == ()
    assert profile.xpu is None
    assert "older than Arc" in probes(profile)["intel-target"]


def test_amd_and_intel_together(tmp_path: Path) -> None:
    sysfs = FakeSysfs(tmp_path)
    fake_sysfs.rx7900xtx(sysfs)
    fake_sysfs.max_1550(sysfs)
    profile = detect(sysfs)
    assert [gpu.vendor for gpu in profile.gpus] == ["amd", "intel"]
    assert profile.accelerators == ("rocm", "xpu")
    assert profile.rocm is not None
    assert profile.xpu is not None


def test_nothing_but_empty_sysfs(tmp_path: Path) -> None:
    profile = detect(FakeSysfs(tmp_path))
    assert profile.gpus == ()
    assert (profile.rocm, profile.xpu) == (None, None)
    found = probes(profile)
    assert found["kfd"].startswith("absent")
    assert found["intel-pci"].startswith("absent")


def test_windows_skips_the_sysfs_probes(tmp_path: Path) -> None:
    sysfs = FakeSysfs(tmp_path)
    fake_sysfs.mi300x(sysfs)
    profile = detect(sysfs, platform_name="win32")
    assert profile.gpus == ()
    assert probes(profile)["amd-intel"].startswith("skipped")
