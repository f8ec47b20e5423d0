"""Fixtures for the harness's own tests: one world per session, one fresh server per test."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.harness.tools import Tools
from tests.support.catalog import World
from tests.support.catalog import WorldServer
from tests.support.catalog import build_world


if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


@pytest.fixture(scope="session")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return build_world(tmp_path_factory.mktemp("world"))


@pytest.fixture
def server(world: World) -> Iterator[WorldServer]:
    with WorldServer(world) as running:
        yield running


@pytest.fixture
def tools(tmp_path: Path) -> Tools:
    return Tools(tmp_path / "home")
