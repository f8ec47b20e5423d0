"""Poetry's configuration in pyproject.toml, as poetry-cuda writes it.

poetry-cuda owns exactly two things there: the explicit `[[tool.poetry.source]]`
entries it lists in cuda.lock, and the group `[tool.poetry.group.poetry-cuda]` that pins
each CUDA-flavoured package to its source (on Linux and Windows; other platforms keep
PyPI). The group is not optional, so a plain `poetry install` installs what it adds (the
toolkit wheels of `toolkit = "wheels"`), and its pins only restate, with a source and
markers, packages the project already requires; where the project installs every pinned
package only with an extra, the group is optional, so the extras keep their meaning. Everything else keeps its bytes: the document is edited with
tomlkit, and an unchanged plan gives an unchanged file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda import lazy
from poetry_cuda.backends import toml_edit
from poetry_cuda.backends.base import packages
from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.files import read_text
from poetry_cuda.files import read_toml
from poetry_cuda.files import write_toml_atomic
from poetry_cuda.names import wheel_version
from poetry_cuda.planning.managed import group_marker
from poetry_cuda.request.tables import MANAGED_GROUP


if TYPE_CHECKING:
    from collections.abc import Collection
    from collections.abc import Iterable
    from collections.abc import Sequence
    from pathlib import Path

    from tomlkit.toml_document import TOMLDocument

    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.planning.managed import Managed
    from poetry_cuda.planning.managed import Pin
    from poetry_cuda.request.handwritten import HandIndex
    from poetry_cuda.request.handwritten import HandPin


SOURCES = "tool.poetry.source"
SOURCE = toml_edit.IndexShape(SOURCES, "source", "priority", "explicit")
GROUP = f"tool.poetry.group.{MANAGED_GROUP}"
MARKER = group_marker("poetry cuda")


def _poetry_table(document: TOMLDocument) -> Any:
    tool = toml_edit.table(document, "tool", "tool")
    poetry = tool.get("poetry")
    if poetry is None:
        poetry = lazy.tomlkit().table()
        tool["poetry"] = poetry
    return toml_edit.table(tool, "poetry", "tool.poetry")


def _check_user_pins(poetry: Any, managed: Managed) -> None:
    """A user's own `source = ...` for a managed package is a conflict, not ours to change."""
    places = [
        (
            "[tool.poetry.dependencies]",
            toml_edit.mapping(poetry, "dependencies", "tool.poetry.dependencies"),
        )
    ]
    groups = toml_edit.mapping(poetry, "group", "tool.poetry.group")
    for group in groups:
        if group != MANAGED_GROUP:
            where = f"tool.poetry.group.{group}"
            body = toml_edit.mapping(groups, group, where)
            places.append(
                (
                    f"[{where}.dependencies]",
                    toml_edit.mapping(body, "dependencies", f"{where}.dependencies"),
                )
            )
    chosen = {pin.package: pin.source for pin in managed.pins if pin.source}
    urls = dict(managed.sources)
    for origin, dependencies in places:
        for name, value in dependencies.items():
            entries = value if isinstance(value, list) else [value]
            for entry in entries:
                source = entry.get("source") if isinstance(entry, dict) else None
                wanted = chosen.get(name.lower())
                if source and wanted and source != wanted:
                    raise toml_edit.own_source_conflict(
                        origin, f"{name} (source = {source!r})", name, wanted, urls[wanted]
                    )


def _managed_group(poetry: Any) -> Any:
    groups = toml_edit.mapping(poetry, "group", "tool.poetry.group")
    return toml_edit.managed_group(groups, f"[{GROUP}]", MARKER, f"delete [{GROUP}]")


def apply(
    document: TOMLDocument, managed: Managed, previous: Collection[str], families: Sequence[Family]
) -> None:
    """Rewrite the managed entries of `document` in place.

    A source is poetry-cuda's only when pyproject.toml itself says so: explicit, with a
    name and URL poetry-cuda produces (`is_our_source`); the group only with its marker
    comment. `previous` (cuda.lock's managed-sources) says which of ours to drop when the
    plan no longer needs them; any other entry it or the plan names is a conflict.
    """
    found = toml_edit.tool_table(document, "poetry")
    _check_user_pins(found, managed)
    group = _managed_group(found)
    names = {entry.get("name") for entry in toml_edit.entries(found, "source", SOURCES)}
    if not managed.sources and not managed.pins and group is None and not names & {*previous}:
        return  # nothing of ours to write or remove: the layout is the user's business
    poetry = _poetry_table(document)
    toml_edit.apply_indexes(poetry, "source", SOURCE, dict(managed.sources), previous, families)

    if not managed.pins:
        if group is not None:
            toml_edit.remove(poetry, "group", MANAGED_GROUP)
        return
    groups = toml_edit.table(poetry, "group", "tool.poetry.group")
    tomlkit = lazy.tomlkit()
    group = tomlkit.table()
    group.add(tomlkit.comment(MARKER.removeprefix("# ")))
    if all(pin.optional for pin in managed.pins):
        # Only extras install these packages: a required group would install them always.
        # Poetry still locks an optional group, so the extras get the pinned builds.
        group.add("optional", True)
    dependencies = tomlkit.table()
    for pin in managed.pins:
        entry = tomlkit.inline_table()
        entry["version"] = pin.version
        if pin.source is not None:
            entry["source"] = pin.source
        entry["markers"] = pin.markers
        dependencies.add(pin.package, entry)
    dependencies.add(tomlkit.nl())  # a blank line before whatever table follows
    group.add("dependencies", dependencies)
    groups[MANAGED_GROUP] = group


