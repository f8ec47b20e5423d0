"""The shared per-user store of unpacked redist archives: one copy per machine.

Layout below the root (`default_root`; ``POETRY_CUDA_STORE``, an absolute path, overrides
it)::

    <component>/<version>/<platform>-<sha256[:16]>/
        tree/<component>-<platform>-<version>-archive/...   the unpacked archive
        complete.json                                        what was unpacked
    .tmp/<key>.<random>...    downloads and unpacking under way (or left by a crash)
    .locks/<key>.lock         one lock per archive: concurrent runs take turns
    .projects/<digest>.json   which project uses which archives (`usage`)

An archive is downloaded into ``.tmp``, its sha256 (cuda.lock's) verified before anything
is unpacked, unpacked beside ``complete.json``, and the whole renamed into place, so an
entry is never seen half made. Unpacking refuses members that would land outside the
archive's own tree: absolute paths, ``..``, links whose target is absolute or outside the
tree (after resolving the links before them), anything written through a link, hard
links to anything but an earlier file of the archive, and device files, FIFOs and
sockets. On Python versions with tarfile's extraction filters, the "data" filter applies
on top.

``complete.json`` records the entry's key (component, version, platform, sha256), its
top folder, and its inventory: every folder, every file with its size, sha256, inode
change time and inode, every link with its target. Nothing read from the store is trusted
further than it checks:

* on every use (`ensure`, `holds`, `entries`) the marker's fields must be of their types
  and name the folder it lies in (and the archive asked for); the entry's folders, from
  the store's root down, must be real folders, not links; and its tree, walked without
  following links, must hold exactly the recorded folders, files of the recorded sizes,
  and links with the recorded targets, each resolving inside its archive's top folder.
  That is one ``lstat`` per file: about 20 ms for the five archives of CUDA 13's nvcc
  (1,900 files) on a small machine, cheap enough for every `env` and `run`. A file
  written in place keeps its size and, if its writer wants, its modification time, but
  gets a new inode change time, which no user can set back: a file whose inode or inode
  change time is not the recorded one is read whole against its sha256 (`unsealed`, the
  rule the wheel store shares). The same bytes (a ``chmod``) are sealed into the marker
  again (`_seal`, atomically, under the entry's lock); other bytes damage the entry.
* before an entry is linked into a project's CUDA_HOME (`ensure` with `contents`, which
  assembly asks for) every file's sha256 is checked too. That reads every byte (about
  210 MiB for CUDA 13's nvcc: a quarter of a second from the disk cache, seconds from a
  cold disk): cheap once per assembly, too dear for every `run`.

An entry that fails is not used: the next run that holds its lock removes it and fetches
it again. A link or a file where the store keeps a folder is removed (the link only, never
what it points to). The store is a folder of its user: whoever can write it can also
change a file and its inventory alike; what these checks ensure is that nothing outside
the store is ever run or linked as a stored archive, and that a damaged, incomplete or
foreign entry is found and replaced.
"""

from __future__ import annotations

import contextlib
import json
import os
import posixpath
import re
import secrets
import shutil
import stat
import sys
import time

from dataclasses import dataclass
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import ProjectBusyError
from poetry_cuda.files import MiB
from poetry_cuda.files import open_lock_file
from poetry_cuda.files import read_bounded
from poetry_cuda.files import try_lock
from poetry_cuda.files import user_cache
from poetry_cuda.records import frozen
from poetry_cuda.redist.fetch import TIMEOUT
from poetry_cuda.redist.fetch import check_url
from poetry_cuda.redist.fetch import download
from poetry_cuda.redist.fetch import join
from poetry_cuda.redist.manifest import check_component
from poetry_cuda.redist.manifest import check_platform
from poetry_cuda.redist.manifest import check_sha256
from poetry_cuda.redist.manifest import check_version


if TYPE_CHECKING:
    import tarfile

    from collections.abc import Callable
    from collections.abc import Iterable
    from collections.abc import Iterator
    from collections.abc import Mapping

    from poetry_cuda.messages import Localized
    from poetry_cuda.redist.manifest import Archive


