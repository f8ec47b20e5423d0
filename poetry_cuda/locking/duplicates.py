"""The distributions a lock would install more than once on one target.

Two versions of one distribution in one environment share their files: the installer
writes both, and what is left matches neither wheel. Poetry locks this when two
requirements on one distribution are spelt with markers that mean the same on real
machines but not to its marker algebra: ``sys_platform == "linux"`` and
``platform_system == "Linux"``. Its solver then treats the two as separate platforms,
splits the resolution, and records each version with one spelling; on Linux both apply,
and its parallel installer writes both into the same files (torch 2.15.0 with
``cuda-toolkit[cublas]==13.2.2`` locked nvidia-cublas 13.4.1.3 and 13.10.0.20 so).

Everything here is pure and takes plain values: every locked version with the marker
under which the lock installs it (poetry.lock 2.1 records one per package and group), or
with the dependency edges that lead to it (older poetry.locks, uv.lock), and a target's
marker environment (`environment`: its operating system and machine, a Python version,
the extras and groups installed). `duplicates` lists the distributions installed more
than once there; `intended` names the version every requirement that applies there
admits, which `lock` can pin for that platform, or says why there is none.

The readers of poetry.lock and uv.lock (`from_poetry_lock`, `from_uv_lock`) take parsed
TOML; they move to the package managers' readers in ``backends/`` when `lock`, `lock
--check` and doctor use this module.
"""

from __future__ import annotations

import functools
import platform
import re
import sys

from typing import TYPE_CHECKING
from typing import Any

from packaging.markers import InvalidMarker
from packaging.markers import Marker
from packaging.markers import UndefinedComparison
from packaging.markers import UndefinedEnvironmentName
from poetry.core.constraints.version import Version
from poetry.core.constraints.version import parse_constraint
from poetry.core.constraints.version.exceptions import ParseConstraintError
from poetry.core.version.exceptions import InvalidVersionError

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import DetectionError
from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.errors import ResolutionError
from poetry_cuda.files import read_toml
from poetry_cuda.host.profiles import canonical_machine
from poetry_cuda.host.profiles import host_os
from poetry_cuda.names import canonical_name
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Collection
    from collections.abc import Iterable
    from collections.abc import Mapping
    from collections.abc import Sequence
    from pathlib import Path

    from poetry.core.constraints.version import VersionConstraint

    from poetry_cuda.host.profiles import OperatingSystem
    from poetry_cuda.planning.targets import Target


# The minor versions a lock is checked for when the target names none: those the project
# admits (its requires-python), from the oldest CPython still in use to the newest.
PYTHONS = ("3.9", "3.10", "3.11", "3.12", "3.13", "3.14")
_EXTRA = re.compile(r"""\bextra\s*==\s*["']([^"']+)["']""")
# What each operating system's Python reports (sys.platform, platform.system(), os.name).
_SYSTEMS: dict[str, tuple[str, str, str]] = {
    "linux": ("linux", "Linux", "posix"),
    "windows": ("win32", "Windows", "nt"),
    "macos": ("darwin", "Darwin", "posix"),
}
# platform.machine() for the canonical machines, per operating system.
_MACHINES: dict[tuple[str, str], str] = {
    ("windows", "x86_64"): "AMD64",
    ("windows", "aarch64"): "ARM64",
    ("macos", "aarch64"): "arm64",
}


@frozen
class Edge:
    """A requirement a locked version makes on another distribution.

    `constraint` is the version constraint as the lock writes it (Poetry's syntax or PEP
    440; "" for any version); `marker` where it applies ("" everywhere); `extra` and `group`
    name the extra or dependency group of the requiring package it belongs to, if any.
    """

    name: str
    constraint: str = ""
    marker: str = ""
    extra: str = ""
    group: str = ""


@frozen
class Locked:
    """One locked version of a distribution.

    `marker` is where the lock installs it (poetry.lock 2.1's per-package ``markers``, ""
    everywhere); None when the lock says it by its edges only: the version is then
    installed where an installed version's edge reaches it. `root` marks the project
    itself (uv.lock records it as a package).
    """

    name: str
    version: str
    marker: str | None = None
    edges: tuple[Edge, ...] = ()
    root: bool = False
    source: str = ""  # where it comes from, for messages: an index's name or URL

    def describe(self) -> str:
        return f"{self.name} {self.version}" + (f" (from {self.source})" if self.source else "")


