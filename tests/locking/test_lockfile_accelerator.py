"""cuda.lock version 2: each package's accelerator, and version 1 read as CUDA or CPU builds."""

from __future__ import annotations

import dataclasses

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import InputFileError
from poetry_cuda.locking.lockfile import VERSION
from poetry_cuda.locking.lockfile import LockedPackage
from poetry_cuda.locking.lockfile import TargetFacts
from poetry_cuda.locking.lockfile import read
from poetry_cuda.locking.lockfile_toml import dumps
from tests.locking.test_lockfile import LOCK


if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


CPU_TORCH = LockedPackage(
    "torchvision", "cpu", None, "pytorch-cpu", "https://download.pytorch.org/whl/cpu",
    "0.20.1+cpu", (), "no target has an NVIDIA driver",
)  # fmt: skip
TWO = dataclasses.replace(LOCK, packages=(*LOCK.packages, CPU_TORCH))


def version_1(text: str) -> str:
    """`text` as the previous release wrote it: version 1, no accelerators."""
    assert text.count("version = 2\n") == 1
    lines = [line for line in text.splitlines(True) if not line.startswith("accelerator = ")]
    return "".join(lines).replace("version = 2\n", "version = 1\n")


def test_each_package_records_its_accelerator(tmp_path: Path) -> None:
    text = dumps(TWO)
    assert VERSION == 2
    assert text.count("\nversion = 2\n") == 1
    assert 'variant = "cu124"\naccelerator = "cuda"\n' in text
    assert 'variant = "cpu"\naccelerator = "cpu"\n' in text
    path = tmp_path / "cuda.lock"
    path.write_text(text)
    lock = read(path)
    assert lock == TWO
    assert [p.accelerator for p in lock.packages] == ["cuda", "cpu"]


def test_a_version_1_lock_reads_as_cuda_and_cpu_builds(tmp_path: Path) -> None:
    path = tmp_path / "cuda.lock"
    path.write_text(version_1(dumps(TWO)))
    lock = read(path)
    assert lock == TWO
    assert [p.accelerator for p in lock.packages] == ["cuda", "cpu"]
    assert dumps(lock) == dumps(TWO)  # written again as version 2


@pytest.mark.parametrize(
    ("edit", "culprit"),
    [
        (lambda t: t.replace('accelerator = "cuda"\n', ""), "packages[0].accelerator: missing"),
        (
            lambda t: t.replace('accelerator = "cuda"', 'accelerator = "tpu"'),
            "packages[0].accelerator: 'tpu' is not one of cuda, rocm, xpu, cpu",
        ),
        (lambda t: t.replace('accelerator = "cuda"', "accelerator = 1"), "packages[0].accelerator"),
        (
            lambda t: t.replace('accelerator = "cuda"', 'accelerator = "rocm"'),
            "packages[0].accelerator: 'rocm' disagrees with the build: cu124 with CUDA 12.4",
        ),
        (
            lambda t: t.replace('accelerator = "cpu"', 'accelerator = "cuda"'),
            "packages[1].accelerator: 'cuda' disagrees with the build: cpu with no CUDA version",
        ),
        (
            lambda t: version_1(t).replace(
                'variant = "cpu"', 'variant = "cpu"\naccelerator = "cpu"'
            ),
            "packages[1].accelerator: a version-1 cuda.lock records none",
        ),
        (lambda t: t.replace("version = 2\n", "version = 0\n"), "version 0 is not supported"),
    ],
)
def test_a_damaged_accelerator_is_named(
    tmp_path: Path, edit: Callable[[str], str], culprit: str
) -> None:
    path = tmp_path / "cuda.lock"
    path.write_text(edit(dumps(TWO)))
    with pytest.raises(InputFileError) as caught:
        read(path)
    assert caught.value.exit_code == 2
    assert culprit in caught.value.what


AMD_TARGET = TargetFacts(
    "mi250x.json", "linux", "x86_64", None, None, (),
    amd_gfx=("gfx90a",), amdgpu="6.12.12", intel_device_ips=("12.55.8",), level_zero="1.6.32224",
)  # fmt: skip
ROCM_TORCH = LockedPackage(
    "torch", "rocm6.4", None, "pytorch-rocm6.4", "https://download.pytorch.org/whl/rocm6.4",
    "2.9.1+rocm6.4", ("gfx90a", "gfx1100"), "chosen",
)  # fmt: skip


def test_a_rocm_lock_keeps_the_amd_and_intel_facts_of_its_targets(tmp_path: Path) -> None:
    rocm = dataclasses.replace(LOCK, targets=(AMD_TARGET,), packages=(ROCM_TORCH,))
    text = dumps(rocm)
    assert 'amd-gfx = ["gfx90a"]\namdgpu = "6.12.12"\n' in text
    assert 'variant = "rocm6.4"\naccelerator = "rocm"\n' in text
    path = tmp_path / "cuda.lock"
    path.write_text(text)
    lock = read(path)
    assert lock == rocm
    profile = lock.targets[0].profile()
    assert [(g.vendor, g.gfx, g.device_ip) for g in profile.gpus] == [
        ("amd", "gfx90a", None),
        ("intel", None, "12.55.8"),
    ]
    assert profile.rocm is not None and profile.rocm.kernel_driver == "6.12.12"
    assert profile.xpu is not None and profile.xpu.driver == "1.6.32224"
    assert "amd-gfx" not in dumps(LOCK)  # an NVIDIA lock is written as before


def test_a_malformed_gfx_in_cuda_lock_is_refused(tmp_path: Path) -> None:
    rocm = dataclasses.replace(LOCK, targets=(AMD_TARGET,), packages=(ROCM_TORCH,))
    path = tmp_path / "cuda.lock"
    path.write_text(dumps(rocm).replace('amd-gfx = ["gfx90a"]', 'amd-gfx = ["90a"]'))
    with pytest.raises(InputFileError, match="amd-gfx"):
        read(path)