ENVIRONMENT = "POETRY_CUDA_STORE"
MARKER = "complete.json"
TREE = "tree"
LAYOUT = 3  # 2: the marker holds the entry's inventory; 3: each file's inode time and inode
# Layout 2 is still read: its files count as changed since, so the first use reads them
# whole and seals them in layout 3 instead of fetching the archive again.
_FILE_FIELDS = {2: 2, 3: 4}
MARKER_LIMIT = 64 * MiB  # an inventory takes about 150 bytes a file
LOCK_WAIT = 1800.0  # seconds: another run may be downloading a large archive
UNPACKED_LIMIT = 16 * 1024**3  # bytes per archive; NVIDIA's nvcc unpacks to about 300 MiB
_POLL = 0.1
_CHUNK = 1024 * 1024
_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
_DRIVE = re.compile(r"^[A-Za-z]:")
_PLAIN = re.compile(r"[^/\\\x00]+(?:/[^/\\\x00]+)*")
_FIELDS = {"layout", "component", "version", "platform", "sha256", "size", "root"}
_INVENTORY = {"folders", "files", "links"}

Key = tuple[str, str, str, str]  # component, version, platform, sha256


def default_root(environ: Mapping[str, str], os_name: str, home: Path) -> Path:
    """Where the store lives: POETRY_CUDA_STORE (absolute), else the user's cache folder."""
    value = environ.get(ENVIRONMENT)
    if not value:
        return user_cache(environ, os_name, home) / "redist"
    root = Path(value)
    if not root.is_absolute():
        raise ConfigError(
            f"{ENVIRONMENT}={value!r} is not an absolute path",
            why="the store is shared by every project of this user: a relative path would "
            "name another folder in each project",
            fix=f"set {ENVIRONMENT} to an absolute path (e.g. {root.absolute()}), or unset it "
            f"to use {user_cache(environ, os_name, home) / 'redist'}",
        )
    if root.exists() and not root.is_dir():
        raise ConfigError(
            f"{ENVIRONMENT}={value!r} is not a folder",
            why="the store keeps its archives and wheels in folders below that path; a file "
            "there can hold none",
            fix=f"set {ENVIRONMENT} to a folder (a new one is made), or unset it to use "
            f"{user_cache(environ, os_name, home) / 'redist'}",
        )
    return root


@frozen
class Inventory:
    """What an entry's tree holds, by path below ``tree/`` (``/``-separated)."""

    folders: frozenset[str]
    files: Mapping[str, tuple[int, str]]  # path -> (size, sha256)
    links: Mapping[str, str]  # path -> target
    # path -> (inode change time, inode) of each file as unpacked (`unsealed`)
    sealed: Mapping[str, tuple[int, int]] = MappingProxyType({})


@frozen
class Entry:
    """One complete archive in the store."""

    component: str
    version: str
    platform: str
    sha256: str
    size: int  # bytes of the unpacked files
    path: Path  # the entry's folder
    top: str  # the archive's top folder below tree/, "." when it has several
    inventory: Inventory

    @property
    def key(self) -> Key:
        return (self.component, self.version, self.platform, self.sha256)

    @property
    def tree(self) -> Path:
        """The unpacked archive: its top folder."""
        return self.path / TREE / self.top


def _key(archive: Archive) -> Key:
    parts = (archive.component, archive.version, archive.platform)
    try:
        check_component(archive.component)
        check_version(archive.version)
        check_platform(archive.platform)
        check_sha256(archive.sha256)
    except ValueError as error:
        raise InputFileError(
            f"{archive.component} {archive.version} {archive.platform}: not a name the store "
            f"can file ({error})",
            why="the store's folders are named by component, version, platform and sha256",
            fix="check the archive's record (cuda.lock or the manifest)",
        ) from None
    return (*parts, archive.sha256)


def _flat(key: Key) -> str:
    component, version, platform, sha256 = key
    return f"{component}-{version}-{platform}-{sha256[:16]}"


def _name(key: Key) -> str:
    """The entry's folder name, below <component>/<version>."""
    return f"{key[2]}-{key[3][:16]}"


