from __future__ import annotations

import json
import time

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import DetectionError
from poetry_cuda.errors import UsageError
from poetry_cuda.host.detect import detect_host
from poetry_cuda.host.nvml import VERSION_MISMATCH
from poetry_cuda.host.paths import HostPaths
from poetry_cuda.host.profiles import host_machine
from poetry_cuda.host.profiles import host_os
from poetry_cuda.host.profiles import profile_from_json
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion
from tests.support.fake_nvml import GTX_1080_TI
from tests.support.fake_nvml import RTX_4090
from tests.support.fake_nvml import FakeSmi
from tests.support.fake_nvml import real_nvml_present


if TYPE_CHECKING:
    from poetry_cuda.host.profiles import HostProfile
    from poetry_cuda.host.profiles import OperatingSystem
    from tests.support.fake_nvml import FakeNvml


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
NO_NVML = 12  # what the fake reports for "no library": deterministic on GPU machines too


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def detect(
    env: dict[str, str], root: Path, *, timeout: float = 20, override: str | None = None
) -> HostProfile:
    return detect_host(
        driver_override=override,
        environ=env,
        timeout=timeout,
        paths=HostPaths.under(root),
        platform_name="linux",
        machine="x86_64",
    )


def results(profile: HostProfile) -> dict[str, str]:
    return {report.probe: report.result for report in profile.probes}


def module_version(root: Path, version: str) -> None:
    path = root / "sys" / "module" / "nvidia" / "version"
    path.parent.mkdir(parents=True)
    path.write_text(f"{version}\n", encoding="utf-8")


SMI_MIXED = FakeSmi(
    query=fixture("nvidia-smi/query-rtx4090-gtx1080ti.csv"),
    table=fixture("nvidia-smi/table-550-rtx4090.txt"),
)


@pytest.mark.parametrize(
    ("platform_name", "expected"),
    [("linux", "linux"), ("win32", "windows"), ("cygwin", "windows"), ("darwin", "macos")],
)
def test_host_os(platform_name: str, expected: str) -> None:
    assert host_os(platform_name) == expected


def test_host_os_unknown() -> None:
    with pytest.raises(DetectionError, match="freebsd14"):
        host_os("freebsd14")


@pytest.mark.parametrize(
    ("machine", "os_name", "expected"),
    [
        ("AMD64", "windows", "x86_64"),
        ("x86_64", "linux", "x86_64"),
        ("arm64", "linux", "aarch64"),
        ("ARM64", "windows", "aarch64"),
        ("arm64", "macos", "arm64"),
        ("ppc64le", "linux", "ppc64le"),
    ],
)
def test_host_machine(machine: str, os_name: OperatingSystem, expected: str) -> None:
    assert host_machine(machine, os_name) == expected


def test_macos_skips_the_nvidia_probes(fake_root: Path) -> None:
    profile = detect_host(
        environ={}, paths=HostPaths.under(fake_root), platform_name="darwin", machine="arm64"
    )
    assert (profile.os, profile.machine, profile.driver) == ("macos", "arm64", None)
    assert set(results(profile).values()) == {"skipped"}
    assert {report.probe for report in profile.probes} >= {"nvml", "procfs", "nvidia-smi"}


def test_one_gpu_from_nvml(fake_nvml: FakeNvml, fake_root: Path) -> None:
    profile = detect(fake_nvml.scenario(gpus=[RTX_4090], nvidia_smi=SMI_MIXED), fake_root)
    assert profile.driver is not None
    assert profile.driver.version == DriverVersion.parse("550.54.14")
    assert profile.driver.cuda == CudaVersion(12, 4)
    assert profile.driver.source == "nvml"
    assert profile.driver.cuda_source is None
    assert [(gpu.name, str(gpu.compute_capability), gpu.source) for gpu in profile.gpus] == [
        (RTX_4090.name, "8.9", "nvml")
    ]
    assert profile.gpus[0].uuid == RTX_4090.uuid
    assert profile.gpus[0].memory_mib == 24564
    probes = results(profile)
    assert probes["nvml"] == "found"
    assert probes["procfs"] == "skipped"
    assert probes["nvidia-smi"] == "skipped"
    assert profile.problems == ()


