"""`resolve`: the release and nvcc's archives `lock` records, from a synthetic stand-in."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import InputFileError
from poetry_cuda.redist.resolve import resolve
from poetry_cuda.versions import CudaVersion
from tests.redist.standin import Layout
from tests.redist.standin import Server


if TYPE_CHECKING:
    from pathlib import Path


CUDA_12 = ("cuda_nvcc", "cuda_cudart", "cuda_cccl")


def _layout(root: Path, components: tuple[str, ...], platforms: tuple[str, ...]) -> None:
    layout = Layout(root, release="12.4.1")
    for name in components:
        for platform in platforms:
            layout.add(name, "12.4.99", [("bin/x", b"x")], platform=platform)
    layout.write(extra=("redistrib_12.4.0.json", "redistrib_12.6.3.json"))


def test_the_newest_patch_release_and_each_platforms_archives(tmp_path: Path) -> None:
    _layout(tmp_path, CUDA_12, ("linux-x86_64", "linux-sbsa"))
    with Server(tmp_path) as server:
        release, archives = resolve(server.url, CudaVersion(12, 4), ("linux-x86_64", "linux-sbsa"))
    assert release == "12.4.1"
    assert [(a.component, a.platform) for a in archives] == [
        (name, platform) for platform in ("linux-x86_64", "linux-sbsa") for name in CUDA_12
    ]


@pytest.mark.parametrize(
    ("components", "platforms", "said"),
    [
        (("cuda_nvcc", "cuda_cudart"), ("linux-x86_64",), "no component cuda_cccl"),
        (CUDA_12, ("linux-x86_64",), "cuda_nvcc has no archive for linux-sbsa"),
    ],
)
def test_a_missing_component_or_platform_is_one_clear_error(
    tmp_path: Path, components: tuple[str, ...], platforms: tuple[str, ...], said: str
) -> None:
    _layout(tmp_path, components, platforms)
    with Server(tmp_path) as server, pytest.raises(InputFileError) as caught:
        resolve(server.url, CudaVersion(12, 4), ("linux-x86_64", "linux-sbsa"))
    assert said in caught.value.what
    assert caught.value.exit_code == 2