class Store:
    """The store at `root` (created on first use)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def default(cls) -> Store:
        os_name = "windows" if sys.platform == "win32" else "posix"
        return cls(default_root(os.environ, os_name, Path.home()))

    def folder(self, archive: Archive) -> Path:
        key = _key(archive)
        return self.root / key[0] / key[1] / _name(key)

    def holds(self, archive: Archive) -> bool:
        """Whether `archive` is stored, complete and as recorded."""
        return self._verified(archive, contents=False) is not None

    def ensure(
        self, archive: Archive, base_url: str, *, contents: bool = False, timeout: float = TIMEOUT
    ) -> Path:
        """The unpacked tree of `archive`, fetched from `base_url` unless stored and sound.

        With `contents`, a stored entry's files are checked against their sha256 too (before
        they are linked into a CUDA_HOME).
        """
        found = self._verified(archive, contents=contents)
        if found is not None:
            return found.tree
        url = join(check_url(base_url), archive.relative_path)
        with self._locked(_key(archive)):
            found = self._verified(archive, contents=contents)  # another run may have made it
            if found is not None:
                return found.tree
            self._clear(_key(archive))
            return self._add(archive, url, timeout).tree

    def entries(self) -> list[Entry]:
        """The complete entries that pass the checks of every use, in name order."""
        found = []
        for folder in self._entry_folders():
            with contextlib.suppress(InputFileError):
                found.append(self._checked(folder, contents=False)[0])
        return found

    def verify(self) -> list[tuple[Path, tuple[Localized, ...]]]:
        """Every entry read whole against the sha256 recorded when it was unpacked (`store
        --verify`): the folder and problem of each damaged one."""
        found: list[tuple[Path, tuple[Localized, ...]]] = []
        for folder in self._entry_folders():
            try:
                self._checked(folder, contents=True)
            except InputFileError as error:
                found.append((folder, (error.said,)))
        return found

    def prune(self, keep: Iterable[Archive]) -> list[Entry]:
        """Remove every entry not in `keep`, damaged entries and abandoned temporaries;
        return the entries removed."""
        return self._prune({_key(archive) for archive in keep})

    def prune_entries(self, keep: Iterable[Entry]) -> list[Entry]:
        """`prune`, keeping the entries listed (`store --prune`: those a project uses)."""
        return self._prune({entry.key for entry in keep})

    def _prune(self, kept: set[Key]) -> list[Entry]:
        removed = []
        for entry in self.entries():
            if entry.key in kept:
                continue
            with self._locked(entry.key):
                self._discard(entry.path, _flat(entry.key))
            removed.append(entry)
        for folder in self._entry_folders():
            # A folder that fails the checks (damaged, or of an older layout), unless
            # another run holds it: checked again under its lock.
            flat = f"{folder.parent.parent.name}-{folder.parent.name}-{folder.name}"
            if not self._sound(folder):
                with self._locked_if_free(flat) as free:
                    if free and not self._sound(folder):
                        self._discard(folder, flat)
        for key in sorted({name.rsplit(".", 2)[0] for name in self._temporaries()}):
            with self._locked_if_free(key) as free:
                if free:
                    self._clear_flat(key)
        return removed

    # -- checking an entry ------------------------------------------------------------------

    def _verified(self, archive: Archive, *, contents: bool) -> Entry | None:
        """The entry of `archive` if it passes the checks of the module docstring."""
        try:
            entry, stale = self._checked(self.folder(archive), contents=contents)
        except InputFileError:
            return None
        if entry.key != _key(archive):
            return None
        return self._seal(entry, stale) if stale else entry

    def _seal(self, entry: Entry, stale: Mapping[str, os.stat_result]) -> Entry:
        """`entry` with the inode times and inodes of the `stale` files (read whole and found
        as unpacked) recorded, its marker replaced atomically under its lock; `entry`
        unchanged when another run holds the lock, the store is read-only, or a file changed
        again since (the next use reads it whole again)."""
        flat = _flat(entry.key)
        with contextlib.suppress(OSError, InputFileError), self._locked_if_free(flat) as free:
            if not free:
                return entry
            sealed = dict(entry.inventory.sealed)
            tree = entry.path / TREE
            for path, seen in stale.items():
                now = os.lstat(tree / path)
                if (now.st_ctime_ns, now.st_ino) != (seen.st_ctime_ns, seen.st_ino):
                    return entry
                sealed[path] = (now.st_ctime_ns, now.st_ino)
            resealed = replace(entry, inventory=replace(entry.inventory, sealed=sealed))
            temporary = self._own(".tmp") / f"{flat}.{secrets.token_hex(4)}.marker"
            temporary.write_bytes(render_marker(resealed))
            temporary.replace(entry.path / MARKER)
            return resealed
        return entry

    def _checked(self, folder: Path, *, contents: bool) -> tuple[Entry, dict[str, os.stat_result]]:
        """The entry in `folder`, checked, and its files `check_tree` read whole because they
        changed since they were sealed; InputFileError saying what is wrong."""
        if not self._inside(folder):
            raise _damaged(folder, "a link leads into or out of the store on its way")
        entry = read_marker(folder)
        if (entry.component, entry.version, _name(entry.key)) != folder.relative_to(
            self.root
        ).parts:
            raise _damaged(folder, f"its {MARKER} records another archive")
        return entry, check_tree(entry, contents=contents)

    def _entry_folders(self) -> list[Path]:
        """The real folders at <component>/<version>/<name>, sound or not."""
        return [
            entry
            for component in _folders(self.root)
            for version in _folders(component)
            for entry in _folders(version)
        ]

    # -- the steps of `ensure` --------------------------------------------------------------

    def _add(self, archive: Archive, url: str, timeout: float) -> Entry:
        key = _key(archive)
        flat = _flat(key)
        temporary = self._own(".tmp")
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
            top, _ = unpack(downloaded, staging / TREE, archive.file_name)
            folder = self.root / key[0] / key[1] / _name(key)
            found, _ = inventory(staging / TREE, hashed=True)
            size = sum(file_size for file_size, _ in found.files.values())
            entry = Entry(*key, size, folder, top, found)
            (staging / MARKER).write_bytes(render_marker(entry))
            self._own(key[0], key[1])
            staging.rename(folder)  # the entry appears whole, its marker in it
            return entry
        finally:
            downloaded.unlink(missing_ok=True)
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)

    def _own(self, *parts: str) -> Path:
        return own_folder(self.root, *parts)

    def _clear(self, key: Key) -> None:
        """Remove what an interrupted run or a damaged entry left for `key` (its lock is
        held). Only inside the store: behind a link on the way there is someone else's
        folder, and `_add` replaces the link itself."""
        folder = self.root / key[0] / key[1] / _name(key)
        if self._inside(folder.parent) and os.path.lexists(folder):
            if stat.S_ISDIR(os.lstat(folder).st_mode):
                self._discard(folder, _flat(key))
            else:
                folder.unlink()
        self._clear_flat(_flat(key))

    def _inside(self, path: Path) -> bool:
        """Whether `path` below the root is reached without following a link."""
        relative = path.relative_to(self.root).parts
        return Path(os.path.realpath(path)) == Path(os.path.realpath(self.root)).joinpath(*relative)

    def _sound(self, folder: Path) -> bool:
        try:
            self._checked(folder, contents=False)
        except InputFileError:
            return False
        return True

    def _clear_flat(self, flat: str) -> None:
        for name in self._temporaries():
            if name.startswith(f"{flat}."):
                path = self.root / ".tmp" / name
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)

    def _temporaries(self) -> list[str]:
        """The names in ``.tmp``; a link there is removed, not followed."""
        if not os.path.lexists(self.root / ".tmp"):
            return []
        return sorted(entry.name for entry in self._own(".tmp").iterdir())

    def _discard(self, folder: Path, flat: str) -> None:
        """Remove an entry: renamed away first, so that it is gone at once, whole."""
        doomed = self._own(".tmp") / f"{flat}.{secrets.token_hex(4)}.old"
        folder.rename(doomed)
        shutil.rmtree(doomed, ignore_errors=True)

    # -- locks ------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self, key: Key) -> Iterator[None]:
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
        try:
            return open_lock_file(self._own(".locks") / f"{flat}.lock")
        except OSError as error:
            raise InputFileError(
                f"{self.root}: cannot use the redist store ({error.strerror or error})",
                fix=f"make it writable, or set {ENVIRONMENT} to a writable folder",
            ) from None


def own_folder(root: Path, *parts: str) -> Path:
    """The store's folder at `parts` below `root`, each a real folder, made as needed: a
    link or a file where one should be is removed first (only it, never what it points to)."""
    root.mkdir(parents=True, exist_ok=True)
    path = root
    for part in parts:
        path = path / part
        with contextlib.suppress(FileNotFoundError):
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                path.unlink()
        path.mkdir(exist_ok=True)
    return path


def _folders(path: Path) -> list[Path]:
    """The real folders in `path` (no links, no dot folders), in name order."""
    try:
        with os.scandir(path) as found:
            names = [
                e.name
                for e in found
                if e.is_dir(follow_symlinks=False) and not e.name.startswith(".")
            ]
    except OSError:
        return []
    return [path / name for name in sorted(names)]


# -- the marker -----------------------------------------------------------------------------


def _damaged(folder: Path, problem: str) -> InputFileError:
    return InputFileError(
        f"{folder}: not a store entry as poetry-cuda makes them ({problem})",
        why="a stored archive is used only while it is whole and as it was unpacked",
        fix="the next `poetry cuda env`, `run` or `sync` that needs it removes it and fetches "
        "it again; `poetry cuda store --prune` removes it now",
    )


def render_marker(entry: Entry) -> bytes:
    """The ``complete.json`` of `entry`."""
    record = {
        "layout": LAYOUT,
        "component": entry.component,
        "version": entry.version,
        "platform": entry.platform,
        "sha256": entry.sha256,
        "size": entry.size,
        "root": entry.top,
        "folders": sorted(entry.inventory.folders),
        "files": {
            path: [*entry.inventory.files[path], *entry.inventory.sealed.get(path, (0, 0))]
            for path in sorted(entry.inventory.files)
        },
        "links": dict(sorted(entry.inventory.links.items())),
    }
    return json.dumps(record, indent=1).encode() + b"\n"


def read_marker(folder: Path) -> Entry:
    """The entry that ``complete.json`` in `folder` records, its fields checked (not yet
    against the tree: `check_tree`); InputFileError when it is not one."""
    path = folder / MARKER
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            raise _damaged(folder, f"its {MARKER} is not a file")
    except OSError:
        raise _damaged(folder, f"no {MARKER}") from None
    try:
        document = json.loads(read_bounded(path, limit=MARKER_LIMIT))
    except (ValueError, RecursionError):
        raise _damaged(folder, f"its {MARKER} is not JSON") from None
    return parse_marker(document, folder)


def parse_marker(document: object, folder: Path) -> Entry:
    """The entry a parsed ``complete.json`` records; InputFileError unless every field is of
    its type and form."""
    if not isinstance(document, dict):
        raise _damaged(folder, f"its {MARKER} is not a JSON object")
    if set(document) != _FIELDS | _INVENTORY:
        raise _damaged(folder, f"its {MARKER} has other fields than layout {LAYOUT}'s")
    if type(document["layout"]) is not int or document["layout"] not in _FILE_FIELDS:
        raise _damaged(folder, f"its {MARKER} is of another layout than {LAYOUT}")
    checks = {
        "component": check_component,
        "version": check_version,
        "platform": check_platform,
        "sha256": check_sha256,
    }
    for field, check in checks.items():
        value = document[field]
        if not isinstance(value, str):
            raise _damaged(folder, f"{field} is not a string")
        try:
            check(value)
        except ValueError as error:
            raise _damaged(folder, f"{field}: {error}") from None
    top = document["root"]
    if not isinstance(top, str) or not (top == "." or _PART.fullmatch(top)):
        raise _damaged(folder, f"root {top!r} is not one folder name")
    inventory = _parse_inventory(document, folder, _FILE_FIELDS[document["layout"]])
    size = document["size"]
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise _damaged(folder, f"size {size!r} is not a number of bytes")
    if size != sum(file_size for file_size, _ in inventory.files.values()):
        raise _damaged(folder, "size is not the sum of its files' sizes")
    if top != "." and top not in inventory.folders:
        raise _damaged(folder, f"root {top!r} is not among its folders")
    return Entry(
        component=document["component"],
        version=document["version"],
        platform=document["platform"],
        sha256=document["sha256"],
        size=size,
        path=folder,
        top=top,
        inventory=inventory,
    )


def _parse_inventory(document: Mapping[str, Any], folder: Path, fields: int) -> Inventory:
    folders, files, links = document["folders"], document["files"], document["links"]
    if not isinstance(folders, list) or not all(isinstance(f, str) for f in folders):
        raise _damaged(folder, "folders is not a list of paths")
    if not isinstance(files, dict) or not isinstance(links, dict):
        raise _damaged(folder, "files and links are not objects")
    for path in (*folders, *files, *links):
        if not _plain_path(path):
            raise _damaged(folder, f"{path!r} is not a plain relative path")
    sized: dict[str, tuple[int, str]] = {}
    sealed: dict[str, tuple[int, int]] = {}
    for path, value in files.items():
        if (
            not isinstance(value, list)
            or len(value) != fields
            or any(type(v) is not int for v in (value[0], *value[2:]))
            or value[0] < 0
            or not isinstance(value[1], str)
            or not _sha256(value[1])
        ):
            shape = "[size, sha256, ctime, inode]" if fields == 4 else "[size, sha256]"
            raise _damaged(folder, f"files[{path!r}] is not {shape}")
        sized[path] = (value[0], value[1])
        if fields == 4:  # layout 2 never sealed them: read whole at their first use
            sealed[path] = (value[2], value[3])
    for path, target in links.items():
        if not isinstance(target, str) or _escapes(path, target):
            raise _damaged(folder, f"links[{path!r}] leads out of its archive")
    return Inventory(frozenset(folders), sized, dict(links), sealed)


def _plain_path(path: str) -> bool:
    """Whether `path` is relative, without empty, '.' or '..' parts (as `inventory` writes)."""
    return bool(_PLAIN.fullmatch(path)) and "/./" not in f"/{path}/" and "/../" not in f"/{path}/"


def _sha256(text: str) -> bool:
    try:
        check_sha256(text)
    except ValueError:
        return False
    return True


def _escapes(path: str, target: str) -> bool:
    """Whether the link at `path` (below tree/) to `target` leads out of its top folder."""
    if not target or target.startswith(("/", "\\")) or _DRIVE.match(target) or "\\" in target:
        return True
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
    return _parts(resolved) is None or resolved.split("/")[0] != path.split("/")[0]


# -- checking the tree ----------------------------------------------------------------------


def inventory(tree: Path, *, hashed: bool) -> tuple[Inventory, dict[str, os.stat_result]]:
    """What `tree` holds, walked without following links; files' sha256 when `hashed`
    (else empty); and each file's ``lstat``."""
    folders: set[str] = set()
    files: dict[str, tuple[int, str]] = {}
    links: dict[str, str] = {}
    seen: dict[str, os.stat_result] = {}
    pending = [(tree, "")]
    while pending:
        folder, prefix = pending.pop()
        with os.scandir(folder) as found:
            for item in found:
                path = f"{prefix}{item.name}"
                if item.is_symlink():
                    links[path] = str(Path(item.path).readlink())
                elif item.is_dir(follow_symlinks=False):
                    folders.add(path)
                    pending.append((Path(item.path), f"{path}/"))
                elif item.is_file(follow_symlinks=False):
                    seen[path] = item.stat(follow_symlinks=False)
                    size = seen[path].st_size
                    files[path] = (size, _file_sha256(Path(item.path)) if hashed else "")
                else:
                    raise InputFileError(f"{item.path}: neither a file, a folder nor a link")
    sealed = {path: (info.st_ctime_ns, info.st_ino) for path, info in seen.items()}
    return Inventory(frozenset(folders), files, links, sealed), seen


