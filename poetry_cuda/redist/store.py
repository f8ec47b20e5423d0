"""The shared per-user store of unpacked redist archives: one copy per machine.

Layout below the root (`default_root`; ``POETRY_CUDA_STORE`` overrides it)::

    <component>/<version>/<platform>-<sha256[:16]>/
        tree/<component>-<platform>-<version>-archive/...   the unpacked archive
        complete.json                                        written last
    .tmp/<key>.<random>...    downloads and unpacking under way (or left by a crash)
    .locks/<key>.lock         one lock per archive: concurrent runs take turns

`Store.ensure` returns an entry only once its ``complete.json`` exists, which is written
after the unpacked tree was renamed into place; the sha256 is verified before anything
is unpacked. An entry without the marker, or a temporary left by an interrupted run, is
removed and redone by the next run that holds the archive's lock. Unpacking refuses
members that would land outside the archive's own tree: absolute paths, ``..``, links
whose target is absolute or outside the tree (after resolving the links before them),
anything written through a link, hard links to anything but an earlier file of the
archive, and device files, FIFOs and sockets. On Python versions with tarfile's
extraction filters, the "data" filter applies on top.
"""

from __future__ import annotations

import contextlib
import json
import os
import posixpath
import re
import secrets
import shutil
import sys
import time

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import ProjectBusyError
from poetry_cuda.files import read_bounded
from poetry_cuda.files import replace_bytes
from poetry_cuda.files import try_lock
from poetry_cuda.files import user_cache
from poetry_cuda.records import frozen
from poetry_cuda.redist.fetch import TIMEOUT
from poetry_cuda.redist.fetch import check_url
from poetry_cuda.redist.fetch import download
from poetry_cuda.redist.fetch import join


if TYPE_CHECKING:
    import tarfile

    from collections.abc import Iterable
    from collections.abc import Iterator
    from collections.abc import Mapping

    from poetry_cuda.redist.manifest import Archive


ENVIRONMENT = "POETRY_CUDA_STORE"
MARKER = "complete.json"
TREE = "tree"
LAYOUT = 1
LOCK_WAIT = 1800.0  # seconds: another run may be downloading a large archive
UNPACKED_LIMIT = 16 * 1024**3  # bytes per archive; NVIDIA's nvcc unpacks to about 300 MiB
_POLL = 0.1
_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_DRIVE = re.compile(r"^[A-Za-z]:")


def default_root(environ: Mapping[str, str], os_name: str, home: Path) -> Path:
    """Where the store lives: POETRY_CUDA_STORE, else the user's cache folder."""
    if environ.get(ENVIRONMENT):
        return Path(environ[ENVIRONMENT])
    return user_cache(environ, os_name, home) / "redist"


@frozen
class Entry:
    """One complete archive in the store."""

    component: str
    version: str
    platform: str
    sha256: str
    size: int  # bytes of the unpacked files
    path: Path  # the entry's folder

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.component, self.version, self.platform, self.sha256)


def _key(archive: Archive) -> tuple[str, str, str, str]:
    parts = (archive.component, archive.version, archive.platform)
    if not all(_PART.fullmatch(p) for p in parts) or not _SHA256.fullmatch(archive.sha256):
        raise InputFileError(
            f"{archive.component} {archive.version} {archive.platform}: not a name the store "
            "can file",
            why="the store's folders are named by component, version, platform and sha256",
            fix="check the archive's record (cuda.lock or the manifest)",
        )
    return (*parts, archive.sha256)


def _flat(key: tuple[str, str, str, str]) -> str:
    component, version, platform, sha256 = key
    return f"{component}-{version}-{platform}-{sha256[:16]}"


