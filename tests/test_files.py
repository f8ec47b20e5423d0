from __future__ import annotations

import os
import stat
import subprocess
import sys

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import InputFileError
from poetry_cuda.files import BOM
from poetry_cuda.files import adopt_owner
from poetry_cuda.files import read_text
from poetry_cuda.files import read_toml
from poetry_cuda.files import read_toml_once
from poetry_cuda.files import replace_bytes
from poetry_cuda.files import write_atomic
from poetry_cuda.files import write_toml_atomic


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterator
    from pathlib import Path


POSIX = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions, owners and links")
IS_ROOT = os.name == "posix" and os.geteuid() == 0
ROOT_ONLY = pytest.mark.skipif(not IS_ROOT, reason="only root can give a file to another user")
# The user a root run works for: the folder and files are chowned to nobody (65534).
USER = 65534


def names(folder: Path) -> list[str]:
    """The folder's entries: a temporary file left behind would show here."""
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def umask_022() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


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


@pytest.mark.parametrize(
    ("write", "raised"), [(write_atomic, AttributeError), (replace_bytes, TypeError)]
)
def test_a_failed_write_leaves_the_file_and_no_temporary(
    tmp_path: Path, write: Callable[[Path, object], None], raised: type[Exception]
) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text("kept")
    with pytest.raises(raised):
        write(path, 42)
    assert path.read_text() == "kept"
    assert [p.name for p in tmp_path.iterdir()] == ["pyproject.toml"]


def test_read_toml_once_parses_each_content_once(tmp_path: Path) -> None:
    path = tmp_path / "poetry.lock"
    path.write_text('version = "1"\n')
    first = read_toml_once(path)
    assert read_toml_once(path) is first  # the same content: not parsed again
    path.write_text('version = "2"\n')  # same size, maybe the same mtime
    assert read_toml_once(path) == {"version": "2"}


# Line breaks and BOM


