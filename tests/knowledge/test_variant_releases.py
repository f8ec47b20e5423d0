"""The published wheel-variant metadata of torch's variant releases, as the knowledge base
ships it: every row's file present, unchanged and readable, and the facts it must hold."""

from __future__ import annotations

import hashlib
import shutil

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import InputFileError
from poetry_cuda.knowledge import variant_indexes
from poetry_cuda.knowledge.variant_releases import FOLDER
from poetry_cuda.knowledge.variant_releases import load
from poetry_cuda.knowledge.variant_releases import parse
from poetry_cuda.knowledge.variant_releases import releases_of
from poetry_cuda.planning.variant_metadata import is_null
from poetry_cuda.planning.variant_metadata import parse_variants_json
from tests.support.plans import KB


if TYPE_CHECKING:
    from pathlib import Path


ROWS = load()


def test_every_file_is_a_row_and_every_row_parses() -> None:
    shipped = sorted(p.name for p in FOLDER.glob("*-variants.json"))
    assert sorted(row.file for row in ROWS) == shipped
    for row in ROWS:
        metadata = parse_variants_json(row.data, row.file)
        assert row.source
        assert any(is_null(label) for label in metadata.variants), row.file
        assert "nvidia" in metadata.namespaces


def test_each_release_is_one_the_index_holds_and_the_family_knows() -> None:
    (index,) = variant_indexes.load()
    family = KB.family_of("torch")
    assert family is not None
    assert [r.version for r in releases_of("torch", ROWS)] == ["2.10.0", "2.9.0", "2.8.0"]
    for row in ROWS:
        assert row.series in index.series
        assert any(release.series == row.series for release in family.releases), row.series


@pytest.mark.parametrize(
    ("version", "labels"),
    [
        ("2.8.0", {"00000000", "cu126", "cu128", "cu129"}),
        ("2.9.0", {"null", "cuda12.6", "cuda12.8", "cuda13.0", "xpu", "rocm6.3", "rocm6.4"}),
        ("2.10.0", {"null", "cuda12.6", "cuda12.8", "cuda13.0", "xpu", "rocm7.0", "rocm7.1"}),
    ],
)
def test_the_published_labels(version: str, labels: set[str]) -> None:
    (row,) = (row for row in ROWS if row.version == version)
    assert set(parse_variants_json(row.data, row.file).variants) == labels


def test_cuda12_labels_share_a_bound_and_rank_by_priority() -> None:
    for row in ROWS:
        metadata = parse_variants_json(row.data, row.file)
        if row.version == "2.8.0":
            assert metadata.variants["cu126"]["nvidia"]["cuda_version_lower_bound"] == ("12.0",)
            continue
        orders = {
            label: metadata.variants[label]["priority"]["order"]
            for label in ("cuda12.6", "cuda12.8", "cuda13.0")
        }
        assert orders == {"cuda12.6": ("3",), "cuda12.8": ("2",), "cuda13.0": ("1",)}
        assert metadata.static_values("priority") == {"order": ("1", "2", "3")}
        sm_130 = metadata.variants["cuda13.0"]["nvidia"]["sm_arch"]
        assert "120_virtual" in sm_130
        assert "60_real" not in sm_130  # no Pascal in CUDA 13


def _copy(tmp_path: Path) -> Path:
    for path in FOLDER.glob("*-variants.json"):
        shutil.copy(path, tmp_path / path.name)
    return tmp_path


def test_a_changed_file_is_refused(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    path = folder / "torch-2.9.0-variants.json"
    path.write_bytes(path.read_bytes().replace(b'"12.0"', b'"11.0"', 1))
    text = (FOLDER / "releases.toml").read_text()
    with pytest.raises(
        InputFileError, match=r"release\[torch-2\.9\.0\]\.sha256: is not the sha256"
    ):
        parse(text, folder)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ('file = "torch-2.9.0-variants.json"\nversion = "2.8.0"', r"\.file: must be torch-2\.8\.0"),
        ('file = "../x-variants.json"\nversion = "2.9.0"', r"\.file: must be torch-2\.9\.0"),
        ('file = "torch-2.9.0-variants.json"\nversion = "v2.9.0"', r"\.version: .*normalises"),
        ('file = "torch-2.9.0-variants.json"\nversion = "2.9.0"\nsha256 = "AB"', r"\.sha256"),
    ],
)
def test_bad_rows_are_refused(tmp_path: Path, row: str, message: str) -> None:
    folder = _copy(tmp_path)
    digest = hashlib.sha256((folder / "torch-2.9.0-variants.json").read_bytes()).hexdigest()
    if "sha256" not in row:
        row += f'\nsha256 = "{digest}"'
    text = (
        f'schema = 1\n[[release]]\npackage = "torch"\n{row}\nsource = "s"\n'
        'confidence = "third-party"\n'
    )
    with pytest.raises(InputFileError, match=message):
        parse(text, folder)


def test_a_row_listed_twice_is_refused(tmp_path: Path) -> None:
    text = (FOLDER / "releases.toml").read_text()
    twice = (
        text
        + text[text.index("[[release]]") : text.index("[[release]]", text.index("[[release]]") + 1)]
    )
    with pytest.raises(InputFileError, match="listed twice"):
        parse(twice, FOLDER)
