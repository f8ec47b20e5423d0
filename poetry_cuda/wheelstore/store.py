"""The per-user store of unpacked wheels: one entry per wheel, named by its sha256.

Layout below the root (`default_root`: ``wheels`` beside the redist store in the user's
cache folder, or ``.wheels`` in ``POETRY_CUDA_STORE``, an absolute path, where the redist
store's own walk leaves a dot folder alone)::

    <sha256>/
        files/...        the wheel's files, as the archive names them
        entry.json       what was unpacked: the wheel, and every file with its size, its
                         sha256 (RECORD's form), its executable bit, modification time,
                         inode change time and inode
    .tmp/<sha256>.<random>.<kind>   downloads and unpacking under way (or left by a crash)
    .locks/<sha256>.lock            one lock per entry: concurrent runs take turns
    .projects/<digest>.json         which environment uses which entries (`usage`)

A wheel is downloaded into ``.tmp``, its sha256 checked against the lock's before anything
is unpacked, unpacked beside ``entry.json`` (each file hashed as it is written), and the
whole renamed into place, so an entry is never seen half made. Unpacking refuses members
that would land outside the entry: absolute paths, ``..``, backslashes, a name twice, a
file where another member needs a folder; and more than `UNPACKED_LIMIT` bytes.

Nothing read from the store is trusted further than it checks. On every use (`entry`,
`ensure`, `entries`) the marker's fields must be of their types and name the folder it
lies in; the entry's folder and ``files`` must be real folders, not links; and the tree,
walked without following links, must hold exactly the recorded files, regular files of
the recorded sizes and modification times: one ``lstat`` per file (90 ms for the 20
entries and 6,400 files of the benchmark's CUDA stack, their markers read included). A
file written in place through any of its links (an environment's hard link included) gets
a new inode change time, which no user can set back, even where the size and modification
time were kept: such a file, or one that is another inode than unpacked, is read whole
against its recorded sha256 (`check_tree`). Its contents decide: other bytes damage the
entry; the same bytes (a ``chmod``, a link made or removed, which change the inode time
too) are sealed into the marker again (`_reseal`, under the entry's lock, replaced
atomically) so that the next use reads nothing. `check` with ``deep`` reads every byte
(doctor ``--deep``). An entry that fails is not used: the next run that holds its lock
replaces it, before it is linked anywhere, and the environments that link the damaged
files get the new ones at their next `sync` (their files are then other inodes than the
entry's). The store is a folder of its user: whoever can write it can change a file and
its marker alike; these checks make sure that nothing but a stored wheel's own files, as
unpacked, is ever linked into an environment.

A read-only store (a shared one provisioned by someone else, a read-only mount) serves the
entries it holds; a wheel it lacks is refused with a message, since nothing can be added.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import hashlib
import json
import os
import re
import secrets
import shutil
import stat
import sys
import time
import zipfile

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

from packaging.utils import InvalidWheelFilename
from packaging.utils import parse_wheel_filename

from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import ProjectBusyError
from poetry_cuda.errors import UnmetRequirementError
from poetry_cuda.files import MiB
from poetry_cuda.files import open_lock_file
from poetry_cuda.files import read_bounded
from poetry_cuda.files import try_lock
from poetry_cuda.files import user_cache
from poetry_cuda.messages import message
from poetry_cuda.records import frozen
from poetry_cuda.redist.store import ENVIRONMENT
from poetry_cuda.redist.store import default_root as redist_root
from poetry_cuda.redist.store import own_folder
from poetry_cuda.redist.store import unsealed
from poetry_cuda.wheelstore.record import parse as parse_record
from poetry_cuda.wheelstore.record import record_hash


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterator
    from collections.abc import Mapping

    from poetry_cuda.messages import Localized


FOLDER = "wheels"  # in the user's cache folder
INSIDE = ".wheels"  # in POETRY_CUDA_STORE
MARKER = "entry.json"
FILES = "files"
LAYOUT = 2  # 2: each file records its inode change time and inode
# Layout 1 (no inode times) is still read: its files count as changed since, so the first
# use reads them whole and seals them in layout 2 instead of fetching the wheel again.
_FILE_FIELDS = {1: 4, 2: 6}
MARKER_LIMIT = 256 * MiB  # about 150 bytes a file
UNPACKED_LIMIT = 64 * 1024**3  # bytes per wheel; torch's CUDA wheels unpack to a few GiB
MEMBER_LIMIT = 1_000_000
LOCK_WAIT = 1800.0  # seconds: another run may be downloading a large wheel
_POLL = 0.1
_CHUNK = 1024 * 1024
_SHA256 = re.compile(r"[0-9a-f]{64}")
# A write refused for want of room: the disk is full, or the user's quota is spent.
NO_SPACE = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})
_FIELDS = {"layout", "sha256", "filename", "name", "version", "size", "files"}


def default_root(environ: Mapping[str, str], os_name: str, home: Path) -> Path:
    """Where the store lives: ``.wheels`` in POETRY_CUDA_STORE (an absolute path, as for the
    redist store), else ``wheels`` in the user's cache folder."""
    if environ.get(ENVIRONMENT):
        return redist_root(environ, os_name, home) / INSIDE
    return user_cache(environ, os_name, home) / FOLDER


