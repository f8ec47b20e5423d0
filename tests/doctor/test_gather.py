"""doctor's facts gathered from real folders: a project, its venv, fake library trees, and
the real pynvml loading the fake libnvidia-ml; every finding checked with its hint."""

from __future__ import annotations

import json
import os

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.cli.registry import package_manager
from poetry_cuda.doctor.checkup import run_checks
from poetry_cuda.doctor.facts import gather
from poetry_cuda.host.detect import HostPaths
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.planning.plan import SystemRequirement
from tests.support.doctor_projects import CU124_LIBS
from tests.support.doctor_projects import Dist
from tests.support.doctor_projects import fresh_project
from tests.support.doctor_projects import locked_torch
from tests.support.doctor_projects import make_venv
from tests.support.doctor_projects import nvidia_dist
from tests.support.doctor_projects import torch_dist
from tests.support.doctor_projects import torch_package


if TYPE_CHECKING:
    from pathlib import Path

    from poetry_cuda.doctor.findings import Finding
    from tests.support.fake_nvml import FakeNvml


KB = load()
LIBS = "usr/lib/x86_64-linux-gnu"
CUDNN8 = SystemRequirement(
    "paddlepaddle-gpu", "cudnn", ">=8.6.0,<9", "loads libcudnn.so.8", "apt install libcudnn8"
)
CUDART118 = SystemRequirement(
    "paddlepaddle-gpu", "cuda-runtime", ">=11.8,<12", "loads cudart", "apt install cuda-11-8"
)


def doctor(project: Path, root: Path, env: dict[str, str], **extra: str) -> list[Finding]:
    facts = gather(
        project,
        KB,
        environ={**env, **extra},
        paths=HostPaths.under(root),
        load_manager=package_manager,
    )
    return run_checks(facts, KB)


def one(findings: list[Finding], check: str, subject: str | None = None) -> Finding:
    """The one finding of `check` (about `subject`), the host's own cuDNN list aside."""
    rows = [
        f
        for f in findings
        if f.check == check
        and (subject is None or f.subject == subject)
        and not (f.area == "host" and check == "cudnn")
    ]
    assert len(rows) == 1, rows
    return rows[0]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "root" / LIBS).mkdir(parents=True)
    (tmp_path / "root" / "bin").mkdir()
    return tmp_path / "root"


@pytest.fixture
def env(fake_nvml: FakeNvml, root: Path) -> dict[str, str]:
    # PATH holds no nvcc: only the toolkits under the fake root are found.
    return fake_nvml.scenario(path=[str(root / "bin")])


def torch_project(tmp_path: Path, *dists: Dist) -> Path:
    project = fresh_project(
        tmp_path / "demo",
        packages=[torch_package()],
        poetry_lock=[locked_torch("2.5.1+cu124", "pytorch-cu124", CU124_LIBS)],
    )
    make_venv(project / ".venv", dists)
    return project


def test_cpu_torch_where_cu124_was_locked_and_missing_nvidia_libraries(
    tmp_path: Path, root: Path, env: dict[str, str]
) -> None:
    project = torch_project(
        tmp_path,
        torch_dist("2.5.1+cpu", None),
        nvidia_dist("nvidia-cuda-runtime-cu12", "12.4.127", "libcudart.so.12"),
        nvidia_dist("nvidia-cudnn-cu12", "9.1.0.70", "libcudnn.so.9", deleted=True),
    )
    findings = doctor(project, root, env)
    installed = one(findings, "installed", "torch")
    assert installed.status == "fail"
    assert "a CPU build of torch (2.5.1+cpu)" in installed.message
    assert "cu124 (2.5.1+cu124)" in installed.message
    assert installed.fix.startswith("run `poetry install`")
    wheels = one(findings, "nvidia-wheels", "torch")
    assert wheels.status == "fail"
    assert "nvidia-cublas-cu12, which is not installed" in wheels.message
    broken = one(findings, "nvidia-libraries", "nvidia-cudnn-cu12")
    assert broken.status == "fail"
    assert "nvidia/cudnn/lib/libcudnn.so.9" in broken.message
    assert "--force-reinstall --no-deps nvidia-cudnn-cu12==9.1.0.70" in broken.fix
    total = one(findings, "nvidia-size")
    assert total.status == "ok"
    assert "2 nvidia-* wheel(s) installed, 0.0 MiB in site-packages/nvidia" in total.message
    # The host is fine: the fake NVML reports an RTX 4090 on driver 550.54.14.
    assert one(findings, "variant", "torch").status == "ok"
    assert one(findings, "agree", "torch").status == "ok"


