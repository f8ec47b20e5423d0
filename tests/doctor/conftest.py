from __future__ import annotations

import pytest

from tests.support.fake_nvml import FakeNvml
from tests.support.fake_nvml import FakeNvmlUnavailableError


@pytest.fixture(scope="session")
def fake_nvml(tmp_path_factory: pytest.TempPathFactory) -> FakeNvml:
    """The fake libnvidia-ml.so.1, compiled once per session (skips without gcc)."""
    try:
        return FakeNvml.build(tmp_path_factory.mktemp("fake-nvml"))
    except FakeNvmlUnavailableError as error:
        pytest.skip(str(error))