@frozen
class Wheel:
    """A wheel as a lock records it: its file name and sha256 (hex)."""

    filename: str
    sha256: str


@frozen
class StoredFile:
    """One file of an entry."""

    size: int
    hash: str  # sha256 in RECORD's form
    executable: bool
    mtime_ns: int
    ctime_ns: int  # the inode's change time: every write, link or chmod sets it anew
    inode: int


@frozen
class Entry:
    """One complete, unpacked wheel in the store."""

    sha256: str
    filename: str
    name: str
    version: str
    size: int  # bytes of the unpacked files
    path: Path  # the entry's folder
    files: Mapping[str, StoredFile]

    @property
    def tree(self) -> Path:
        return self.path / FILES


@frozen
class Damaged:
    """An entry `verify` found damaged: its folder, what it holds, what is wrong."""

    folder: Path
    name: str  # the wheel's file name, or the folder's when its marker cannot be read
    problems: tuple[Localized, ...]


class Store:
    """The store at `root` (created on first use)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def default(cls) -> Store:
        os_name = "windows" if sys.platform == "win32" else "posix"
        return cls(default_root(os.environ, os_name, Path.home()))

    @property
    def writable(self) -> bool:
        """Whether entries can be added: the root (or the folder it would be made in) is
        writable by this user."""
        path = self.root
        while not os.path.lexists(path) and path.parent != path:
            path = path.parent
        return os.access(path, os.W_OK | os.X_OK)

    def folder(self, sha256: str) -> Path:
        return self.root / _checked_sha256(sha256)

    def entry(self, wheel: Wheel) -> Entry | None:
        """The entry of `wheel` if it is stored and passes the checks of every use."""
        try:
            found, stale = self._checked(self.folder(wheel.sha256))
        except InputFileError:
            return None
        if found.sha256 != wheel.sha256:
            return None
        return self.seal(found, stale) if stale else found

    def ensure(self, wheel: Wheel, fetch: Callable[[Path], str]) -> Entry:
        """The entry of `wheel`, made with `fetch` unless stored and sound.

        `fetch(path)` writes the wheel to the new file `path` and returns its sha256; a
        wheel whose sha256 is not the one recorded is refused, nothing of it kept.
        """
        found = self.entry(wheel)
        if found is not None:
            return found
        if not self.writable:
            raise UnmetRequirementError(
                f"{wheel.filename}: not in the shared store at {self.root}, which is read-only",
                why="a read-only store serves the wheels it holds; nothing can be added to it",
                fix=f"make the store writable, or set {ENVIRONMENT} to a writable folder "
                'of your own, or use install = "copy"',
            )
        with self._locked(wheel.sha256):
            found = self.entry(wheel)  # another run may have made it meanwhile
            if found is not None:
                return found
            self._clear(wheel.sha256)
            temporary = self._own(".tmp")
            downloaded = temporary / f"{wheel.sha256}.{secrets.token_hex(4)}.download"
            try:
                got = fetch(downloaded)
                if got != wheel.sha256:
                    raise refused_download(wheel, got)
                return self._add(wheel, downloaded)
            except OSError as error:
                if error.errno not in NO_SPACE:
                    raise
                raise self._no_space(wheel, error) from None
            finally:
                downloaded.unlink(missing_ok=True)

    def add_file(self, wheel: Wheel, archive: Path) -> Entry:
        """`ensure` from a wheel file already on this machine (a package manager's cache)."""

        def copy(destination: Path) -> str:
            digest = hashlib.sha256()
            with archive.open("rb") as source, destination.open("xb") as target:
                while chunk := source.read(_CHUNK):
                    digest.update(chunk)
                    target.write(chunk)
            return digest.hexdigest()

        return self.ensure(wheel, copy)

    def entries(self) -> list[Entry]:
        """The entries that pass the checks of every use, in name order."""
        found = []
        for folder in self._entry_folders():
            with contextlib.suppress(InputFileError):
                found.append(self._checked(folder)[0])
        return found

    def check(self, entry: Entry, *, deep: bool = False) -> list[Localized]:
        """What is wrong with `entry` now (empty when nothing): the checks of every use, and
        with `deep` every file's sha256 (doctor, for an entry modified after linking)."""
        try:
            current, _ = self._checked(entry.path)
        except InputFileError as error:
            return [error.said]
        if not deep:
            return []
        return [
            message("store.file-changed", path=path)
            for path, stored in sorted(current.files.items())
            if _file_hash(current.tree / path) != stored.hash
        ]

    def verify(self) -> list[Damaged]:
        """Every entry read whole: its files against the sha256 recorded when it was unpacked,
        and those against its wheel's RECORD (`store --verify`); the damaged entries."""
        found = []
        for folder in self._entry_folders():
            try:
                entry, _ = self._checked(folder)
            except InputFileError as error:
                found.append(Damaged(folder, folder.name, (error.said,)))
                continue
            problems = [*self.check(entry, deep=True), *against_record(entry)]
            if problems:
                found.append(Damaged(folder, entry.filename, tuple(problems)))
        return found

    def prune(self, in_use: Callable[[], set[str]]) -> list[Entry]:
        """Remove every entry whose sha256 `in_use()` does not name (asked again under each
        entry's lock, so an entry a run has just started to use stays), damaged entries,
        and abandoned temporaries; return the entries removed."""
        removed = []
        kept = in_use()
        for entry in self.entries():
            if entry.sha256 in kept:
                continue
            with self._locked(entry.sha256):
                if entry.sha256 in in_use():
                    continue
                self._discard(entry.path, entry.sha256)
            removed.append(entry)
        for folder in self._entry_folders():
            with self._locked_if_free(folder.name) as free:
                if free and not self._sound(folder):
                    self._discard(folder, folder.name)
        for key in sorted({name.split(".", 1)[0] for name in self._temporaries()}):
            with self._locked_if_free(key) as free:
                if free:
                    self._clear_temporaries(key)
        return removed

    # -- checking an entry ------------------------------------------------------------------

    def _checked(self, folder: Path) -> tuple[Entry, dict[str, os.stat_result]]:
        """The entry in `folder`, checked, and its files that `check_tree` read whole."""
        if not self._inside(folder):
            raise damaged(folder, "a link leads into or out of the store on its way")
        entry = read_marker(folder)
        if entry.sha256 != folder.name or folder.parent != self.root:
            raise damaged(folder, f"its {MARKER} records another wheel")
        return entry, check_tree(entry)

    def seal(self, entry: Entry, paths: Mapping[str, os.stat_result]) -> Entry:
        """`entry` with the inode times and inodes of `paths` (their ``lstat`` when their
        contents were last known to be the stored ones) recorded in its marker, replaced
        atomically under the entry's lock; `entry` unchanged when the store is read-only,
        another run holds the lock, or a file changed again since (the next use reads it)."""
        if not self.writable:
            return entry
        with self._locked_if_free(entry.sha256) as free:
            if not free:
                return entry
            files = dict(entry.files)
            for path, seen in paths.items():
                try:
                    now = os.lstat(entry.tree / path)
                except OSError:
                    return entry
                if (now.st_ctime_ns, now.st_ino) != (seen.st_ctime_ns, seen.st_ino):
                    return entry
                files[path] = dataclasses.replace(
                    files[path], ctime_ns=now.st_ctime_ns, inode=now.st_ino
                )
            sealed = dataclasses.replace(entry, files=files)
            temporary = self._own(".tmp") / f"{entry.sha256}.{secrets.token_hex(4)}.marker"
            temporary.write_bytes(render_marker(sealed))
            temporary.replace(entry.path / MARKER)
        return sealed

    def seal_linked(self, entry: Entry) -> Entry:
        """`seal` the files of `entry` that this run has just linked into an environment: a
        hard link made or removed sets a new inode change time, on the same inode, size and
        modification time. Only for an entry checked at the start of the same run."""
        linked = {}
        for path, stored in entry.files.items():
            try:
                info = os.lstat(entry.tree / path)
            except OSError:
                return entry
            if (
                info.st_ino == stored.inode
                and (info.st_size, info.st_mtime_ns) == (stored.size, stored.mtime_ns)
                and info.st_ctime_ns != stored.ctime_ns
            ):
                linked[path] = info
        return self.seal(entry, linked) if linked else entry

    def _sound(self, folder: Path) -> bool:
        try:
            self._checked(folder)
        except InputFileError:
            return False
        return True

    def _inside(self, path: Path) -> bool:
        """Whether `path` below the root is reached without following a link."""
        relative = path.relative_to(self.root).parts
        real = Path(os.path.realpath(self.root)).joinpath(*relative)
        return Path(os.path.realpath(path)) == real

    def _entry_folders(self) -> list[Path]:
        try:
            with os.scandir(self.root) as found:
                names = sorted(
                    e.name
                    for e in found
                    if e.is_dir(follow_symlinks=False) and _SHA256.fullmatch(e.name)
                )
        except OSError:
            return []
        return [self.root / name for name in names]

    # -- adding an entry --------------------------------------------------------------------

    def _add(self, wheel: Wheel, archive: Path) -> Entry:
        staging = self._own(".tmp") / f"{wheel.sha256}.{secrets.token_hex(4)}.unpack"
        try:
            files = unpack(archive, staging / FILES, wheel.filename)
            name, version = _name_version(wheel.filename)
            folder = self.root / wheel.sha256
            size = sum(f.size for f in files.values())
            entry = Entry(wheel.sha256, wheel.filename, name, version, size, folder, files)
            (staging / MARKER).write_bytes(render_marker(entry))
            staging.rename(folder)  # the entry appears whole, its marker in it
            return entry
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)

    def _no_space(self, wheel: Wheel, error: OSError) -> UnmetRequirementError:
        """The disk of the store filled up while `wheel` was downloaded or unpacked (what
        was written of it is removed by then)."""
        return UnmetRequirementError(
            message("store.no-space", wheel=wheel.filename, root=self.root, error=error.strerror),
            why=message("store.no-space-why"),
            fix=message("store.no-space-fix", root=self.root, variable=ENVIRONMENT),
        )

    def _own(self, *parts: str) -> Path:
        return own_folder(self.root, *parts)

    def _clear(self, sha256: str) -> None:
        """Remove what a damaged entry or an interrupted run left for `sha256` (its lock is
        held): a link there is removed, never followed."""
        folder = self.root / sha256
        if os.path.lexists(folder):
            if stat.S_ISDIR(os.lstat(folder).st_mode):
                self._discard(folder, sha256)
            else:
                folder.unlink()
        self._clear_temporaries(sha256)

    def _clear_temporaries(self, key: str) -> None:
        for name in self._temporaries():
            if name.startswith(f"{key}."):
                path = self.root / ".tmp" / name
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)

    def _temporaries(self) -> list[str]:
        if not os.path.lexists(self.root / ".tmp"):
            return []
        return sorted(entry.name for entry in self._own(".tmp").iterdir())

    def _discard(self, folder: Path, key: str) -> None:
        """Remove an entry: renamed away first, so that it is gone at once, whole."""
        doomed = self._own(".tmp") / f"{key}.{secrets.token_hex(4)}.old"
        folder.rename(doomed)
        shutil.rmtree(doomed, ignore_errors=True)

    # -- locks ------------------------------------------------------------------------------

    def locked(self, key: str) -> contextlib.AbstractContextManager[None]:
        """The store's lock named `key` (a word of letters, digits and dashes), held while
        the context runs: runs that take the same lock take turns."""
        if not re.fullmatch(r"[a-z0-9-]+", key):
            raise ValueError(f"{key!r} is no lock name")
        return self._locked(key)

    @contextlib.contextmanager
    def _locked(self, key: str) -> Iterator[None]:
        descriptor = self._lock_file(key)
        try:
            deadline = time.monotonic() + LOCK_WAIT
            while not try_lock(descriptor):
                if time.monotonic() >= deadline:
                    raise ProjectBusyError(
                        f"another poetry-cuda run is adding {key[:16]}... to {self.root} "
                        f"and did not finish within {LOCK_WAIT:g} s",
                        why="runs that need the same wheel take turns, so it is fetched once",
                        fix="wait for the other run to finish, or stop it, then run again",
                    )
                time.sleep(_POLL)
            yield
        finally:
            os.close(descriptor)

    @contextlib.contextmanager
    def _locked_if_free(self, key: str) -> Iterator[bool]:
        descriptor = self._lock_file(key)
        try:
            yield try_lock(descriptor)
        finally:
            os.close(descriptor)

    def _lock_file(self, key: str) -> int:
        try:
            return open_lock_file(self._own(".locks") / f"{key}.lock")
        except OSError as error:
            raise InputFileError(
                f"{self.root}: cannot use the shared wheel store ({error.strerror or error})",
                fix=f"make it writable, or set {ENVIRONMENT} to a writable folder",
            ) from None


