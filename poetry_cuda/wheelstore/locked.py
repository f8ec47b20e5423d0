"""What poetry.lock installs into one environment: each package's wheel, its sha256, and
where it comes from.

Poetry 2 installs from a lock of format 2.1 without resolving: a package is installed when
one of the groups installed lists it and its marker for that group holds in the
environment (extras included); of its locked files it takes the wheel whose tags the
interpreter supports best. This reader does the same on the parsed lock and the
interpreter's facts, so the store links exactly the files `poetry install` would install.
What the store cannot install is listed with the reason, for Poetry's own installer: a
package with no wheel for this interpreter (built from its sdist), a directory or VCS
dependency. A lock that installs two versions of one distribution here is refused. The reader moves to the Poetry backend's lock reader when `sync` uses it.
"""

from __future__ import annotations

import json

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import Literal

from packaging.utils import InvalidWheelFilename
from packaging.utils import parse_wheel_filename

from poetry_cuda.errors import ConfigError
from poetry_cuda.locking.duplicates import Environment
from poetry_cuda.locking.duplicates import holds
from poetry_cuda.names import canonical_name
from poetry_cuda.records import frozen
from poetry_cuda.wheelstore.store import Wheel


if TYPE_CHECKING:
    from collections.abc import Collection
    from collections.abc import Mapping

    from poetry_cuda.wheelstore.install import Interpreter


PYPI = "https://pypi.org/simple/"
MAIN = "main"


@frozen
class Origin:
    """Where a locked wheel comes from: an index (its simple URL; `source` its name in
    pyproject.toml, "" for PyPI), a URL, or a file on this machine."""

    kind: Literal["index", "url", "file"]
    url: str
    source: str = ""


@frozen
class LockedWheel:
    """One package's wheel for this environment, as poetry.lock records it."""

    name: str
    version: str
    wheel: Wheel
    origin: Origin
    direct_url: str | None  # what Poetry writes into direct_url.json; None for an index


@frozen
class Skipped:
    """A locked package the store leaves to Poetry's installer, and why."""

    name: str
    version: str
    why: str


@frozen
class Selection:
    wheels: tuple[LockedWheel, ...]
    skipped: tuple[Skipped, ...]


def select(
    lock: Mapping[str, Any],
    where: Interpreter,
    *,
    project: Path,
    groups: Collection[str] = (MAIN,),
    extras: Collection[str] = (),
) -> Selection:
    """The wheels `lock` (a parsed poetry.lock) installs into `where` with `groups` and
    `extras`; `project` is the folder of the lock (file dependencies are relative to it)."""
    version = str(lock.get("metadata", {}).get("lock-version", ""))
    if _older(version, "2.1"):
        raise ConfigError(
            f"{project / 'poetry.lock'}: lock format {version or 'unknown'}; the shared store "
            "installs from format 2.1",
            why="format 2.1 (Poetry 2) records where each package is installed; older "
            "files need Poetry's resolver at every install",
            fix='run `poetry lock` with Poetry 2, or use install = "copy"',
        )
    environment = Environment(
        dict(where.markers),
        frozenset(canonical_name(e) for e in extras),
        frozenset(canonical_name(g) for g in groups),
    )
    wheels: list[LockedWheel] = []
    skipped: list[Skipped] = []
    ranks = {tag: rank for rank, tag in enumerate(where.tags)}
    for package in lock.get("package", []):
        if not isinstance(package, dict) or not _installed(package, environment):
            continue
        name, version = str(package["name"]), str(package["version"])
        origin = _origin(package, project)
        if isinstance(origin, str):
            skipped.append(Skipped(name, version, origin))
            continue
        chosen = _best_wheel(package.get("files", []), ranks)
        if chosen is None:
            skipped.append(
                Skipped(name, version, "no wheel for this interpreter: Poetry builds it")
            )
            continue
        filename, sha256 = chosen
        url = _direct_url(origin, sha256)
        wheels.append(LockedWheel(name, version, Wheel(filename, sha256), origin, url))
    _refuse_twice(wheels, project)
    return Selection(tuple(wheels), tuple(skipped))


