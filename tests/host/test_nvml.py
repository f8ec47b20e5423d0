from __future__ import annotations

import os
import sys
import time

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.host.nvml import VERSION_MISMATCH
from poetry_cuda.host.nvml import decode
from poetry_cuda.host.nvml import probe_nvml
from poetry_cuda.host.nvml import start_early
from poetry_cuda.host.nvml import worker_environment
from poetry_cuda.host.probe import GpuFacts
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion
from tests.support.fake_nvml import GTX_1080_TI
from tests.support.fake_nvml import RTX_4090
from tests.support.fake_nvml import real_nvml_present


if TYPE_CHECKING:
    from poetry_cuda.host.probe import ProbeResult
    from tests.support.fake_nvml import FakeNvml


def _probe(env: dict[str, str], tmp_path: Path, *, timeout: float = 20) -> ProbeResult:
    return probe_nvml(environ=env, os_name="linux", wsl_lib=tmp_path / "no-wsl", timeout=timeout)


# Decoding the worker's JSON.


def test_decode_full_answer() -> None:
    findings = decode(
        {
            "driver": "550.54.14",
            "cuda": 12040,
            "cuda_call": "nvmlSystemGetCudaDriverVersion_v2",
            "gpus": [
                {
                    "index": 0,
                    "name": "NVIDIA GeForce RTX 4090",
                    "uuid": "GPU-1",
                    "memory_mib": 24564,
                    "compute_capability": [8, 9],
                }
            ],
            "missing": [],
            "failures": [],
        },
        os_name="linux",
    )
    assert findings.report.result == "found"
    assert findings.report.detail == "driver 550.54.14, CUDA 12.4, 1 GPU(s)"
    assert findings.driver == DriverVersion.parse("550.54.14")
    assert findings.cuda == CudaVersion(12, 4)
    assert findings.gpus == (
        GpuFacts(0, "NVIDIA GeForce RTX 4090", "GPU-1", 24564, ComputeCapability(8, 9)),
    )
    assert findings.problems == ()


@pytest.mark.parametrize(
    ("code", "name", "result", "detail"),
    [
        (
            12,
            "NVML_ERROR_LIBRARY_NOT_FOUND",
            "absent",
            "no NVIDIA driver: libnvidia-ml.so.1 not found",
        ),
        (
            9,
            "NVML_ERROR_DRIVER_NOT_LOADED",
            "absent",
            "no NVIDIA driver: the kernel driver is not loaded",
        ),
        (18, "NVML_ERROR_LIB_RM_VERSION_MISMATCH", "error", "Driver/library version mismatch"),
        (4, "NVML_ERROR_NO_PERMISSION", "error", "nvmlInit failed: NVML_ERROR_NO_PERMISSION"),
    ],
)
def test_decode_init_errors(code: int, name: str, result: str, detail: str) -> None:
    payload = {"init_error": {"code": code, "name": name, "message": "text"}}
    findings = decode(payload, os_name="linux")
    assert findings.report.result == result
    assert detail in findings.report.detail
    assert findings.driver is None
    assert findings.gpus is None
    if code == 18:
        assert findings.problems == (VERSION_MISMATCH,)
        assert VERSION_MISMATCH.fix == "reboot, or reload the nvidia kernel modules"
    elif code == 4:
        assert "NVML_ERROR_NO_PERMISSION" in findings.problems[0].message
    else:
        assert findings.problems == ()


def test_decode_names_the_windows_library() -> None:
    payload = {"init_error": {"code": 12, "name": "NVML_ERROR_LIBRARY_NOT_FOUND", "message": ""}}
    assert (
        decode(payload, os_name="windows").report.detail == "no NVIDIA driver: nvml.dll not found"
    )


