from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import InputFileError
from poetry_cuda.files import read_toml_once
from poetry_cuda.files import write_atomic


if TYPE_CHECKING:
    from pathlib import Path


def test_write_atomic_replaces_and_keeps_the_mode(tmp_path: Path) -> None:
    path = tmp_path / "cuda.lock"
    path.write_text("old")
    path.chmod(0o640)
    write_atomic(path, "new")
    assert path.read_text() == "new"
    assert path.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["cuda.lock"]  # no temporary left


def test_a_file_that_cannot_be_written_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "missing-folder" / "cuda.lock"
    with pytest.raises(InputFileError) as error:
        write_atomic(path, "new")
    assert "cannot write" in error.value.what
    assert "missing-folder" in error.value.fix


def test_a_failed_write_leaves_the_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text("kept")
    with pytest.raises(TypeError):
        write_atomic(path, 42)  # type: ignore[arg-type]
    assert path.read_text() == "kept"
    assert [p.name for p in tmp_path.iterdir()] == ["pyproject.toml"]


def test_read_toml_once_parses_each_content_once(tmp_path: Path) -> None:
    path = tmp_path / "poetry.lock"
    path.write_text('version = "1"\n')
    first = read_toml_once(path)
    assert read_toml_once(path) is first  # the same content: not parsed again
    path.write_text('version = "2"\n')  # same size, maybe the same mtime
    assert read_toml_once(path) == {"version": "2"}