def test_mixed_gpus(fake_nvml: FakeNvml, fake_root: Path) -> None:
    profile = detect(fake_nvml.scenario(gpus=[RTX_4090, GTX_1080_TI]), fake_root)
    assert profile.capabilities == (ComputeCapability(6, 1), ComputeCapability(8, 9))
    assert [gpu.index for gpu in profile.gpus] == [0, 1]


@pytest.mark.skipif(real_nvml_present(), reason="a real libnvidia-ml is installed here")
def test_no_driver_at_all(fake_nvml: FakeNvml, fake_root: Path) -> None:
    profile = detect(fake_nvml.scenario(library=False), fake_root)
    assert profile.driver is None
    assert profile.gpus == ()
    assert results(profile) == {
        "nvml": "absent",
        "procfs": "absent",
        "nvidia-smi": "absent",
        "toolkits": "absent",
        "cudnn": "absent",
        "ldconfig": "absent",
        "kfd": "absent",
        "rocminfo": "skipped",
        "rocm_agent_enumerator": "skipped",
        "amd-smi": "skipped",
        "amd-pci": "absent",
        "intel-pci": "absent",
        "level-zero": "skipped",
    }


def test_driver_not_loaded(fake_nvml: FakeNvml, fake_root: Path) -> None:
    profile = detect(fake_nvml.scenario(init_error=9), fake_root)
    assert profile.driver is None
    assert profile.gpus == ()
    assert results(profile)["nvml"] == "absent"
    assert profile.problems == ()


def test_version_mismatch(fake_nvml: FakeNvml, fake_root: Path) -> None:
    module_version(fake_root, "550.90.07")
    smi = FakeSmi(query=fixture("nvidia-smi/version-mismatch.txt"), exit_code=18)
    profile = detect(fake_nvml.scenario(init_error=18, nvidia_smi=smi), fake_root)
    assert profile.problems == (VERSION_MISMATCH,)
    assert profile.driver is not None
    assert profile.driver.version == DriverVersion.parse("550.90.07")
    assert profile.driver.source == "procfs"
    assert profile.gpus == ()
    assert results(profile)["nvidia-smi"] == "error"


def test_old_driver_takes_compute_capability_from_nvidia_smi(
    fake_nvml: FakeNvml, fake_root: Path
) -> None:
    env = fake_nvml.scenario(gpus=[RTX_4090, GTX_1080_TI], old_driver=True, nvidia_smi=SMI_MIXED)
    profile = detect(env, fake_root)
    assert profile.driver is not None
    assert profile.driver.source == "nvml"
    assert profile.driver.cuda == CudaVersion(12, 4)
    assert [(str(gpu.compute_capability), gpu.source) for gpu in profile.gpus] == [
        ("8.9", "nvml+nvidia-smi"),
        ("6.1", "nvml+nvidia-smi"),
    ]
    assert profile.gpus[1].memory_mib == 11264
    nvml = next(report for report in profile.probes if report.probe == "nvml")
    assert "nvmlDeviceGetCudaComputeCapability" in nvml.detail


def test_unknown_compute_capability_is_a_problem(fake_nvml: FakeNvml, fake_root: Path) -> None:
    profile = detect(fake_nvml.scenario(old_driver=True), fake_root)
    assert profile.gpus == ()
    assert len(profile.problems) == 1
    problem = profile.problems[0]
    assert problem.message == f"GPU 0 ({RTX_4090.name}): compute capability unknown"
    assert "--target" in problem.fix


