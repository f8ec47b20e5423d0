"""Stored wheels installed into an environment, file for file as Poetry installs them.

Poetry installs a wheel with pypa/installer (a dependency of Poetry, so present wherever a
Poetry project is installed): files by their scheme (the archive's root to purelib or
platlib as its WHEEL says, ``<name>.data/<scheme>/`` to that scheme), ``#!python`` in a
``scripts`` file replaced by the environment's interpreter, a launcher for each console
and GUI entry point, ``INSTALLER`` holding ``Poetry <version>``, and RECORD last, every
file with its sha256 and size, sorted. For a dependency given by URL or file it then
writes PEP 610's ``direct_url.json`` and appends it to RECORD. This module runs the same
installer, with its own wheel source (a store entry instead of an archive) and destination
(which links each file from the store instead of writing it), so the result is Poetry's
byte for byte, down to the launchers on Windows; only the files the installer writes
itself (rewritten scripts, launchers, INSTALLER, RECORD) are written.

`interpreter` asks an environment's Python, once, what Poetry asks it: its install
paths, its supported wheel tags and its marker values. `install` brings the environment
to a set of stored wheels: a distribution already installed from the same entry is kept
(its files checked against the store: one ``lstat`` each; a path several wheels hold, as
``nvidia/__init__.py``, by its bytes), another version or a copy is
uninstalled as Poetry's own uninstaller does and the entry linked in its place, and the
distributions named to remove are uninstalled. A wheel that fails half-way is removed
again, so no half-installed distribution is left behind.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import json
import os
import re
import secrets
import shutil
import stat
import subprocess
import sys

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import BinaryIO
from typing import cast

from installer import install as install_wheel
from installer.destinations import SchemeDictionaryDestination
from installer.exceptions import InvalidWheelSource
from installer.records import Hash
from installer.records import RecordEntry
from installer.sources import WheelSource
from installer.utils import SCHEME_NAMES
from installer.utils import parse_wheel_filename

from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import UnmetRequirementError
from poetry_cuda.messages import message
from poetry_cuda.names import canonical_name
from poetry_cuda.records import frozen
from poetry_cuda.wheelstore.link import Linker
from poetry_cuda.wheelstore.link import same
from poetry_cuda.wheelstore.record import parse
from poetry_cuda.wheelstore.record import record_hash


if TYPE_CHECKING:
    from collections.abc import Collection
    from collections.abc import Iterator
    from collections.abc import Mapping
    from collections.abc import Sequence

    from installer.scripts import LauncherKind
    from installer.utils import Scheme

    from poetry_cuda.wheelstore.link import Mode
    from poetry_cuda.wheelstore.store import Entry
    from poetry_cuda.wheelstore.store import StoredFile


INSTALL_SCHEMES = ("purelib", "platlib", "scripts", "data", "include")  # where wheels go
# Wheels linked at once: a few threads overlap one wheel's Python work with another's
# system calls; more only contend for the GIL and the kernel's folder locks.
WORKERS = min(4, os.cpu_count() or 1)
_PYTHON = re.compile(r"python(?:\d+(?:\.\d+)?)?(?:\.exe)?$")
# Run by the environment's Python: packaging's tags and markers, loaded from the packaging
# that poetry-cuda runs with (the environment may have none), as Poetry does.
_PROBE = """\
import importlib.util, json, sys, sysconfig
def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
load("packaging", sys.argv[1] + "/__init__.py")
tags = load("packaging.tags", sys.argv[1] + "/tags.py")
markers = load("packaging.markers", sys.argv[1] + "/markers.py")
print(json.dumps({
    "tags": [str(tag) for tag in tags.sys_tags()],
    "markers": markers.default_environment(),
    "paths": sysconfig.get_paths(),
    "version": list(sys.version_info[:2]),
    "prefix": sys.prefix,
    "base_prefix": getattr(sys, "base_prefix", sys.prefix),
}))
"""


@frozen
class Interpreter:
    """What an environment's Python says about itself, as Poetry's installer uses it."""

    root: Path  # the environment
    python: Path  # what scripts' shebangs name: the first python* in its scripts folder
    paths: Mapping[str, str]  # purelib, platlib, scripts, data, include
    tags: tuple[str, ...]  # the wheel tags it supports, best first
    markers: Mapping[str, str]  # its PEP 508 marker values
    version: tuple[int, int]

    @property
    def site_packages(self) -> tuple[Path, ...]:
        """Where dist-info folders live (purelib, then platlib where it differs)."""
        return tuple(dict.fromkeys(Path(self.paths[k]) for k in ("purelib", "platlib")))


@frozen
class Wanted:
    """A stored wheel to install, and the ``direct_url.json`` Poetry writes for it (for a
    dependency given by URL or file; None for one from an index)."""

    entry: Entry
    direct_url: str | None = None
    origin: str = ""  # where the wheel came from (its index, URL or file), for messages


@frozen
class Installed:
    """What `install` did."""

    installed: tuple[str, ...]  # "name version" of each distribution linked in
    kept: tuple[str, ...]  # already installed from the store
    removed: tuple[str, ...]  # uninstalled (replaced versions and those asked to go)
    mode: Mode  # how files were placed
    reason: str  # why they were copied, when they were
    copied: int  # files copied although the mode links
    placed: int = 0  # files placed from the store (linked, cloned or copied)


def interpreter(environment: Path) -> Interpreter:
    """Ask `environment`'s Python what Poetry's installer needs to know (one process)."""
    import packaging

    scripts = environment / ("Scripts" if sys.platform == "win32" else "bin")
    names = sorted(p.name for p in scripts.glob("python*") if _PYTHON.fullmatch(p.name))
    if not names:
        raise InputFileError(
            f"{environment}: no Python in {scripts.name}",
            why="the shared store installs into the project's own virtual environment",
            fix="let Poetry create it (`poetry env use python3`), then run again",
        )
    python = scripts / names[0]
    folder = Path(packaging.__file__).parent
    try:
        done = subprocess.run(
            [str(python), "-I", "-c", _PROBE, str(folder)],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
        facts: dict[str, Any] = json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError) as error:
        raise InputFileError(
            f"{python}: cannot ask the environment's Python about itself ({error})",
            fix="recreate the environment (`poetry env remove --all`, then install again)",
        ) from None
    paths = dict(facts["paths"])
    major, minor = facts["version"]
    if facts["prefix"] != facts["base_prefix"]:
        # Poetry's include folder for a virtual environment (pip's too).
        paths["include"] = str(environment / "include" / "site" / f"python{major}.{minor}")
    return Interpreter(
        root=environment,
        python=python,
        paths=paths,
        tags=tuple(facts["tags"]),
        markers=dict(facts["markers"]),
        version=(major, minor),
    )


def install(
    where: Interpreter,
    wanted: Sequence[Wanted],
    *,
    installer: str,
    remove: Collection[str] = (),
    linker: Linker | None = None,
) -> Installed:
    """Bring `where` to `wanted`, and uninstall the distributions named in `remove` that
    `wanted` does not list. `installer` is what INSTALLER holds (``Poetry 2.5.1``)."""
    for item in wanted:  # before anything is read or uninstalled
        _StoredWheel(item.entry).check(item)
    linker = linker or Linker()
    present = _present(where)
    listed = {canonical_name(item.entry.name) for item in wanted}
    # Only a distribution already installed is checked against the paths wheels share: in
    # a new environment, walking every wheel's paths for them would be wasted.
    shared = _shared_targets(where, wanted) if listed & present.keys() else frozenset()
    plans: list[Wanted] = []
    kept: list[str] = []
    doomed: list[Path] = []
    for item in wanted:
        name = canonical_name(item.entry.name)
        found = present.get(name, [])
        if len(found) == 1 and _intact(found[0], item, where, installer, shared):
            kept.append(f"{item.entry.name} {item.entry.version}")
            continue
        doomed += found
        plans.append(item)
    for name in sorted({canonical_name(n) for n in remove} - listed):
        doomed += present.get(name, [])
    removed = [uninstall(dist_info, where) for dist_info in doomed]
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        done = list(pool.map(lambda item: _install_one(item, where, installer, linker), plans))
    return Installed(
        installed=tuple(done),
        kept=tuple(kept),
        removed=tuple(removed),
        mode=linker.mode,
        reason=linker.reason,
        copied=linker.copied,
        placed=linker.placed,
    )


# -- what is installed ----------------------------------------------------------------------


def _present(where: Interpreter) -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    for site in where.site_packages:
        with contextlib.suppress(OSError), os.scandir(site) as entries:
            for item in entries:
                if item.name.endswith(".dist-info") and item.is_dir(follow_symlinks=False):
                    name = item.name.removesuffix(".dist-info").rsplit("-", 1)[0]
                    found.setdefault(canonical_name(name), []).append(Path(item.path))
    return found


def _shared_targets(where: Interpreter, wanted: Sequence[Wanted]) -> frozenset[str]:
    """The paths in `where` that more than one of the `wanted` wheels places."""
    seen: Counter[str] = Counter()
    for item in wanted:
        source = _StoredWheel(item.entry)
        destination = _destination(where, source, Linker())
        seen.update({destination.target(scheme, rel) for _, scheme, rel in source.placed()})
    return frozenset(target for target, count in seen.items() if count > 1)


def _intact(
    dist_info: Path, item: Wanted, where: Interpreter, installer: str, shared: frozenset[str]
) -> bool:
    """Whether `dist_info` is `item`'s entry as `install` leaves it: the same version and
    INSTALLER, its direct_url.json as wanted, every RECORD row present with its size, and
    each file placed from the store still the stored file (for a path in `shared`, which
    another wheel may have placed last, a file of the stored bytes)."""
    entry = item.entry
    source = _StoredWheel(entry)
    if dist_info.name != source.dist_info_dir:
        return False
    try:
        if (dist_info / "INSTALLER").read_text(encoding="utf-8") != installer:
            return False
        direct = dist_info / "direct_url.json"
        if (direct.read_text(encoding="utf-8") if direct.exists() else None) != item.direct_url:
            return False
        rows = parse((dist_info / "RECORD").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    base = dist_info.parent
    for row in rows:
        if row.size is None:
            continue
        try:
            if os.stat(os.path.join(base, row.path)).st_size != row.size:  # noqa: PTH116, PTH118
                return False
        except OSError:
            return False
    destination = _destination(where, source, Linker())
    for path, scheme, relative in source.placed():
        target = destination.target(scheme, relative)
        try:
            info = os.lstat(target)
            if not same(os.lstat(entry.tree / path), info) and not (
                target in shared and _same_bytes(target, info, entry.files[path])
            ):
                return False
        except OSError:
            return False
    return True


def _same_bytes(target: str, info: os.stat_result, stored: StoredFile) -> bool:
    """Whether `target` holds the stored file's bytes although it is another file: a path
    several wheels hold (``nvidia/__init__.py`` in every nvidia-* wheel), which the wheel
    linked last placed."""
    if not stat.S_ISREG(info.st_mode) or info.st_size != stored.size:
        return False
    digest = hashlib.sha256()
    with open(target, "rb") as handle:  # noqa: PTH123 - one call per file
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return record_hash(digest.digest()) == stored.hash


# -- installing one wheel -------------------------------------------------------------------


def _install_one(item: Wanted, where: Interpreter, installer: str, linker: Linker) -> str:
    source = _StoredWheel(item.entry)
    destination = _destination(where, source, linker)
    try:
        install_wheel(source, destination, {"INSTALLER": installer.encode("utf-8")})
        if item.direct_url is not None:
            dist_info = destination.target(source.root_scheme, source.dist_info_dir)
            _write_direct_url(Path(dist_info), item.direct_url)
    except BaseException as error:
        destination.undo()
        if isinstance(error, InvalidWheelSource):
            problem = error.args[-1] if error.args else error
            raise invalid_wheel(item, str(problem)) from None
        if isinstance(error, OSError):
            raise UnmetRequirementError(
                f"{item.entry.filename}: cannot install into {where.root} "
                f"({error.strerror or error})",
                why="nothing of it was left installed",
                fix="check the environment's permissions and free space, then run again",
            ) from None
        raise
    return f"{item.entry.name} {item.entry.version}"


def invalid_wheel(item: Wanted, problem: str) -> InputFileError:
    """A stored wheel that pypa/installer (and so pip and Poetry) refuses to install."""
    return InputFileError(
        message(
            "store.invalid-wheel",
            wheel=item.entry.filename,
            origin=item.origin or "its source",
            problem=problem,
        ),
        why=message("store.invalid-wheel-why"),
        fix=message("store.invalid-wheel-fix", name=item.entry.name),
    )


def _write_direct_url(dist_info: Path, text: str) -> None:
    """PEP 610's file, and its RECORD row, as Poetry's executor appends it (csv's default
    dialect: a CRLF line end)."""
    url = dist_info / "direct_url.json"
    url.write_text(text, encoding="utf-8")
    with (dist_info / "RECORD").open(mode="a", encoding="utf-8", newline="") as record:
        csv.writer(record).writerow([str(url.relative_to(dist_info.parent)), "", ""])


def _destination(where: Interpreter, source: _StoredWheel, linker: Linker) -> _Linking:
    scheme = {key: where.paths[key] for key in ("purelib", "platlib", "scripts", "data")}
    scheme["headers"] = str(Path(where.paths["include"]) / source.distribution)
    kind: LauncherKind = "posix" if os.name != "nt" else _launcher()
    return _Linking(scheme, str(where.python), kind, source.entry, linker)


def _launcher() -> LauncherKind:  # pragma: no cover - Windows only
    import platform

    if platform.uname()[4].startswith("arm"):
        return "win-arm64" if sys.maxsize > 2**32 else "win-arm"
    return "win-amd64" if sys.maxsize > 2**32 else "win-ia32"


class _Stored:
    """A stored file as a stream, opened when it is first read (most are linked, unread)."""

    def __init__(self, path: str, key: str) -> None:
        self.path = path
        self.key = key  # its path in the entry
        self._file: BinaryIO | None = None

    @property
    def _opened(self) -> BinaryIO:
        if self._file is None:
            self._file = open(self.path, "rb")  # noqa: PTH123, SIM115 - closed by `close`
        return self._file

    def read(self, size: int = -1) -> bytes:
        return self._opened.read(size)

    def readline(self, size: int = -1) -> bytes:
        return self._opened.readline(size)

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._opened.seek(offset, whence)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


class _StoredWheel(WheelSource):
    """A store entry as pypa/installer's wheel source."""

    def __init__(self, entry: Entry) -> None:
        parsed = parse_wheel_filename(entry.filename)
        super().__init__(distribution=parsed.distribution, version=parsed.version)
        self.entry = entry

    @cached_property
    def dist_info_dir(self) -> str:
        found = {
            p.split("/", 1)[0]
            for p in self.entry.files
            if p.split("/", 1)[0].endswith(".dist-info")
        }
        if len(found) != 1:
            raise InputFileError(
                f"{self.entry.filename}: the wheel holds {len(found)} .dist-info folders",
                why="a wheel holds exactly one, which names the distribution",
                fix="check that the index serves the wheels its project publishes",
            )
        return found.pop()

    @property
    def dist_info_filenames(self) -> list[str]:
        prefix = f"{self.dist_info_dir}/"
        return [p[len(prefix) :] for p in self.entry.files if p.startswith(prefix)]

    def read_dist_info(self, filename: str) -> str:
        return (self.entry.tree / self.dist_info_dir / filename).read_text(encoding="utf-8")

    def get_contents(self) -> Iterator[tuple[tuple[str, str, str], BinaryIO, bool]]:
        tree = str(self.entry.tree)
        for path, stored in self.entry.files.items():
            stream = _Stored(f"{tree}/{path}", path)
            try:
                yield (
                    (path, stored.hash, str(stored.size)),
                    cast("BinaryIO", stream),
                    stored.executable,
                )
            finally:
                stream.close()

    @cached_property
    def root_scheme(self) -> Scheme:
        wheel = self.read_dist_info("WHEEL")
        purelib = re.search(r"^Root-Is-Purelib:\s*true\s*$", wheel, re.MULTILINE | re.IGNORECASE)
        return cast("Scheme", "purelib" if purelib else "platlib")

    def check(self, item: Wanted) -> None:
        """Refuse, before the environment is touched, a wheel whose ``.data`` folder holds
        a folder that is no installation scheme (pypa/installer would stop halfway)."""
        for path, scheme, _ in self.placed():
            if scheme not in SCHEME_NAMES:
                raise invalid_wheel(
                    item,
                    f"{path} is not in a .data folder an installer knows "
                    f"({', '.join(SCHEME_NAMES)})",
                )

    def placed(self) -> Iterator[tuple[str, Scheme, str]]:
        """(stored path, scheme, path in the scheme) of each file linked, not written."""
        record = f"{self.dist_info_dir}/RECORD"
        for path in self.entry.files:
            if path == record or "__pycache__" in path.split("/")[:-1]:
                continue
            if path.startswith(f"{self.data_dir}/"):
                scheme, _, relative = path[len(self.data_dir) + 1 :].partition("/")
                if scheme == "scripts":
                    continue
                yield path, cast("Scheme", scheme), relative
            else:
                yield path, self.root_scheme, path


