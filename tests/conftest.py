from __future__ import annotations

import os

from typing import TYPE_CHECKING

import pytest

from hypothesis import settings

from tests.support.catalog import World
from tests.support.catalog import WorldServer
from tests.support.catalog import build_world
from tests.support.cli import Cli
from tests.support.example import torch_example
from tests.support.fake_nvml import FakeNvml
from tests.support.fake_nvml import FakeNvmlUnavailableError


if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


# Messages follow the user's locale (a zh_* one gives Chinese): the suite asserts English
# texts, so it runs, and starts every tool, in a neutral locale; a test asks for Chinese itself.
for _locale in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
    os.environ.pop(_locale, None)
os.environ["LANG"] = "C.UTF-8"

# CI replays the same examples every run: a property that fails there fails for everyone,
# reproducibly, instead of on one run in many. Local runs keep exploring new examples.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(scope="session")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    """The standard indexes (PyPI, PyTorch and Paddle stand-ins), built once per session."""
    return build_world(tmp_path_factory.mktemp("world"))


@pytest.fixture
def server(world: World) -> Iterator[WorldServer]:
    """A fresh server over the world, with clean counters and no faults."""
    with WorldServer(world) as running:
        yield running


@pytest.fixture
def cli(tmp_path_factory: pytest.TempPathFactory) -> Cli:
    return Cli(tmp_path_factory.mktemp("home"))


@pytest.fixture(scope="session")
def fake_nvml(tmp_path_factory: pytest.TempPathFactory) -> FakeNvml:
    """The fake libnvidia-ml.so.1, compiled once per session (skips without gcc)."""
    try:
        return FakeNvml.build(tmp_path_factory.mktemp("fake-nvml"))
    except FakeNvmlUnavailableError as error:
        pytest.skip(str(error))


@pytest.fixture
def locked_example(cli: Cli, tmp_path: Path, server: WorldServer) -> Path:
    """examples/torch_project, configured for the test world and locked by poetry-cuda."""
    project = torch_example(tmp_path, server)
    result = cli.run("lock", cwd=project)
    assert result.code == 0, result.stderr
    return project
