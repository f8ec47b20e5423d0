"""The test world with ROCm and XPU indexes beside the CUDA ones, for the fork patterns."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.support.catalog import World
from tests.support.catalog import WorldServer
from tests.support.forked import gpu_world
from tests.support.rocm_world import build_rocm_world


if TYPE_CHECKING:
    from collections.abc import Iterator


@pytest.fixture(scope="session")
def every_gpu_world(world: World, tmp_path_factory: pytest.TempPathFactory) -> World:
    rocm = build_rocm_world(tmp_path_factory.mktemp("rocm-world"))
    return World(gpu_world(tmp_path_factory.mktemp("every-gpu") / "root", world.root, rocm.root))


@pytest.fixture
def gpu_server(every_gpu_world: World) -> Iterator[WorldServer]:
    """A server of CUDA, CPU, ROCm and XPU indexes, and the PyPI stand-in."""
    with WorldServer(every_gpu_world) as running:
        yield running