class _Linking(SchemeDictionaryDestination):
    """pypa/installer's destination, linking what the store holds instead of writing it."""

    def __init__(
        self,
        scheme_dict: dict[str, str],
        interpreter: str,
        script_kind: LauncherKind,
        entry: Entry,
        linker: Linker,
    ) -> None:
        # Poetry's destination writes over a file already there (with a warning), and so
        # does this one: `install` uninstalls what it replaces first.
        super().__init__(scheme_dict, interpreter, script_kind, overwrite_existing=True)
        self.entry = entry
        self.linker = linker
        # Paths as strings: pathlib's objects cost more than the link itself, per file.
        self.written: list[str] = []
        self._folders: set[str] = set()  # made already
        self._roots = {k: os.path.abspath(v) for k, v in scheme_dict.items()}  # noqa: PTH100

    def target(self, scheme: str, path: str) -> str:
        """Where `path` of `scheme` goes; ValueError when outside the scheme's folder."""
        folder = self._roots[scheme]
        target = os.path.abspath(os.path.join(folder, path))  # noqa: PTH100, PTH118
        if target != folder and not target.startswith(folder + os.sep):
            raise ValueError(f"Attempting to write {path} outside of the target directory")
        return target

    def write_file(
        self, scheme: Scheme, path: str | os.PathLike[str], stream: BinaryIO, is_executable: bool
    ) -> RecordEntry:
        if scheme == "scripts" or not isinstance(stream, _Stored):
            return super().write_file(scheme, path, stream, is_executable)
        relative = os.fspath(path)
        target = self.target(scheme, relative)
        parent = os.path.dirname(target)  # noqa: PTH120
        if parent not in self._folders:
            os.makedirs(parent, exist_ok=True)  # noqa: PTH103
            self._folders.add(parent)
        try:
            self.linker.place(stream.path, target)
        except FileExistsError:
            # Poetry's installer writes over it; so does this, by a rename, as another
            # wheel linked at once may hold the same file (nvidia/__init__.py).
            beside = f"{target}.{secrets.token_hex(4)}.tmp"
            self.linker.place(stream.path, beside)
            os.replace(beside, target)  # noqa: PTH105
        self.written.append(target)
        stored = self.entry.files[stream.key]
        return RecordEntry(relative, Hash.parse(stored.hash), stored.size)

    def write_to_fs(
        self, scheme: Scheme, path: str, stream: BinaryIO, is_executable: bool
    ) -> RecordEntry:
        target = Path(self.target(scheme, path))
        with contextlib.suppress(FileNotFoundError):
            if target.is_symlink() or target.stat().st_nlink > 1:
                target.unlink()  # never write through a link into the store
        self.written.append(str(target))
        return super().write_to_fs(scheme, path, stream, is_executable)

    def undo(self) -> None:
        """Remove what this destination wrote (a failed install), and the folders that
        leaves empty below the scheme folders."""
        roots = {Path(p) for p in self._roots.values()}
        written = [Path(p) for p in self.written]
        for path in reversed(written):
            with contextlib.suppress(OSError):
                path.unlink()
        for folder in sorted({p.parent for p in written}, key=lambda p: -len(p.parts)):
            while folder not in roots and folder.parent != folder:
                try:
                    folder.rmdir()
                except OSError:
                    break
                folder = folder.parent