@frozen
class Environment:
    """What markers are evaluated against: PEP 508 values, the extras and groups installed."""

    values: Mapping[str, str]
    extras: frozenset[str] = frozenset()
    groups: frozenset[str] = frozenset()

    @property
    def python(self) -> str:
        return self.values["python_version"]


@frozen
class Duplicate:
    """A distribution the lock installs in more than one version on one target."""

    name: str
    versions: tuple[Locked, ...]  # two or more, in the lock's order
    python: str

    def describe(self) -> str:
        listed = " and ".join(f"{v.version} ({_where(v)})" for v in self.versions)
        return f"{self.name}: {listed}"


@frozen
class Intended:
    """The version to keep for a duplicate, or why none can be kept.

    `requirements` are the edges that apply on the target, with the version that makes
    each; `version` is the one locked version they all admit, None when none or several
    do (`why` says which).
    """

    duplicate: Duplicate
    version: Locked | None
    requirements: tuple[tuple[Locked, Edge], ...]
    why: str


def _where(version: Locked) -> str:
    if version.marker:
        return f"markers {version.marker}"
    return "reached by its dependencies" if version.marker is None else "everywhere"


def environment(
    os: OperatingSystem,
    machine: str,
    python: str,
    *,
    extras: Collection[str] = (),
    groups: Collection[str] = (),
) -> Environment:
    """The marker environment of a target: `os` and canonical `machine` (x86_64, aarch64)
    as host profiles write them, and a Python minor version ("3.11")."""
    sys_platform, system, os_name = _SYSTEMS[os]
    values = {
        "implementation_name": "cpython",
        "implementation_version": f"{python}.0",
        "os_name": os_name,
        "platform_machine": _MACHINES.get((os, machine), machine),
        "platform_python_implementation": "CPython",
        "platform_release": "",
        "platform_system": system,
        "platform_version": "",
        "python_full_version": f"{python}.0",
        "python_version": python,
        "sys_platform": sys_platform,
    }
    return Environment(
        values,
        frozenset(canonical_name(e) for e in extras),
        frozenset(canonical_name(g) for g in groups),
    )


def pythons(requires_python: str) -> list[str]:
    """The minor versions of `PYTHONS` a lock's Python constraint admits (every one when
    the constraint cannot be read)."""
    constraint = _constraint(requires_python)
    if constraint is None:
        return list(PYTHONS)
    return [p for p in PYTHONS if constraint.allows(Version.parse(f"{p}.0"))] or list(PYTHONS)


# -- what a lock installs on a target -------------------------------------------------------


def installed(locked: Sequence[Locked], where: Environment) -> list[Locked]:
    """The locked versions installed in `where`, in the lock's order."""
    chosen: set[int] = set()
    pending = []
    for index, version in enumerate(locked):
        if version.marker is not None:
            if holds(version.marker, where):
                chosen.add(index)
                pending.append(index)
        elif version.root:
            chosen.add(index)
            pending.append(index)
    if not any(v.root for v in locked) and not any(v.marker is not None for v in locked):
        # No root recorded: what no other version requires is what the project requires.
        required = {canonical_name(e.name) for v in locked for e in v.edges}
        for index, version in enumerate(locked):
            if canonical_name(version.name) not in required:
                chosen.add(index)
                pending.append(index)
    by_name: dict[str, list[int]] = {}
    for index, version in enumerate(locked):
        by_name.setdefault(canonical_name(version.name), []).append(index)
    while pending:
        for edge in locked[pending.pop()].edges:
            if not _active(edge, where):
                continue
            for index in by_name.get(canonical_name(edge.name), []):
                target = locked[index]
                if index in chosen or target.marker is not None:
                    continue  # versions with markers are decided by them alone
                if admits(edge.constraint, target.version):
                    chosen.add(index)
                    pending.append(index)
    return [version for index, version in enumerate(locked) if index in chosen]


def duplicates(locked: Sequence[Locked], where: Environment) -> list[Duplicate]:
    """The distributions `locked` installs in more than one version in `where`."""
    found: dict[str, list[Locked]] = {}
    for version in installed(locked, where):
        found.setdefault(canonical_name(version.name), []).append(version)
    return [
        Duplicate(name, tuple(versions), where.python)
        for name, versions in found.items()
        if len({v.version for v in versions}) > 1
    ]


