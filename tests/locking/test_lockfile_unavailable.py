"""cuda.lock's `unavailable`: the builds a lock fell back from, their indexes lacking them."""

from __future__ import annotations

import dataclasses

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import InputFileError
from poetry_cuda.locking.lockfile import PassedOver
from poetry_cuda.locking.lockfile import read
from poetry_cuda.locking.lockfile_toml import dumps
from tests.locking.test_lockfile import LOCK


if TYPE_CHECKING:
    from pathlib import Path


PASSED_OVER = (PassedOver("torch", "2.5.1", "cu124"),)


def test_the_builds_passed_over_round_trip(tmp_path: Path) -> None:
    lock = dataclasses.replace(LOCK, unavailable=PASSED_OVER)
    text = dumps(lock)
    assert '[[unavailable]]\nfamily = "torch"\nversion = "2.5.1"\nvariant = "cu124"\n' in text
    path = tmp_path / "cuda.lock"
    path.write_text(text)
    assert read(path) == lock
    assert read(path).unavailable[0].key == ("torch", "2.5.1", "cu124")


def test_a_lock_that_fell_back_from_nothing_writes_none() -> None:
    assert "unavailable" not in dumps(LOCK)


def test_a_row_without_its_variant_is_named(tmp_path: Path) -> None:
    text = dumps(dataclasses.replace(LOCK, unavailable=PASSED_OVER))
    path = tmp_path / "cuda.lock"
    head, _, row = text.partition("[[unavailable]]")
    path.write_text(head + "[[unavailable]]" + row.replace('variant = "cu124"\n', "", 1))
    with pytest.raises(InputFileError, match=r"unavailable\[0\]\.variant: missing"):
        read(path)
