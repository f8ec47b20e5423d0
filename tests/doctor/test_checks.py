"""The pure checks: facts in, findings (with their fix hints) out."""

from __future__ import annotations

import dataclasses

from pathlib import Path

from poetry_cuda.backends.base import LockedEntry
from poetry_cuda.doctor.checks import LockState
from poetry_cuda.doctor.checks import check_host
from poetry_cuda.doctor.checks import check_locks
from poetry_cuda.doctor.checks import gpu_less
from poetry_cuda.doctor.checks import locked_variant
from poetry_cuda.doctor.deep import deep_findings
from poetry_cuda.doctor.findings import exit_code
from poetry_cuda.doctor.findings import report_json
from poetry_cuda.doctor.system import check_system
from poetry_cuda.errors import InputFileError
from poetry_cuda.host.profiles import Driver
from poetry_cuda.host.profiles import Gpu
from poetry_cuda.host.profiles import HostProfile
from poetry_cuda.host.profiles import Problem
from poetry_cuda.host.profiles import Toolkit
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.locking.lockfile import CudaLock
from poetry_cuda.locking.lockfile import LockedPackage
from poetry_cuda.locking.lockfile import TargetFacts
from poetry_cuda.messages import message
from poetry_cuda.planning.plan import SystemRequirement
from poetry_cuda.planning.targets import Target
from poetry_cuda.planning.targets import settle
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion
from tests.support import knowledge as lookup
from tests.support.doctor_projects import torch_package
from tests.support.projects import THIS_MACHINE


KB = load()


def target(driver: str | None = "550.54.14", *ccs: str, **extra: object) -> Target:
    profile = HostProfile(
        os="linux",
        machine="x86_64",
        driver=None if driver is None else Driver(DriverVersion.parse(driver), None, "nvml"),
        gpus=tuple(
            Gpu(i, f"GPU {cc}", ComputeCapability.parse(cc), "nvml") for i, cc in enumerate(ccs)
        ),
        **extra,  # type: ignore[arg-type]
    )
    return settle(profile, KB.nvidia)[0]


def lock_of(*packages: LockedPackage) -> CudaLock:
    return CudaLock("sha256:0", "poetry", "newest", "auto", (), packages, (), ())


def by(findings: list, check: str) -> list:  # type: ignore[type-arg]
    return [f for f in findings if f.check == check]


def test_driver_and_gpu_served() -> None:
    found = check_host(target("550.54.14", "8.9"), lock_of(torch_package()), KB)
    assert {f.status for f in found} == {"ok"}
    (variant,) = by(found, "variant")
    assert "cu124" in variant.message
    (arch,) = by(found, "architecture")
    assert "sm_89 has SASS in cu124" in arch.message


def test_no_driver_fails_when_cuda_is_locked_and_says_how_to_fix() -> None:
    found = check_host(target(None), lock_of(torch_package()), KB, strict=True)
    (driver,) = by(found, "driver")
    assert driver.status == "fail"
    assert "install the NVIDIA driver" in driver.fix
    (variant,) = by(found, "variant")
    assert variant.status == "fail"
    assert "needs an NVIDIA driver" in variant.message


def test_no_driver_without_a_lock_is_a_warning() -> None:
    (driver,) = by(check_host(target(None), None, KB), "driver")
    assert driver.status == "warn"


def test_item4_a_machine_without_a_gpu_outside_the_targets_is_a_warning() -> None:
    team = dataclasses.replace(lock_of(torch_package()), targets=(THIS_MACHINE,))
    found = check_host(target(None), team, KB)
    (driver,) = by(found, "driver")
    assert driver.status == "warn"
    assert driver.message == (
        "this machine has no GPU and is not among cuda.lock's targets: the locked GPU builds "
        "install here and run on the CPU"
    )
    assert "doctor --strict" in driver.fix
    assert not by(found, "variant")  # the one warning stands for the builds it cannot run
    assert exit_code(found) == 0
    # Among the targets by its facts (whatever the profile was called): the plan chose so.
    cpu_box = TargetFacts.of(target(None))
    listed = dataclasses.replace(cpu_box, label="ci/cpu-runner.json")
    found = check_host(target(None), dataclasses.replace(team, targets=(THIS_MACHINE, listed)), KB)
    (driver,) = by(found, "driver")
    assert driver.status == "warn"
    assert "cuda.lock's targets include it" in driver.message
    # A GPU runner asks for today's failures; a driver without a GPU is no such machine.
    strict = check_host(target(None), team, KB, strict=True)
    assert [f.status for f in by(strict, "driver") + by(strict, "variant")] == ["fail", "fail"]
    assert gpu_less(target("550.54.14"), team, strict=False) is None


