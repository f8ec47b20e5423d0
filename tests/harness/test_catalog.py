"""The standard world mirrors the real indexes' matrix, names and dependency pins."""

from __future__ import annotations

import email.parser
import time
import zipfile

from typing import TYPE_CHECKING

import pytest

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.support.catalog import LINUX_X86_64
from tests.support.catalog import TORCH_RELEASES
from tests.support.catalog import TorchRelease
from tests.support.catalog import World
from tests.support.catalog import WorldServer
from tests.support.catalog import add_padded_torch
from tests.support.catalog import build_world
from tests.support.catalog import cuda_version


if TYPE_CHECKING:
    from email.message import Message
    from pathlib import Path


def files(world: World, index: str, project: str) -> set[str]:
    directory = world.root / index / project
    return {path.name for path in directory.iterdir() if not path.name.endswith(".metadata")}


def metadata(world: World, index: str, filename: str) -> Message:
    project = canonicalize_name(filename.split("-")[0])
    path = world.root / index / project / f"{filename}.metadata"
    return email.parser.BytesParser().parsebytes(path.read_bytes())


def requires(world: World, index: str, filename: str) -> list[str]:
    return metadata(world, index, filename).get_all("Requires-Dist") or []


def module(world: World, index: str, filename: str, member: str) -> str:
    project = canonicalize_name(filename.split("-")[0])
    with zipfile.ZipFile(world.root / index / project / filename) as archive:
        return archive.read(member).decode()


def test_world_builds_in_seconds(tmp_path: Path) -> None:
    started = time.monotonic()
    built = build_world(tmp_path / "world")
    assert time.monotonic() - started < 10
    assert (built.root / "simple" / "torch").is_dir()


@pytest.mark.parametrize("release", TORCH_RELEASES, ids=lambda release: release.torch)
def test_pytorch_indexes_hold_the_real_variants(world: World, release: TorchRelease) -> None:
    for variant in ("cu118", "cu121", "cu124", "cu126", "cpu"):
        torch = files(world, f"whl/{variant}", "torch")
        published = variant == "cpu" or variant in release.variants
        names = {
            f"torch-{release.torch}+{variant}-{py}-{py}-{platform}.whl"
            for py in release.pythons
            for platform in ("linux_x86_64", "win_amd64")
        }
        assert (names <= torch) is published, variant
        assert (names & torch == set()) is not published, variant
    cpu = files(world, "whl/cpu", "torch")
    for py in release.pythons:
        assert f"torch-{release.torch}-{py}-none-macosx_11_0_arm64.whl" in cpu


def test_torch_reports_its_build(world: World) -> None:
    linux = "torch-2.5.1+cu124-cp311-cp311-linux_x86_64.whl"
    version = module(world, "whl/cu124", linux, "torch/version.py")
    assert 'cuda = "12.4"' in version
    assert '__version__ = "2.5.1+cu124"' in version
    assert "return False" in module(world, "whl/cu124", linux, "torch/cuda/__init__.py")
    cpu = module(world, "whl/cpu", "torch-2.5.1+cpu-cp311-cp311-win_amd64.whl", "torch/version.py")
    assert "cuda = None" in cpu
    pypi = module(
        world, "simple", "torch-2.4.1-cp311-cp311-manylinux1_x86_64.whl", "torch/version.py"
    )
    assert 'cuda = "12.1"' in pypi


