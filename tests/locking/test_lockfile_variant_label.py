"""cuda.lock's `variant-label` per package: written only when set, checked as it is read."""

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


def _labelled(label: str) -> str:
    first = dataclasses.replace(LOCK.packages[0], variant_label=label)
    return dumps(dataclasses.replace(LOCK, packages=(first, *LOCK.packages[1:])))


@pytest.mark.parametrize("label", ["cuda12.8", "null", "00000000", "rocm7.1", "x86_64_v3"])
def test_the_label_round_trips(tmp_path: Path, label: str) -> None:
    text = _labelled(label)
    assert f'\nvariant-label = "{label}"\n' in text
    path = tmp_path / "cuda.lock"
    path.write_text(text)
    lock = read(path)
    assert lock.packages[0].variant_label == label
    assert lock == dataclasses.replace(LOCK, packages=(lock.packages[0], *LOCK.packages[1:]))
    assert dumps(lock) == text


def test_a_package_without_one_writes_none(tmp_path: Path) -> None:
    text = dumps(LOCK)
    assert "variant-label" not in text
    path = tmp_path / "cuda.lock"
    path.write_text(text)
    assert all(package.variant_label is None for package in read(path).packages)


@pytest.mark.parametrize(
    "value",
    [
        '""',
        '"CUDA12.8"',
        '"cuda12.8-evil"',
        '"cuda 12.8"',
        '"../cuda12.8"',
        '"cuda12.8\\u001b[31m"',
        '"' + "a" * 65 + '"',
        "12",
        '["cuda12.8"]',
    ],
)
def test_a_value_that_is_no_label_is_named(tmp_path: Path, value: str) -> None:
    text = _labelled("cuda12.8").replace('"cuda12.8"', value, 1)
    path = tmp_path / "cuda.lock"
    path.write_text(text)
    with pytest.raises(InputFileError, match=r"packages\[.*\]\.variant-label") as raised:
        read(path)
    assert "\x1b" not in str(raised.value)


PROPERTIES = ("nvidia :: cuda_version_lower_bound :: 12.0", "nvidia :: sm_arch :: 86_real")


def test_the_properties_round_trip_with_the_label(tmp_path: Path) -> None:
    first = dataclasses.replace(
        LOCK.packages[0], variant_label="cuda12.8", variant_properties=PROPERTIES
    )
    text = dumps(dataclasses.replace(LOCK, packages=(first, *LOCK.packages[1:])))
    assert "variant-properties = [" in text
    path = tmp_path / "cuda.lock"
    path.write_text(text)
    lock = read(path)
    assert lock.packages[0].variant_properties == PROPERTIES
    assert dumps(lock) == text


def test_properties_without_a_label_are_not_written(tmp_path: Path) -> None:
    first = dataclasses.replace(LOCK.packages[0], variant_properties=PROPERTIES)
    assert "variant-properties" not in dumps(dataclasses.replace(LOCK, packages=(first,)))


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ('["nvidia :: sm_arch"]', "is no property"),
        ('["Nvidia :: sm_arch :: 86_real"]', "is no property"),
        ('["nvidia :: sm_arch :: 86 real"]', "is no property"),
        ('"nvidia :: sm_arch :: 86_real"', "list of strings"),
    ],
)
def test_a_bad_property_is_named(tmp_path: Path, value: str, problem: str) -> None:
    text = _labelled("cuda12.8").replace(
        "\nvariant-properties = []\n", f"\nvariant-properties = {value}\n"
    )
    path = tmp_path / "cuda.lock"
    path.write_text(text)
    with pytest.raises(InputFileError, match=r"packages\[.*\]\.variant-properties") as raised:
        read(path)
    assert problem in str(raised.value)


def test_properties_need_a_label(tmp_path: Path) -> None:
    text = _labelled("cuda12.8").replace('\nvariant-label = "cuda12.8"\n', "\n")
    path = tmp_path / "cuda.lock"
    path.write_text(text)
    with pytest.raises(InputFileError, match="records no label"):
        read(path)
