"""Host profile schema 2: other vendors' GPUs and stacks, and schema 1 read as NVIDIA-only."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.errors import InputFileError
from poetry_cuda.host.profiles import SCHEMA
from poetry_cuda.host.profiles import load_target
from poetry_cuda.host.profiles import profile_from_json


if TYPE_CHECKING:
    from pathlib import Path


SCHEMA_1 = {
    "schema": 1,
    "os": "linux",
    "machine": "x86_64",
    "driver": {"version": "550.54.14", "cuda": "12.4", "source": "nvml"},
    "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}],
}

MIXED = {
    "schema": 2,
    "os": "linux",
    "machine": "x86_64",
    "driver": {"version": "550.54.14", "cuda": "12.4", "source": "nvml"},
    "gpus": [
        {"index": 0, "name": "NVIDIA A100", "vendor": "nvidia", "compute_capability": "8.0"},
        {"index": 1, "name": "AMD Instinct MI250X", "vendor": "amd", "gfx": "gfx90a"},
        {"index": 2, "name": "Intel Data Center GPU Max 1550", "vendor": "intel"},
        {"index": 3, "name": "Intel Arc B580", "vendor": "intel", "device_ip": "20.1.0"},
    ],
    "rocm": {"version": "6.4.1", "kernel_driver": "6.12.12", "source": "kfd"},
    "xpu": {"driver": "24.35.30872.22", "source": "sysfs"},
}


def test_schema_1_reads_as_nvidia_only_and_is_written_as_schema_2() -> None:
    profile = profile_from_json(SCHEMA_1, "old.json")
    (gpu,) = profile.gpus
    assert gpu.vendor == "nvidia"
    assert gpu.accelerator == "cuda"
    assert profile.accelerators == ("cuda",)
    assert profile.rocm is None
    assert profile.xpu is None
    written = profile.to_json()
    assert written["schema"] == SCHEMA == 2
    assert written["gpus"][0]["vendor"] == "nvidia"
    assert written["gpus"][0]["compute_capability"] == "8.9"
    assert written["rocm"] is None
    assert written["xpu"] is None
    assert profile_from_json(written, "old.json") == profile


def test_schema_2_round_trip_keeps_every_vendor() -> None:
    profile = profile_from_json(MIXED, "mixed.json")
    nvidia, amd, intel, arc = profile.gpus
    assert (amd.vendor, amd.gfx, amd.compute_capability) == ("amd", "gfx90a", None)
    assert (intel.vendor, intel.device_ip) == ("intel", None)
    assert arc.device_ip == "20.1.0"
    assert profile.accelerators == ("cuda", "rocm", "xpu")
    assert profile.capabilities == (nvidia.compute_capability,)  # NVIDIA's alone
    assert profile.rocm is not None
    assert (profile.rocm.version, profile.rocm.kernel_driver) == ("6.4.1", "6.12.12")
    assert profile.xpu is not None
    assert profile.xpu.driver == "24.35.30872.22"
    written = json.loads(json.dumps(profile.to_json()))
    assert written["gpus"][1] == {
        "index": 1,
        "name": "AMD Instinct MI250X",
        "vendor": "amd",
        "gfx": "gfx90a",
        "uuid": None,
        "memory_mib": None,
        "source": "target",
    }
    assert "compute_capability" not in written["gpus"][1]
    assert written["rocm"] == {"version": "6.4.1", "kernel_driver": "6.12.12", "source": "kfd"}
    assert written["xpu"] == {"driver": "24.35.30872.22", "source": "sysfs"}
    assert profile_from_json(written, "mixed.json") == profile


def test_an_amd_only_host_needs_no_nvidia_driver(tmp_path: Path) -> None:
    path = tmp_path / "mi250.json"
    document = {
        "schema": 2,
        "os": "linux",
        "gpus": [{"name": "AMD Instinct MI250X", "vendor": "amd", "gfx": "gfx90a"}],
        "rocm": {"version": "6.4.1", "source": "kfd"},
    }
    path.write_text(json.dumps(document))
    profile = load_target(path)
    assert profile.driver is None
    assert profile.accelerators == ("rocm",)
    assert profile.capabilities == ()
    assert profile.rocm is not None
    assert profile.rocm.kernel_driver is None


def test_a_profile_without_schema_reads_schema_2_fields() -> None:
    document = {"os": "linux", "gpus": [{"vendor": "intel"}]}
    (gpu,) = profile_from_json(document, "t.json").gpus
    assert gpu.name == "Intel GPU"
    assert gpu.accelerator == "xpu"


def _with(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**json.loads(json.dumps(base)), **changes}


def _gpu(**fields: Any) -> dict[str, Any]:
    return _with(MIXED, gpus=[fields])


@pytest.mark.parametrize(
    ("document", "named"),
    [
        (_gpu(vendor="ati", gfx="gfx90a"), "gpus[0].vendor"),
        (_gpu(vendor=1), "gpus[0].vendor"),
        (_gpu(vendor="amd"), "gpus[0].gfx"),
        (_gpu(vendor="amd", gfx="gfx90a; rm -rf /"), "gpus[0].gfx"),
        (_gpu(vendor="amd", gfx="\x1b[31mgfx90a"), "gpus[0].gfx"),
        (_gpu(vendor="amd", gfx=["gfx90a"]), "gpus[0].gfx"),
        (_gpu(vendor="amd", gfx="gfx90a", compute_capability="8.0"), "gpus[0].compute_capability"),
        (_gpu(vendor="nvidia", compute_capability="8.0", gfx="gfx90a"), "gpus[0].gfx"),
        (_gpu(vendor="nvidia", compute_capability="8.0", device_ip="12.55.8"), "gpus[0].device_ip"),
        (_gpu(vendor="intel", device_ip="12.55.8.1.2"), "gpus[0].device_ip"),
        (_gpu(vendor="intel", device_ip=12), "gpus[0].device_ip"),
        (_gpu(vendor="intel", device_ip="x" * 100_000), "gpus[0].device_ip"),
        (_gpu(vendor="nvidia"), "gpus[0].compute_capability"),
        (_with(MIXED, rocm="6.4.1"), "rocm"),
        (_with(MIXED, rocm={"version": "latest"}), "rocm.version"),
        (_with(MIXED, rocm={"version": 6.4}), "rocm.version"),
        (_with(MIXED, rocm={"version": "6.4.1\n"}), "rocm.version"),
        (_with(MIXED, rocm={"version": "6.4", "kernel_driver": "$(reboot)"}), "rocm.kernel_driver"),
        (_with(MIXED, xpu=[]), "xpu"),
        (_with(MIXED, xpu={"source": "sysfs"}), "xpu.driver"),
        (_with(MIXED, xpu={"driver": "../../etc/passwd"}), "xpu.driver"),
        (_with(MIXED, schema=3), "schema"),
        (_with(SCHEMA_1, gpus=[{"vendor": "amd", "gfx": "gfx90a"}]), "gpus[0].vendor"),
        (_with(SCHEMA_1, gpus=[{"compute_capability": "8.0", "gfx": "gfx90a"}]), "gpus[0].gfx"),
        (_with(SCHEMA_1, rocm={"version": "6.4.1"}), "rocm"),
        (_with(SCHEMA_1, xpu={"driver": "1.3"}), "xpu"),
        (_with(MIXED, driver=None), "driver"),
    ],
)
def test_hostile_schema_2_values_are_refused_by_name(
    document: dict[str, Any], named: str, tmp_path: Path
) -> None:
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(document))
    with pytest.raises(InputFileError) as caught:
        load_target(path)
    assert caught.value.exit_code == 2
    assert f"{path}: {named}: " in caught.value.what
    assert "Traceback" not in str(caught.value)