def test_linux_cuda_torch_pins_nvidia_wheels(world: World) -> None:
    cu124 = requires(world, "whl/cu124", "torch-2.5.1+cu124-cp311-cp311-linux_x86_64.whl")
    assert f"nvidia-cuda-runtime-cu12==12.4.127; {LINUX_X86_64}" in cu124
    assert f"nvidia-cudnn-cu12==9.1.0.70; {LINUX_X86_64}" in cu124
    cu118 = requires(world, "whl/cu118", "torch-2.6.0+cu118-cp311-cp311-linux_x86_64.whl")
    assert f"nvidia-cuda-runtime-cu11==11.8.89; {LINUX_X86_64}" in cu118
    pypi = requires(world, "simple", "torch-2.5.1-cp311-cp311-manylinux1_x86_64.whl")
    assert f"nvidia-cuda-runtime-cu12==12.4.127; {LINUX_X86_64}" in pypi
    for index, filename in [
        ("whl/cu124", "torch-2.5.1+cu124-cp311-cp311-win_amd64.whl"),
        ("whl/cpu", "torch-2.5.1+cpu-cp311-cp311-linux_x86_64.whl"),
        ("simple", "torch-2.5.1-cp311-cp311-win_amd64.whl"),
        ("simple", "torch-2.5.1-cp311-none-macosx_11_0_arm64.whl"),
    ]:
        assert not [item for item in requires(world, index, filename) if "nvidia" in item]


def test_domain_libraries_pin_torch_like_the_real_ones(world: World) -> None:
    assert "torch==2.5.1" in requires(
        world, "whl/cu124", "torchvision-0.20.1+cu124-cp311-cp311-linux_x86_64.whl"
    )
    assert "torch==2.5.1+cu124" in requires(
        world, "whl/cu124", "torchvision-0.20.1+cu124-cp311-cp311-win_amd64.whl"
    )
    assert requires(world, "whl/cu126", "torchaudio-2.6.0+cu126-cp312-cp312-win_amd64.whl") == [
        "torch==2.6.0+cu126"
    ]
    assert "torch==2.4.1" in requires(
        world, "simple", "torchvision-0.19.1-cp310-cp310-manylinux1_x86_64.whl"
    )


def test_cpu_index_serves_unlabelled_macos_wheels_shared_with_pypi(world: World) -> None:
    name = "torch-2.6.0-cp311-none-macosx_11_0_arm64.whl"
    on_cpu = world.root / "whl" / "cpu" / "torch" / name
    on_pypi = world.root / "simple" / "torch" / name
    assert on_cpu.read_bytes() == on_pypi.read_bytes()


def test_paddle_builds(world: World) -> None:
    assert "paddlepaddle_gpu-2.6.2.post120-cp311-cp311-linux_x86_64.whl" in files(
        world, "packages/stable/cu120", "paddlepaddle-gpu"
    )
    assert "paddlepaddle_gpu-2.6.2.post117-cp312-cp312-win_amd64.whl" in files(
        world, "packages/stable/cu117", "paddlepaddle-gpu"
    )
    pypi = "paddlepaddle_gpu-2.6.2-cp311-cp311-manylinux1_x86_64.whl"
    assert not [item for item in requires(world, "simple", pypi) if "nvidia" in item]
    cu126 = requires(
        world, "packages/stable/cu126", "paddlepaddle_gpu-3.0.0-cp313-cp313-linux_x86_64.whl"
    )
    assert f"nvidia-cudnn-cu12==9.5.1.17; {LINUX_X86_64}" in cu126
    cu118 = requires(
        world, "packages/stable/cu118", "paddlepaddle_gpu-3.0.0-cp313-cp313-linux_x86_64.whl"
    )
    assert f"nvidia-cudnn-cu11==8.9.6.50; {LINUX_X86_64}" in cu118
    version = module(
        world,
        "packages/stable/cu120",
        "paddlepaddle_gpu-2.6.2.post120-cp311-cp311-linux_x86_64.whl",
        "paddle/version/__init__.py",
    )
    assert 'cuda_version = "12.0"' in version


def test_flash_attn_is_only_an_sdist(world: World) -> None:
    assert files(world, "simple", "flash-attn") == {"flash_attn-2.7.4.post1.tar.gz"}


def indexes(world: World) -> list[Path]:
    roots = [world.root / "simple"]
    roots += sorted((world.root / "whl").iterdir())
    roots += sorted((world.root / "packages" / "stable").iterdir())
    return roots


