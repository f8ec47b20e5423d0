from __future__ import annotations

import dataclasses

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import InputFileError
from poetry_cuda.locking.freshness import is_fresh
from poetry_cuda.locking.freshness import sealed
from poetry_cuda.locking.lockfile import CudaLock
from poetry_cuda.locking.lockfile import LockedExtra
from poetry_cuda.locking.lockfile import LockedPackage
from poetry_cuda.locking.lockfile import LockedToolkit
from poetry_cuda.locking.lockfile import TargetFacts
from poetry_cuda.locking.lockfile import content_hash
from poetry_cuda.locking.lockfile import read
from poetry_cuda.locking.lockfile_toml import dumps
from poetry_cuda.planning.plan import SystemRequirement
from poetry_cuda.redist.manifest import Archive
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion


if TYPE_CHECKING:
    from pathlib import Path


LOCK = CudaLock(
    content_hash=content_hash({"tool": {"poetry-cuda": {}}}),
    backend="poetry",
    policy="newest",
    cuda="auto",
    targets=(
        TargetFacts(
            "hosts/a.json",
            "linux",
            "x86_64",
            DriverVersion.parse("550.54.14"),
            CudaVersion(12, 4),
            (ComputeCapability(8, 9),),
        ),
        TargetFacts("hosts/mac.json", "macos", "arm64", None, None, ()),
    ),
    packages=(
        LockedPackage(
            "torch",
            "cu124",
            CudaVersion(12, 4),
            "pytorch-cu124",
            "https://download.pytorch.org/whl/cu124",
            "2.5.1+cu124",
            ("sm_50", "sm_90"),
            "driver 550.54.14 supports CUDA <= 12.4",
        ),
    ),
    system_requirements=(
        SystemRequirement("flash-attn", "nvcc", ">=12.0,<13", "compiles CUDA code", "install"),
        SystemRequirement(
            "onnxruntime-gpu",
            "cudnn",
            ">=9,<10",
            "loads libcudnn.so.9",
            "install cuDNN 9",
            satisfied_by="nvidia-cudnn-cu12 in the lock",
        ),
    ),
    managed_sources=("pytorch-cu124",),
)


def test_round_trip_and_determinism(tmp_path: Path) -> None:
    path = tmp_path / "cuda.lock"
    path.write_text(dumps(LOCK))
    assert read(path) == LOCK
    assert dumps(LOCK) == dumps(read(path))
    assert dumps(LOCK).startswith("# This file is written by poetry-cuda")


EXTRAS = (
    LockedExtra(
        "cu124",
        "extra",
        "torch",
        "cu124",
        CudaVersion(12, 4),
        ("sm_50", "sm_90", "compute_90"),
        ("hosts/a.json",),
        "driver 550.54.14 supports CUDA <= 12.4",
    ),
    LockedExtra("cpu", "group", "torch", "cpu", None, (), ("hosts/mac.json",), "no driver"),
)
MULTI = dataclasses.replace(LOCK, extras=EXTRAS)


def test_extras_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "cuda.lock"
    path.write_text(dumps(MULTI))
    assert read(path) == MULTI
    text = dumps(MULTI)
    assert text.count("[[extras]]") == 2
    cpu = text[text.rindex("[[extras]]") :]
    assert "cuda =" not in cpu  # no CUDA for the CPU build, as for packages
    assert "arches = []" in cpu


def test_a_lock_without_extras_writes_no_extras_table() -> None:
    assert "extras" not in dumps(LOCK)
    assert MULTI != LOCK


def test_an_extras_build_is_judged_from_its_recorded_architectures() -> None:
    build = EXTRAS[0].build()
    assert build.name == "cu124"
    assert build.cuda == CudaVersion(12, 4)
    assert build.sass == (ComputeCapability(5, 0), ComputeCapability(9, 0))
    assert build.ptx == (ComputeCapability(9, 0),)
    assert EXTRAS[1].build().is_cpu


def test_the_extras_family_is_part_of_the_content_hash() -> None:
    pyproject = {"project": {"optional-dependencies": {"cu124": ["torch==2.5.1"]}}}
    locked = sealed(MULTI, pyproject)
    assert is_fresh(locked, pyproject)
    changed = {"project": {"optional-dependencies": {"cu124": ["torch==2.6.0"]}}}
    assert not is_fresh(locked, changed)


