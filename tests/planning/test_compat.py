"""The SPEC's compatibility rules on hand-made variants (the data is tested elsewhere)."""

from __future__ import annotations

import pytest

from poetry_cuda.host.profiles import Driver
from poetry_cuda.host.profiles import Gpu
from poetry_cuda.host.profiles import HostProfile
from poetry_cuda.knowledge.model import CompatFloor
from poetry_cuda.knowledge.model import Nvidia
from poetry_cuda.knowledge.model import ToolkitDriver
from poetry_cuda.knowledge.model import Variant
from poetry_cuda.planning.compat import judge
from poetry_cuda.planning.compat import kernels_for
from poetry_cuda.planning.targets import Target
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion


D = DriverVersion.parse
C = CudaVersion.parse
CC = ComputeCapability.parse

NVIDIA = Nvidia(
    toolkits=tuple(
        ToolkitDriver(C(cuda), D(linux), D(windows), "test", "verified")
        for cuda, linux, windows in [
            ("11.8", "520.61.05", "520.06"),
            ("12.1", "530.30.02", "531.14"),
            ("12.4", "550.54.14", "551.61"),
            ("12.6", "560.28.03", "560.76"),
            ("12.8", "570.26", "570.65"),
            ("13.0", "580.65.06", "580.88"),
            ("13.2", "590.44.01", "591.59"),
        ]
    ),
    floors=(
        CompatFloor(11, D("450.80.02"), D("452.39"), "test", "verified"),
        CompatFloor(12, D("525.60.13"), D("528.33"), "test", "verified"),
        CompatFloor(13, D("580"), D("580"), "test", "verified"),
    ),
    arches=(),
)
PLATFORMS = ("linux-x86_64", "windows-x86_64")


def variant(name: str, sass: str, ptx: str = "") -> Variant:
    return Variant(
        name=name,
        cuda=None if name == "cpu" else C(name),
        sass=tuple(CC(s) for s in sass.split()),
        ptx=tuple(CC(p) for p in ptx.split()),
        platforms=PLATFORMS,
    )


def target(driver: str | None, cuda: str | None, *gpus: str, os: str = "linux") -> Target:
    profile = HostProfile(
        os=os,  # type: ignore[arg-type]
        machine="x86_64",
        driver=None
        if driver is None and cuda is None
        else Driver(D(driver) if driver else None, C(cuda) if cuda else None, "test"),
        gpus=tuple(Gpu(i, "GPU", CC(g), "test") for i, g in enumerate(gpus)),
    )
    return Target(profile, C(cuda) if cuda else None, D(driver) if driver else None)


CU124 = variant("cu124", "5.0 6.0 7.0 7.5 8.0 8.6 9.0")
CU126 = variant("cu126", "5.0 6.0 7.0 7.5 8.0 8.6 9.0")
CU128 = variant("cu128", "7.5 8.0 8.6 9.0 10.0 12.0")
CU130 = variant("cu130", "7.5 8.0 8.6 9.0 10.0", "12.0")
CU132 = variant("cu132", "7.5 8.0 8.6 9.0 10.0", "12.0")


@pytest.mark.parametrize(
    ("candidate", "host", "fit", "fragment"),
    [
        (CU124, target("550.54.14", "12.4", "8.9"), "native", "sm_89 has SASS in cu124"),
        (CU126, target("550.54.14", "12.4", "8.9"), "minor-compatible", "minor-version"),
        (CU128, target("550.54.14", "12.4", "6.1"), "no", "no SASS for sm_61"),
        (CU126, target("550.54.14", "12.4", "6.1"), "minor-compatible", "sm_61 has SASS in cu126"),
        (CU124, target("550.54.14", "12.4", "12.0"), "no", "no SASS for sm_120"),
        (CU128, target("570.26", "12.8", "12.0"), "native", "sm_120 has SASS in cu128"),
        # PTX is JIT-compiled only by a driver at least as new as the toolkit.
        (CU130, target("580.65.06", "13.0", "12.0"), "native", "compute_120 PTX"),
        (CU132, target("580.65.06", "13.0", "12.0"), "no", "PTX needs a native driver (>= 590"),
        (CU132, target("580.65.06", "13.0", "8.9"), "minor-compatible", "sm_89 has SASS"),
        (CU130, target("570.26", "12.8", "8.9"), "no", "the driver supports CUDA <= 12.8"),
        (CU124, target("470.82.01", "11.4", "8.6"), "no", "needs a driver >= 550.54.14"),
        (CU124, target("520.61.05", "11.8", "8.6"), "no", "the driver supports CUDA <= 11.8"),
        (CU126, target("525.60.13", "12.0", "8.6"), "minor-compatible", "minor-version"),
        (CU126, target("525.60.12", "12.0", "8.6"), "no", ">= 525.60.13 for CUDA 12.x"),
        (CU124, target(None, None), "no", "needs an NVIDIA driver"),
        (variant("cpu", ""), target(None, None), "cpu", "CPU build"),
        (CU124, target("550.54.14", "12.4", "8.9", "6.1"), "native", "sm_61 has SASS"),
        (CU128, target("570.26", "12.8", "8.9", "6.1"), "no", "sm_61"),
        # A target that gives only a driver and no GPUs needs no architecture check.
        (CU128, target("570.26", "12.8"), "native", "cu128 runs natively"),
    ],
)
def test_judge(candidate: Variant, host: Target, fit: str, fragment: str) -> None:
    verdict = judge(candidate, host, NVIDIA)
    assert verdict.fit == fit
    assert fragment in str(verdict.detail)


def test_windows_floor_differs_from_linux() -> None:
    host = target("528.24", "12.0", "8.6", os="windows")
    assert judge(CU126, host, NVIDIA).fit == "no"
    host = target("528.33", "12.0", "8.6", os="windows")
    assert judge(CU126, host, NVIDIA).fit == "minor-compatible"


def test_unpublished_platform() -> None:
    host = target("550.54.14", "12.4", "8.9")
    linux_only = Variant("cu124", C("12.4"), (CC("8.9"),), (), ("windows-x86_64",))
    verdict = judge(linux_only, host, NVIDIA)
    assert verdict.fit == "no"
    assert "not published for linux-x86_64" in str(verdict.detail)


def test_sass_of_another_major_never_serves() -> None:
    verdict = judge(variant("cu124", "8.0 9.0"), target("550.54.14", "12.4", "10.0"), NVIDIA)
    assert verdict.fit == "no"


@pytest.mark.parametrize(
    ("sass", "ptx", "gpu", "expected"),
    [
        ("5.0 6.0 7.0 8.0 8.6 9.0", "9.0", "8.9", ("sass", "8.6")),
        ("5.0 6.0 7.0 8.0", "8.0", "8.6", ("sass", "8.0")),
        ("7.5 8.0", "8.0", "9.0", ("ptx", "8.0")),
        ("7.5 8.0", "", "6.1", None),
        ("8.0 9.0", "", "10.0", None),  # SASS never crosses a major
        ("", "9.0", "8.9", None),  # PTX of a newer architecture cannot be compiled for it
    ],
)
def test_kernels_for(sass: str, ptx: str, gpu: str, expected: tuple[str, str] | None) -> None:
    found = kernels_for([CC(s) for s in sass.split()], [CC(p) for p in ptx.split()], CC(gpu))
    assert found == (None if expected is None else (expected[0], CC(expected[1])))