def test_the_locked_build_installed(tmp_path: Path, root: Path, env: dict[str, str]) -> None:
    versions = {
        "nvidia-cuda-runtime-cu12": "12.4.127",
        "nvidia-cudnn-cu12": "9.1.0.70",
        "nvidia-cublas-cu12": "12.4.5.8",
    }
    libs = {
        "nvidia-cuda-runtime-cu12": "libcudart.so.12",
        "nvidia-cudnn-cu12": "libcudnn.so.9",
        "nvidia-cublas-cu12": "libcublas.so.12",
    }
    project = torch_project(
        tmp_path,
        torch_dist("2.5.1+cu124", "12.4"),
        *(nvidia_dist(name, versions[name], libs[name]) for name in CU124_LIBS),
    )
    findings = doctor(project, root, env)
    assert [f for f in findings if f.status != "ok"] == []
    assert one(findings, "installed", "torch").message == "torch 2.5.1+cu124 (built for CUDA 12.4)"
    assert (
        "3 nvidia-* wheels torch depends on are installed"
        in one(findings, "nvidia-wheels", "torch").message
    )


def test_wrong_label_and_missing_venv(tmp_path: Path, root: Path, env: dict[str, str]) -> None:
    project = torch_project(tmp_path, torch_dist("2.5.1+cu118", "11.8"))
    installed = one(doctor(project, root, env), "installed", "torch")
    assert installed.message == "torch 2.5.1+cu118 is installed; cuda.lock records 2.5.1+cu124"
    (project / ".venv").rename(project / "elsewhere")
    venv = one(doctor(project, root, env), "venv")
    assert (venv.status, venv.fix) == (
        "warn",
        "run `poetry install` to create it and install the lock",
    )


def test_poetry_lock_disagrees(tmp_path: Path, root: Path, env: dict[str, str]) -> None:
    project = fresh_project(
        tmp_path / "demo",
        packages=[torch_package()],
        poetry_lock=[locked_torch("2.5.1", None)],
    )
    agree = one(doctor(project, root, env), "agree", "torch")
    assert agree.status == "fail"
    assert agree.message == (
        "poetry.lock locks torch 2.5.1 from PyPI; cuda.lock records 2.5.1+cu124 from pytorch-cu124"
    )


def test_stale_and_damaged_cuda_lock(tmp_path: Path, root: Path, env: dict[str, str]) -> None:
    project = torch_project(tmp_path, torch_dist("2.5.1+cu124", "12.4"))
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("torch==2.5.1", "torch>=2.5"))
    fresh = one(doctor(project, root, env), "fresh")
    assert fresh.status == "fail"
    assert "stale" in fresh.message and "poetry cuda lock" in fresh.fix
    (project / "cuda.lock").write_text("version = 1\n")
    damaged = one(doctor(project, root, env), "cuda.lock")
    assert damaged.status == "fail"
    assert "content-hash: missing" in damaged.message
    assert "restore it from version control" in damaged.fix


def paddle_project(tmp_path: Path, *requirements: SystemRequirement) -> Path:
    return fresh_project(
        tmp_path / "paddle",
        dependencies=["paddlepaddle-gpu==2.6.2"],
        requirements=requirements or (CUDNN8, CUDART118),
    )


def test_cudnn_8_in_a_library_folder(tmp_path: Path, root: Path, env: dict[str, str]) -> None:
    libs = root / LIBS
    (libs / "libcudnn.so.8.9.7").write_bytes(b"\x7fELF")
    (libs / "libcudnn.so.8").symlink_to("libcudnn.so.8.9.7")
    cudnn = one(doctor(paddle_project(tmp_path), root, env), "cudnn")
    assert cudnn.status == "ok"
    assert cudnn.message == (
        f"paddlepaddle-gpu needs cudnn >=8.6.0,<9: 8.9.7 at {libs / 'libcudnn.so.8'} (library-dir)"
    )