class Store:
    """The store at `root` (created on first use)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def default(cls) -> Store:
        os_name = "windows" if sys.platform == "win32" else "posix"
        return cls(default_root(os.environ, os_name, Path.home()))

    def folder(self, archive: Archive) -> Path:
        component, version, platform, sha256 = _key(archive)
        return self.root / component / version / f"{platform}-{sha256[:16]}"

    def holds(self, archive: Archive) -> bool:
        """Whether `archive` is stored, complete."""
        return self._complete(archive) is not None

    def ensure(self, archive: Archive, base_url: str, *, timeout: float = TIMEOUT) -> Path:
        """The unpacked tree of `archive`, fetched from `base_url` unless already stored."""
        found = self._complete(archive)
        if found is not None:
            return found
        url = join(check_url(base_url), archive.relative_path)
        with self._locked(_key(archive)):
            found = self._complete(archive)  # another run may have finished it meanwhile
            if found is not None:
                return found
            self._clear(_key(archive))
            return self._add(archive, url, timeout)

    def entries(self) -> list[Entry]:
        """The complete entries, in name order."""
        found = []
        for marker in sorted(self.root.glob(f"*/*/*/{MARKER}")):
            record = _read_marker(marker)
            if record is not None:
                found.append(_entry(record, marker.parent))
        return found

    def prune(self, keep: Iterable[Archive]) -> list[Entry]:
        """Remove every entry not in `keep`, and abandoned temporaries; return the removed."""
        return self._prune({_key(archive) for archive in keep})

    def prune_entries(self, keep: Iterable[Entry]) -> list[Entry]:
        """`prune`, keeping the entries listed (`store --prune`: those a project uses)."""
        return self._prune({entry.key for entry in keep})

    def _prune(self, kept: set[tuple[str, str, str, str]]) -> list[Entry]:
        removed = []
        for entry in self.entries():
            if entry.key in kept:
                continue
            with self._locked(entry.key):
                self._discard(entry.path, _flat(entry.key))
            removed.append(entry)
        for key in sorted({name.rsplit(".", 2)[0] for name in self._temporaries()}):
            with self._locked_if_free(key) as free:
                if free:
                    self._clear_flat(key)
        return removed

    # -- the steps of `ensure` --------------------------------------------------------------

    def _complete(self, archive: Archive) -> Path | None:
        folder = self.folder(archive)
        record = _read_marker(folder / MARKER)
        if record is None or record.get("sha256") != archive.sha256:
            return None
        return folder / TREE / str(record["root"])

    def _add(self, archive: Archive, url: str, timeout: float) -> Path:
        flat = _flat(_key(archive))
        temporary = self.root / ".tmp"
        temporary.mkdir(parents=True, exist_ok=True)
        token = secrets.token_hex(4)  # names are <key>.<token>.<kind>; the key has dots
        downloaded = temporary / f"{flat}.{token}.download"
        staging = temporary / f"{flat}.{token}.unpack"
        try:
            got = download(url, downloaded, limit=archive.size, timeout=timeout)
            if got.size != archive.size or got.sha256 != archive.sha256:
                raise InputFileError(
                    f"{archive.file_name}: the download does not match the manifest "
                    f"(sha256 {got.sha256}, {got.size} bytes; expected {archive.sha256}, "
                    f"{archive.size} bytes)",
                    why="an archive is unpacked only when its sha256 is the recorded one; "
                    "nothing was unpacked",
                    fix="run again; if it persists, the mirror serves other files than NVIDIA's",
                )
            top, size = unpack(downloaded, staging / TREE, archive.file_name)
            folder = self.folder(archive)
            folder.parent.mkdir(parents=True, exist_ok=True)
            staging.rename(folder)
            record = {
                "component": archive.component,
                "version": archive.version,
                "platform": archive.platform,
                "sha256": archive.sha256,
                "size": size,
                "root": top,
                "layout": LAYOUT,
            }
            replace_bytes(folder / MARKER, json.dumps(record, indent=2).encode() + b"\n")
            return folder / TREE / top
        finally:
            downloaded.unlink(missing_ok=True)
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)

    def _clear(self, key: tuple[str, str, str, str]) -> None:
        """Remove what an interrupted run left for `key` (its lock is held)."""
        component, version, platform, sha256 = key
        folder = self.root / component / version / f"{platform}-{sha256[:16]}"
        if folder.exists():
            self._discard(folder, _flat(key))
        self._clear_flat(_flat(key))

    def _clear_flat(self, flat: str) -> None:
        for name in self._temporaries():
            if name.startswith(f"{flat}."):
                path = self.root / ".tmp" / name
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)

    def _temporaries(self) -> list[str]:
        try:
            return sorted(entry.name for entry in (self.root / ".tmp").iterdir())
        except FileNotFoundError:
            return []

    def _discard(self, folder: Path, flat: str) -> None:
        """Remove an entry: renamed away first, so that it is gone at once, whole."""
        temporary = self.root / ".tmp"
        temporary.mkdir(parents=True, exist_ok=True)
        doomed = temporary / f"{flat}.{secrets.token_hex(4)}.old"
        folder.rename(doomed)
        shutil.rmtree(doomed, ignore_errors=True)

    # -- locks ------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self, key: tuple[str, str, str, str]) -> Iterator[None]:
        descriptor = self._lock_file(_flat(key))
        try:
            deadline = time.monotonic() + LOCK_WAIT
            while not try_lock(descriptor):
                if time.monotonic() >= deadline:
                    raise ProjectBusyError(
                        f"another poetry-cuda run is fetching {_flat(key)} into {self.root} "
                        f"and did not finish within {LOCK_WAIT:g} s",
                        why="runs that need the same archive take turns, so it is fetched once",
                        fix="wait for the other run to finish, or stop it, then run again",
                    )
                time.sleep(_POLL)
            yield
        finally:
            os.close(descriptor)  # closing the descriptor releases the lock

    @contextlib.contextmanager
    def _locked_if_free(self, flat: str) -> Iterator[bool]:
        descriptor = self._lock_file(flat)
        try:
            yield try_lock(descriptor)
        finally:
            os.close(descriptor)

    def _lock_file(self, flat: str) -> int:
        locks = self.root / ".locks"
        try:
            locks.mkdir(parents=True, exist_ok=True)
            return os.open(locks / f"{flat}.lock", os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as error:
            raise InputFileError(
                f"{self.root}: cannot use the redist store ({error.strerror or error})",
                fix=f"make it writable, or set {ENVIRONMENT} to a writable folder",
            ) from None


def _read_marker(path: Path) -> dict[str, Any] | None:
    try:
        record = json.loads(read_bounded(path, limit=64 * 1024))
    except (InputFileError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("layout") != LAYOUT:
        return None
    return record


def _entry(record: Mapping[str, Any], folder: Path) -> Entry:
    return Entry(
        component=str(record["component"]),
        version=str(record["version"]),
        platform=str(record["platform"]),
        sha256=str(record["sha256"]),
        size=int(record["size"]),
        path=folder,
    )


# -- unpacking ------------------------------------------------------------------------------


def _refused(name: str, member: str, problem: str) -> InputFileError:
    return InputFileError(
        f"{name}: refused to unpack {member!r}: {problem}",
        why="an archive may only create files inside its own tree; nothing of it was kept",
        fix="check that the redist base URL (or its mirror) serves NVIDIA's own archives",
    )


def _parts(path: str) -> list[str] | None:
    """The parts of a member path, or None when it is absolute or climbs with '..'."""
    if not path or path.startswith(("/", "\\")) or _DRIVE.match(path) or "\\" in path:
        return None
    parts = [p for p in path.split("/") if p not in {"", "."}]
    return parts if parts and ".." not in parts else None


@dataclass
class _Seen:
    files: set[str]
    links: set[str]
    size: int = 0


def check_member(member: tarfile.TarInfo, seen: _Seen, name: str) -> str:
    """The member's normalised path, or an error: the rules of the module docstring."""
    parts = _parts(member.name)
    if parts is None:
        raise _refused(name, member.name, "an absolute path or one with '..'")
    path = "/".join(parts)
    through = next(
        (
            "/".join(parts[:i])
            for i in range(1, len(parts) + 1)
            if "/".join(parts[:i]) in seen.links
        ),
        None,
    )
    if through is not None:
        raise _refused(name, member.name, f"it would be written through the link {through!r}")
    if member.issym():
        target = posixpath.normpath(posixpath.join(posixpath.dirname(path), member.linkname))
        if member.linkname.startswith("/") or _DRIVE.match(member.linkname):
            raise _refused(name, member.name, f"a link to the absolute path {member.linkname!r}")
        if _parts(target) is None or target.split("/")[0] != parts[0]:
            raise _refused(name, member.name, f"a link out of the archive ({member.linkname!r})")
        seen.links.add(path)
    elif member.islnk():
        target_parts = _parts(member.linkname)
        if target_parts is None or "/".join(target_parts) not in seen.files:
            raise _refused(
                name,
                member.name,
                f"a hard link to {member.linkname!r}, not an earlier file of the archive",
            )
    elif member.isreg():
        seen.size += member.size
        if seen.size > UNPACKED_LIMIT:
            raise _refused(name, member.name, "the archive unpacks to more than 16 GiB")
        seen.files.add(path)
    elif not member.isdir():
        raise _refused(name, member.name, "a device file, FIFO or other special file")
    return path