# -- uninstalling ---------------------------------------------------------------------------


def uninstall(dist_info: Path, where: Interpreter) -> str:
    """Remove an installed distribution as Poetry's own uninstaller does: the files its
    RECORD lists inside the environment (and the bytecode of its modules), the folders they
    leave empty below the install folders, and its dist-info folder last. Returns its
    "name version"."""
    protected = {os.path.realpath(p) for p in where.paths.values()} | {os.path.realpath(where.root)}
    # The environment and the folders it installs into, resolved alike: a site-packages
    # linked to a folder outside the environment is still the environment's (the base
    # Python's stdlib, among the paths too, is not).
    owned = [str(where.root), *(where.paths[key] for key in INSTALL_SCHEMES if key in where.paths)]
    prefixes = tuple(os.path.realpath(folder) + os.sep for folder in owned)
    base = dist_info.parent
    try:
        rows = parse((dist_info / "RECORD").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        rows = []
    parents: set[str] = set()
    for row in rows:
        head, tail = os.path.split(os.path.join(base, row.path))  # noqa: PTH118
        path = os.path.join(os.path.realpath(head), tail)  # noqa: PTH118
        if not path.startswith(prefixes) or path.startswith(os.path.realpath(dist_info) + os.sep):
            continue
        targets = [path]
        if path.endswith(".py"):
            cache = os.path.join(os.path.dirname(path), "__pycache__")  # noqa: PTH118, PTH120
            stem = os.path.basename(path)[:-3] + "."  # noqa: PTH119
            with contextlib.suppress(OSError), os.scandir(cache) as found:
                targets += [item.path for item in found if item.name.startswith(stem)]
        for target in targets:
            with contextlib.suppress(FileNotFoundError):
                os.remove(target)  # noqa: PTH107
            parents.add(os.path.dirname(target))  # noqa: PTH120
    for folder in sorted(parents, key=len, reverse=True):
        while folder.startswith(prefixes) and folder not in protected:
            try:
                os.rmdir(folder)  # noqa: PTH106
            except OSError:
                break
            folder = os.path.dirname(folder)  # noqa: PTH120
    name = dist_info.name.removesuffix(".dist-info").replace("-", " ", 1)
    shutil.rmtree(dist_info, ignore_errors=True)
    return name