def test_no_cudnn_8_fails_with_the_recorded_fix(
    tmp_path: Path, root: Path, env: dict[str, str]
) -> None:
    (root / LIBS / "libcudnn.so.9").write_bytes(b"\x7fELF")
    cudnn = one(doctor(paddle_project(tmp_path), root, env), "cudnn")
    assert cudnn.status == "fail"
    assert "found only 9 " in cudnn.message or "found only 9.x" in cudnn.message
    assert cudnn.fix == "apt install libcudnn8"
    (root / LIBS / "libcudnn.so.9").unlink()
    cudnn = one(doctor(paddle_project(tmp_path), root, env), "cudnn")
    assert cudnn.message.endswith("(loads libcudnn.so.8); none found")


def test_cudnn_known_only_by_its_soname_is_a_warning(
    tmp_path: Path, root: Path, env: dict[str, str]
) -> None:
    folder = tmp_path / "ld-path"
    folder.mkdir()
    (folder / "libcudnn.so.8").write_bytes(b"\x7fELF")
    path = f"{folder}{os.pathsep}{env['LD_LIBRARY_PATH']}"
    cudnn = one(doctor(paddle_project(tmp_path), root, env, LD_LIBRARY_PATH=path), "cudnn")
    assert cudnn.status == "warn"
    assert "8.x (minor unknown)" in cudnn.message
    assert cudnn.fix == "make sure it is >=8.6.0,<9; otherwise apt install libcudnn8"


def test_ldconfig_cache(tmp_path: Path, root: Path, env: dict[str, str]) -> None:
    store = tmp_path / "store"
    store.mkdir()
    (store / "libcudnn.so.8.6.0").write_bytes(b"\x7fELF")
    (store / "libcudnn.so.8").symlink_to("libcudnn.so.8.6.0")
    (store / "libcudart.so.11.8.89").write_bytes(b"\x7fELF")
    (store / "libcudart.so.11.0").symlink_to("libcudart.so.11.8.89")
    ldconfig = root / "sbin" / "ldconfig"
    ldconfig.parent.mkdir()
    ldconfig.write_text(
        "#!/bin/sh\necho '3 libs found in cache'\n"
        f"echo '\tlibcudnn.so.8 (libc6,x86-64) => {store}/libcudnn.so.8'\n"
        f"echo '\tlibcudart.so.11.0 (libc6,x86-64) => {store}/libcudart.so.11.0'\n"
    )
    ldconfig.chmod(0o755)
    findings = doctor(paddle_project(tmp_path), root, env)
    assert one(findings, "cudnn").status == "ok"
    runtime = one(findings, "cuda-runtime")
    assert runtime.status == "ok"
    assert runtime.message.endswith(f"11.8.89 at {store}/libcudart.so.11.0 (ldconfig)")


def test_a_soname_alone_does_not_tell_the_cuda_minor(
    tmp_path: Path, root: Path, env: dict[str, str]
) -> None:
    (root / LIBS / "libcudart.so.11.0").write_bytes(b"\x7fELF")
    runtime = one(doctor(paddle_project(tmp_path), root, env), "cuda-runtime")
    assert runtime.status == "warn"
    assert "11.x (minor unknown)" in runtime.message


def test_toolkit_of_the_right_version(tmp_path: Path, root: Path, env: dict[str, str]) -> None:
    toolkit = root / "usr" / "local" / "cuda-11.8"
    (toolkit / "bin").mkdir(parents=True)
    (toolkit / "version.json").write_text(json.dumps({"cuda": {"version": "11.8.0"}}))
    nvcc = toolkit / "bin" / "nvcc"
    nvcc.write_text("#!/bin/sh\n")
    nvcc.chmod(0o755)
    needs_nvcc = SystemRequirement("flash-attn", "nvcc", ">=12.0,<13", "compiles", "install 12")
    findings = doctor(paddle_project(tmp_path, CUDART118, needs_nvcc), root, env)
    runtime = one(findings, "cuda-runtime")
    assert runtime.status == "ok"
    assert runtime.message.endswith(f"11.8.0 (CUDA toolkit at {toolkit})")
    compiler = one(findings, "nvcc")
    assert compiler.status == "fail"
    assert f"found only 11.8.0 at {nvcc}" in compiler.message
    assert compiler.fix == "install 12"