def intended(duplicate: Duplicate, locked: Sequence[Locked], where: Environment) -> Intended:
    """The version of `duplicate` that every requirement applying in `where` admits.

    The requirements are the edges of the installed versions (the project's own included,
    where the lock records it) that apply there. The lock does not say which extras of a
    package are asked for, so an edge on an extra of its package counts with any of them
    (a requirement too many can only make the answer "none"). Exactly one of the duplicate's versions
    admitted by all of them is the one the resolution meant for this platform; none means
    the requirements conflict, several that they do not decide.
    """
    name = canonical_name(duplicate.name)
    requirements = tuple(
        (version, edge)
        for version in installed(locked, where)
        if canonical_name(version.name) != name
        for edge in version.edges
        if canonical_name(edge.name) == name and _active(edge, _with_own_extras(version, where))
    )
    fitting = [
        version
        for version in duplicate.versions
        if all(admits(edge.constraint, version.version) for _, edge in requirements)
    ]
    wanted = ", ".join(
        f"{edge.constraint or 'any'} (by {v.describe()})" for v, edge in requirements
    )
    if len(fitting) == 1:
        why = (
            f"only {fitting[0].version} meets every requirement on {duplicate.name} that applies "
            f"here: {wanted}"
        )
        return Intended(duplicate, fitting[0], requirements, why)
    if not requirements:
        why = f"the lock records no requirement on {duplicate.name} that says which version"
    elif not fitting:
        why = f"the requirements on {duplicate.name} that apply here admit none of them: {wanted}"
    else:
        versions = " and ".join(v.version for v in fitting)
        why = f"the requirements on {duplicate.name} that apply here admit {versions}: {wanted}"
    return Intended(duplicate, None, requirements, why)


def _with_own_extras(version: Locked, where: Environment) -> Environment:
    """`where` with every extra that `version`'s edges name installed too."""
    named = {
        canonical_name(found) for edge in version.edges for found in _EXTRA.findall(edge.marker)
    }
    return Environment(where.values, where.extras | named, where.groups)


def _active(edge: Edge, where: Environment) -> bool:
    if edge.extra and canonical_name(edge.extra) not in where.extras:
        return False
    if edge.group and canonical_name(edge.group) not in where.groups:
        return False
    return holds(edge.marker, where)


def holds(marker: str, where: Environment) -> bool:
    """Whether `marker` ("" always) holds in `where`; with several extras installed, a
    marker on `extra` holds when it holds for one of them. A marker that cannot be read
    or evaluated holds: counting a version too often is safer than missing one."""
    if not marker:
        return True
    parsed = _marker(marker)
    if parsed is None:
        return True
    values = dict(where.values)
    for extra in sorted(where.extras) or [""]:
        values["extra"] = extra
        try:
            if parsed.evaluate(values):
                return True
        except (UndefinedComparison, UndefinedEnvironmentName):
            return True
    return False


def admits(constraint: str, version: str) -> bool:
    """Whether the version constraint (Poetry's syntax or PEP 440; "" any) admits `version`;
    True when either cannot be read."""
    parsed = _constraint(constraint) if constraint else None
    if parsed is None:
        return True
    try:
        return parsed.allows(Version.parse(version))
    except InvalidVersionError:
        return True


@functools.lru_cache(maxsize=4096)
def _marker(text: str) -> Marker | None:
    try:
        return Marker(text)
    except InvalidMarker:
        return None


@functools.lru_cache(maxsize=4096)
def _constraint(text: str) -> VersionConstraint | None:
    try:
        return parse_constraint(text)
    except (ParseConstraintError, InvalidVersionError, ValueError):
        return None


# -- reading the locks (moves to the backends' readers) -------------------------------------


def from_poetry_lock(document: Mapping[str, Any]) -> list[Locked]:
    """Every locked version of a parsed poetry.lock.

    Lock format 2.1 (Poetry 2) records per package the groups and the markers under which
    it is installed (one string, or one per group); those decide. Older files have neither:
    the dependency edges do, from the packages nothing else requires.
    """
    packages = document.get("package", [])
    found = []
    for package in packages if isinstance(packages, list) else []:
        if not isinstance(package, dict):
            continue
        name, version = package.get("name"), package.get("version")
        if not isinstance(name, str) or not isinstance(version, str):
            continue
        found.append(
            Locked(
                name=canonical_name(name),
                version=version,
                marker=_poetry_marker(package),
                edges=tuple(_poetry_edges(package)),
                source=_poetry_source(package),
            )
        )
    return found


def _poetry_marker(package: Mapping[str, Any]) -> str | None:
    if "groups" not in package:
        return None  # lock format 2.0 or older
    markers = package.get("markers")
    if markers is None:
        return ""
    if isinstance(markers, str):
        return markers
    if isinstance(markers, dict):
        groups = package.get("groups")
        parts = [markers.get(group) for group in (groups if isinstance(groups, list) else [])]
        if any(not isinstance(part, str) or not part for part in parts) or not parts:
            return ""  # a group installs it everywhere
        return " or ".join(f"({part})" for part in dict.fromkeys(parts))
    return ""