def test_item4_system_libraries_of_gpu_builds_warn_on_a_machine_without_a_gpu() -> None:
    cudnn = SystemRequirement("paddlepaddle-gpu", "cudnn", ">=8.6,<9", "loads cuDNN", "install")
    nvcc = SystemRequirement("flash-attn", "nvcc", ">=12.1", "builds from source", "install")
    spared = check_system((cudnn, nvcc), target(None), (), None, gpu_less=True)
    assert [(f.check, f.status) for f in spared] == [("cudnn", "warn"), ("nvcc", "fail")]
    strict = check_system((cudnn, nvcc), target(None), (), None)
    assert [f.status for f in strict] == ["fail", "fail"]


def test_variant_too_new_for_the_driver() -> None:
    # Driver 470 supports CUDA 11.4: cu124 needs 525.60.13 for CUDA 12 compatibility.
    found = check_host(target("470.82.01", "8.6"), lock_of(torch_package()), KB)
    (variant,) = by(found, "variant")
    assert variant.status == "fail"
    assert "driver supports CUDA <= 11.4" in variant.message
    assert "poetry cuda lock" in variant.fix


def test_gpu_not_served_by_the_locked_architectures() -> None:
    package = torch_package("2.7.1+cu128", "cu128")
    found = check_host(target("580.65.06", "8.9", "6.1"), lock_of(package), KB)
    archs = by(found, "architecture")
    assert [f.status for f in archs] == ["ok", "fail"]
    assert "sm_61" in archs[1].message
    assert "this machine among the targets" in archs[1].fix


def test_nvml_mismatch_is_a_failure_with_its_fix() -> None:
    problem = Problem("nvml", "Driver/library version mismatch", "reboot")
    (probe,) = by(check_host(target("550.54.14", problems=(problem,)), None, KB), "probe")
    assert (probe.status, probe.fix) == ("fail", "reboot")


def test_toolkits_are_reported() -> None:
    toolkit = Toolkit("12.4.131", "/usr/local/cuda-12.4", "/usr/local/cuda-12.4/bin/nvcc", "x")
    (found,) = by(check_host(target(None, toolkits=(toolkit,)), None, KB), "toolkit")
    assert "12.4.131" in found.message


def test_locked_variant_comes_from_the_locked_release() -> None:
    variant = locked_variant(torch_package("2.5.1+cu124"), KB)
    assert variant == lookup.variant("torch", "2.5", "cu124")
    assert locked_variant(torch_package("2.7.1+cu126", "cu126"), KB) == lookup.variant(
        "torch", "2.7", "cu126"
    )


def test_fixed_flavour_needs_its_cuda_major() -> None:
    cupy = LockedPackage(
        "cupy-cuda13x", "13x", CudaVersion(13, 0), "pypi", "https://pypi.org/simple", None, (), ""
    )
    (variant,) = by(check_host(target("550.54.14"), lock_of(cupy), KB), "variant")
    assert variant.status == "fail"
    assert "CUDA 13.0" in variant.message


def test_locks_missing_stale_damaged() -> None:
    (missing,) = check_locks(LockState(None))
    assert missing.status == "warn"
    assert "poetry cuda lock" in missing.fix
    damaged = InputFileError("cuda.lock: packages[0].name: missing", fix="restore it")
    (bad,) = check_locks(LockState(None, error=damaged))
    assert (bad.status, bad.fix) == ("fail", "restore it")
    stale = check_locks(LockState(lock_of(), fresh=False, lockfile="poetry.lock"))
    assert by(stale, "fresh")[0].status == "fail"
    assert by(stale, "agree")[0].message == "poetry.lock does not exist"


