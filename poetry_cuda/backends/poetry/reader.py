"""Poetry's own tables in pyproject.toml, as the authors wrote them (a `TableReader`).

`[tool.poetry.dependencies]` and its groups' dependency tables (constraints, extras,
`source =` pins, wheels by URL or path, lists of per-platform entries) and the
`[[tool.poetry.source]]` entries with their priorities, Poetry 1.x's included. The group
poetry-cuda writes (`poetry-cuda`) is its own output, not the authors' request: skipped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.errors import ConfigError
from poetry_cuda.names import canonical_name
from poetry_cuda.request.dependencies import Dependency
from poetry_cuda.request.dependencies import pinned
from poetry_cuda.request.handwritten import HandPin
from poetry_cuda.request.handwritten import array
from poetry_cuda.request.handwritten import extra_of
from poetry_cuda.request.handwritten import index_pin
from poetry_cuda.request.handwritten import label
from poetry_cuda.request.handwritten import table
from poetry_cuda.request.handwritten import url_pin
from poetry_cuda.request.handwritten import written_as
from poetry_cuda.request.tables import MANAGED_GROUP
from poetry_cuda.request.tables import WrittenEntry
from poetry_cuda.request.tables import WrittenIndex


if TYPE_CHECKING:
    from collections.abc import Iterator
    from collections.abc import Mapping

    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.request.handwritten import HandIndex


SOURCES = "[[tool.poetry.source]]"


def dependencies(pyproject: Mapping[str, Any]) -> list[Dependency]:
    """Poetry's dependency tables: `[tool.poetry.dependencies]` (but `python`), then each
    group's, in file order."""
    found = []
    poetry = table(table(pyproject, "tool"), "poetry")
    # With PEP 621 dependencies, Poetry's own table only adds sources and markers to them.
    enriching = "dependencies" in table(pyproject, "project")
    for name, value in table(poetry, "dependencies").items():
        if name != "python":
            found.extend(_poetry(name, value, "[tool.poetry.dependencies]", enriching=enriching))
    for group, body in table(poetry, "group").items():
        if group == MANAGED_GROUP:
            continue
        for name, value in table(body, "dependencies").items():
            found.extend(_poetry(name, value, f"[tool.poetry.group.{group}.dependencies]"))
    return found


def _poetry(name: str, value: object, origin: str, *, enriching: bool = False) -> list[Dependency]:
    entries = value if isinstance(value, list) else [value]
    found = []
    for entry in entries:
        optional = enriching
        marker = ""
        if isinstance(entry, str):
            constraint, extras = entry, []
        elif isinstance(entry, dict):
            optional = optional or entry.get("optional") is True
            platform = entry.get("platform")
            marker = str(entry.get("markers") or "") or (
                f"sys_platform == '{platform}'" if isinstance(platform, str) else ""
            )
            wheel = pinned(entry.get("url") or entry.get("path"))
            constraint = entry.get("version", wheel or "*")
            extras = entry.get("extras", [])
            if not isinstance(constraint, str) or not isinstance(extras, list):
                raise ConfigError(f"{origin}: {name}: version must be a string, extras a list")
        else:
            raise ConfigError(f"{origin}: {name}: expected a version string or a table")
        found.append(
            Dependency(
                name=canonical_name(name),
                constraint=constraint.strip() or "*",
                extras=frozenset(canonical_name(str(e)) for e in extras),
                origin=origin,
                optional=optional,
                marker=marker,
            )
        )
    return found


def indexes(pyproject: Mapping[str, Any]) -> list[WrittenIndex]:
    """Every `[[tool.poetry.source]]`, with whether Poetry takes packages from it unpinned."""
    found = []
    for entry in array(table(table(pyproject, "tool"), "poetry"), "source"):
        if isinstance(entry, dict):
            old = old_priority(entry)
            # Poetry's default priority is primary; supplemental ones serve only what PyPI lacks.
            implicit = entry.get("priority", "primary") in ("primary", "default") and not old
            found.append(
                WrittenIndex(str(entry.get("name")), entry.get("url"), SOURCES, implicit, old)
            )
    return found


def old_priority(source: Mapping[str, Any]) -> str:
    """How a Poetry source spells a Poetry 1.x priority (`secondary = true`), or ""."""
    priority = source.get("priority")
    if priority in ("secondary", "default"):
        return f'priority = "{priority}"'
    for key in ("secondary", "default"):
        if source.get(key) is True:
            return f"{key} = true"
    return ""


def entries(pyproject: Mapping[str, Any]) -> list[WrittenEntry]:
    """Every Poetry dependency entry, lists split up, but those of poetry-cuda's own group."""
    return [
        WrittenEntry(where, name, entry, entry.get("source") if isinstance(entry, dict) else None)
        for where, name, entry in _entries(table(table(pyproject, "tool"), "poetry"))
    ]


def _entries(poetry: Mapping[str, Any]) -> Iterator[tuple[str, str, Any]]:
    """(table, package name, one entry) of every Poetry dependency, lists split up."""
    tables = [("[tool.poetry.dependencies]", table(poetry, "dependencies"))]
    for group, body in table(poetry, "group").items():
        if group != MANAGED_GROUP and isinstance(body, dict):
            tables.append(
                (f"[tool.poetry.group.{group}.dependencies]", table(body, "dependencies"))
            )
    for where, found in tables:
        for name, value in found.items():
            for entry in value if isinstance(value, list) else [value]:
                yield where, name, entry


def pins(family: Family, entry: WrittenEntry, indexes: Mapping[str, HandIndex]) -> list[HandPin]:
    """What a Poetry dependency entry pins: a wheel, one of the authors' CUDA sources, or a
    version with a `+cu118` label."""
    name, where = entry.package, entry.where
    written = written_as(name, entry.entry)
    value = {"version": entry.entry} if isinstance(entry.entry, str) else entry.entry
    if not isinstance(value, dict):
        return []
    marker = value.get("markers")
    marker = marker if isinstance(marker, str) else ""
    location = value.get("url") or value.get("path")
    if isinstance(location, str):
        return url_pin(family, name, location, where, written, marker)
    source = value.get("source")
    index = indexes.get(source) if isinstance(source, str) else None
    if index is not None and index.family == family.name:
        return [index_pin(name, index, where, written, marker, extra_of(marker))]
    labelled = label(family, value.get("version"))
    if labelled is not None:
        return [
            HandPin(
                canonical_name(name),
                family.name,
                labelled[1],
                "label",
                where,
                written,
                version=labelled[0],
                marker=marker,
                extra=extra_of(marker),
            )
        ]
    return []