def _poetry_edges(package: Mapping[str, Any]) -> Iterable[Edge]:
    table = package.get("dependencies")
    if not isinstance(table, dict):
        return
    for name, spec in table.items():
        for item in spec if isinstance(spec, list) else [spec]:
            if isinstance(item, str):
                yield Edge(canonical_name(name), item)
            elif isinstance(item, dict):
                # An optional dependency's marker names the extra that installs it
                # (`extra == "..."`), which `holds` judges with the extras installed.
                constraint = item.get("version", "")
                marker = item.get("markers", "")
                yield Edge(
                    canonical_name(name),
                    constraint if isinstance(constraint, str) else "",
                    marker if isinstance(marker, str) else "",
                )


def _poetry_source(package: Mapping[str, Any]) -> str:
    source = package.get("source")
    if isinstance(source, dict):
        for key in ("reference", "url"):
            if isinstance(source.get(key), str) and source[key]:
                return str(source[key])
    return "PyPI"


def from_uv_lock(document: Mapping[str, Any]) -> list[Locked]:
    """Every locked version of a parsed uv.lock, with its dependency edges.

    uv records which version an edge means where a distribution has several
    (``{ name = "x", version = "1.0", marker = "..." }``); the project's own packages
    (editable or virtual sources) are the roots.
    """
    packages = document.get("package", [])
    found = []
    for package in packages if isinstance(packages, list) else []:
        if not isinstance(package, dict):
            continue
        name, version = package.get("name"), package.get("version", "0")
        if not isinstance(name, str) or not isinstance(version, str):
            continue
        source = package.get("source")
        source = source if isinstance(source, dict) else {}
        root = any(key in source for key in ("editable", "virtual"))
        edges = list(_uv_edges(package.get("dependencies"), extra="", group=""))
        for table, kind in (("optional-dependencies", "extra"), ("dev-dependencies", "group")):
            named = package.get(table)
            for key, items in named.items() if isinstance(named, dict) else []:
                edges += _uv_edges(items, **{"extra": "", "group": "", kind: key})
        origin = next((str(v) for k, v in source.items() if k in ("registry", "url")), "")
        found.append(
            Locked(canonical_name(name), version, None, tuple(edges), root=root, source=origin)
        )
    return found


def _uv_edges(items: object, *, extra: str, group: str) -> list[Edge]:
    edges = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        version = item.get("version")
        marker = item.get("marker", "")
        edges.append(
            Edge(
                canonical_name(item["name"]),
                f"=={version}" if isinstance(version, str) else "",
                marker if isinstance(marker, str) else "",
                extra=extra,
                group=group,
            )
        )
    return edges


# -- a lock file's duplicates where it is installed: `lock`, `--check`, doctor, the plugin ---


@frozen
class Found:
    """A duplicate on one target, and the version the resolution meant there."""

    platform: str  # "linux x86_64, Python 3.11"
    duplicate: Duplicate
    intended: Intended

    def describe(self, lockfile: str) -> str:
        return (
            f"{lockfile} installs {self.duplicate.name} twice on {self.platform}: "
            + " and ".join(f"{v.version} ({_where(v)})" for v in self.duplicate.versions)
        )

    def entry(self, os: OperatingSystem) -> str | None:
        """The dependency (PEP 508) that pins the intended version on that platform; None
        when no version is intended."""
        chosen = self.intended.version
        if chosen is None:
            return None
        return f'{self.duplicate.name}=={chosen.version}; sys_platform == "{_SYSTEMS[os][0]}"'

    def pin(self, os: OperatingSystem) -> str:
        """How the user pins the intended version on that platform, or why none can be."""
        entry = self.entry(os)
        if entry is None:
            return f"{self.intended.why}; require one version of {self.duplicate.name} yourself"
        return f"add {entry!r} to the project's dependencies, then lock again ({self.intended.why})"