@pytest.mark.parametrize(
    ("payload", "detail"),
    [
        ([], "unexpected result"),
        ({"worker_error": "OSError: boom"}, "the NVML worker failed: OSError: boom"),
        (
            {"init_error": {"code": None, "name": "ImportError", "message": "no pynvml"}},
            "install nvidia-ml-py",
        ),
    ],
)
def test_decode_worker_failures(payload: Any, detail: str) -> None:
    findings = decode(payload, os_name="linux")
    assert findings.report.result == "error"
    assert detail in findings.report.detail


def test_decode_partial_answer_keeps_what_succeeded() -> None:
    findings = decode(
        {
            "driver": "418.87.01",
            "cuda": None,
            "gpus": [
                {
                    "index": 0,
                    "name": "Tesla V100",
                    "uuid": None,
                    "memory_mib": 16160,
                    "compute_capability": None,
                },
                "junk",
                {"index": "x"},
            ],
            "missing": ["nvmlDeviceGetCudaComputeCapability"],
            "failures": [
                {"call": "nvmlDeviceGetUUID", "code": 3, "name": "NVML_ERROR_NOT_SUPPORTED"}
            ],
        },
        os_name="linux",
    )
    assert findings.report.result == "found"
    assert findings.gpus == (GpuFacts(0, "Tesla V100", None, 16160, None),)
    assert findings.cuda is None
    detail = findings.report.detail
    assert "lacks nvmlDeviceGetCudaComputeCapability (an old driver)" in detail
    assert "nvmlDeviceGetUUID failed: NVML_ERROR_NOT_SUPPORTED" in detail
    assert "no CUDA version" in detail


def test_decode_unlisted_gpus() -> None:
    findings = decode({"driver": "550.54.14", "cuda": 12040, "gpus": None}, os_name="linux")
    assert findings.gpus is None
    assert "GPUs not listed" in findings.report.detail


# The worker's environment.


def test_worker_environment_keeps_the_callers(tmp_path: Path) -> None:
    env = worker_environment({"LD_LIBRARY_PATH": "/opt/lib", "PYTHONPATH": "/x"}, wsl_lib=tmp_path)
    assert env == {"LD_LIBRARY_PATH": "/opt/lib", "PYTHONPATH": "/x"}


def test_worker_environment_adds_wsl_libraries(tmp_path: Path) -> None:
    (tmp_path / "libnvidia-ml.so.1").write_bytes(b"")
    env = worker_environment({"LD_LIBRARY_PATH": "/opt/lib"}, wsl_lib=tmp_path)
    assert env["LD_LIBRARY_PATH"] == os.pathsep.join(["/opt/lib", str(tmp_path)])
    assert worker_environment({}, wsl_lib=tmp_path)["LD_LIBRARY_PATH"] == str(tmp_path)


def test_probe_without_interpreter(tmp_path: Path) -> None:
    findings = probe_nvml(environ={}, os_name="linux", wsl_lib=tmp_path, timeout=5, python="")
    assert findings.report.result == "error"
    missing = probe_nvml(
        environ={}, os_name="linux", wsl_lib=tmp_path, timeout=5, python=str(tmp_path / "python")
    )
    assert missing.report.result == "error"
    assert "cannot start the NVML worker" in missing.report.detail


# pynvml for real, in the worker, against the fake library.


def test_one_gpu(fake_nvml: FakeNvml, tmp_path: Path) -> None:
    findings = _probe(fake_nvml.scenario(gpus=[RTX_4090]), tmp_path)
    assert findings.report.result == "found", findings.report.detail
    assert findings.driver == DriverVersion.parse("550.54.14")
    assert findings.cuda == CudaVersion(12, 4)
    assert findings.gpus == (
        GpuFacts(0, RTX_4090.name, RTX_4090.uuid, 24564, ComputeCapability(8, 9)),
    )


