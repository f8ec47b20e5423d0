"""The plan written as Poetry's own configuration, inside pyproject.toml.

poetry-cuda owns exactly two things in pyproject.toml: the explicit
`[[tool.poetry.source]]` entries it lists in cuda.lock, and the optional group
`[tool.poetry.group.poetry-cuda]` that pins each CUDA-flavoured package to its source
(on Linux and Windows; other platforms keep PyPI). Everything else keeps its bytes:
the document is edited with tomlkit, and an unchanged plan gives an unchanged file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from typing import Any

import tomlkit

from poetry_cuda.errors import ConfigError
from poetry_cuda.project import MANAGED_GROUP


if TYPE_CHECKING:
    from collections.abc import Collection

    from tomlkit.toml_document import TOMLDocument

    from poetry_cuda.plan import Plan


CUDA_PLATFORMS = "sys_platform == 'linux' or sys_platform == 'win32'"
GROUP_COMMENT = "Managed by poetry-cuda: `poetry cuda lock` rewrites this group."


@dataclass(frozen=True)
class Pin:
    package: str
    source: str


@dataclass(frozen=True)
class Managed:
    """The managed entries a plan asks for."""

    sources: tuple[tuple[str, str], ...]  # (name, url), in plan order
    pins: tuple[Pin, ...]

    @classmethod
    def of(cls, plan: Plan) -> Managed:
        sources: dict[str, str] = {}
        pins = []
        for choice in plan.packages:
            if choice.source.is_pypi:
                continue
            sources.setdefault(choice.source.name, choice.source.url)
            pins.append(Pin(choice.name, choice.source.name))
        return cls(tuple(sources.items()), tuple(pins))

    @property
    def source_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.sources)


def _poetry_table(document: TOMLDocument) -> Any:
    tool = document.get("tool")
    if tool is None:
        tool = tomlkit.table(is_super_table=True)
        document["tool"] = tool
    poetry = tool.get("poetry")
    if poetry is None:
        poetry = tomlkit.table()
        tool["poetry"] = poetry
    return poetry


def _check_user_pins(document: TOMLDocument, managed: Managed) -> None:
    """A user's own `source = ...` for a managed package is a conflict, not ours to change."""
    poetry = document.get("tool", {}).get("poetry", {})
    places = [("[tool.poetry.dependencies]", poetry.get("dependencies", {}))]
    for group, body in poetry.get("group", {}).items():
        if group != MANAGED_GROUP:
            places.append(
                (f"[tool.poetry.group.{group}.dependencies]", body.get("dependencies", {}))
            )
    chosen = {pin.package: pin.source for pin in managed.pins}
    for origin, dependencies in places:
        for name, value in dependencies.items():
            entries = value if isinstance(value, list) else [value]
            for entry in entries:
                source = entry.get("source") if isinstance(entry, dict) else None
                wanted = chosen.get(name.lower())
                if source and wanted and source != wanted:
                    raise ConfigError(
                        f"{origin}: {name} has source = {source!r}, but the plan puts it on "
                        f"{wanted!r}",
                        why="poetry-cuda pins CUDA-flavoured packages to the chosen index "
                        "itself, and will not override a source you set",
                        fix=f"remove source = {source!r} from {name} (poetry-cuda manages it), "
                        'or remove the package\'s CUDA choice with cuda = "cpu"',
                    )


def apply(document: TOMLDocument, managed: Managed, previous: Collection[str]) -> None:
    """Rewrite the managed entries of `document` in place.

    `previous` names the sources an earlier lock managed (from cuda.lock): they are
    replaced. A source of the same name that poetry-cuda did not write is adopted when
    it points at the same URL and is explicit, and is a conflict otherwise.
    """
    _check_user_pins(document, managed)
    poetry = _poetry_table(document)
    wanted = dict(managed.sources)
    existing = poetry.get("source")
    kept = []
    for entry in list(existing) if existing is not None else []:
        name = entry.get("name")
        if name in previous and name not in wanted:
            continue  # a source an earlier plan needed and this one does not
        if name in wanted:
            if name not in previous and (
                entry.get("url") != wanted[name] or entry.get("priority") != "explicit"
            ):
                raise ConfigError(
                    f"[[tool.poetry.source]] {name!r} already exists with another URL or priority",
                    why=f"poetry-cuda needs {name!r} to be the explicit source {wanted[name]}",
                    fix=f"rename or remove your source {name!r}",
                )
            entry["url"] = wanted.pop(name)
            entry["priority"] = "explicit"
        kept.append(entry)
    for name, url in wanted.items():
        table = tomlkit.table()
        table.update({"name": name, "url": url, "priority": "explicit"})
        if kept:
            table.trivia.indent = "\n"  # a blank line after the source before it
        kept.append(table)
    if existing is not None:
        existing.clear()
        existing.extend(kept)
        if not kept:
            del poetry["source"]
    elif kept:
        sources = tomlkit.aot()
        sources.extend(kept)
        poetry["source"] = sources

    groups = poetry.get("group")
    if not managed.pins:
        if groups is not None and MANAGED_GROUP in groups:
            del groups[MANAGED_GROUP]
            if not groups:
                del poetry["group"]
        return
    if groups is None:
        groups = tomlkit.table(is_super_table=True)
        poetry["group"] = groups
    group = tomlkit.table()
    group.add(tomlkit.comment(GROUP_COMMENT))
    group.add("optional", True)
    dependencies = tomlkit.table()
    for pin in managed.pins:
        entry = tomlkit.inline_table()
        entry.update({"version": "*", "source": pin.source, "markers": CUDA_PLATFORMS})
        dependencies.add(pin.package, entry)
    group.add("dependencies", dependencies)
    groups[MANAGED_GROUP] = group


def rewrite(text: str, managed: Managed, previous: Collection[str]) -> str:
    """pyproject.toml's text with the managed entries rewritten; `text` if nothing changes."""
    document = tomlkit.parse(text)
    apply(document, managed, previous)
    result = tomlkit.dumps(document)
    return text if tomlkit.parse(result) == tomlkit.parse(text) else result
