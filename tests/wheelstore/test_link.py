"""Placing stored files: linked on one filesystem, copied across, with the copy said."""

from __future__ import annotations

import os
import tempfile

from pathlib import Path

import pytest

from poetry_cuda.wheelstore.link import Linker
from poetry_cuda.wheelstore.link import same


def _stored(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "libx.so.1"
    source.write_bytes(b"\x7fELF" + bytes(4096))
    os.utime(source, ns=(1_000_000_000, 1_000_000_000))
    return source


def test_on_one_filesystem_a_file_is_linked(tmp_path: Path) -> None:
    source = _stored(tmp_path / "store")
    linker = Linker()
    linker.place(source, tmp_path / "libx.so.1")
    assert (tmp_path / "libx.so.1").samefile(source) or linker.mode == "reflink"
    assert linker.mode in ("reflink", "hardlink")
    assert linker.reason == ""
    assert same(source.stat(), (tmp_path / "libx.so.1").stat())


def test_across_filesystems_a_file_is_copied_with_its_time(tmp_path: Path) -> None:
    shared = Path("/dev/shm")
    if not shared.is_dir() or shared.stat().st_dev == tmp_path.stat().st_dev:
        pytest.skip("no second filesystem at /dev/shm")
    with tempfile.TemporaryDirectory(dir=shared) as elsewhere:
        source = _stored(Path(elsewhere))
        linker = Linker("hardlink")
        linker.place(source, tmp_path / "libx.so.1")
        linker.place(source, tmp_path / "again.so.1")
        copied = (tmp_path / "libx.so.1").stat()
        assert linker.mode == "copy"
        assert linker.reason == "the store is on another filesystem than the environment"
        assert copied.st_nlink == 1
        assert copied.st_mtime_ns == 1_000_000_000
        assert same(source.stat(), copied)
    assert (tmp_path / "again.so.1").read_bytes()[:4] == b"\x7fELF"


def test_a_changed_copy_is_not_the_stored_file(tmp_path: Path) -> None:
    source = _stored(tmp_path / "store")
    Linker("copy").place(source, tmp_path / "copy.so")
    (tmp_path / "copy.so").write_bytes(b"other")
    assert not same(source.stat(), (tmp_path / "copy.so").stat())


def test_a_file_already_there_is_an_error_to_the_caller(tmp_path: Path) -> None:
    source = _stored(tmp_path / "store")
    (tmp_path / "taken").write_text("x")
    with pytest.raises(FileExistsError):
        Linker("hardlink").place(source, tmp_path / "taken")