def unpack(archive: Path, destination: Path, name: str) -> tuple[str, int]:
    """Unpack the .tar.xz `archive` into the new folder `destination`.

    Returns the archive's top folder (``cuda_nvcc-linux-x86_64-12.4.131-archive``), or "."
    when it has several, and the bytes of its files.
    """
    if not name.endswith(".tar.xz"):
        raise InputFileError(
            f"{name}: poetry-cuda unpacks .tar.xz archives only",
            why="NVIDIA's Windows archives are .zip files, which this version does not unpack",
            fix='use toolkit = "system" on Windows',
        )
    import tarfile  # here, not at the top: the commands that find a toolkit unpacked never need it

    # Python 3.12 (and the security releases 3.10.12 and 3.11.4) filter what tarfile
    # extracts; the "data" filter also drops owners and set-user-ID bits, as `_plain` does
    # without it.
    extract: dict[str, Any] = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
    destination.mkdir(parents=True)
    seen = _Seen(set(), set())
    tops: set[str] = set()
    try:
        with tarfile.open(archive, "r:xz") as tar:
            for member in tar:
                path = check_member(member, seen, name)
                tops.add(path.split("/")[0])
                tar.extract(member if extract else _plain(member), destination, **extract)
    except (tarfile.TarError, EOFError, OSError) as error:
        raise InputFileError(
            f"{name}: cannot unpack the archive ({error.__class__.__name__}: {error})",
            why="its sha256 matched, so the archive itself is not what NVIDIA's tools write",
            fix="check that the redist base URL (or its mirror) serves NVIDIA's own archives",
        ) from None
    root = os.path.realpath(destination)
    for link in sorted(seen.links):
        # A link may resolve through links before it: judge where it really leads.
        resolved = os.path.realpath(destination / link)
        top = str(Path(root) / link.split("/")[0])
        if os.path.commonpath([resolved, top]) != top:
            raise _refused(name, link, "a link that resolves out of the archive")
    only = next(iter(tops)) if len(tops) == 1 else "."
    return (only if (destination / only).is_dir() else "."), seen.size


def _plain(member: tarfile.TarInfo) -> tarfile.TarInfo:  # pragma: no cover - older Pythons
    """The member owned by whoever unpacks it, without set-user-ID, set-group-ID or sticky."""
    member.uid, member.gid = getattr(os, "getuid", int)(), getattr(os, "getgid", int)()
    member.uname = member.gname = ""
    member.mode &= 0o755
    return member