def refused_download(wheel: Wheel, got: str) -> UnmetRequirementError:
    return UnmetRequirementError(
        f"{wheel.filename}: the download's sha256 is {got}, the lock records {wheel.sha256}",
        why="a wheel is installed only when its sha256 is the one poetry.lock records; "
        "nothing of it was kept",
        fix="run again; if it persists, the index serves another file than the one locked "
        "(run `poetry lock` if the project means to take the new one)",
    )


def _checked_sha256(sha256: str) -> str:
    if not _SHA256.fullmatch(sha256):
        raise InputFileError(
            f"{sha256!r} is not a sha256 (64 lowercase hexadecimal digits)",
            why="the store names each wheel by the sha256 its lock records",
            fix="check the hashes poetry.lock records (`sha256:` and 64 digits)",
        )
    return sha256


def _name_version(filename: str) -> tuple[str, str]:
    try:
        name, version, _, _ = parse_wheel_filename(filename)
    except InvalidWheelFilename as error:
        raise InputFileError(
            f"{filename!r} is not a wheel's file name ({error})",
            fix="check the files poetry.lock records",
        ) from None
    return str(name), str(version)


def damaged(folder: Path, problem: str) -> InputFileError:
    return InputFileError(
        f"{folder}: not a store entry as poetry-cuda makes them ({problem})",
        why="a stored wheel is linked into an environment only while it is whole and as it "
        "was unpacked",
        fix="the next `poetry cuda sync` that needs it replaces it; `poetry cuda store "
        "--prune` removes it now",
    )


