"""Known facts, spot-checked against the shipped knowledge base.

Each expectation comes from the source the data cites (NVIDIA's release notes and
compatibility guide, PyTorch's build scripts and release matrix, Paddle's install docs),
not from the data itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from packaging.specifiers import SpecifierSet

from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion
from tests.support.knowledge import KB
from tests.support.knowledge import family
from tests.support.knowledge import release
from tests.support.knowledge import variant


if TYPE_CHECKING:
    from poetry_cuda.host.profiles import OperatingSystem


def cc(text: str) -> ComputeCapability:
    return ComputeCapability.parse(text)


@pytest.mark.parametrize(
    ("driver", "os", "cuda"),
    [
        ("550.54.14", "linux", "12.4"),
        ("550.54.13", "linux", "12.3"),
        ("525.60.13", "linux", "12.0"),
        ("520.61.05", "linux", "11.8"),
        ("570.124.06", "linux", "12.8"),
        ("580.65.06", "linux", "13.0"),
        ("595.45.04", "linux", "13.2"),
        ("551.61", "windows", "12.4"),
        ("560.94", "windows", "12.6"),
        # Table 3 has no Windows driver for 13.x; the 13.x floor (580) stands for 13.0.
        ("581.29", "windows", "13.0"),
        ("591.44", "windows", "13.0"),
        ("576.02", "windows", "12.9"),
        ("450.51.05", "linux", "11.0"),
    ],
)
def test_driver_to_max_cuda(driver: str, os: OperatingSystem, cuda: str) -> None:
    assert KB.nvidia.max_cuda(DriverVersion.parse(driver), os) == CudaVersion.parse(cuda)


def test_a_driver_older_than_cuda_11_has_no_max_cuda() -> None:
    assert KB.nvidia.max_cuda(DriverVersion.parse("440.33"), "linux") is None


@pytest.mark.parametrize(
    ("major", "linux", "windows"),
    [(11, "450.80.02", "452.39"), (12, "525.60.13", "528.33"), (13, "580", "580")],
)
def test_minor_version_compatibility_floors(major: int, linux: str, windows: str) -> None:
    assert KB.nvidia.floor(major, "linux") == DriverVersion.parse(linux)
    assert KB.nvidia.floor(major, "windows") == DriverVersion.parse(windows)


@pytest.mark.parametrize(
    ("series", "variants", "pypi_linux"),
    [
        ("2.0", ["cpu", "cu117", "cu118"], "cu117"),
        ("2.1", ["cpu", "cu118", "cu121"], "cu121"),
        ("2.4", ["cpu", "cu118", "cu121", "cu124"], "cu121"),
        ("2.5", ["cpu", "cu118", "cu121", "cu124"], "cu124"),
        ("2.6", ["cpu", "cu118", "cu124", "cu126"], "cu124"),
        ("2.7", ["cpu", "cu118", "cu126", "cu128"], "cu126"),
        ("2.8", ["cpu", "cu126", "cu128", "cu129"], "cu128"),
        ("2.9", ["cpu", "cu126", "cu128", "cu129", "cu130"], "cu128"),
        ("2.11", ["cpu", "cu126", "cu128", "cu129", "cu130"], "cu130"),
        ("2.12", ["cpu", "cu126", "cu129", "cu130", "cu132"], "cu130"),
        ("2.13", ["cpu", "cu126", "cu129", "cu130", "cu132"], "cu130"),
        ("2.14", ["cpu", "cu126", "cu130", "cu132"], "cu130"),
        ("2.15", ["cpu", "cu130", "cu132"], "cu132"),
    ],
)
def test_torch_variants_and_pypi_build(series: str, variants: list[str], pypi_linux: str) -> None:
    rel = release("torch", series)
    assert [v.name for v in rel.variants] == variants
    assert rel.pypi["linux-x86_64"] == pypi_linux
    assert rel.pypi["windows-x86_64"] == rel.pypi["macos-arm64"] == "cpu"


def test_torch_pairs() -> None:
    assert {"torch": "2.5.1", "torchvision": "0.20.1", "torchaudio": "2.5.1"} in release(
        "torch", "2.5"
    ).pairs
    assert {"torch": "2.0.1", "torchvision": "0.15.2", "torchaudio": "2.0.2"} in release(
        "torch", "2.0"
    ).pairs
    assert {"torch": "2.12.1", "torchvision": "0.27.1"} in release("torch", "2.12").pairs


def test_torch_2_15_shipped_stable_abi_torchvision_and_torchaudio() -> None:
    # PyPI: torchvision 0.29.2 and torchaudio 2.11.1 are py3-none wheels uploaded with
    # torch 2.15.0, requiring torch>=2.14.0 and torch>=2.11; there is no torchvision 0.30.0.
    rel = release("torch", "2.15")
    assert rel.pairs == ({"torch": "2.15.0", "torchvision": "0.29.2", "torchaudio": "2.11.1"},)
    assert {(r.member, r.version, r.requires) for r in rel.ranges} == {
        ("torchvision", "0.29.2", ">=2.14.0"),
        ("torchaudio", "2.11.1", ">=2.11"),
    }
    # Before 2.15: torchaudio 2.11.0 has no Requires-Dist at all and supports torch>=2.11
    # (pytorch/audio PR #4212); torchvision 0.29.1 declares torch (>=2.14.0) (its METADATA).
    # Every other member version is built for its own torch version.
    earlier = {
        (r.series, ranged.member, ranged.version, ranged.requires)
        for r in family("torch").releases
        if r.series != "2.15"
        for ranged in r.ranges
    }
    assert earlier == {
        ("2.11", "torchaudio", "2.11.0", ">=2.11"),
        ("2.14", "torchvision", "0.29.1", ">=2.14.0"),
    }


def test_intel_macs_get_wheels_up_to_2_2_only() -> None:
    for rel in family("torch").releases:
        cpu = rel.variant("cpu")
        assert cpu is not None
        assert ("macos-x86_64" in cpu.platforms) == (rel.series_key <= (2, 2)), rel.series


def test_linux_aarch64_pypi_builds_turn_cuda_at_2_11() -> None:
    for rel in family("torch").releases:
        expected = "cpu" if rel.series_key < (2, 11) else rel.pypi["linux-x86_64"]
        assert rel.pypi["linux-aarch64"] == expected, rel.series


@pytest.mark.parametrize(
    ("series", "name", "has", "lacks"),
    [
        ("2.7", "cu128", ["12.0", "10.0", "7.5"], ["6.1", "6.0", "7.0"]),
        ("2.8", "cu128", ["7.0", "12.0"], ["6.0"]),
        ("2.8", "cu126", ["6.0", "5.0", "9.0"], ["10.0"]),
        ("2.5", "cu124", ["6.0", "9.0"], ["3.7"]),
        ("2.5", "cu118", ["3.7", "9.0"], []),
        ("2.11", "cu128", ["7.5", "12.0"], ["7.0"]),
        ("2.12", "cu130", ["7.5", "12.0"], ["7.0", "11.0"]),
    ],
)
def test_torch_sass(series: str, name: str, has: list[str], lacks: list[str]) -> None:
    sass = variant("torch", series, name).sass
    assert all(cc(a) in sass for a in has)
    assert not any(cc(a) in sass for a in lacks)


def test_torch_2_8_cu126_covers_sm_61_through_its_sm_60_sass() -> None:
    sass = variant("torch", "2.8", "cu126").sass
    gpu = cc("6.1")
    assert gpu not in sass
    assert any(s.major == gpu.major and s.minor <= gpu.minor for s in sass)


def test_ptx_entries() -> None:
    assert variant("torch", "2.8", "cu129").ptx == (cc("12.0"),)
    assert variant("torch", "2.8", "cu128").ptx == ()
    # PR #157516 removed the 12.0+PTX of the CUDA 12.8 builds for 2.8, not for 2.7.
    assert variant("torch", "2.7", "cu128").ptx == (cc("12.0"),)
    assert variant("torch", "2.7", "cu128").on("windows-x86_64").ptx == ()


@pytest.mark.parametrize("series", ["2.9", "2.10"])
def test_cuda_13_wheels_of_2_9_and_2_10_carry_ptx_on_linux(series: str) -> None:
    cu130 = variant("torch", series, "cu130")
    assert cu130.ptx == (cc("12.0"),)
    assert cu130.on("linux-aarch64").ptx == (cc("12.0"),)
    assert cu130.on("windows-x86_64").ptx == ()


@pytest.mark.parametrize("series", ["2.11", "2.12", "2.13", "2.14", "2.15"])
def test_cuda_13_release_wheels_from_2_11_carry_no_ptx(series: str) -> None:
    # PyPI's own wheels (libtorch_python.so's arch flags) list SASS only; PR #175567, #188914.
    for v in release("torch", series).variants:
        if v.cuda is not None and v.cuda.major == 13:
            for platform in v.platforms:
                assert v.on(platform).ptx == (), (series, v.name, platform)


def test_pypi_cuda_13_wheels_match_their_arch_flags() -> None:
    x86 = tuple(cc(a) for a in ("7.5", "8.0", "8.6", "9.0", "10.0", "12.0"))
    arm = tuple(cc(a) for a in ("8.0", "9.0", "10.0", "11.0", "12.0"))
    for series in ("2.11", "2.12", "2.13", "2.14", "2.15"):
        rel = release("torch", series)
        build = variant("torch", series, rel.pypi["linux-x86_64"])
        assert build.sass == x86, series
        assert build.on("linux-aarch64").sass == arm, series
    assert release("torch", "2.15").pypi["linux-x86_64"] == "cu132"


@pytest.mark.parametrize(
    ("series", "published"),
    [
        ("2.8", True),
        ("2.9", True),
        ("2.10", True),
        ("2.11", True),
        ("2.12", True),
        ("2.13", True),
        ("2.14", False),
        ("2.15", False),
    ],
)
def test_cu129_builds_are_linux_only_and_end_with_2_13(series: str, published: bool) -> None:
    cu129 = release("torch", series).variant("cu129")
    assert (cu129 is not None) == published
    if cu129 is not None and series != "2.8":
        # test-infra's matrix adds 12.9 for Linux x86_64 and aarch64 only.
        assert cu129.platforms == ("linux-x86_64", "linux-aarch64")
        assert cc("12.0") in cu129.sass


def test_paddle_2_6_needs_a_system_cuda_runtime_and_cudnn() -> None:
    rel = release("paddle", "2.6")
    assert rel.version_form == "post"
    # PyPI's 2.6.2 wheels for Linux and Windows are both the CUDA 11.8 build.
    assert rel.pypi == {"linux-x86_64": "cu118", "windows-x86_64": "cu118"}
    cu118 = variant("paddle", "2.6", "cu118")
    assert cu118.platforms == ("linux-x86_64", "windows-x86_64")
    specs = {r.kind: r.spec for r in cu118.requirements}
    assert specs == {"cuda-runtime": ">=11.8,<12", "cudnn": ">=8.6.0,<9"}
    assert {r.kind: r.spec for r in variant("paddle", "2.6", "cu120").requirements} == {
        "cuda-runtime": ">=12.0,<13",
        "cudnn": ">=8.9.1,<9",
    }
    assert all("Paddle 3.x" in r.satisfy for r in cu118.requirements)
    assert all("Windows:" in r.satisfy for r in cu118.requirements)


def test_paddle_3_needs_only_the_driver() -> None:
    paddle = family("paddle")
    assert paddle.index_url("cu126") == "https://www.paddlepaddle.org.cn/packages/stable/cu126/"
    for rel in paddle.releases:
        if rel.series_key >= (3, 0):
            assert rel.version_form is None
            assert rel.pypi == {}
            assert all(not v.requirements for v in rel.variants)
    assert [v.name for v in release("paddle", "3.3").variants] == ["cu126", "cu129", "cu130"]


def test_torch_companions_follow_the_index() -> None:
    torch = family("torch")
    assert KB.family_of("xformers") is torch
    assert "pytorch-triton" not in torch.companions  # nightly-only
    # download.pytorch.org/whl/cu124 serves triton-3.1.0 and xformers-0.0.28.post1 unlabelled.
    assert {name: torch.labels(name) for name in torch.companions} == {
        "triton": False,
        "xformers": False,
        "torchao": True,
    }


@pytest.mark.parametrize(
    ("package", "extra", "system"),
    [
        ("jax", "cuda12", False),
        ("jax", "cuda13", False),
        ("jax", "cuda12-pip", False),
        ("jax", "cuda12-local", True),
        ("jax", "cuda13-local", True),
        ("cupy-cuda12x", None, True),
        ("cupy-cuda12x", "ctk", False),
        ("cupy-cuda13x", "ctk", False),
        ("cupy-cuda11x", None, True),
        ("tensorflow", "and-cuda", False),
        ("tensorflow", None, True),
        ("onnxruntime-gpu", None, True),
    ],
)
def test_fixed_flavours_and_their_system_needs(
    package: str, extra: str | None, system: bool
) -> None:
    rows = [r for r in KB.fixed if r.package == package and r.extra == extra]
    assert rows
    assert all(bool(r.requirements) == system for r in rows)


@pytest.mark.parametrize(
    ("version", "platform", "cuda", "sass", "ptx"),
    [
        # Fatbin scans of libonnxruntime_providers_cuda.so / onnxruntime_providers_cuda.dll
        # in the PyPI wheels, and the CUDA their build_and_package_info.py / version_info.py name.
        ("1.19.2", "linux-x86_64", "12.2", "5.2 6.0 6.1 7.0 7.5 8.0", "5.2 6.0 6.1 7.0 7.5 8.0"),
        ("1.20.2", "windows-x86_64", "12.2", "5.2 6.0 6.1 7.0 7.5 8.0", "5.2 6.0 6.1 7.0 7.5 8.0"),
        ("1.22.0", "linux-x86_64", "12.2", "6.0 7.0 7.5 8.0 8.6 9.0", "9.0"),
        ("1.26.0", "linux-x86_64", "12.8", "6.0 7.0 7.5 8.0 8.6 9.0", "9.0"),
        ("1.26.0", "windows-x86_64", "12.8", "5.2 6.1 7.5 8.6 8.9", "9.0"),
        ("1.27.0", "linux-x86_64", "13.0", "7.5 8.0 8.6 8.9 9.0 10.0 12.0", "12.0"),
        ("1.31.1", "linux-x86_64", "13.0", "7.5 8.0 8.6 8.9 9.0 12.0", ""),
        ("1.29.0", "linux-aarch64", "13.0", "8.9 9.0 12.0 12.1", ""),
    ],
)
def test_onnxruntime_gpu_kernels_per_version_and_platform(
    version: str, platform: str, cuda: str, sass: str, ptx: str
) -> None:
    rows = [
        r
        for r in KB.fixed
        if r.package == "onnxruntime-gpu"
        and SpecifierSet(r.versions).contains(version)
        and (not r.platforms or platform in r.platforms)
    ]
    assert len(rows) == 1
    (row,) = rows
    assert str(row.built) == cuda
    assert row.sass == tuple(cc(a) for a in sass.split())
    assert row.ptx == tuple(cc(a) for a in ptx.split())
    assert row.oldest_arch == min(row.sass + row.ptx)


def test_onnxruntime_gpu_has_no_linux_aarch64_gpu_build_before_1_29() -> None:
    # PyPI wheel tags: manylinux_2_34_aarch64 from 1.29.0.
    for row in KB.fixed:
        if row.package == "onnxruntime-gpu" and "linux-aarch64" in row.platforms:
            assert not SpecifierSet(row.versions).contains("1.28.0")


def test_only_the_1_27_cuda_extra_is_unresolvable() -> None:
    for row in KB.fixed:
        if row.package == "onnxruntime-gpu" and SpecifierSet(row.versions).contains("1.27.0"):
            assert any("cannot resolve" in r.satisfy for r in row.requirements)
        elif row.package == "onnxruntime-gpu" and row.built is not None and row.built.major == 13:
            assert not any("cannot resolve" in r.satisfy for r in row.requirements)


def test_onnxruntime_gpu_extras_and_preload_dlls_exist_only_from_1_21() -> None:
    for row in KB.fixed:
        if row.package != "onnxruntime-gpu" or not row.requirements:
            continue
        said = " ".join(r.satisfy for r in row.requirements)
        before_1_21 = not SpecifierSet(row.versions).contains("1.21.0") and SpecifierSet(
            row.versions
        ).contains("1.20.0")
        if before_1_21:
            assert "no onnxruntime.preload_dlls()" in said
            assert "[cudnn]" not in said


def test_paddle_2_6_from_pypi_ships_sm_61_to_sm_86_only() -> None:
    cu118 = variant("paddle", "2.6", "cu118")
    assert cu118.sass == tuple(cc(a) for a in ("6.1", "7.0", "7.5", "8.0", "8.6"))
    assert cu118.ptx == ()