def test_lockfiles_agree_or_not() -> None:
    package = torch_package()
    good = LockedEntry("2.5.1+cu124", "pytorch-cu124", "https://download.pytorch.org/whl/cu124")
    cpu = LockedEntry("2.5.1+cpu", "pytorch-cpu", "https://download.pytorch.org/whl/cpu")
    state = LockState(
        lock_of(package),
        fresh=True,
        lockfile="poetry.lock",
        lockfile_exists=True,
        locked={"torch": (good,)},
    )
    assert {f.status for f in check_locks(state)} == {"ok"}
    state = LockState(
        lock_of(package),
        fresh=True,
        lockfile="poetry.lock",
        lockfile_exists=True,
        locked={"torch": (cpu,)},
    )
    (agree,) = by(check_locks(state), "agree")
    assert agree.status == "fail"
    assert "2.5.1+cpu from pytorch-cpu" in agree.message
    assert "2.5.1+cu124 from pytorch-cu124" in agree.message


ROWS = KB.installed


def test_deep_findings() -> None:
    packages = [torch_package()]
    cpu = deep_findings(
        {"torch": {"version": "2.5.1+cpu", "cuda": None}}, packages, "poetry install", ROWS
    )
    assert [f.status for f in cpu] == ["ok", "fail"]
    assert "CPU build" in cpu[1].message
    unavailable = deep_findings(
        {"torch": {"version": "2.5.1+cu124", "cuda": "12.4", "available": False}},
        packages,
        "x",
        ROWS,
    )
    assert "is_available() is False" in unavailable[1].message
    working = deep_findings(
        {
            "torch": {
                "version": "v",
                "cuda": "12.4",
                "available": True,
                "devices": [[8, 9]],
                "arches": ["sm_80", "sm_90"],
            }
        },
        packages,
        "x",
        ROWS,
    )
    # The architectures are judged by `builds`, against the host's GPUs.
    assert [(f.check, f.status) for f in working] == [("import", "ok"), ("device", "ok")]
    broken = deep_findings({"torch": {"error": "OSError: libcudnn.so.9"}}, packages, "x", ROWS)
    assert broken[0].status == "fail" and "libcudnn.so.9" in broken[0].message
    said = message("deep.timeout", seconds="120")
    (timeout,) = deep_findings(said, packages, "x", ROWS)
    assert timeout.status == "fail"
    assert timeout.message == "the check did not finish within 120 s"


def test_item4_deep_on_a_machine_without_a_gpu_warns_that_cuda_is_unavailable() -> None:
    report = {"torch": {"version": "2.5.1+cu124", "cuda": "12.4", "available": False}}
    spared = deep_findings(report, [torch_package()], "x", ROWS, gpu_less=True)
    assert [(f.check, f.status) for f in spared] == [("import", "ok"), ("cuda", "warn")]
    cpu = {"torch": {"version": "2.5.1+cpu", "cuda": None}}  # the wrong build stays a failure
    assert deep_findings(cpu, [torch_package()], "x", ROWS, gpu_less=True)[1].status == "fail"
    strict = deep_findings(report, [torch_package()], "x", ROWS)
    assert strict[1].status == "fail"


def test_json_report_and_exit_code() -> None:
    findings = check_host(target(None), lock_of(torch_package()), KB, strict=True)
    report = report_json(findings, str(Path("demo")), strict=True)
    assert report["schema"] == 1
    assert report["strict"] is True
    assert report["status"] == "fail"
    assert report["summary"]["fail"] == 2
    assert set(report["findings"][0]) == {"area", "status", "check", "subject", "message", "fix"}
    assert exit_code(findings) == 1
    assert exit_code(by(findings, "toolkit")) == 0