def _refuse_twice(wheels: list[LockedWheel], project: Path) -> None:
    """A lock that installs two versions of one distribution here is refused: both would
    be written into the same files (what Poetry's own installer does with such a lock)."""
    seen: dict[str, LockedWheel] = {}
    for item in wheels:
        other = seen.setdefault(canonical_name(item.name), item)
        if other is not item:
            raise ConfigError(
                f"{project / 'poetry.lock'} installs {item.name} twice on this machine: "
                f"{other.version} and {item.version}",
                why="two versions of one distribution share their files; installed together, "
                "what is left matches neither",
                fix="run `poetry cuda lock`, which names the pin that keeps one of them",
            )


def _older(version: str, than: str) -> bool:
    try:
        return tuple(int(p) for p in version.split(".")) < tuple(int(p) for p in than.split("."))
    except ValueError:
        return True


def _installed(package: Mapping[str, Any], environment: Environment) -> bool:
    """Poetry's rule: a group installed lists the package, and its marker for one such
    group holds (extras included)."""
    listed = {canonical_name(g) for g in package.get("groups", []) if isinstance(g, str)}
    chosen = listed & environment.groups
    if not chosen:
        return False
    markers = package.get("markers")
    if markers is None:
        return True
    if isinstance(markers, str):
        return holds(markers, environment)
    if isinstance(markers, dict):
        by_group = {canonical_name(str(g)): m for g, m in markers.items()}
        return any(
            not isinstance(by_group.get(group), str) or holds(by_group[group], environment)
            for group in chosen
        )
    return True


def _origin(package: Mapping[str, Any], project: Path) -> Origin | str:
    """Where the package comes from, or why the store leaves it to Poetry."""
    source = package.get("source")
    if not isinstance(source, dict):
        return Origin("index", PYPI)
    kind, url = source.get("type"), source.get("url")
    if not isinstance(url, str):
        return f"a {kind} dependency without a URL: Poetry installs it"
    if kind == "legacy":
        return Origin("index", url, str(source.get("reference", "")))
    if kind == "url":
        return Origin("url", url)
    if kind == "file":
        return Origin("file", str((project / url).absolute()))
    return f"a {kind} dependency: Poetry installs it"


def _best_wheel(files: object, ranks: Mapping[str, int]) -> tuple[str, str] | None:
    """The locked wheel Poetry's installer would choose: the one whose best tag comes first
    among the interpreter's, then the highest build tag; None when no wheel fits."""
    best: tuple[tuple[int, int], str, str] | None = None
    for item in files if isinstance(files, list) else []:
        if not isinstance(item, dict):
            continue
        filename, hashed = item.get("file"), item.get("hash")
        if not isinstance(filename, str) or not isinstance(hashed, str):
            continue
        if not filename.endswith(".whl") or not hashed.startswith("sha256:"):
            continue
        try:
            _, _, build, tags = parse_wheel_filename(filename)
        except InvalidWheelFilename:
            continue
        rank = min((ranks[str(t)] for t in tags if str(t) in ranks), default=None)
        if rank is None:
            continue
        key = (rank, -(build[0] if build else 0))
        if best is None or key < best[0]:
            best = (key, filename, hashed.removeprefix("sha256:"))
    return None if best is None else (best[1], best[2])


def direct_url(url: str, sha256: str) -> str:
    """The ``direct_url.json`` Poetry writes for a wheel installed from `url` (a URL, or a
    local file's ``file:`` URL) with that sha256."""
    return json.dumps({"url": url, "archive_info": {"hashes": {"sha256": sha256}}})


def _direct_url(origin: Origin, sha256: str) -> str | None:
    if origin.kind == "url":
        return direct_url(origin.url, sha256)
    if origin.kind == "file":
        return direct_url(Path(origin.url).as_uri(), sha256)
    return None
