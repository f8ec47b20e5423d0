"""`lock --adopt`: taking hand-written CUDA entries over, in the tables they are written in.

`planning.adoption.review` names the entries the plan contradicts (`taken`) and the
indexes that taking them over leaves unused. This rewrites exactly those, and reports
each change in one line; the managed entries are written afterwards as on every lock.

- a Poetry dependency keeps its constraint, without `source`, URL or label: a list of
  per-platform entries becomes that one constraint (poetry-cuda's pins carry the markers);
- a `[tool.uv.sources]` entry is removed; a wheel's version moves into the requirement;
- a requirement string loses its label, a `name @ URL` wheel becomes `name==version`;
- an unused source or index is removed.
"""

from __future__ import annotations

import json

from typing import TYPE_CHECKING
from typing import Any

from packaging.requirements import InvalidRequirement
from packaging.requirements import Requirement

from poetry_cuda import lazy
from poetry_cuda.backends import toml_edit
from poetry_cuda.names import canonical_name
from poetry_cuda.request.dependencies import wheel_version


if TYPE_CHECKING:
    from collections.abc import Sequence

    from tomlkit.toml_document import TOMLDocument

    from poetry_cuda.request.handwritten import HandIndex
    from poetry_cuda.request.handwritten import HandPin


def adopt(
    text: str,
    taken: Sequence[HandPin],
    unused: Sequence[HandIndex],
    outdated: Sequence[HandIndex],
    cuda: str | None,
) -> tuple[str, list[str]]:
    """pyproject.toml's text with `taken` rewritten, `unused` removed and `outdated`
    (Poetry 1.x sources) made explicit, and what changed.

    `cuda`, when given, is written as `[tool.poetry-cuda] cuda`: the variant the pins
    asked for, which must outlive them.
    """
    changes: list[str] = []

    def apply(document: TOMLDocument) -> None:
        done: set[tuple[str, str]] = set()
        for pin in taken:
            if (pin.where, pin.package) in done:
                continue
            done.add((pin.where, pin.package))
            pins = [p for p in taken if (p.where, p.package) == (pin.where, pin.package)]
            if pin.where.startswith("[tool.poetry."):
                changes.extend(_poetry_dependency(document, pin.where, pin.package))
            elif pin.where == "[tool.uv.sources]":
                changes.extend(_uv_source(document, pin.package, pins))
            else:
                changes.extend(_requirement(document, pin.where, pin.package))
        for index in unused:
            changes.extend(_index(document, index))
        for index in outdated:
            changes.extend(_explicit(document, index))
        if cuda is not None:
            tool = toml_edit.table(document, "tool", "tool")
            settings = toml_edit.table(tool, "poetry-cuda", "tool.poetry-cuda")
            settings["cuda"] = cuda
            changes.append(
                f'[tool.poetry-cuda] cuda = "{cuda}" set: the build asked for, now that no '
                "hand-written entry pins it"
            )

    def guarded(document: TOMLDocument) -> None:
        try:
            apply(document)
        except (KeyError, TypeError) as error:  # a layout the recognition read differently
            raise toml_edit.layout_error("the adopted entries", repr(error)) from None

    return toml_edit.rewrite(text, "the adopted entries", guarded), changes


def _key(table: Any, package: str) -> str | None:
    return next((k for k in table if canonical_name(k) == package), None)


def _constraint(entries: list[Any]) -> str:
    """The version constraint a dependency's entries share, without label, URL or source."""
    for entry in entries:
        version = entry if isinstance(entry, str) else entry.get("version")
        if not isinstance(version, str) and isinstance(entry, dict):
            wheel = wheel_version(str(entry.get("url") or entry.get("path") or ""))
            version = f"=={wheel}" if wheel else None
        if isinstance(version, str) and version.strip() not in ("", "*"):
            return version.split("+", 1)[0].strip()
    return "*"


def _poetry_dependency(document: TOMLDocument, where: str, package: str) -> list[str]:
    poetry = toml_edit.tool_table(document, "poetry")
    if where.startswith("[tool.poetry.group."):  # a group's table; its name may hold dots
        group = where.removeprefix("[tool.poetry.group.").removesuffix(".dependencies]")
        groups = toml_edit.mapping(poetry, "group", where)
        poetry = toml_edit.mapping(groups, group, where)
    table = toml_edit.mapping(poetry, "dependencies", where)
    key = _key(table, package)
    if key is None:
        return []
    value = table[key]
    before = _one_line(toml_edit.plain(value))
    tomlkit = lazy.tomlkit()
    entries = list(value) if isinstance(value, (list, tomlkit.items.AoT)) else [value]
    constraint = _constraint(entries)
    new: Any = constraint
    if len(entries) == 1 and isinstance(value, dict):
        kept = {
            k: v
            for k, v in toml_edit.plain(value).items()
            if k not in ("source", "url", "path", "version")
        }
        if kept:
            new = tomlkit.inline_table()
            new.update({"version": constraint, **kept})
    table[key] = new
    return [f"{where} {key} = {before} -> {_one_line(toml_edit.plain(new))}"]


