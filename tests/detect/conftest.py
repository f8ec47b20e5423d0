from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.support.fake_nvml import FakeNvml
from tests.support.fake_nvml import FakeNvmlUnavailableError


if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture(scope="session")
def fake_nvml(tmp_path_factory: pytest.TempPathFactory) -> FakeNvml:
    """The fake libnvidia-ml.so.1, compiled once per session (skips without gcc)."""
    try:
        return FakeNvml.build(tmp_path_factory.mktemp("fake-nvml"))
    except FakeNvmlUnavailableError as error:
        pytest.skip(str(error))


@pytest.fixture
def fake_root(tmp_path: Path) -> Path:
    """An empty file system root for `HostPaths.under`."""
    root = tmp_path / "root"
    root.mkdir()
    return root
