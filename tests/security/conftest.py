from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.support.catalog import WorldServer
from tests.support.hostile import build_hostile_world


if TYPE_CHECKING:
    from collections.abc import Iterator

    from tests.support.catalog import World


@pytest.fixture(scope="session")
def hostile_world(world: World, tmp_path_factory: pytest.TempPathFactory) -> World:
    """The standard world whose cu124 index also serves a higher filelock and a package of its own."""
    return build_hostile_world(world, tmp_path_factory.mktemp("hostile") / "root")


@pytest.fixture
def hostile(hostile_world: World) -> Iterator[WorldServer]:
    with WorldServer(hostile_world) as running:
        yield running
