"""cuda.lock's `base-image`: the NVIDIA CUDA image that meets the lock, checked as it is read."""

from __future__ import annotations

import dataclasses

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import InputFileError
from poetry_cuda.locking.lockfile import read
from poetry_cuda.locking.lockfile_toml import dumps
from tests.locking.test_lockfile import LOCK


if TYPE_CHECKING:
    from pathlib import Path


IMAGE = "nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04"


def test_the_base_image_round_trips(tmp_path: Path) -> None:
    lock = dataclasses.replace(LOCK, base_image=IMAGE)
    text = dumps(lock)
    assert f'\nbase-image = "{IMAGE}"\n' in text
    path = tmp_path / "cuda.lock"
    path.write_text(text)
    assert read(path) == lock


def test_a_lock_without_one_writes_none(tmp_path: Path) -> None:
    assert "base-image" not in dumps(LOCK)


@pytest.mark.parametrize(
    "value",
    [
        "evil.example/cuda:12.4.1-base-ubuntu22.04",
        "nvidia/cuda:12.4.1-base-ubuntu22.04; rm -rf /",
        "nvidia/cuda:12.4-base-ubuntu22.04",
        "nvidia/cuda:12.4.1-cudnn7-runtime-ubuntu22.04",
        "nvidia/cuda:" + "1" * 400,
    ],
)
def test_a_value_that_is_no_image_is_named(tmp_path: Path, value: str) -> None:
    text = dumps(dataclasses.replace(LOCK, base_image=IMAGE)).replace(IMAGE, value)
    path = tmp_path / "cuda.lock"
    path.write_text(text)
    with pytest.raises(InputFileError, match="base-image"):
        read(path)
