"""doctor's RECORD check: the installed CUDA-bearing distributions of a real folder tree,
file by file, the damaged ones named with their fix, the others left alone."""

from __future__ import annotations

import hashlib
import os

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.doctor.installed import read_environment
from poetry_cuda.doctor.records import check
from poetry_cuda.doctor.records import cuda_bearing
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.wheelstore.record import Row
from poetry_cuda.wheelstore.record import record_hash
from poetry_cuda.wheelstore.record import render
from poetry_cuda.wheelstore.store import Store


if TYPE_CHECKING:
    from pathlib import Path

    from poetry_cuda.doctor.findings import Finding


SITE = "lib/python3.11/site-packages"
LIBRARY = b"\x7fELF" + bytes(range(256)) * 16


def install(root: Path, name: str, version: str, files: dict[str, bytes]) -> None:
    """`name` as an installer leaves it: its files, then RECORD, last."""
    site = root / SITE
    dist_info = f"{name}-{version}.dist-info"
    rows = []
    for path, data in {**files, f"{dist_info}/METADATA": f"Name: {name}\n".encode()}.items():
        target = site / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        rows.append(Row(path, record_hash(hashlib.sha256(data).digest()), len(data)))
    rows.append(Row(f"{dist_info}/RECORD"))
    (site / dist_info / "RECORD").write_bytes(render(rows))


@pytest.fixture
def environment(tmp_path: Path) -> Path:
    root = tmp_path / "venv"
    install(root, "nvidia_cublas", "13.4.1.3", {"nvidia/cublas/lib/libcublasLt.so.13": LIBRARY})
    install(root, "torch", "2.5.1", {"torch/__init__.py": b"", "torch/lib/libtorch.so": LIBRARY})
    install(root, "requests", "2.32.0", {"requests/__init__.py": b"X = 1\n"})
    return root


def run(root: Path, tmp_path: Path, *, deep: bool = False) -> list[Finding]:
    found = check(
        read_environment(root, ()),
        load(),
        deep=deep,
        install="poetry install",
        shared=True,
        store=Store(tmp_path / "store"),
    )
    return list(found)


def test_the_cuda_bearing_names() -> None:
    wanted = cuda_bearing(load())
    for name in ("torch", "torchvision", "nvidia-cublas", "triton", "paddlepaddle-gpu"):
        assert wanted(name), name
    assert not wanted("requests")


def test_sound_files_pass_with_one_ok(environment: Path, tmp_path: Path) -> None:
    [finding] = run(environment, tmp_path)
    assert finding.status == "ok"
    assert "2 CUDA-bearing distributions" in finding.message


def test_a_damaged_library_is_named_with_the_fix(environment: Path, tmp_path: Path) -> None:
    library = environment / SITE / "nvidia/cublas/lib/libcublasLt.so.13"
    with library.open("r+b") as handle:  # another byte, the same size, a later time
        handle.seek(100)
        handle.write(b"\x00")
    (environment / SITE / "torch/lib/libtorch.so").unlink()
    (environment / SITE / "requests/__init__.py").write_bytes(b"broken")  # not CUDA's
    found = run(environment, tmp_path)
    assert [f.status for f in found] == ["fail", "fail"]
    cublas, torch = sorted(found, key=lambda f: f.subject or "")
    assert "nvidia/cublas/lib/libcublasLt.so.13: other contents than the wheel's" in cublas.message
    assert "torch/lib/libtorch.so: missing" in torch.message
    assert "poetry cuda sync" in cublas.fix
    assert not any("requests" in f.message for f in found)


def test_only_deep_finds_a_change_that_kept_size_and_time(
    environment: Path, tmp_path: Path
) -> None:
    library = environment / SITE / "torch/lib/libtorch.so"
    before = library.stat()
    library.write_bytes(b"\x00" * len(LIBRARY))
    os.utime(library, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert [f.status for f in run(environment, tmp_path)] == ["ok"]
    [finding] = run(environment, tmp_path, deep=True)
    assert finding.status == "fail"
    assert "torch/lib/libtorch.so" in finding.message


def test_two_versions_of_one_distribution_are_named(environment: Path, tmp_path: Path) -> None:
    install(
        environment, "nvidia_cublas", "13.10.0.20", {"nvidia/cublas/lib/libcublasLt.so.13": b"new"}
    )
    found = run(environment, tmp_path)
    twice = [f for f in found if "installed twice" in f.message]
    assert len(twice) == 1
    assert "nvidia_cublas-13.10.0.20.dist-info" in twice[0].message
    assert "poetry cuda lock" in twice[0].fix