def test_read_text_is_lf_text_without_a_bom(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_bytes(BOM + b'[project]\r\nname = "x"\rversion = "1"\n')
    assert read_text(path) == '[project]\nname = "x"\nversion = "1"\n'


def test_read_text_errors_are_config_errors_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_bytes(b"name = '\xff'\n")
    with pytest.raises(ConfigError, match=r"pyproject\.toml: cannot read the file"):
        read_text(path)
    with pytest.raises(ConfigError, match="file not found"):
        read_text(tmp_path / "missing.toml")


def test_read_toml_reads_past_a_bom(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_bytes(BOM + b'[project]\r\nname = "x"\r\n')
    assert read_toml(path) == {"project": {"name": "x"}}
    assert read_toml_once(path) == {"project": {"name": "x"}}


def test_a_crlf_file_stays_crlf(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_bytes(b"a = 1\r\nb = 2\r\n")
    write_atomic(path, read_text(path).replace("b = 2", "b = 3\nc = 4"))
    assert path.read_bytes() == b"a = 1\r\nb = 3\r\nc = 4\r\n"
    assert names(tmp_path) == ["pyproject.toml"]


def test_a_bom_is_written_back(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_bytes(BOM + b"a = 1\n")
    write_atomic(path, read_text(path) + "b = 2\n")
    assert path.read_bytes() == BOM + b"a = 1\nb = 2\n"
    write_atomic(path, "\ufeffa = 1\n")  # text that kept its BOM gets no second one
    assert path.read_bytes() == BOM + b"a = 1\n"


def test_a_bom_and_crlf_together(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_bytes(BOM + b"a = 1\r\n")
    write_atomic(path, read_text(path) + "b = 2\n")
    assert path.read_bytes() == BOM + b"a = 1\r\nb = 2\r\n"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # The first line break decides, as Poetry decides for poetry.lock.
        (b"a = 1\r\nb = 2\nc = 3\r\n", b"a = 1\r\nb = 2\r\nc = 3\r\nd = 4\r\n"),
        (b"a = 1\nb = 2\r\nc = 3\n", b"a = 1\nb = 2\nc = 3\nd = 4\n"),
        (b"a = 1\rb = 2\r\nc = 3\r\n", b"a = 1\nb = 2\nc = 3\nd = 4\n"),  # a lone CR first
        (b"a = 1", b"a = 1\nb = 2\nc = 3\nd = 4\n"),  # no line break at all
    ],
)
def test_a_mixed_file_takes_its_first_line_break(
    tmp_path: Path, before: bytes, after: bytes
) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_bytes(before)
    write_atomic(path, "a = 1\nb = 2\nc = 3\nd = 4\n")
    assert path.read_bytes() == after


def test_a_new_file_is_lf_without_a_bom(tmp_path: Path) -> None:
    path = tmp_path / "cuda.lock"
    write_atomic(path, "a = 1\nb = 2\n")
    assert path.read_bytes() == b"a = 1\nb = 2\n"


def test_replace_bytes_writes_the_bytes_as_they_are(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_bytes(BOM + b"a = 1\r\n")
    replace_bytes(path, b"a = 1\nb = 2\r\n")  # a snapshot restored byte for byte
    assert path.read_bytes() == b"a = 1\nb = 2\r\n"
    assert names(tmp_path) == ["pyproject.toml"]


# Invalid TOML


@pytest.mark.parametrize("content", ["a = [\n", "[a]\nb = 1\n[a]\nb = 2\n", "\ufeff= 1\n"])
def test_invalid_toml_is_never_written(tmp_path: Path, content: str) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_bytes(b"a = 1\r\n")
    with pytest.raises(ConfigError) as error:
        write_toml_atomic(path, content)
    assert error.value.what.startswith(f"{path}: poetry-cuda's edit would not be valid TOML (")
    assert "left unchanged" in error.value.why
    assert "[table]" in error.value.fix
    assert path.read_bytes() == b"a = 1\r\n"
    assert names(tmp_path) == ["pyproject.toml"]


def test_valid_toml_is_written_in_the_file_style(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_bytes(BOM + b"a = 1\r\n")
    write_toml_atomic(path, "a = 1\n[b]\nc = 2\n")
    assert path.read_bytes() == BOM + b"a = 1\r\n[b]\r\nc = 2\r\n"


# Links


@POSIX
def test_a_symlink_stays_a_symlink_and_its_target_is_written(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    project = tmp_path / "project"
    shared.mkdir()
    project.mkdir()
    (shared / "pyproject.toml").write_bytes(b"a = 1\r\n")
    (shared / "pyproject.toml").chmod(0o640)
    link = project / "pyproject.toml"
    link.symlink_to("../shared/pyproject.toml")
    write_atomic(link, "a = 2\n")
    assert link.is_symlink()
    assert str(link.readlink()) == "../shared/pyproject.toml"
    assert (shared / "pyproject.toml").read_bytes() == b"a = 2\r\n"  # the target's style
    assert (shared / "pyproject.toml").stat().st_mode & 0o777 == 0o640
    assert names(shared) == ["pyproject.toml"]
    assert names(project) == ["pyproject.toml"]


@POSIX
def test_a_chain_of_links_writes_the_last_target(tmp_path: Path) -> None:
    (tmp_path / "real.toml").write_text("a = 1\n")
    (tmp_path / "middle.toml").symlink_to("real.toml")
    (tmp_path / "pyproject.toml").symlink_to("middle.toml")
    replace_bytes(tmp_path / "pyproject.toml", b"a = 2\n")
    assert (tmp_path / "real.toml").read_bytes() == b"a = 2\n"
    assert (tmp_path / "middle.toml").is_symlink()
    assert (tmp_path / "pyproject.toml").is_symlink()


@POSIX
def test_a_dangling_link_creates_its_target(tmp_path: Path) -> None:
    (tmp_path / "cuda.lock").symlink_to("shared.lock")
    write_atomic(tmp_path / "cuda.lock", "a = 1\n")
    assert (tmp_path / "cuda.lock").is_symlink()
    assert (tmp_path / "shared.lock").read_bytes() == b"a = 1\n"


@POSIX
def test_a_link_loop_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "a.toml").symlink_to("b.toml")
    (tmp_path / "b.toml").symlink_to("a.toml")
    with pytest.raises(InputFileError, match="cannot write the file"):
        write_atomic(tmp_path / "a.toml", "a = 1\n")
    assert str((tmp_path / "a.toml").readlink()) == "b.toml"
    assert str((tmp_path / "b.toml").readlink()) == "a.toml"


def linked_project(tmp_path: Path) -> tuple[Path, Path]:
    """project/pyproject.toml -> ../shared/pyproject.toml; returns (link, target)."""
    (tmp_path / "shared").mkdir()
    (tmp_path / "project").mkdir()
    target = tmp_path / "shared" / "pyproject.toml"
    target.write_bytes(b"a = 1\r\n")
    link = tmp_path / "project" / "pyproject.toml"
    link.symlink_to("../shared/pyproject.toml")
    return link, target


@POSIX
@pytest.mark.skipif(IS_ROOT, reason="root writes to a read-only folder")
def test_a_link_whose_target_folder_is_read_only_changes_nothing(tmp_path: Path) -> None:
    link, target = linked_project(tmp_path)
    target.parent.chmod(0o555)
    try:
        with pytest.raises(InputFileError) as error:
            write_atomic(link, "a = 2\n")
    finally:
        target.parent.chmod(0o755)
    assert str(target.parent) in error.value.fix  # the folder that must be writable
    assert link.is_symlink() and str(link.readlink()) == "../shared/pyproject.toml"
    assert target.read_bytes() == b"a = 1\r\n"
    assert names(target.parent) == ["pyproject.toml"]
    assert names(link.parent) == ["pyproject.toml"]


# A write that fails midway, even for root: the file size limit (RLIMIT_FSIZE) is below
# the new content, so writing the temporary file fails with EFBIG.
FAILING_WRITE = """
import resource, signal, sys
from pathlib import Path
from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.files import write_atomic
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))
try:
    write_atomic(Path(sys.argv[1]), "a = 2\\n" + "# padding\\n" * 100)
except PoetryCudaError as error:
    print(error.what)
    sys.exit(2)
"""


@POSIX
def test_a_write_that_fails_midway_leaves_link_and_target(tmp_path: Path) -> None:
    link, target = linked_project(tmp_path)
    result = subprocess.run(
        [sys.executable, "-c", FAILING_WRITE, str(link)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert result.stdout.startswith(f"{link}: cannot write the file (File too large)")
    assert link.is_symlink() and str(link.readlink()) == "../shared/pyproject.toml"
    assert target.read_bytes() == b"a = 1\r\n"
    assert names(target.parent) == ["pyproject.toml"]
    assert names(link.parent) == ["pyproject.toml"]


# Mode and owner


@POSIX
@pytest.mark.parametrize("mode", [0o600, 0o644, 0o664, 0o755, 0o2775])
def test_an_existing_file_keeps_its_mode(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text("a = 1\n")
    path.chmod(mode)
    replace_bytes(path, b"a = 2\n")
    assert stat.S_IMODE(path.stat().st_mode) == mode


@POSIX
@pytest.mark.usefixtures("umask_022")
@pytest.mark.parametrize("write", [write_atomic, write_toml_atomic])
def test_a_new_file_gets_0644_under_umask_022(
    tmp_path: Path, write: Callable[[Path, str], None]
) -> None:
    path = tmp_path / "cuda.lock"
    write(path, "a = 1\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert names(tmp_path) == ["cuda.lock"]


@POSIX
def test_a_new_file_follows_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0o077)
    try:
        replace_bytes(tmp_path / "cuda.lock", b"a = 1\n")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "cuda.lock").stat().st_mode) == 0o600


@ROOT_ONLY
def test_root_keeps_the_owner_of_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text("a = 1\n")
    os.chown(path, USER, USER)
    path.chmod(0o664)
    write_atomic(path, "a = 2\n")
    info = path.stat()
    assert (info.st_uid, info.st_gid) == (USER, USER)
    assert stat.S_IMODE(info.st_mode) == 0o664
    assert path.read_text() == "a = 2\n"


@ROOT_ONLY
def test_root_keeps_the_owner_of_a_link_target(tmp_path: Path) -> None:
    link, target = linked_project(tmp_path)
    os.chown(target, USER, USER)
    write_atomic(link, "a = 2\n")
    info = target.stat()
    assert (info.st_uid, info.st_gid) == (USER, USER)
    assert os.lstat(link).st_uid == 0  # the link itself is untouched


@ROOT_ONLY
@pytest.mark.usefixtures("umask_022")
def test_root_gives_a_new_file_the_owner_of_its_folder(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    os.chown(project, USER, USER)
    replace_bytes(project / "cuda.lock", b"a = 1\n")
    info = (project / "cuda.lock").stat()
    assert (info.st_uid, info.st_gid) == (USER, USER)
    assert stat.S_IMODE(info.st_mode) == 0o644
    assert names(project) == ["cuda.lock"]


@ROOT_ONLY
def test_root_leaves_a_root_file_in_a_user_folder_root_s(tmp_path: Path) -> None:
    os.chown(tmp_path, USER, USER)
    path = tmp_path / "pyproject.toml"
    path.write_text("a = 1\n")  # root's, as the user had it
    write_atomic(path, "a = 2\n")
    assert path.stat().st_uid == 0


@ROOT_ONLY
def test_adopt_owner_gives_a_file_root_created_to_the_folder_owner(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    os.chown(project, USER, USER)
    created = project / "poetry.lock"
    created.write_text("a = 1\n")  # as Poetry run by root creates it
    (project / "linked.lock").symlink_to(tmp_path / "outside.lock")
    (tmp_path / "outside.lock").write_text("a = 1\n")
    for path in (created, project / "linked.lock", project / "missing.lock"):
        adopt_owner(path)
    assert (created.stat().st_uid, created.stat().st_gid) == (USER, USER)
    assert (tmp_path / "outside.lock").stat().st_uid == 0  # a link is not followed
    assert os.lstat(project / "linked.lock").st_uid == 0


@ROOT_ONLY
def test_adopt_owner_leaves_files_in_root_s_own_folders(tmp_path: Path) -> None:
    path = tmp_path / "poetry.lock"
    path.write_text("a = 1\n")
    adopt_owner(path)
    assert path.stat().st_uid == 0


@POSIX
@pytest.mark.skipif(IS_ROOT, reason="the owner is changed only by root")
def test_adopt_owner_does_nothing_for_other_users(tmp_path: Path) -> None:
    path = tmp_path / "poetry.lock"
    path.write_text("a = 1\n")
    before = path.stat()
    adopt_owner(path)
    assert path.stat().st_uid == before.st_uid


# Durability


@POSIX
def test_the_file_and_then_its_folder_are_synced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[tuple[bool, bytes]] = []
    real_fsync = os.fsync
    path = tmp_path / "cuda.lock"

    def fsync(descriptor: int) -> None:
        is_folder = stat.S_ISDIR(os.fstat(descriptor).st_mode)
        # What the final name holds when the sync runs: the folder is synced after the rename.
        synced.append((is_folder, path.read_bytes() if path.exists() else b""))
        real_fsync(descriptor)

    monkeypatch.setattr(os, "fsync", fsync)
    write_atomic(path, "a = 1\n")
    assert synced == [(False, b""), (True, b"a = 1\n")]


@POSIX
def test_a_folder_that_refuses_to_sync_is_no_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_fsync = os.fsync

    def fsync(descriptor: int) -> None:
        if stat.S_ISDIR(os.fstat(descriptor).st_mode):
            raise OSError(22, "Invalid argument")  # as some file systems answer
        real_fsync(descriptor)

    monkeypatch.setattr(os, "fsync", fsync)
    write_atomic(tmp_path / "cuda.lock", "a = 1\n")
    assert (tmp_path / "cuda.lock").read_text() == "a = 1\n"
    assert names(tmp_path) == ["cuda.lock"]


def test_a_signal_as_the_temporary_file_is_created_leaves_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stress test's leftover `.poetry.lock.<hex>.tmp`: a signal's exception raised the
    moment `open` has created the temporary file (Python runs a signal handler right after
    the call returns) must still find the file to remove."""
    from poetry_cuda.locking.interrupts import Interrupted

    real_open = os.open

    def open_then_interrupted(path: str | os.PathLike[str], flags: int, mode: int = 0o777) -> int:
        descriptor = real_open(path, flags, mode)
        if flags & os.O_EXCL:
            os.close(descriptor)
            raise Interrupted
        return descriptor

    path = tmp_path / "poetry.lock"
    path.write_text("kept")
    monkeypatch.setattr(os, "open", open_then_interrupted)
    with pytest.raises(Interrupted):
        write_atomic(path, "new")
    assert path.read_text() == "kept"
    assert [p.name for p in tmp_path.iterdir()] == ["poetry.lock"]