def _one_line(value: Any) -> str:
    """A dependency's value in one line, as inline TOML: tables of arrays read inline."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_one_line(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_one_line(item) for item in value) + "]"
    return json.dumps(value)


def _uv_source(document: TOMLDocument, package: str, pins: Sequence[HandPin]) -> list[str]:
    sources: Any = document["tool"]["uv"]["sources"]
    key = _key(sources, package)
    if key is None:
        return []
    before = _one_line(toml_edit.plain(sources[key]))
    del sources[key]
    changes = [f"[tool.uv.sources] {key} = {before}: removed"]
    version = next((p.version for p in pins if p.kind == "url" and p.version), None)
    if version is not None:
        changes.extend(_pin_version(document, package, version))
    return changes


def _arrays(document: TOMLDocument) -> list[tuple[str, Any]]:
    """Every array of requirement strings, with the table it is written in."""
    project = toml_edit.mapping(document, "project", "project")
    found = [("[project] dependencies", project.get("dependencies"))]
    for extra, items in toml_edit.mapping(project, "optional-dependencies", "x").items():
        found.append((f"[project.optional-dependencies] {extra}", items))
    for group, items in toml_edit.mapping(document, "dependency-groups", "x").items():
        found.append((f"[dependency-groups] {group}", items))
    return [(where, items) for where, items in found if isinstance(items, list)]


def _parsed(text: object) -> Requirement | None:
    if not isinstance(text, str):
        return None
    try:
        return Requirement(text)
    except InvalidRequirement:
        return None


def _requirement(document: TOMLDocument, where: str, package: str) -> list[str]:
    changes = []
    for table, items in _arrays(document):
        if table != where:
            continue
        for position, text in enumerate(items):
            requirement = _parsed(text)
            if requirement is None or canonical_name(requirement.name) != package:
                continue
            new = _plain_requirement(requirement)
            if new != str(text):
                items[position] = new
                changes.append(f"{where} {str(text)!r} -> {new!r}")
    return changes


def _plain_requirement(requirement: Requirement) -> str:
    """A requirement without its label or wheel URL: `torch==2.0.0`."""
    extras = f"[{','.join(sorted(requirement.extras))}]" if requirement.extras else ""
    if requirement.url:
        version = (wheel_version(requirement.url) or "").split("+", 1)[0]
        specifier = f"=={version}" if version else ""
    else:
        specifier = ",".join(str(s).split("+", 1)[0] for s in requirement.specifier)
    marker = f"; {requirement.marker}" if requirement.marker else ""
    return f"{requirement.name}{extras}{specifier}{marker}"


def _pin_version(document: TOMLDocument, package: str, version: str) -> list[str]:
    """Give unconstrained requirements on `package` the version its wheel URL pinned."""
    changes = []
    for where, items in _arrays(document):
        for position, text in enumerate(items):
            requirement = _parsed(text)
            if requirement is None or canonical_name(requirement.name) != package:
                continue
            if not requirement.specifier and not requirement.url:
                requirement.specifier = requirement.specifier & f"=={version}"
                new = str(requirement)
                items[position] = new
                changes.append(f"{where} {str(text)!r} -> {new!r}")
    return changes


def _explicit(document: TOMLDocument, index: HandIndex) -> list[str]:
    """A Poetry 1.x source (`secondary = true`) written as Poetry 2's explicit source."""
    poetry: Any = document["tool"]["poetry"]
    sources = toml_edit.entries(poetry, "source", "tool.poetry.source")
    for source in sources:
        if source.get("name") == index.name:
            for key in ("secondary", "default"):
                if key in source:
                    del source[key]
            source["priority"] = "explicit"
            return [f'{index.said}: {index.old_priority} -> priority = "explicit"']
    return []


def _index(document: TOMLDocument, index: HandIndex) -> list[str]:
    tool: Any = document["tool"]
    if index.where == "[[tool.poetry.source]]":
        parent, key = tool["poetry"], "source"
    elif index.where == "[[tool.uv.index]]":
        parent, key = tool["uv"], "index"
    else:  # [tool.uv] index-url, extra-index-url or find-links: a URL or a list of them
        uv, key = tool["uv"], index.where.split()[-1]
        value = uv.get(key)
        if isinstance(value, lazy.tomlkit().items.Array):
            toml_edit.edit_inline_array(value, lambda url: url == index.url, [])
            if not value:
                del uv[key]
        elif value == index.url:
            del uv[key]
        return [f"[tool.uv] {key}: {index.url} removed (no longer used)"]
    toml_edit.entries(parent, key, index.where.strip("[]"))  # refuses another shape
    toml_edit.remove_entries(parent, key, lambda entry: entry.get("name") == index.name)
    return [f"{index.said}: removed (no longer used)"]
