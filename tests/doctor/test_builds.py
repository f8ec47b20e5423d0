"""The installed build's own architectures against the host's GPUs and cuda.lock's list."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.doctor.builds import Build
from poetry_cuda.doctor.builds import check_builds
from poetry_cuda.doctor.builds import parse_arches
from poetry_cuda.doctor.builds import read_builds
from poetry_cuda.doctor.installed import read_environment
from poetry_cuda.host.profiles import Driver
from poetry_cuda.host.profiles import Gpu
from poetry_cuda.host.profiles import HostProfile
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.locking.lockfile import LockedPackage
from poetry_cuda.messages import message
from poetry_cuda.planning.targets import settle
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion
from tests.doctor.fatbins import elf
from tests.doctor.fatbins import sass_and_ptx
from tests.support.doctor_projects import Dist
from tests.support.doctor_projects import make_venv
from tests.support.doctor_projects import torch_package


if TYPE_CHECKING:
    from pathlib import Path

    from poetry_cuda.doctor.findings import Finding
    from poetry_cuda.messages import Localized
    from poetry_cuda.planning.targets import Target


KB = load()
CC = ComputeCapability.parse
TORCH_ARCHES = ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "compute_90")
ORT_LIBRARY = "onnxruntime/capi/libonnxruntime_providers_cuda.so"


def host(*gpus: str, driver: str = "550.54.14", machine: str = "x86_64") -> Target:
    profile = HostProfile(
        os="linux",
        machine=machine,
        driver=Driver(DriverVersion.parse(driver), None, "nvml"),
        gpus=tuple(Gpu(i, f"GPU {i} model", CC(cc), "nvml") for i, cc in enumerate(gpus)),
    )
    return settle(profile, KB.nvidia)[0]


def build(arches: str, version: str | None = "2.5.1+cu124") -> Build:
    parsed = parse_arches(arches.split())
    assert parsed is not None
    return Build(*parsed, message("builds.own-list", module="torch"), version)


def torch(arches: tuple[str, ...] = TORCH_ARCHES) -> LockedPackage:
    return LockedPackage(
        "torch", "cu124", CudaVersion.parse("12.4"), "pytorch-cu124", "u", "2.5.1+cu124",
        arches, "test",
    )  # fmt: skip


def findings(
    built: Build | Localized, target: Target, package: LockedPackage | None = None
) -> list[Finding]:
    package = package or torch()
    return check_builds([package], {package.name: built}, target, "poetry install")


def test_every_gpu_with_sass_is_ok() -> None:
    found = findings(build(" ".join(TORCH_ARCHES)), host("8.9", "9.0"))
    assert [(f.check, f.status, f.subject) for f in found] == [
        ("build", "ok", "torch"),
        ("kernels", "ok", "torch on gpu0"),
        ("kernels", "ok", "torch on gpu1"),
    ]
    assert found[0].message == (
        "torch 2.5.1+cu124 carries sm_50, sm_60, sm_70, sm_75, sm_80, sm_86, sm_90, compute_90 "
        "(torch's own list)"
    )
    assert found[1].message == "GPU 0 (GPU 0 model, sm_89): SASS in torch's build (its sm_86 build)"
    assert found[2].message == "GPU 1 (GPU 1 model, sm_90): SASS in torch's build"


def test_a_gpu_without_kernels_fails_although_the_table_promised_them() -> None:
    found = findings(build("sm_75 sm_80 sm_86 sm_90 compute_90"), host("6.1"))
    table, kernels = found
    assert kernels.status == "fail"
    assert kernels.message == (
        "GPU 0 (GPU 0 model, sm_61) has no kernels in torch's installed build: it carries "
        "sm_75, sm_80, sm_86, sm_90, compute_90"
    )
    assert "lock again for this GPU" in kernels.fix
    assert "`--target this`" in kernels.fix
    assert table.status == "warn"
    assert "says sm_50, sm_60, sm_70, sm_75, sm_80, sm_86, sm_90, compute_90" in table.message
    assert "the row is wrong" in table.message
    assert table.fix.startswith("report it to poetry-cuda: the knowledge base row for torch cu124")


def test_ptx_only_is_a_warning_when_the_driver_can_compile_it() -> None:
    (_, kernels) = findings(build("sm_70 sm_75 compute_75", None), host("8.9"))
    assert kernels.status == "warn"
    assert kernels.message == (
        "GPU 0 (GPU 0 model, sm_89): no SASS in torch's build, only compute_75 PTX, "
        "JIT-compiled at first use"
    )


def test_ptx_newer_than_the_driver_fails() -> None:
    # A 12.4 build on a driver for CUDA 12.2 runs by minor-version compatibility: no JIT.
    (_, kernels) = findings(build("sm_70 sm_75 compute_75", None), host("8.9", driver="535.54.03"))
    assert kernels.status == "fail"
    assert "cannot JIT-compile its CUDA 12.4 compute_75 PTX" in kernels.message


@pytest.mark.parametrize(
    ("version", "machine", "arches"),
    [
        ("2.5.0+cu124", "x86_64", TORCH_ARCHES),  # not the locked build: the environment says so
        ("2.5.1+cu124", "aarch64", TORCH_ARCHES),  # cuda.lock's list is the x86_64 row
        ("2.5.1+cu124", "x86_64", ("from sm_60",)),  # a fixed flavour's form
        ("2.5.1+cu124", "x86_64", ()),
    ],
)
def test_the_table_is_judged_only_against_the_build_it_describes(
    version: str, machine: str, arches: tuple[str, ...]
) -> None:
    (table,) = findings(build("sm_80 sm_90", version), host(machine=machine), torch(arches))
    assert table.status == "ok"


def test_unknown_architectures_are_a_warning() -> None:
    (found,) = findings(f"{ORT_LIBRARY} is not installed", host("8.9"))
    assert found.status == "warn"
    assert found.message == (
        f"torch: the installed build's architectures are unknown: {ORT_LIBRARY} is not installed"
    )
    assert found.fix == "run `poetry install` to install the locked build again"


def test_parse_arches() -> None:
    assert parse_arches(["sm_90a", "compute_90", "sm_50"]) == ((CC("5.0"), CC("9.0")), (CC("9.0"),))
    assert parse_arches(["from sm_60"]) is None
    assert parse_arches(["sm_x"]) is None


def ort_package() -> LockedPackage:
    return LockedPackage(
        "onnxruntime-gpu", "cu12", CudaVersion.parse("12.0"), "pypi", "u", "1.20.1",
        ("from sm_60",), "test",
    )  # fmt: skip


def test_read_builds_scans_libraries_and_takes_torch_s_own_list(tmp_path: Path) -> None:
    environment = read_environment(
        make_venv(
            tmp_path / "venv",
            [
                Dist("onnxruntime-gpu", "1.20.1", {ORT_LIBRARY: elf(sass_and_ptx([60, 80], [90]))}),
                Dist("torch", "2.5.1+cu124"),
            ],
        ),
        KB.installed,
    )
    report = {"torch": {"cuda": "12.4", "arches": ["sm_80", "compute_80"]}, "onnxruntime": {}}
    builds = read_builds(report, [ort_package(), torch_package()], environment, KB.installed)
    ort = builds["onnxruntime-gpu"]
    assert isinstance(ort, Build)
    assert (ort.arches, ort.version) == ("sm_60, sm_80, compute_90", "1.20.1")
    assert str(ort.source).endswith(ORT_LIBRARY)
    assert builds["torch"] == Build(
        (CC("8.0"),), (CC("8.0"),), message("builds.own-list", module="torch"), "2.5.1+cu124"
    )
    # Without a list from torch, its library is scanned; a CPU build is not judged here.
    builds = read_builds(
        {"torch": {"cuda": "12.4", "arches": []}}, [torch_package()], environment, KB.installed
    )
    assert {name: str(build) for name, build in builds.items()} == {
        "torch": "torch/lib/libtorch_cuda.so is not installed"
    }
    assert (
        read_builds({"torch": {"cuda": None}}, [torch_package()], environment, KB.installed) == {}
    )


def test_paddle_s_kernel_library_is_the_first_with_kernels(tmp_path: Path) -> None:
    package = LockedPackage(
        "paddlepaddle-gpu", "cu118", CudaVersion.parse("11.8"), "pypi", "u", "2.6.2",
        (), "test",
    )  # fmt: skip
    files = {
        "paddle/libs/libphi_gpu.so": elf(None),  # tried first, but holds no device code
        "paddle/libs/libphi.so": elf(sass_and_ptx([61, 70, 75, 80, 86])),
    }
    environment = read_environment(
        make_venv(tmp_path / "venv", [Dist("paddlepaddle-gpu", "2.6.2", files)]), KB.installed
    )
    (paddle,) = read_builds({}, [package], environment, KB.installed).values()
    assert isinstance(paddle, Build)
    assert str(paddle.source).endswith("paddle/libs/libphi.so")
    assert paddle.arches == "sm_61, sm_70, sm_75, sm_80, sm_86"
    broken = {"paddle/libs/libphi.so": b"not a library"}
    environment = read_environment(
        make_venv(tmp_path / "broken", [Dist("paddlepaddle-gpu", "2.6.2", broken)]), KB.installed
    )
    (why,) = read_builds({}, [package], environment, KB.installed).values()
    assert not isinstance(why, Build) and str(why).endswith("libphi.so: not an ELF file")