def unsealed(
    tree: Path,
    seen: Mapping[str, os.stat_result],
    sealed: Mapping[str, tuple[int, int]],
    recorded: Mapping[str, str],
    digest: Callable[[Path], str],
) -> tuple[dict[str, os.stat_result], str | None]:
    """The rule both stores share: a file whose inode or inode change time is not the one
    sealed when it was unpacked was written, linked, chmod'ed or replaced since (no user can
    set that time back), so it is read whole (`digest`) against its `recorded` digest.
    Returns those found as recorded, with their ``lstat`` from before they were read, and
    the first found otherwise (None when none)."""
    stale = {
        path: info
        for path, info in seen.items()
        if (info.st_ctime_ns, info.st_ino) != sealed.get(path)
    }
    for path in sorted(stale):
        if digest(tree / path) != recorded[path]:
            return stale, path
    return stale, None


def check_tree(entry: Entry, *, contents: bool) -> dict[str, os.stat_result]:
    """InputFileError unless `entry`'s tree holds exactly what its marker records, each file
    changed since it was sealed (`unsealed`; with `contents`, every file) of the recorded
    sha256. Returns the files read whole because they changed since and found sound."""
    tree = entry.path / TREE
    try:
        if not stat.S_ISDIR(os.lstat(tree).st_mode):
            raise _damaged(entry.path, f"its {TREE} is not a folder")
        found, seen = inventory(tree, hashed=False)
    except OSError as error:
        raise _damaged(
            entry.path, f"its {TREE} cannot be read ({error.strerror or error})"
        ) from None
    recorded = entry.inventory
    if found.folders != recorded.folders:
        raise _damaged(entry.path, _difference("folders", found.folders, recorded.folders))
    if found.links != recorded.links:
        raise _damaged(entry.path, _difference("links", set(found.links), set(recorded.links)))
    sizes = {path: size for path, (size, _) in recorded.files.items()}
    if {path: size for path, (size, _) in found.files.items()} != sizes:
        raise _damaged(entry.path, _difference("files", set(found.files), set(sizes)))
    real = os.path.realpath(tree)
    for link in recorded.links:
        top = str(Path(real) / link.split("/")[0])
        if os.path.commonpath([os.path.realpath(tree / link), top]) != top:
            raise _damaged(entry.path, f"the link {link!r} resolves out of its archive")
    hashes = {path: sha256 for path, (_, sha256) in recorded.files.items()}
    stale, bad = unsealed(tree, seen, recorded.sealed, hashes, _digest)
    if bad is not None:
        raise _damaged(entry.path, f"{bad} was written after it was unpacked")
    if contents:
        for path, sha256 in hashes.items():
            if path not in stale and _file_sha256(tree / path) != sha256:
                raise _damaged(entry.path, f"{path} is not the file that was unpacked")
    return stale


def _digest(path: Path) -> str:
    try:
        return _file_sha256(path)
    except OSError:
        return ""


def _difference(what: str, found: set[str] | frozenset[str], recorded: Iterable[str]) -> str:
    expected = set(recorded)
    gone, added = sorted(expected - found), sorted(found - expected)
    if gone:
        return f"{what} missing: {', '.join(gone[:3])}" + (" ..." if len(gone) > 3 else "")
    if added:
        return f"{what} not unpacked: {', '.join(added[:3])}" + (" ..." if len(added) > 3 else "")
    return f"{what} changed since they were unpacked"


def _file_sha256(path: Path) -> str:
    import hashlib  # here: only unpacking and assembly hash, `env` and `run` need no digest

    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


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
        if member.linkname.startswith("/") or _DRIVE.match(member.linkname):
            raise _refused(name, member.name, f"a link to the absolute path {member.linkname!r}")
        if _escapes(path, member.linkname):
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