# -- the marker -----------------------------------------------------------------------------


def render_marker(entry: Entry) -> bytes:
    """The ``entry.json`` of `entry`."""
    record = {
        "layout": LAYOUT,
        "sha256": entry.sha256,
        "filename": entry.filename,
        "name": entry.name,
        "version": entry.version,
        "size": entry.size,
        "files": {
            path: [f.size, f.hash, int(f.executable), f.mtime_ns, f.ctime_ns, f.inode]
            for path, f in sorted(entry.files.items())
        },
    }
    return json.dumps(record, separators=(",", ":")).encode() + b"\n"


def read_marker(folder: Path) -> Entry:
    """The entry that ``entry.json`` in `folder` records, its fields checked (not yet
    against the tree: `check_tree`)."""
    path = folder / MARKER
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            raise damaged(folder, f"its {MARKER} is not a file")
    except OSError:
        raise damaged(folder, f"no {MARKER}") from None
    try:
        document = json.loads(read_bounded(path, limit=MARKER_LIMIT, follow_links=False))
    except (ValueError, RecursionError):
        raise damaged(folder, f"its {MARKER} is not JSON") from None
    return parse_marker(document, folder)


def parse_marker(document: object, folder: Path) -> Entry:
    """The entry a parsed ``entry.json`` records; InputFileError unless every field is of its
    type and form."""
    if not isinstance(document, dict) or set(document) != _FIELDS:
        raise damaged(folder, f"its {MARKER} has other fields than layout {LAYOUT}'s")
    if type(document["layout"]) is not int or document["layout"] not in _FILE_FIELDS:
        raise damaged(folder, f"its {MARKER} is of another layout than {LAYOUT}")
    for field in ("sha256", "filename", "name", "version"):
        if not isinstance(document[field], str):
            raise damaged(folder, f"{field} is not a string")
    if not _SHA256.fullmatch(document["sha256"]):
        raise damaged(folder, "sha256 is not one")
    try:
        named = _name_version(document["filename"])
    except InputFileError:
        raise damaged(folder, "filename is not a wheel's") from None
    if named != (document["name"], document["version"]):
        raise damaged(folder, "its name and version are not its file name's")
    files = _parse_files(document["files"], folder, _FILE_FIELDS[document["layout"]])
    size = document["size"]
    if type(size) is not int or size != sum(f.size for f in files.values()):
        raise damaged(folder, "size is not the sum of its files' sizes")
    return Entry(
        document["sha256"],
        document["filename"],
        document["name"],
        document["version"],
        size,
        folder,
        files,
    )


