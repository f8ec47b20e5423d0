"""Installed files against their RECORD: the corrupted files of installed distributions.

Every installer writes a distribution's RECORD last, after its files, listing each file
with its sha256 and size. So a file is damaged when it is missing, is no regular file, has
another size, or has other contents than recorded; and a file whose modification time is
later than its RECORD's was changed after the install.

The default pass reads no file's contents: one ``lstat`` per file decides, and only the
files changed after the install (size right, modification time later than RECORD's) are
hashed to tell a real change from a touch. For the CUDA libraries of the benchmark's stack
(torch, triton and 15 nvidia-* wheels: 3,900 files, 1.45 GiB) that takes 40 ms, where
hashing every byte (`deep`) takes 2 s with the files in the page cache, and more from disk.
A file rewritten with other bytes of the same size and its old modification time passes
the default pass; `deep` finds it. Missing bytecode (``.pyc``, ``__pycache__``) is no damage:
it is a cache, and virtualenv's own pip lists some it never wrote.

Two versions of one distribution installed together (two dist-info folders of one name,
which a lock that installs both leaves behind) are reported too: their files are shared,
and at most one of them can match.

The judging is pure (`judge`); `check_distribution` and `check_installed` are the I/O edge.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat

from typing import TYPE_CHECKING

from poetry_cuda.messages import Phrase
from poetry_cuda.messages import message
from poetry_cuda.names import canonical_name
from poetry_cuda.records import frozen
from poetry_cuda.wheelstore.record import Row
from poetry_cuda.wheelstore.record import parse
from poetry_cuda.wheelstore.record import record_hash


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterable
    from collections.abc import Mapping
    from collections.abc import Sequence
    from pathlib import Path

    from poetry_cuda.messages import Localized


RECORD = "RECORD"
UNREADABLE = "unreadable"  # in `judge`'s digests: the file could not be read
_CHUNK = 1024 * 1024
_DIST_INFO = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+)\.dist-info$")


@frozen
class Seen:
    """What ``lstat`` found at a recorded path (None there when nothing is there)."""

    size: int
    mtime_ns: int
    regular: bool


@frozen
class Damage:
    """A recorded file that is not as installed."""

    path: str  # as RECORD writes it
    problem: Localized

    def describe(self) -> Phrase:
        return Phrase((self.path, self.problem), ": ")


@frozen
class Checked:
    """One installed distribution, checked."""

    name: str
    version: str
    dist_info: Path
    files: int  # recorded files checked
    hashed: int  # of those, read whole
    damage: tuple[Damage, ...]

    @property
    def sound(self) -> bool:
        return not self.damage


@frozen
class EnvironmentCheck:
    """What `check_installed` found in one site-packages folder."""

    checked: tuple[Checked, ...]
    twice: tuple[tuple[str, tuple[Path, ...]], ...]  # (name, its dist-info folders)

    @property
    def damaged(self) -> list[Checked]:
        return [c for c in self.checked if not c.sound]


# -- the pure core --------------------------------------------------------------------------


def suspects(
    rows: Sequence[Row], seen: Mapping[str, Seen | None], record_mtime_ns: int
) -> list[str]:
    """The recorded paths whose contents must be read to judge them: those with a hash that
    are regular files of the recorded size, changed after RECORD was written."""
    found = []
    for row in rows:
        entry = seen.get(row.path)
        if not row.hash or entry is None or not entry.regular:
            continue
        if (row.size is None or entry.size == row.size) and entry.mtime_ns > record_mtime_ns:
            found.append(row.path)
    return found


def judge(
    rows: Sequence[Row], seen: Mapping[str, Seen | None], digests: Mapping[str, str]
) -> list[Damage]:
    """The damaged files among `rows`: `seen` holds what ``lstat`` found at each path (paths
    not in it were not checked), `digests` the sha256 (RECORD's form) of those read."""
    damage = []
    for row in rows:
        if row.path not in seen:
            continue
        entry = seen[row.path]
        if entry is None:
            if not _is_bytecode(row.path):  # a cache, made again on import
                damage.append(Damage(row.path, message("damage.missing")))
        elif not entry.regular:
            damage.append(Damage(row.path, message("damage.not-regular")))
        elif row.size is not None and entry.size != row.size:
            damage.append(
                Damage(row.path, message("damage.size", size=entry.size, recorded=row.size))
            )
        elif row.path in digests and digests[row.path] == UNREADABLE:
            damage.append(Damage(row.path, message("damage.unreadable")))
        elif row.path in digests and row.hash and digests[row.path] != row.hash:
            damage.append(Damage(row.path, message("damage.contents")))
    return damage


def _is_bytecode(path: str) -> bool:
    return path.endswith(".pyc") or "/__pycache__/" in f"/{path}/"


# -- the I/O edge ---------------------------------------------------------------------------


def check_distribution(dist_info: Path, *, root: Path, deep: bool = False) -> Checked:
    """`dist_info`'s files against its RECORD; `root` is the environment (paths RECORD
    places outside it are not checked)."""
    name, version = _name_version(dist_info)
    try:
        record_info = os.lstat(dist_info / RECORD)
        rows = parse((dist_info / RECORD).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        problem = (
            message("damage.missing")
            if isinstance(error, FileNotFoundError)
            else message("damage.record-unreadable", error=error)
        )
        return Checked(
            name, version, dist_info, 0, 0, (Damage(f"{dist_info.name}/RECORD", problem),)
        )
    # Resolved once: the paths below are judged by their spelling (``..`` removed), one
    # ``lstat`` each, as an installer's RECORD spells them.
    base = os.path.realpath(dist_info.parent)
    prefix = os.path.realpath(root) + os.sep
    seen: dict[str, Seen | None] = {}
    paths: dict[str, str] = {}
    for row in rows:
        if row.path.endswith("/RECORD") and row.path.count("/") == 1:
            continue  # RECORD itself
        path = os.path.normpath(os.path.join(base, row.path))  # noqa: PTH118 - per file
        if not path.startswith(prefix):
            continue
        paths[row.path] = path
        seen[row.path] = _lstat(path)
    chosen = [r.path for r in rows if r.path in seen and r.hash]
    to_read = chosen if deep else suspects(rows, seen, record_info.st_mtime_ns)
    digests = {path: _digest(paths[path]) for path in to_read if seen[path] is not None}
    damage = judge(rows, seen, digests)
    return Checked(name, version, dist_info, len(seen), len(digests), tuple(damage))


def check_installed(
    site_packages: Path,
    *,
    root: Path,
    wanted: Callable[[str], bool] = lambda _: True,
    deep: bool = False,
) -> EnvironmentCheck:
    """Every distribution in `site_packages` whose canonical name `wanted` accepts."""
    by_name: dict[str, list[Path]] = {}
    for folder in _dist_infos(site_packages):
        name = canonical_name(_name_version(folder)[0])
        if wanted(name):
            by_name.setdefault(name, []).append(folder)
    checked = tuple(
        check_distribution(folder, root=root, deep=deep)
        for name in sorted(by_name)
        for folder in by_name[name]
    )
    twice = tuple((name, tuple(found)) for name, found in sorted(by_name.items()) if len(found) > 1)
    return EnvironmentCheck(checked, twice)


def _dist_infos(site_packages: Path) -> Iterable[Path]:
    try:
        with os.scandir(site_packages) as found:
            names = sorted(
                e.name
                for e in found
                if e.name.endswith(".dist-info") and e.is_dir(follow_symlinks=False)
            )
    except OSError:
        return []
    return [site_packages / name for name in names]


def _name_version(dist_info: Path) -> tuple[str, str]:
    matched = _DIST_INFO.match(dist_info.name)
    if matched is None:
        return dist_info.name.removesuffix(".dist-info"), ""
    return matched["name"], matched["version"]


def _lstat(path: str) -> Seen | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return Seen(info.st_size, info.st_mtime_ns, stat.S_ISREG(info.st_mode))


def _digest(path: str) -> str:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:  # noqa: PTH123 - one call per file
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    except OSError:
        return UNREADABLE
    return record_hash(digest.digest())
