from __future__ import annotations

import os

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import InputFileError
from poetry_cuda.files import adopt_owner
from poetry_cuda.files import read_text
from poetry_cuda.files import read_toml
from poetry_cuda.files import read_toml_once
from poetry_cuda.files import replace_bytes
from poetry_cuda.files import write_atomic
from poetry_cuda.files import write_toml_atomic


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
    with pytest.raises(AttributeError):  # not text: fails while the bytes are made
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


def test_crlf_and_a_bom_are_kept_and_read_past(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_bytes(b"\xef\xbb\xbf[a]\r\nb = 1\r\n")
    assert read_text(path) == "[a]\nb = 1\n"
    assert read_toml(path) == {"a": {"b": 1}}
    write_atomic(path, "[a]\nb = 2\n")
    assert path.read_bytes() == b"\xef\xbb\xbf[a]\r\nb = 2\r\n"


def test_a_new_file_is_lf_without_a_bom_and_gets_the_umask_mode(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "cuda.lock", "a = 1\n")
    finally:
        os.umask(old)
    assert (tmp_path / "cuda.lock").read_bytes() == b"a = 1\n"
    assert (tmp_path / "cuda.lock").stat().st_mode & 0o777 == 0o644


def test_a_symlink_stays_a_link_and_its_target_is_replaced(tmp_path: Path) -> None:
    (tmp_path / "shared").mkdir()
    target = tmp_path / "shared" / "pyproject.toml"
    target.write_text("old\n")
    link = tmp_path / "pyproject.toml"
    link.symlink_to(target)
    replace_bytes(link, b"new\n")
    assert link.is_symlink() and target.read_text() == "new\n"


def test_a_failed_write_through_a_link_changes_nothing(tmp_path: Path) -> None:
    link = tmp_path / "pyproject.toml"
    link.symlink_to(tmp_path / "gone" / "pyproject.toml")  # its folder was removed
    with pytest.raises(InputFileError) as error:
        write_atomic(link, "new\n")
    assert "gone" in error.value.fix
    assert link.is_symlink() and [p.name for p in tmp_path.iterdir()] == ["pyproject.toml"]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_root_keeps_a_files_owner_and_gives_a_new_file_the_folders(tmp_path: Path) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    os.chown(folder, 65534, 65534)
    existing = folder / "pyproject.toml"
    existing.write_text("a = 1\n")
    os.chown(existing, 65534, 65534)
    write_atomic(existing, "a = 2\n")
    write_atomic(folder / "cuda.lock", "b = 1\n")
    (folder / "poetry.lock").write_text("made by root\n")
    adopt_owner(folder / "poetry.lock")
    for name in ("pyproject.toml", "cuda.lock", "poetry.lock"):
        info = (folder / name).stat()
        assert (info.st_uid, info.st_gid) == (65534, 65534), name


def test_an_edit_that_is_not_valid_toml_is_never_written(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text("a = 1\n")
    with pytest.raises(ConfigError) as error:
        write_toml_atomic(path, "a = [\n")
    assert "would not be valid TOML" in error.value.what
    assert path.read_text() == "a = 1\n"
    assert [p.name for p in tmp_path.iterdir()] == ["pyproject.toml"]