def _parse_files(files: Any, folder: Path, fields: int) -> dict[str, StoredFile]:
    if not isinstance(files, dict) or not files:
        raise damaged(folder, "files is not an object of files")
    parsed = {}
    for path, value in files.items():
        if _parts(path) is None:
            raise damaged(folder, f"{path!r} is not a plain relative path")
        if (
            not isinstance(value, list)
            or len(value) != fields
            or any(type(v) is not int for v in (value[0], *value[2:]))
            or value[0] < 0
            or value[2] not in (0, 1)
            or not isinstance(value[1], str)
            or not value[1].startswith("sha256=")
        ):
            raise damaged(
                folder, f"files[{path!r}] is not [size, sha256, executable, mtime, ctime, inode]"
            )
        ctime_ns, inode = value[4:] if fields == 6 else (0, 0)  # layout 1: never sealed
        parsed[path] = StoredFile(value[0], value[1], bool(value[2]), value[3], ctime_ns, inode)
    return parsed


# -- checking the tree ----------------------------------------------------------------------


def check_tree(entry: Entry) -> dict[str, os.stat_result]:
    """InputFileError unless `entry`'s tree holds exactly its recorded files, regular files
    of the recorded sizes and modification times, in real folders, and each file whose inode
    or inode change time is not the recorded one of its recorded sha256. Returns those files
    (read whole, found sound) with what ``lstat`` said before they were read."""
    seen: dict[str, os.stat_result] = {}
    pending = [(entry.tree, "")]
    try:
        if not stat.S_ISDIR(os.lstat(entry.tree).st_mode):
            raise damaged(entry.path, f"its {FILES} is not a folder")
        while pending:
            folder, prefix = pending.pop()
            with os.scandir(folder) as found:
                for item in found:
                    path = f"{prefix}{item.name}"
                    if item.is_dir(follow_symlinks=False):
                        pending.append((Path(item.path), f"{path}/"))
                    else:
                        seen[path] = item.stat(follow_symlinks=False)
    except OSError as error:
        raise damaged(entry.path, f"its files cannot be read ({error.strerror or error})") from None
    if seen.keys() != entry.files.keys():
        extra = sorted(seen.keys() - entry.files.keys())
        missing = sorted(entry.files.keys() - seen.keys())
        listed = ", ".join((missing or extra)[:3]) + (" ..." if len(missing or extra) > 3 else "")
        raise damaged(entry.path, f"files {'missing' if missing else 'added'}: {listed}")
    for path, info in seen.items():
        stored = entry.files[path]
        if not stat.S_ISREG(info.st_mode):
            raise damaged(entry.path, f"{path} is not a regular file")
        if info.st_size != stored.size or info.st_mtime_ns != stored.mtime_ns:
            raise damaged(entry.path, f"{path} changed after it was unpacked")
    sealed = {path: (f.ctime_ns, f.inode) for path, f in entry.files.items()}
    hashes = {path: f.hash for path, f in entry.files.items()}
    stale, bad = unsealed(entry.tree, seen, sealed, hashes, _file_hash)
    if bad is not None:
        raise damaged(entry.path, f"{bad} was written after it was unpacked")
    return stale