def test_mixed_gpus(fake_nvml: FakeNvml, tmp_path: Path) -> None:
    env = fake_nvml.scenario(driver="560.35.03", cuda=12060, gpus=[RTX_4090, GTX_1080_TI])
    findings = _probe(env, tmp_path)
    assert findings.driver == DriverVersion.parse("560.35.03")
    assert findings.cuda == CudaVersion(12, 6)
    assert findings.gpus is not None
    assert [(gpu.index, gpu.compute_capability) for gpu in findings.gpus] == [
        (0, ComputeCapability(8, 9)),
        (1, ComputeCapability(6, 1)),
    ]
    assert findings.gpus[1].memory_mib == 11264


def test_no_gpus(fake_nvml: FakeNvml, tmp_path: Path) -> None:
    findings = _probe(fake_nvml.scenario(gpus=[]), tmp_path)
    assert findings.report.result == "found"
    assert findings.gpus == ()


def test_old_driver_keeps_what_succeeded(fake_nvml: FakeNvml, tmp_path: Path) -> None:
    env = fake_nvml.scenario(driver="410.48", cuda=10000, old_driver=True)
    findings = _probe(env, tmp_path)
    assert findings.report.result == "found"
    # No _v2: the CUDA version comes from the older call.
    assert findings.cuda == CudaVersion(10, 0)
    assert findings.driver == DriverVersion.parse("410.48")
    assert findings.gpus == (GpuFacts(0, RTX_4090.name, RTX_4090.uuid, 24564, None),)
    assert (
        "lacks nvmlSystemGetCudaDriverVersion_v2, nvmlDeviceGetCudaComputeCapability"
        in findings.report.detail
    )


def test_cuda_falls_back_when_libcuda_is_missing(fake_nvml: FakeNvml, tmp_path: Path) -> None:
    env = fake_nvml.scenario(fail_calls={"nvmlSystemGetCudaDriverVersion_v2": 12})
    findings = _probe(env, tmp_path)
    assert findings.cuda == CudaVersion(12, 4)
    assert "nvmlSystemGetCudaDriverVersion_v2 failed: NVML_ERROR_LIBRARY_NOT_FOUND" in (
        findings.report.detail
    )


def test_failing_call_is_named(fake_nvml: FakeNvml, tmp_path: Path) -> None:
    env = fake_nvml.scenario(fail_calls={"nvmlDeviceGetUUID": 3})
    findings = _probe(env, tmp_path)
    assert findings.gpus is not None
    assert findings.gpus[0].uuid is None
    assert findings.gpus[0].compute_capability == ComputeCapability(8, 9)
    assert "nvmlDeviceGetUUID failed: NVML_ERROR_NOT_SUPPORTED" in findings.report.detail


def test_failing_device_count(fake_nvml: FakeNvml, tmp_path: Path) -> None:
    env = fake_nvml.scenario(fail_calls={"nvmlDeviceGetCount_v2": 15})
    findings = _probe(env, tmp_path)
    assert findings.gpus is None
    assert findings.driver == DriverVersion.parse("550.54.14")
    assert "NVML_ERROR_GPU_IS_LOST" in findings.report.detail


def test_driver_not_loaded(fake_nvml: FakeNvml, tmp_path: Path) -> None:
    findings = _probe(fake_nvml.scenario(init_error=9), tmp_path)
    assert findings.report.result == "absent"
    assert "no NVIDIA driver" in findings.report.detail
    assert findings.problems == ()


def test_version_mismatch(fake_nvml: FakeNvml, tmp_path: Path) -> None:
    findings = _probe(fake_nvml.scenario(init_error=18), tmp_path)
    assert findings.report.result == "error"
    assert findings.report.detail.startswith("NVML_ERROR_LIB_RM_VERSION_MISMATCH: ")
    assert findings.problems == (VERSION_MISMATCH,)


def test_other_init_error_is_named(fake_nvml: FakeNvml, tmp_path: Path) -> None:
    findings = _probe(fake_nvml.scenario(init_error=17), tmp_path)
    assert findings.report.result == "error"
    assert "NVML_ERROR_OPERATING_SYSTEM" in findings.report.detail


