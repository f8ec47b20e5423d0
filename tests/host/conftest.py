from __future__ import annotations

from typing import TYPE_CHECKING

import pytest


if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def fake_root(tmp_path: Path) -> Path:
    """An empty file system root for `HostPaths.under`."""
    root = tmp_path / "root"
    root.mkdir()
    return root