def test_hanging_nvml_falls_back(fake_nvml: FakeNvml, fake_root: Path) -> None:
    module_version(fake_root, "550.54.14")
    env = fake_nvml.scenario(init_sleep=30, nvidia_smi=SMI_MIXED)
    started = time.monotonic()
    profile = detect(env, fake_root, timeout=1.5)
    assert time.monotonic() - started < 8
    probes = results(profile)
    assert probes["nvml"] == "timeout"
    assert probes["procfs"] == "found"
    assert probes["nvidia-smi"] == "found"
    assert profile.driver is not None
    assert profile.driver.source == "procfs"
    assert profile.driver.cuda_source == "nvidia-smi"
    assert profile.driver.cuda == CudaVersion(12, 4)
    assert [gpu.source for gpu in profile.gpus] == ["nvidia-smi", "nvidia-smi"]


def test_crashing_nvml_falls_back(fake_nvml: FakeNvml, fake_root: Path) -> None:
    profile = detect(fake_nvml.scenario(init_crash=True, nvidia_smi=SMI_MIXED), fake_root)
    assert results(profile)["nvml"] == "error"
    assert profile.driver is not None
    assert profile.driver.version == DriverVersion.parse("550.54.14")
    assert profile.driver.source == "nvidia-smi"
    assert profile.capabilities == (ComputeCapability(6, 1), ComputeCapability(8, 9))


def test_nvidia_smi_fallback_on_an_old_driver(fake_nvml: FakeNvml, fake_root: Path) -> None:
    smi = FakeSmi(
        old_query=fixture("nvidia-smi/query-470-without-compute-cap.csv"),
        table=fixture("nvidia-smi/table-470-t4.txt"),
    )
    profile = detect(fake_nvml.scenario(init_error=NO_NVML, nvidia_smi=smi), fake_root)
    assert profile.driver is not None
    assert (str(profile.driver.version), str(profile.driver.cuda)) == ("470.182.03", "11.4")
    assert profile.gpus == ()
    assert [problem.message for problem in profile.problems] == [
        "GPU 0 (Tesla T4): compute capability unknown",
        "GPU 1 (Tesla T4): compute capability unknown",
    ]


def test_hanging_nvidia_smi(fake_nvml: FakeNvml, fake_root: Path) -> None:
    smi = FakeSmi(query=fixture("nvidia-smi/query-rtx4090.csv"), sleep=30)
    started = time.monotonic()
    profile = detect(fake_nvml.scenario(init_error=NO_NVML, nvidia_smi=smi), fake_root, timeout=1)
    assert time.monotonic() - started < 8
    assert results(profile)["nvidia-smi"] == "timeout"
    assert profile.driver is None


def test_override_replaces_the_driver_version(fake_nvml: FakeNvml, fake_root: Path) -> None:
    profile = detect(fake_nvml.scenario(gpus=[RTX_4090]), fake_root, override="535.104.05")
    assert profile.driver is not None
    assert profile.driver.version == DriverVersion.parse("535.104.05")
    assert profile.driver.source == "override"
    # Left to the caller to derive from the override, never taken from the real driver.
    assert profile.driver.cuda is None
    assert [gpu.source for gpu in profile.gpus] == ["nvml"]
    assert profile.probes[0].probe == "override"
    assert results(profile)["nvidia-smi"] == "skipped"


def test_bad_override(fake_root: Path) -> None:
    with pytest.raises(UsageError, match="'latest' is not a driver version"):
        detect({}, fake_root, override="latest")


def test_profile_json_reads_back(fake_nvml: FakeNvml, fake_root: Path) -> None:
    profile = detect(fake_nvml.scenario(gpus=[RTX_4090, GTX_1080_TI]), fake_root)
    document = json.loads(json.dumps(profile.to_json()))
    assert document["driver"]["version"] == "550.54.14"
    assert document["driver"]["cuda"] == "12.4"
    assert document["driver"]["source"] == "nvml"
    again = profile_from_json(document, "detected.json")
    assert again.driver == profile.driver
    assert again.gpus == profile.gpus


def test_this_machine() -> None:
    profile = detect_host(timeout=20)
    assert profile.os in ("linux", "windows", "macos")
    assert {"nvml", "procfs", "nvidia-smi", "toolkits", "cudnn"} <= set(results(profile))
    assert json.dumps(profile.to_json())
