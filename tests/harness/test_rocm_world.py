"""The ROCm and XPU test world: real-shaped wheels that uv resolves and installs."""

from __future__ import annotations

import zipfile

from typing import TYPE_CHECKING

import pytest

from tests.support.index import IndexServer
from tests.support.rocm_world import build_rocm_world
from tests.support.rocm_world import gfx_list
from tests.support.tools import ToolError


if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from tests.support.tools import Tools


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IndexServer]:
    world = build_rocm_world(tmp_path_factory.mktemp("rocm-world"))
    with IndexServer(world.root) as index:
        yield index


def install(tools: Tools, server: IndexServer, target: Path, *args: str) -> str:
    """uv's pip install with the PyPI stand-in as the default index; an accelerator's index,
    given with --extra-index-url, comes first (uv takes a package from the first index
    that has it, so PyPI's own torch never stands in for the ROCm build)."""
    return tools.uv(
        "pip",
        "install",
        "--target",
        str(target),
        "--python-platform",
        "x86_64-manylinux_2_28",
        "--python-version",
        "3.11",
        "--index-url",
        server.url("/simple/"),
        *args,
        cwd=target.parent,
    ).stderr


def test_the_layout_is_download_pytorch_orgs(server: IndexServer) -> None:
    torch = sorted(path.name for path in (server.root / "whl" / "rocm6.4" / "torch").glob("*.whl"))
    assert torch == [
        "torch-2.8.0+rocm6.4-cp311-cp311-manylinux_2_28_x86_64.whl",
        "torch-2.9.1+rocm6.4-cp311-cp311-manylinux_2_28_x86_64.whl",
    ]
    with zipfile.ZipFile(server.root / "whl" / "rocm6.4" / "torch" / torch[1]) as wheel:
        metadata = wheel.read("torch-2.9.1+rocm6.4.dist-info/METADATA").decode()
        arches = wheel.read("torch/cuda/__init__.py").decode()
    assert (
        'Requires-Dist: pytorch-triton-rocm==3.5.1; platform_system == "Linux" and '
        'platform_machine == "x86_64"'
    ) in metadata
    assert "'gfx1201'" in arches
    assert gfx_list("2.9.1", "6.4")[-1] == "gfx1201"


def test_uv_installs_a_rocm_build_with_its_triton(
    tools: Tools, server: IndexServer, tmp_path: Path
) -> None:
    target = tmp_path / "site"
    install(tools, server, target, "--extra-index-url", server.url("/whl/rocm6.4/"), "torch==2.9.1")
    assert '__version__ = "2.9.1+rocm6.4"' in (target / "torch" / "version.py").read_text()
    assert "hip = '6.4'" in (target / "torch" / "version.py").read_text()
    assert (target / "pytorch_triton_rocm" / "__init__.py").is_file()


def test_the_rocm6_4_index_stops_at_2_9_1(
    tools: Tools, server: IndexServer, tmp_path: Path
) -> None:
    # torch 2.10 was built for rocm7.0/rocm7.1 only (pytorch/test-infra e8208cf27137).
    with pytest.raises(ToolError, match=r"no version of torch==2\.10\.0"):
        install(
            tools,
            server,
            tmp_path / "site",
            "--extra-index-url",
            server.url("/whl/rocm6.4/"),
            "torch==2.10.0",
        )
    target = tmp_path / "site71"
    install(
        tools, server, target, "--extra-index-url", server.url("/whl/rocm7.1/"), "torch==2.10.0"
    )
    assert (target / "triton_rocm" / "__init__.py").is_file()


def test_uv_installs_an_xpu_build_with_intels_runtime_from_pypi(
    tools: Tools, server: IndexServer, tmp_path: Path
) -> None:
    target = tmp_path / "site"
    install(tools, server, target, "--extra-index-url", server.url("/whl/xpu/"), "torch==2.10.0")
    assert '__version__ = "2.10.0+xpu"' in (target / "torch" / "version.py").read_text()
    for module in (
        "intel_sycl_rt",
        "intel_cmplr_lib_rt",
        "tcmlib",
        "umf",
        "intel_pti",
        "triton_xpu",
    ):
        assert (target / module / "__init__.py").is_file(), module
