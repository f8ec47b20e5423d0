"""Fixtures for the harness's own tests (`world` and `server` come from tests/conftest.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.support.tools import Tools


if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def tools(tmp_path: Path) -> Tools:
    return Tools(tmp_path / "home")
