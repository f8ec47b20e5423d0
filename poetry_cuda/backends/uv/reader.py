"""uv's own tables in pyproject.toml, as the authors wrote them (a `TableReader`).

`[[tool.uv.index]]` (explicit or not), `[tool.uv]` index-url, extra-index-url and
find-links, and `[tool.uv.sources]` (an index, a wheel by URL or path, per extra or group).
The sources poetry-cuda writes for the packages of its own dependency group are its output,
not the authors' request: skipped. uv has no dependency table of its own beside PEP 621's
and PEP 735's.
"""

from __future__ import annotations

import dataclasses

from typing import TYPE_CHECKING
from typing import Any
from typing import Literal

from packaging.requirements import InvalidRequirement
from packaging.requirements import Requirement

from poetry_cuda.names import canonical_name
from poetry_cuda.planning.managed import MANAGED_MARKERS
from poetry_cuda.request.handwritten import array
from poetry_cuda.request.handwritten import index_pin
from poetry_cuda.request.handwritten import table
from poetry_cuda.request.handwritten import url_pin
from poetry_cuda.request.handwritten import written_as
from poetry_cuda.request.tables import MANAGED_GROUP
from poetry_cuda.request.tables import WrittenEntry
from poetry_cuda.request.tables import WrittenIndex


if TYPE_CHECKING:
    from collections.abc import Mapping

    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.request.dependencies import Dependency
    from poetry_cuda.request.handwritten import HandIndex
    from poetry_cuda.request.handwritten import HandPin


SOURCES = "[tool.uv.sources]"


def dependencies(pyproject: Mapping[str, Any]) -> list[Dependency]:
    """None: uv reads the project's dependencies from PEP 621 and PEP 735 alone."""
    return []


def indexes(pyproject: Mapping[str, Any]) -> list[WrittenIndex]:
    """Every `[[tool.uv.index]]`, then the URLs of index-url, extra-index-url and find-links."""
    uv = table(table(pyproject, "tool"), "uv")
    found = [
        WrittenIndex(
            str(name if named else entry.get("url")),
            entry.get("url"),
            "[[tool.uv.index]]",
            implicit=entry.get("explicit") is not True,
            named=named,
        )
        for entry in array(uv, "index")
        if isinstance(entry, dict)
        for name in [entry.get("name")]
        for named in [isinstance(name, str)]
    ]
    for key in ("index-url", "extra-index-url", "find-links"):
        urls = uv.get(key)
        for url in urls if isinstance(urls, list) else [urls]:
            if isinstance(url, str):
                found.append(WrittenIndex(url, url, f"[tool.uv] {key}", implicit=True, named=False))
    return found


def entries(pyproject: Mapping[str, Any]) -> list[WrittenEntry]:
    """Every `[tool.uv.sources]` entry, lists split up, but those poetry-cuda wrote."""
    managed = _managed_names(pyproject)
    found = []
    for name, value in table(table(table(pyproject, "tool"), "uv"), "sources").items():
        shaped = _managed_shape(value)
        if canonical_name(name) in managed and shaped:
            continue
        for entry in value if isinstance(value, list) else [value]:
            index = entry.get("index") if isinstance(entry, dict) else None
            found.append(WrittenEntry(SOURCES, name, entry, index, managed_shape=shaped))
    return found


def _managed_names(pyproject: Mapping[str, Any]) -> set[str]:
    """The packages poetry-cuda's own dependency group pins."""
    found: set[str] = set()
    for text in array(table(pyproject, "dependency-groups"), MANAGED_GROUP):
        if isinstance(text, str):
            try:
                found.add(canonical_name(Requirement(text).name))
            except InvalidRequirement:
                continue
    return found


def _managed_shape(value: object) -> bool:
    """A `[tool.uv.sources]` value as poetry-cuda writes one: one index, one marker of
    the platforms of its builds."""
    return (
        isinstance(value, list)
        and len(value) == 1
        and isinstance(value[0], dict)
        and set(value[0]) == {"index", "marker"}
        and value[0]["marker"] in MANAGED_MARKERS
    )


def pins(family: Family, entry: WrittenEntry, indexes: Mapping[str, HandIndex]) -> list[HandPin]:
    """What a `[tool.uv.sources]` entry pins: a wheel, or one of the authors' CUDA indexes,
    for the whole project or for one extra (or group)."""
    if not isinstance(entry.entry, dict):
        return []
    name, value = entry.package, entry.entry
    written = written_as(name, dict(value))
    marker = value.get("marker")
    marker = marker if isinstance(marker, str) else ""
    extra = value.get("extra", value.get("group"))
    extra = canonical_name(extra) if isinstance(extra, str) else None
    kind: Literal["extra", "group"] = (
        "group" if "group" in value and "extra" not in value else "extra"
    )
    location = value.get("url") or value.get("path")
    if isinstance(location, str):
        found = url_pin(family, name, location, SOURCES, written, marker)
        return [dataclasses.replace(p, extra=extra, extra_kind=kind) for p in found]
    source = value.get("index")
    index = indexes.get(source) if isinstance(source, str) else None
    if index is None or index.family != family.name:
        return []
    return [index_pin(name, index, SOURCES, written, marker, extra, kind)]
