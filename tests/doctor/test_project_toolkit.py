"""doctor's check of a `toolkit = "redist"` project's own toolkit, on its gathered state."""

from __future__ import annotations

import dataclasses

from typing import Any

import pytest

from poetry_cuda.doctor.toolkit import ToolkitState
from poetry_cuda.doctor.toolkit import check
from poetry_cuda.redist.manifest import Archive
from poetry_cuda.versions import CudaVersion


NVCC = Archive("cuda_nvcc", "13.0.88", "linux-x86_64", "cuda_nvcc/x.tar.xz", "a" * 64, 10)
CUDART = Archive("cuda_cudart", "13.0.96", "linux-x86_64", "cuda_cudart/y.tar.xz", "b" * 64, 10)
EXPECTED = (
    "/store/cuda_nvcc/13.0.88/linux-x86_64-aaaa",
    "/store/cuda_cudart/13.0.96/linux-x86_64-bbbb",
)
ASSEMBLED = tuple(f"{folder}/tree/archive" for folder in EXPECTED)


AS_RECORDED = ToolkitState(
    (NVCC, CUDART), (), EXPECTED, ASSEMBLED, CudaVersion(13, 0), f"{ASSEMBLED[0]}/bin/nvcc"
)


def _state(**changes: Any) -> ToolkitState:
    return dataclasses.replace(AS_RECORDED, **changes)


def test_a_toolkit_assembled_as_recorded_is_ok() -> None:
    (finding,) = check(_state())
    assert (finding.status, finding.message) == (
        "ok",
        "nvcc 13.0.88 assembled from the shared store, as cuda.lock records",
    )


@pytest.mark.parametrize(
    ("changes", "status", "says"),
    [
        (
            {"missing": (CUDART,)},
            "fail",  # the assembled tree links into it
            "cuda_cudart 13.0.96 (linux-x86_64) is not in the shared store, or not whole",
        ),
        ({"assembled": None}, "warn", "is not assembled"),
        ({"nvcc": None}, "fail", "the project's CUDA toolkit has no nvcc"),
        ({"nvcc": "/usr/local/cuda/bin/nvcc"}, "fail", "runs /usr/local/cuda/bin/nvcc, not the"),
        (
            {"archives": (), "platform": "linux-x86_64", "recorded": ("linux-sbsa",)},
            "fail",
            "archives for linux-sbsa, and this machine is linux-x86_64",
        ),
        ({"assembled": ASSEMBLED[:1]}, "fail", "other archives than cuda.lock records"),
        ({"assembled": ("/elsewhere/tree", ASSEMBLED[1])}, "fail", "other archives"),
        (
            {"project_cuda": CudaVersion(12, 8)},
            "fail",
            "nvcc is 13.0.88, but its CUDA (torch's) is 12.8",
        ),
        ({"archives": ()}, "warn", "records no toolkit archives for this platform"),
    ],
)
def test_what_does_not_agree_is_said_with_its_fix(
    changes: dict[str, Any], status: str, says: str
) -> None:
    findings = check(_state(**changes))
    assert [f.status for f in findings] == [status]
    assert says in findings[0].message
    assert findings[0].fix


def test_archives_missing_before_assembly_are_for_env_to_fetch() -> None:
    findings = check(_state(missing=(CUDART,), assembled=None))
    assert [f.status for f in findings] == ["warn", "warn"]
