"""System requirements cross-checked with the lock: what the lock itself meets."""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.backends.base import LockedEntry
from poetry_cuda.backends.poetry.manager import PoetryManager
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.locking.verify import cross_check
from poetry_cuda.locking.verify import met_by_lock
from poetry_cuda.planning.plan import Plan
from poetry_cuda.planning.plan import SystemRequirement
from poetry_cuda.planning.planner import Planned
from poetry_cuda.request.settings import parse_settings


if TYPE_CHECKING:
    from pathlib import Path


CUDNN9 = SystemRequirement("onnxruntime-gpu", "cudnn", ">=9,<10", "loads cuDNN 9", "install")
NVCC = SystemRequirement("xformers", "nvcc", ">=12.0,<13", "builds from source", "install")
LINUX_WHEEL = "onnxruntime_gpu-1.20.1-cp311-cp311-manylinux_2_27_x86_64.whl"


def entry(*dependencies: str, files: tuple[str, ...] = (LINUX_WHEEL,)) -> LockedEntry:
    return LockedEntry("1.20.1", None, None, files, tuple((d, "*") for d in dependencies))


def test_a_library_wheel_inside_the_spec_meets_the_need() -> None:
    versions = {"nvidia-cudnn-cu12": ["9.1.0.70"]}
    met = met_by_lock(CUDNN9, [entry("nvidia-cudnn-cu12")], versions, runs_nvcc=False)
    assert met == "nvidia-cudnn-cu12 in the lock"


@pytest.mark.parametrize(
    ("entries", "versions"),
    [
        ([entry("nvidia-cudnn-cu12")], {"nvidia-cudnn-cu12": ["8.9.7.29"]}),  # outside the spec
        ([entry("nvidia-cudnn-cu12"), entry()], {"nvidia-cudnn-cu12": ["9.1.0.70"]}),  # one build
        ([entry("nvidia-cublas-cu12")], {}),  # another library
        ([], {}),  # not locked at all
    ],
    ids=["old-wheel", "one-build-without", "other-library", "unlocked"],
)
def test_otherwise_the_system_must_meet_it(
    entries: list[LockedEntry], versions: dict[str, list[str]]
) -> None:
    assert met_by_lock(CUDNN9, entries, versions, runs_nvcc=False) == ""


def test_nvcc_for_building_is_met_by_wheels_only() -> None:
    wheels = [entry(files=("xformers-0.0.28-cp311-cp311-manylinux_2_28_x86_64.whl",))]
    sdist = [entry(files=("xformers-0.0.28.tar.gz", "xformers-0.0.28-cp311-linux.whl"))]
    assert met_by_lock(NVCC, wheels, {}, runs_nvcc=False).startswith("prebuilt wheels")
    assert met_by_lock(NVCC, sdist, {}, runs_nvcc=False) == ""
    assert met_by_lock(NVCC, wheels, {}, runs_nvcc=True) == ""  # deepspeed's JIT ops


POETRY_LOCK = """\
[[package]]
name = "nvidia-cudnn-cu12"
version = "9.1.0.70"
optional = false
python-versions = ">=3"
files = [{file = "nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl", hash = "sha256:0"}]

[[package]]
name = "onnxruntime-gpu"
version = "1.20.1"
optional = false
python-versions = "*"
files = [{file = "onnxruntime_gpu-1.20.1-cp311-cp311-manylinux_2_27_x86_64.whl", hash = "sha256:1"}]

[package.dependencies]
nvidia-cudnn-cu12 = {version = "*", markers = "sys_platform == 'linux'"}
nvidia-nccl-cu12 = {version = "*", optional = true}

[metadata]
lock-version = "2.1"
python-versions = ">=3.11,<3.12"
content-hash = "0"
"""


def planned(project: Path, pyproject: dict[str, Any], *needs: SystemRequirement) -> Planned:
    plan = Plan("newest", ("this machine",), (), needs, ())
    return Planned(project, pyproject, parse_settings(pyproject), (), plan, load())


def test_cross_check_marks_what_the_lock_meets(tmp_path: Path) -> None:
    (tmp_path / "poetry.lock").write_text(POETRY_LOCK)
    nccl = SystemRequirement("onnxruntime-gpu", "nccl", ">=2,<3", "loads NCCL", "install")
    checked = cross_check(planned(tmp_path, {}, CUDNN9, nccl), tmp_path, PoetryManager())
    assert [r.satisfied_by for r in checked] == [
        "nvidia-cudnn-cu12 in the lock",
        "",  # only an optional dependency (an extra) brings NCCL
    ]


def test_a_declared_rule_is_kept_as_written(tmp_path: Path) -> None:
    (tmp_path / "poetry.lock").write_text(POETRY_LOCK)
    pyproject = {
        "tool": {"poetry-cuda": {"packages": {"onnxruntime-gpu": {"needs": ["cudnn>=9"]}}}}
    }
    rule = SystemRequirement("onnxruntime-gpu", "cudnn", ">=9", "declared", "install")
    [checked] = cross_check(planned(tmp_path, pyproject, rule), tmp_path, PoetryManager())
    assert checked.satisfied_by == ""