def test_driver_mismatch_from_nvml(tmp_path: Path, root: Path, fake_nvml: FakeNvml) -> None:
    env = fake_nvml.scenario(init_error=18, path=[str(root / "bin")])
    findings = doctor(paddle_project(tmp_path), root, env)
    probe = one(findings, "probe")
    assert probe.status == "fail"
    assert "version mismatch" in probe.message
    assert "reboot" in probe.fix


def test_driver_override_is_honoured(tmp_path: Path, root: Path, env: dict[str, str]) -> None:
    project = torch_project(tmp_path, torch_dist("2.5.1+cu124", "12.4"))
    variant = one(doctor(project, root, env, POETRY_CUDA_DRIVER_VERSION="470.82.01"), "variant")
    assert variant.status == "fail"
    assert "the driver supports CUDA <= 11.4" in variant.message


def test_a_shell_cuda_home_that_contradicts_the_project(
    tmp_path: Path, root: Path, env: dict[str, str]
) -> None:
    project = torch_project(tmp_path, torch_dist("2.5.1+cu124", "12.4"))
    assert one(doctor(project, root, env), "shell").status == "ok"

    other = tmp_path / "cuda-13.0"
    (other / "bin").mkdir(parents=True)
    (other / "version.json").write_text(json.dumps({"cuda": {"version": "13.0.88"}}))
    shell = one(doctor(project, root, env, CUDA_HOME=str(other)), "shell", "CUDA_HOME")
    assert shell.status == "warn"
    assert shell.message.startswith(f"CUDA_HOME={other}, but the project uses no CUDA toolkit")
    assert "poetry cuda run -- CMD" in shell.fix
    assert 'eval "$(poetry cuda env)"' in shell.fix


def test_a_requirement_the_lock_meets_needs_nothing_from_the_system(
    tmp_path: Path, root: Path, env: dict[str, str]
) -> None:
    met = SystemRequirement(
        "paddlepaddle-gpu",
        "cudnn",
        ">=9,<10",
        "loads libcudnn.so.9",
        "apt install libcudnn9",
        satisfied_by="nvidia-cudnn-cu12 in the lock",
    )
    finding = one(doctor(paddle_project(tmp_path, met), root, env), "cudnn")
    assert finding.status == "ok"
    assert finding.message.endswith("met by nvidia-cudnn-cu12 in the lock")


PADDLE_IMAGE = "nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04"
# The environment nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04's Dockerfile sets.
CUDA_118_CUDNN8 = {"CUDA_VERSION": "11.8.0", "NV_CUDNN_VERSION": "8.9.6.50"}


def base_image_findings(tmp_path: Path, root: Path, env: dict[str, str]) -> list[Finding]:
    project = fresh_project(tmp_path / "image", base_image=PADDLE_IMAGE)
    return [f for f in doctor(project, root, env) if f.check == "base-image"]


def test_on_a_host_the_base_image_is_not_checked(
    tmp_path: Path, root: Path, env: dict[str, str]
) -> None:
    # The image's variables alone make no container: no runtime left its marker.
    assert base_image_findings(tmp_path, root, {**env, **CUDA_118_CUDNN8}) == []


def test_in_a_container_its_image_is_checked_against_the_locks_base_image(
    tmp_path: Path, root: Path, env: dict[str, str]
) -> None:
    (root / ".dockerenv").write_text("")
    (met,) = base_image_findings(tmp_path, root, {**env, **CUDA_118_CUDNN8})
    assert met.status == "ok"
    assert met.message == (
        f"Docker container with CUDA 11.8.0 and cuDNN 8.9.6.50 meets {PADDLE_IMAGE}"
    )
    newer = {"CUDA_VERSION": "12.4.1", "NV_CUDNN_VERSION": "9.1.0.70-1"}
    (other,) = base_image_findings(tmp_path / "newer", root, {**env, **newer})
    assert other.status == "warn"
    assert other.area == "system"
    assert "has CUDA 12.4.1" in other.message
    assert other.fix == f"build the image FROM {PADDLE_IMAGE} (`poetry-cuda plan` names it)"