def against_record(entry: Entry) -> list[Localized]:
    """What in `entry`'s recorded files differs from its wheel's RECORD: a file RECORD lists
    with another sha256 or size, or does not list (RECORD itself and signatures aside)."""
    records = [p for p in entry.files if p.count("/") == 1 and p.endswith(".dist-info/RECORD")]
    if len(records) != 1:
        return [message("store.records-not-one", count=len(records))]
    try:
        rows = {row.path: row for row in parse_record((entry.tree / records[0]).read_text("utf-8"))}
    except (OSError, UnicodeDecodeError, ValueError) as error:
        return [message("store.record-unreadable", path=records[0], error=error)]
    problems: list[Localized] = []
    for path, stored in sorted(entry.files.items()):
        row = rows.get(path)
        if row is None:
            if path != records[0] and not path.endswith(
                (".dist-info/RECORD.jws", ".dist-info/RECORD.p7s")
            ):
                problems.append(message("store.not-in-record", path=path))
        elif row.hash and row.hash != stored.hash:
            problems.append(message("store.other-sha256", path=path))
        elif row.size is not None and row.size != stored.size:
            problems.append(message("store.other-size", path=path))
    return problems


def _file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    except OSError:
        return ""
    return record_hash(digest.digest())


# -- unpacking ------------------------------------------------------------------------------