@pytest.mark.skipif(real_nvml_present(), reason="a real libnvidia-ml is installed here")
def test_library_absent(fake_nvml: FakeNvml, tmp_path: Path) -> None:
    findings = _probe(fake_nvml.scenario(library=False), tmp_path)
    assert findings.report.result == "absent"
    assert findings.report.detail == "no NVIDIA driver: libnvidia-ml.so.1 not found"


def test_hanging_init_is_stopped(fake_nvml: FakeNvml, tmp_path: Path) -> None:
    started = time.monotonic()
    findings = _probe(fake_nvml.scenario(init_sleep=30), tmp_path, timeout=1.5)
    assert time.monotonic() - started < 5
    assert findings.report.result == "timeout"
    assert "NVML did not answer within 1.5 s" in findings.report.detail


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_crashing_init_is_reported(fake_nvml: FakeNvml, tmp_path: Path) -> None:
    findings = _probe(fake_nvml.scenario(init_crash=True), tmp_path)
    assert findings.report.result == "error"
    assert findings.report.detail == "the NVML worker died from SIGSEGV inside NVML"


# The worker started ahead of detection (`start_early`), handed to the probe as `early=`.

STUB = """#!/bin/sh
# Stands in for the interpreter that runs the worker: counts its runs and answers at once,
# or, with STUB_HANG (a file), writes its process id there and hangs.
if [ -n "$STUB_HANG" ]; then echo $$ > "$STUB_HANG.tmp" && mv "$STUB_HANG.tmp" "$STUB_HANG"; exec sleep 3600; fi
echo $$ >> "$STUB_RUNS"
echo '{"driver": "999.1", "cuda": 12040, "gpus": []}'
"""


def _stub(tmp_path: Path) -> str:
    stub = tmp_path / "python"
    stub.write_text(STUB)
    stub.chmod(0o755)
    return str(stub)


def _runs(env: dict[str, str]) -> list[int]:
    return [int(line) for line in Path(env["STUB_RUNS"]).read_text().split()]


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="a POSIX shell; no NVML on macOS")
def test_the_probe_collects_the_worker_started_early(tmp_path: Path) -> None:
    python = _stub(tmp_path)
    env = {"STUB_RUNS": str(tmp_path / "runs")}
    early = start_early(env, python=python)
    assert early is not None
    findings = probe_nvml(
        environ=env,
        os_name="linux",
        wsl_lib=tmp_path / "no-wsl",
        timeout=20,
        python=python,
        early=early,
    )
    assert findings.driver == DriverVersion.parse("999.1")
    assert len(_runs(env)) == 1  # the early worker's answer, not a second run
    early.stop()  # nothing left to stop


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="a POSIX shell; no NVML on macOS")
def test_a_worker_started_for_another_environment_is_left_to_its_owner(tmp_path: Path) -> None:
    python = _stub(tmp_path)
    runs, pid_file = str(tmp_path / "runs"), tmp_path / "hanging"
    early = start_early({"STUB_RUNS": runs, "STUB_HANG": str(pid_file)}, python=python)
    assert early is not None
    findings = probe_nvml(
        environ={"STUB_RUNS": runs},
        os_name="linux",
        wsl_lib=tmp_path / "no-wsl",
        timeout=20,
        python=python,
        early=early,
    )
    assert findings.driver == DriverVersion.parse("999.1")  # its own worker answered
    assert len(_runs({"STUB_RUNS": runs})) == 1
    deadline = time.monotonic() + 60
    while not pid_file.exists():
        assert time.monotonic() < deadline, "the early worker never started"
        time.sleep(0.05)
    hanging = int(pid_file.read_text())
    os.kill(hanging, 0)  # still there: the probe neither took nor stopped it
    early.stop()
    with pytest.raises(ProcessLookupError):  # killed and reaped
        os.kill(hanging, 0)