@pytest.mark.parametrize(
    ("edit", "culprit"),
    [
        (lambda t: t.replace('kind = "extra"', 'kind = "wheel"'), "extras[0].kind"),
        (lambda t: t.replace('name = "cu124"', "name = 124"), "extras[0].name"),
        (lambda t: t.replace('family = "torch"\n', "", 1), "extras[0].family: missing"),
        (lambda t: t.replace('"compute_90"', '"9.0"'), "extras[0].arches[2]"),
        (lambda t: t.replace('cuda = "12.4"\narches', 'cuda = "twelve"\narches'), "extras[0].cuda"),
        (lambda t: t.replace('serves = ["hosts/mac.json"]', "serves = [1]"), "extras[1].serves"),
        (lambda t: t.replace('reason = "no driver"', "reason = 0"), "extras[1].reason"),
    ],
)
def test_damaged_extras_name_the_key(tmp_path: Path, edit: object, culprit: str) -> None:
    path = tmp_path / "cuda.lock"
    path.write_text(edit(dumps(MULTI)))  # type: ignore[operator]
    with pytest.raises(InputFileError) as caught:
        read(path)
    assert culprit in caught.value.render()


def test_content_hash_is_order_independent() -> None:
    assert content_hash({"a": 1, "b": [1, 2]}) == content_hash({"b": [1, 2], "a": 1})
    assert content_hash({"a": 1}) != content_hash({"a": 2})


@pytest.mark.parametrize(
    ("edit", "culprit"),
    [
        (lambda t: t.replace("version = 2", "version = 3"), "version 3 is not supported"),
        (lambda t: t.replace('backend = "poetry"\n', ""), "backend: missing"),
        (lambda t: t.replace('variant = "cu124"', "variant = 124"), "packages[0].variant"),
        (lambda t: t.replace('os = "linux"', "os = []"), "targets[0].os"),
        (lambda t: t[: len(t) // 2] + "\n[[packages]\n", "not valid TOML"),
        (
            lambda t: t.replace("version = 2", 'version = "2"'),
            "version: expected an integer, got '2'",
        ),
        (lambda t: "", "version: missing"),
        (
            lambda t: t.replace('managed-sources = ["pytorch-cu124"]', "managed-sources = [1]"),
            "managed-sources",
        ),
    ],
)
def test_damaged_locks_name_the_key(tmp_path: Path, edit: object, culprit: str) -> None:
    path = tmp_path / "cuda.lock"
    path.write_text(edit(dumps(LOCK)))  # type: ignore[operator]
    with pytest.raises(InputFileError) as caught:
        read(path)
    assert culprit in caught.value.render()
    assert caught.value.fix


NVCC_SHA = "a" * 64
REDIST = dataclasses.replace(
    LOCK,
    toolkit=LockedToolkit(
        "13.0.2",
        (
            Archive(
                "cuda_nvcc",
                "13.0.88",
                "linux-x86_64",
                "cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-13.0.88-archive.tar.xz",
                NVCC_SHA,
                12345,
            ),
            Archive(
                "cuda_nvcc",
                "13.0.88",
                "linux-sbsa",
                "cuda_nvcc/linux-sbsa/cuda_nvcc-linux-sbsa-13.0.88-archive.tar.xz",
                "b" * 64,
                23456,
            ),
        ),
    ),
)


def test_redist_archives_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "cuda.lock"
    path.write_text(dumps(REDIST))
    assert read(path) == REDIST
    text = dumps(REDIST)
    assert '[toolkit]\nmode = "redist"\nrelease = "13.0.2"\n' in text
    assert text.count("[[toolkit.archives]]") == 2
    assert text.startswith(dumps(LOCK))  # other locks keep their bytes; this one only adds
    assert REDIST != LOCK
    assert [a.platform for a in REDIST.toolkit.for_platform("linux-sbsa")] == ["linux-sbsa"]  # type: ignore[union-attr]
    assert "toolkit" not in dumps(LOCK)


@pytest.mark.parametrize(
    ("edit", "culprit"),
    [
        (lambda t: t.replace('mode = "redist"', 'mode = "wheels"'), "toolkit.mode"),
        (lambda t: t.replace('release = "13.0.2"', 'release = "13.0"'), "toolkit.release"),
        (lambda t: t.replace(NVCC_SHA, "a" * 63), "toolkit.archives[0].sha256"),
        (lambda t: t.replace("size = 12345", "size = 0"), "toolkit.archives[0].size"),
        (lambda t: t.replace("size = 12345", 'size = "12345"'), "toolkit.archives[0].size"),
        (
            lambda t: t.replace('relative-path = "cuda_nvcc/', 'relative-path = "../', 1),
            "toolkit.archives[0].relative-path",
        ),
        (lambda t: t.replace('component = "cuda_nvcc"\n', "", 1), "toolkit.archives[0].component"),
        (lambda t: t.replace("size = 12345", "size = 12345\nmd5 = 'x'"), "toolkit.archives[0].md5"),
        (lambda t: t.replace('mode = "redist"', 'mode = "redist"\nurl = "x"'), "toolkit.url"),
    ],
)
def test_damaged_redist_archives_name_the_key(tmp_path: Path, edit: object, culprit: str) -> None:
    path = tmp_path / "cuda.lock"
    path.write_text(edit(dumps(REDIST)))  # type: ignore[operator]
    with pytest.raises(InputFileError) as caught:
        read(path)
    assert culprit in caught.value.render()