def find(
    document: Mapping[str, Any],
    kind: str,
    platforms: Iterable[tuple[OperatingSystem, str]],
) -> list[tuple[OperatingSystem, Found]]:
    """The duplicates a parsed lock (`kind` "poetry" or "uv") installs on each (operating
    system, canonical machine), for every Python minor version it admits, without extras
    and with each extra its markers name: one per distribution, versions and platform."""
    locked = from_poetry_lock(document) if kind == "poetry" else from_uv_lock(document)
    metadata = document.get("metadata")
    requires = (
        str(metadata.get("python-versions", ""))
        if kind == "poetry" and isinstance(metadata, dict)
        else str(document.get("requires-python", ""))
    )
    markers = [v.marker or "" for v in locked] + [e.marker for v in locked for e in v.edges]
    extras = sorted({found for text in markers for found in _EXTRA.findall(text)})
    seen: set[tuple[str, str, str, tuple[str, ...]]] = set()
    results = []
    for os, machine in dict.fromkeys(platforms):
        for python in pythons(requires):
            for extra in ["", *extras]:
                where = environment(os, machine, python, extras=[extra] if extra else [])
                for duplicate in duplicates(locked, where):
                    key = (
                        duplicate.name,
                        os,
                        machine,
                        tuple(v.version for v in duplicate.versions),
                    )
                    if key in seen:
                        continue
                    seen.add(key)
                    platform = f"{os} {machine}, Python {python}" + (
                        f" with extra {extra}" if extra else ""
                    )
                    decided = intended(duplicate, locked, where)
                    results.append((os, Found(platform, duplicate, decided)))
    return results


def read_and_find(
    project: Path, lockfile: str, platforms: Iterable[tuple[OperatingSystem, str]]
) -> list[tuple[OperatingSystem, Found]]:
    """`find` on the project's poetry.lock; nothing when it is absent or cannot be read (the
    lock's other checks say so), and nothing for uv.lock: uv's resolver forks where markers
    differ and locks one version per fork, and the markers of its edges are simplified
    within each fork, so that read alone they would count versions of other forks."""
    path = project / lockfile
    if lockfile != "poetry.lock" or not path.is_file():
        return []
    try:
        document = read_toml(path)
    except PoetryCudaError:
        return []
    return find(document, "poetry", platforms)


WHY = (
    "both versions' files go to the same paths: installed together, what is left matches "
    "neither wheel (a CUDA library so mixed crashes at import). The package manager locked "
    "both because the markers selecting them are spelt differently (sys_platform == "
    '"linux", platform_system == "Linux"), which it takes for different platforms'
)


def refusal(
    found: Sequence[tuple[OperatingSystem, Found]],
    lockfile: str,
    error: type[PoetryCudaError] = ResolutionError,
) -> PoetryCudaError:
    """The error for a lock that installs a distribution twice (`lock`'s, exit 4, unless
    `error` says another): both versions named, and the pin that keeps the one the
    resolution meant for that platform."""
    return error(
        "; ".join(f.describe(lockfile) for _, f in found),
        why=WHY,
        fix="; ".join(dict.fromkeys(f.pin(os) for os, f in found)),
    )


def refuse(project: Path, lockfile: str, platforms: Iterable[tuple[OperatingSystem, str]]) -> None:
    """Raise `refusal` when the project's lock installs a distribution twice on a platform."""
    found = read_and_find(project, lockfile, platforms)
    if found:
        raise refusal(found, lockfile)


def refuse_install(project: Path, lockfile: str) -> None:
    """Before `sync` or the plugin's `poetry install` installs anything: a ConfigError (exit
    2, as for a stale lock) when the project's lock installs a distribution twice here."""
    found = read_and_find(project, lockfile, here())
    if found:
        raise refusal(found, lockfile, ConfigError)


def stale(
    project: Path, lockfile: str, platforms: Iterable[tuple[OperatingSystem, str]]
) -> list[str]:
    """`lock --check`'s reasons: one per duplicate, with the pin that fixes it."""
    return [
        f"{f.describe(lockfile)}; {f.pin(os)}"
        for os, f in read_and_find(project, lockfile, platforms)
    ]


def platforms(targets: Iterable[Target]) -> list[tuple[OperatingSystem, str]]:
    """(operating system, canonical machine) of each target and of this machine, once each:
    a lock made for other machines is installed here too (`poetry install`, `sync`), and a
    version installed twice here breaks this machine's environment as it would a target's."""
    found = [(t.os, canonical_machine(t.profile.machine)) for t in targets]
    return list(dict.fromkeys([*found, *here()]))


def here() -> list[tuple[OperatingSystem, str]]:
    """This machine's (operating system, canonical machine); none on a system poetry-cuda
    does not know (its lock checks then cover the targets alone)."""
    try:
        system = host_os(sys.platform)
    except DetectionError:
        return []
    return [(system, canonical_machine(platform.machine()))]