def _parts(path: object) -> list[str] | None:
    """The parts of a member path, or None unless it is relative, ``/``-separated, with no
    empty, ``.`` or ``..`` part."""
    if not isinstance(path, str) or not path or "\\" in path or "\x00" in path:
        return None
    parts = path.split("/")
    if path.startswith("/") or re.match(r"^[A-Za-z]:", path):
        return None
    return None if any(p in ("", ".", "..") for p in parts) else parts


def _refused(name: str, member: str, problem: str) -> InputFileError:
    return InputFileError(
        f"{name}: refused to unpack {member!r}: {problem}",
        why="a wheel may only create files inside its own tree; nothing of it was kept",
        fix="check that the index serves the wheels its project publishes",
    )


def unpack(archive: Path, destination: Path, name: str) -> dict[str, StoredFile]:
    """Unpack the wheel `archive` into the new folder `destination`; its files, each hashed
    as it is written.

    Modes as Python's installers give them: a file the archive marks executable gets
    ``0o777`` less the umask plus every execute bit, any other ``0o666`` less the umask.
    """
    destination.mkdir(parents=True)
    files: dict[str, StoredFile] = {}
    folders: set[str] = set()
    total = 0
    try:
        with zipfile.ZipFile(archive) as wheel:
            members = [m for m in wheel.infolist() if not m.filename.endswith("/")]
            if len(members) > MEMBER_LIMIT:
                raise _refused(name, members[0].filename, "more than a million members")
            for member in members:
                parts = _parts(member.filename)
                if parts is None:
                    raise _refused(name, member.filename, "an absolute path or one with '..'")
                path = "/".join(parts)
                if path in files or path in folders:
                    raise _refused(name, path, "a member named twice, or a file and a folder")
                parents = ["/".join(parts[:i]) for i in range(1, len(parts))]
                if any(p in files for p in parents):
                    raise _refused(name, path, "a member below a file")
                folders.update(parents)
                mode = member.external_attr >> 16
                executable = bool(mode and stat.S_ISREG(mode) and mode & 0o111)
                target = destination.joinpath(*parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                budget = UNPACKED_LIMIT - total
                written, digest = _extract(wheel, member, target, executable, budget, name)
                total += written
                files[path] = StoredFile(written, digest, executable, 0, 0, 0)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError) as error:
        if isinstance(error, OSError) and error.errno in NO_SPACE:
            raise  # the disk is full, the wheel may be fine: `Store.ensure` says so
        raise InputFileError(
            f"{name}: cannot unpack the wheel ({error.__class__.__name__}: {error})",
            why="its sha256 is the locked one, so the file itself is not a readable wheel",
            fix="check that the index serves the wheels its project publishes",
        ) from None
    # The times are read once everything is written: what each use compares.
    return {path: _sealed(f, os.lstat(destination / path)) for path, f in files.items()}


def _sealed(stored: StoredFile, info: os.stat_result) -> StoredFile:
    return dataclasses.replace(
        stored, mtime_ns=info.st_mtime_ns, ctime_ns=info.st_ctime_ns, inode=info.st_ino
    )


def _extract(
    wheel: zipfile.ZipFile,
    member: zipfile.ZipInfo,
    target: Path,
    executable: bool,
    budget: int,
    name: str,
) -> tuple[int, str]:
    digest = hashlib.sha256()
    size = 0
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    descriptor = os.open(target, flags, 0o777 if executable else 0o666)
    with os.fdopen(descriptor, "wb") as out, wheel.open(member) as source:
        if executable and hasattr(os, "fchmod"):
            os.fchmod(out.fileno(), (os.fstat(out.fileno()).st_mode & 0o777) | 0o111)
        while chunk := source.read(_CHUNK):
            size += len(chunk)
            if size > budget:
                raise _refused(name, member.filename, "the wheel unpacks to more than 64 GiB")
            digest.update(chunk)
            out.write(chunk)
    return size, record_hash(digest.digest())