def test_every_index_serves_the_dependencies_of_its_packages(world: World) -> None:
    for index in indexes(world):
        served = {project.name for project in index.iterdir()}
        for wheel in index.glob("*/*.whl.metadata"):
            message = email.parser.BytesParser().parsebytes(wheel.read_bytes())
            for line in message.get_all("Requires-Dist") or []:
                requirement = Requirement(line)
                if requirement.marker is None or "extra" not in str(requirement.marker):
                    assert canonicalize_name(requirement.name) in served, (index, wheel.name, line)


def test_nvidia_wheels_carry_their_libraries(world: World) -> None:
    name = "nvidia_cuda_runtime_cu12-12.4.127-py3-none-manylinux2014_x86_64.whl"
    header = module(world, "simple", name, "nvidia/cuda_runtime/include/cuda_runtime_api.h")
    assert header == "#define CUDART_VERSION 12040\n"
    with zipfile.ZipFile(world.root / "simple" / "nvidia-cuda-runtime-cu12" / name) as archive:
        assert "nvidia/cuda_runtime/lib/libcudart.so.12" in archive.namelist()
    assert requires(
        world, "simple", "nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl"
    ) == ["nvidia-cublas-cu12"]


def test_padded_torch_is_really_that_big(tmp_path: Path) -> None:
    small = World(tmp_path)
    wheel = add_padded_torch(small, 3 << 20)
    assert wheel.stat().st_size > 3 << 20
    assert wheel.parent == tmp_path / "padded" / "whl" / "cu124" / "torch"
    first = wheel.stat().st_mtime_ns
    assert add_padded_torch(small, 3 << 20).stat().st_mtime_ns == first


def test_server_urls(world: World) -> None:
    with WorldServer(world) as running:
        base = f"http://127.0.0.1:{running.port}"
        assert running.pypi_url == f"{base}/simple"
        assert running.pytorch_mirror == f"{base}/whl/{{variant}}"
        assert running.pytorch_url("cu124") == f"{base}/whl/cu124"
        assert running.paddle_url("cu126") == f"{base}/packages/stable/cu126"
        assert running.padded_pytorch_mirror == f"{base}/padded/whl/{{variant}}"


@pytest.mark.parametrize(
    ("variant", "expected"),
    [("cu124", "12.4"), ("cu118", "11.8"), ("cu120", "12.0"), ("cpu", None)],
)
def test_cuda_version(variant: str, expected: str | None) -> None:
    assert cuda_version(variant) == expected


def test_triton_is_unlabelled_and_pinned_by_linux_cuda_torch(world: World) -> None:
    triton = "triton-3.4.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
    for index in ("simple", "whl/cu126", "whl/cu128", "whl/cu129"):
        assert triton in files(world, index, "triton"), index
    assert not (world.root / "whl" / "cpu" / "triton").exists()
    pin = f"triton==3.4.0; {LINUX_X86_64}"
    assert pin in requires(world, "whl/cu128", "torch-2.8.0+cu128-cp311-cp311-linux_x86_64.whl")
    assert pin in requires(world, "simple", "torch-2.8.0-cp311-cp311-manylinux1_x86_64.whl")
    for index, filename in [
        ("whl/cu128", "torch-2.8.0+cu128-cp311-cp311-win_amd64.whl"),
        ("whl/cpu", "torch-2.8.0+cpu-cp311-cp311-linux_x86_64.whl"),
        ("whl/cu124", "torch-2.5.1+cu124-cp311-cp311-linux_x86_64.whl"),
    ]:
        assert not [item for item in requires(world, index, filename) if "triton" in item]


def test_cuda_13_wheels_carry_their_new_names(world: World) -> None:
    cu130 = requires(world, "whl/cu130", "torch-2.9.1+cu130-cp311-cp311-linux_x86_64.whl")
    assert f"nvidia-cuda-runtime==13.0.96; {LINUX_X86_64}" in cu130
    assert f"nvidia-cudnn-cu13==9.13.0.50; {LINUX_X86_64}" in cu130
    assert requires(
        world, "whl/cu130", "nvidia_cudnn_cu13-9.13.0.50-py3-none-manylinux2014_x86_64.whl"
    ) == ["nvidia-cublas"]