def add_pins(text: str, pins: Iterable[Pin]) -> str:
    """pyproject.toml's text with `pins` added to the managed group, the rest untouched.

    Used before `poetry add`, so the package is resolved and installed from its family's
    source at once; the lock that follows rewrites the whole group from the plan, and
    reports whatever keeps it from doing so (here, the text is then left as it is).
    """
    unwritable: tuple[type[Exception], ...] = (PoetryCudaError, *toml_edit.edit_errors())
    try:
        document = toml_edit.parse(text)
        group = _managed_group(toml_edit.tool_table(document, "poetry"))
        if group is None:
            return text
        dependencies = toml_edit.table(group, "dependencies", f"{GROUP}.dependencies")
        for pin in pins:
            if pin.package not in dependencies:
                entry = lazy.tomlkit().inline_table()
                entry.update({"version": pin.version, "source": pin.source, "markers": pin.markers})
                dependencies.add(pin.package, entry)
        return toml_edit.render(document, GROUP)
    except unwritable:
        return text


def rewrite(
    text: str, managed: Managed, previous: Collection[str], families: Sequence[Family]
) -> str:
    """pyproject.toml's text with the managed entries rewritten; `text` if nothing changes."""
    return toml_edit.rewrite(
        text, "tool.poetry", lambda document: apply(document, managed, previous, families)
    )


# Poetry 1.x spellings of a source's priority, which Poetry 2 refuses, and what replaces each.


def prepare(project: Path, dropped: Collection[str]) -> None:
    """Make poetry.lock resolvable after the sources in `dropped` left pyproject.toml.

    So does every other source poetry.lock names that pyproject.toml (as this lock wrote
    it) no longer declares: one `lock --adopt` removed or renamed, or one the authors'
    own plain `poetry lock` recorded before poetry-cuda managed anything.
    """
    lock_path = project / "poetry.lock"
    if not lock_path.exists():
        return
    declared = _declared_sources(read_toml(project / "pyproject.toml"))
    undeclared = {
        reference
        for package in packages(lock_path)
        if isinstance(source := package.get("source"), dict)
        and source.get("type") == "legacy"
        and isinstance(reference := source.get("reference"), str)
        and reference not in declared
    }
    forget_sources(lock_path, {*dropped, *undeclared})


def _declared_sources(pyproject: dict[str, Any]) -> set[str]:
    """The names of the `[[tool.poetry.source]]` entries of a parsed pyproject.toml."""
    tool = pyproject.get("tool")
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    sources = poetry.get("source") if isinstance(poetry, dict) else None
    if not isinstance(sources, list):
        return set()
    return {s["name"] for s in sources if isinstance(s, dict) and isinstance(s.get("name"), str)}


def forget_sources(lock_path: Path, names: Collection[str]) -> None:
    """Drop poetry.lock entries locked from sources the plan no longer uses.

    Poetry's `lock` keeps locked packages where it can and fails on a package locked from a
    source that no longer exists; without those entries it resolves them anew from the
    current sources, and every other package keeps its locked version.
    """
    if not names or not lock_path.exists():
        return
    packages(lock_path)  # a clear error (exit 2, naming the file) for one that is no lock file
    tomlkit = lazy.tomlkit()
    document = tomlkit.parse(read_text(lock_path))
    entries = document.get("package")
    if entries is None:
        return
    kept = [p for p in entries if (p.get("source") or {}).get("reference") not in names]
    if len(kept) != len(entries):
        entries.clear()
        entries.extend(kept)
        write_toml_atomic(lock_path, tomlkit.dumps(document))


# `lock --adopt`: the hand-written entries of Poetry's tables that the plan takes over
# (`backends.adoption_edit` asks each manager's editor; None: not in a table of Poetry's).


def adopt_pin(document: TOMLDocument, pin: HandPin, pins: Sequence[HandPin]) -> list[str] | None:
    """A Poetry dependency keeps its constraint, without `source`, URL or label: a list of
    per-platform entries becomes that one constraint (poetry-cuda's pins carry the markers)."""
    if not pin.where.startswith("[tool.poetry."):
        return None
    poetry = toml_edit.tool_table(document, "poetry")
    if pin.where.startswith("[tool.poetry.group."):  # a group's table; its name may hold dots
        group = pin.where.removeprefix("[tool.poetry.group.").removesuffix(".dependencies]")
        groups = toml_edit.mapping(poetry, "group", pin.where)
        poetry = toml_edit.mapping(groups, group, pin.where)
    found = toml_edit.mapping(poetry, "dependencies", pin.where)
    key = toml_edit.key_of(found, pin.package)
    if key is None:
        return []
    value = found[key]
    before = toml_edit.one_line(toml_edit.plain(value))
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
    found[key] = new
    return [f"{pin.where} {key} = {before} -> {toml_edit.one_line(toml_edit.plain(new))}"]


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


def drop_index(document: TOMLDocument, index: HandIndex) -> list[str] | None:
    """An unused `[[tool.poetry.source]]` is removed."""
    if index.where != f"[[{SOURCES}]]":
        return None
    toml_edit.remove_named(document["tool"]["poetry"], "source", SOURCES, index.name)
    return [f"{index.said}: removed (no longer used)"]


def make_explicit(document: TOMLDocument, index: HandIndex) -> list[str] | None:
    """A Poetry 1.x source (`secondary = true`) written as Poetry 2's explicit source."""
    if index.where != f"[[{SOURCES}]]":
        return None
    poetry: Any = document["tool"]["poetry"]
    for source in toml_edit.entries(poetry, "source", SOURCES):
        if source.get("name") == index.name:
            for key in ("secondary", "default"):
                if key in source:
                    del source[key]
            source["priority"] = "explicit"
            return [f'{index.said}: {index.old_priority} -> priority = "explicit"']
    return []
