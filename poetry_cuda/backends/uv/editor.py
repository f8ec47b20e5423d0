"""uv's configuration in pyproject.toml, as poetry-cuda writes it.

uv has no plugin API, so poetry-cuda writes what uv's PyTorch guide has a user write.
It owns four kinds of entries:

- the `[[tool.uv.index]]` entries it lists in cuda.lock, each `explicit = true`, so
  uv takes only the packages pinned to them from them;
- the `[tool.uv.sources]` entries that pin each CUDA-flavoured package to its index on
  Linux and Windows (other platforms keep the default index, PyPI);
- the dependency group `[dependency-groups] poetry-cuda`, because uv applies a source
  only to the packages the project itself requires: without it torch under torchvision
  would come from PyPI;
- the group's place in `[tool.uv] default-groups`, so that a plain `uv sync` installs
  what the group adds (the toolkit wheels of `toolkit = "wheels"`): uv installs only its
  default groups, `["dev"]` unless set.

Everything else keeps its bytes, and an unchanged plan gives an unchanged file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda import lazy
from poetry_cuda.backends import requirements_edit
from poetry_cuda.backends import toml_edit
from poetry_cuda.errors import ConfigError
from poetry_cuda.names import canonical_name
from poetry_cuda.planning.managed import MANAGED_MARKERS
from poetry_cuda.planning.managed import group_marker
from poetry_cuda.request.settings import parse_settings
from poetry_cuda.request.tables import MANAGED_GROUP


if TYPE_CHECKING:
    from collections.abc import Collection
    from collections.abc import Sequence
    from pathlib import Path

    from tomlkit.toml_document import TOMLDocument

    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.planning.managed import Managed
    from poetry_cuda.planning.managed import Pin
    from poetry_cuda.request.handwritten import HandIndex
    from poetry_cuda.request.handwritten import HandPin


INDEXES = "tool.uv.index"
SOURCES = "[tool.uv.sources]"
INDEX = toml_edit.IndexShape(
    INDEXES, "index", "explicit", True, blank_after=True, flat_key="format"
)
GROUP_COMMENT = group_marker("poetry-cuda")
DEFAULTS = "tool.uv.default-groups"
DEFAULTS_COMMENT = "# Managed by poetry-cuda: `poetry-cuda lock` rewrites this list."


def _is_managed_source(value: Any, ours: Collection[str]) -> bool:
    """A `[tool.uv.sources]` value poetry-cuda wrote: one of our indexes, on the CUDA platforms.

    `ours` are the indexes pyproject.toml itself shows to be poetry-cuda's.
    """
    value = toml_edit.plain(value)
    return (
        isinstance(value, list)
        and len(value) == 1
        and isinstance(value[0], dict)
        and set(value[0]) == {"index", "marker"}
        and value[0]["marker"] in MANAGED_MARKERS
        and value[0]["index"] in ours
    )


def _apply_sources(uv: Any, managed: Managed, ours: Collection[str]) -> None:
    pinned = {pin.package: pin.source for pin in managed.pins if pin.source is not None}
    markers = {pin.package: pin.markers for pin in managed.pins}
    urls = dict(managed.sources)
    found = toml_edit.mapping(uv, "sources", "tool.uv.sources")
    for key in list(found):
        name = canonical_name(key)
        value = found[key]
        if name in managed.kept:
            continue  # the authors' own pin, which already says what the plan chose
        if _is_managed_source(value, ours):
            if name not in pinned and _is_managed_source(value, managed.adopted):
                continue  # in the shape we write, but on the authors' index: theirs
            if name not in pinned:
                del uv["sources"][key]  # a package an earlier plan pinned and this one does not
        elif name in pinned:
            wanted = pinned[name]
            raise toml_edit.own_source_conflict(
                "[tool.uv.sources]",
                f"{key} = {toml_edit.shown(value, limit=None)}",
                name,
                wanted,
                urls[wanted],
            )
    sources = uv.get("sources")
    if not pinned:
        if sources is not None and not sources:
            del uv["sources"]
        return
    created = sources is None
    if sources is None:
        sources = lazy.tomlkit().table()
    for package, index in pinned.items():
        value = toml_edit.value(
            f"[{{ index = {toml_edit.string(index)}, "
            f"marker = {toml_edit.string(markers[package])} }}]"
        )
        key = next((k for k in sources if canonical_name(k) == package), package)
        if toml_edit.plain(sources.get(key)) != toml_edit.plain(value):
            sources[key] = value
    if created:
        sources.add(lazy.tomlkit().nl())
        uv["sources"] = sources


def _flat(document: TOMLDocument, wanted: dict[str, str]) -> set[str]:
    """The wanted indexes that a flat mirror serves: uv reads them with `format = "flat"`.

    The layout is the project's own setting, beside the managed entries in the document.
    """
    mirrors = parse_settings(document.unwrap()).mirrors.values()
    return {
        name
        for name, url in wanted.items()
        if any(mirror.layout == "flat" and mirror.serves(url) for mirror in mirrors)
    }


def _managed_group(document: TOMLDocument) -> Any:
    groups = toml_edit.mapping(document, "dependency-groups", "dependency-groups")
    return toml_edit.managed_group(
        groups,
        f"[dependency-groups] {MANAGED_GROUP}",
        GROUP_COMMENT,
        f"delete {MANAGED_GROUP} from [dependency-groups]",
    )


def _grouped(managed: Managed) -> list[Pin]:
    """The pins the dependency group holds: not those the project installs only with an
    extra (the sources entry pins them there; the group, a default one, would install them)."""
    return [pin for pin in managed.pins if not pin.optional]


def _apply_group(document: TOMLDocument, managed: Managed, group: Any) -> None:
    pins = _grouped(managed)
    if not pins:
        if group is not None:
            toml_edit.remove(document, "dependency-groups", MANAGED_GROUP)
        return
    requirements = [
        f"{pin.package}{'' if pin.version == '*' else pin.version}; {pin.markers}" for pin in pins
    ]
    if group is not None and toml_edit.plain(group) == requirements:
        return
    lines = "".join(f"    {toml_edit.string(r)},\n" for r in requirements)
    array = toml_edit.value(f"[\n    {GROUP_COMMENT}\n{lines}]")
    groups = document.get("dependency-groups")
    if groups is None:
        groups = lazy.tomlkit().table()
        document["dependency-groups"] = groups
    groups[MANAGED_GROUP] = array


def _default_groups(document: TOMLDocument) -> list[str]:
    """The default-groups poetry-cuda writes where the project sets none: uv's, and ours.

    uv's own default is `["dev"]`, but a `dev` written there must exist: uv refuses a
    default group that the project does not define.
    """
    groups = toml_edit.mapping(document, "dependency-groups", "dependency-groups")
    uv = toml_edit.tool_table(document, "uv")
    has_dev = "dev" in groups or "dev-dependencies" in uv
    return [*(["dev"] if has_dev else []), MANAGED_GROUP]


def _apply_defaults(document: TOMLDocument, needed: bool, dropped_group: bool) -> None:
    """Keep the managed group among uv's default groups exactly while the plan needs it.

    The whole list is poetry-cuda's only with its marker comment (it wrote the list where
    the project had none); in a list of the user's, only the entry naming the managed
    group is, and it goes only with that group. `"all"` already holds the group.
    """
    items = lazy.tomlkit().items
    found = toml_edit.tool_table(document, "uv").get("default-groups")
    ours = toml_edit.has_comment(found, DEFAULTS_COMMENT)
    if found is not None and not ours and found != "all":
        names = toml_edit.plain(found)
        if not isinstance(found, items.Array) or not all(isinstance(n, str) for n in names):
            raise ConfigError(
                f'pyproject.toml: {DEFAULTS} must be a list of group names or "all", '
                f"not {toml_edit.shown(found)}",
                fix='write e.g. default-groups = ["dev"] under [tool.uv], or delete it',
            )
    if not needed:
        if ours:
            uv = document["tool"]["uv"]
            del uv["default-groups"]
            if not uv and not uv.as_string().strip():  # a [tool.uv] that held only our list
                toml_edit.remove(document, "tool", "uv")
        elif dropped_group and isinstance(found, items.Array) and MANAGED_GROUP in found:
            toml_edit.edit_inline_array(found, lambda name: name == MANAGED_GROUP, [])
        return
    if found == "all" or (not ours and found is not None and MANAGED_GROUP in found):
        return
    if found is not None and not ours:  # the user's list, wherever it is written
        toml_edit.edit_inline_array(found, lambda name: False, [toml_edit.string(MANAGED_GROUP)])
        return
    wanted = _default_groups(document)
    if ours and toml_edit.plain(found) == wanted:
        return
    uv = toml_edit.table(toml_edit.table(document, "tool", "tool"), "uv", "tool.uv")
    lines = "".join(f"    {toml_edit.string(name)},\n" for name in wanted)
    array = toml_edit.value(f"[\n    {DEFAULTS_COMMENT}\n{lines}]")
    if isinstance(uv, items.Table) and uv.is_super_table():  # no [tool.uv] header yet
        array.trivia.trail = "\n\n"  # a blank line before the tables that follow
    uv["default-groups"] = array


def apply(
    document: TOMLDocument, managed: Managed, previous: Collection[str], families: Sequence[Family]
) -> None:
    """Rewrite the managed entries of `document` in place.

    An index is poetry-cuda's only when pyproject.toml itself says so: explicit, with a
    name and URL poetry-cuda produces (`is_our_source`); a source only when it pins a
    package to such an index on the CUDA platforms, as poetry-cuda writes it; the group
    only with its marker comment, and so the default-groups list (`_apply_defaults`).
    `previous` (cuda.lock's managed-sources) says which indexes of ours to drop when the
    plan no longer needs them; any other entry it or the plan names is a conflict.
    """
    wanted = dict(managed.sources)
    group = _managed_group(document)
    found = toml_edit.tool_table(document, "uv")
    indexes = toml_edit.entries(found, "index", INDEXES)
    ours = {
        *wanted,
        *managed.adopted,
        *(entry.get("name") for entry in indexes if INDEX.is_ours(entry, families)),
    }
    sources = toml_edit.mapping(found, "sources", "tool.uv.sources").values()
    if (
        wanted
        or any(pin.source is not None for pin in managed.pins)
        or any(entry.get("name") in previous for entry in indexes)
        or any(_is_managed_source(value, ours) for value in sources)
    ):  # otherwise nothing of ours is there to change, whatever the layout
        uv = toml_edit.table(toml_edit.table(document, "tool", "tool"), "uv", "tool.uv")
        flat = _flat(document, wanted)
        toml_edit.apply_indexes(uv, "index", INDEX, wanted, previous, families, flat)
        _apply_sources(uv, managed, ours)
    _apply_group(document, managed, group)
    _apply_defaults(document, bool(_grouped(managed)), dropped_group=group is not None)


def rewrite(
    text: str, managed: Managed, previous: Collection[str], families: Sequence[Family]
) -> str:
    """pyproject.toml's text with the managed entries rewritten; `text` if nothing changes."""
    return toml_edit.rewrite(
        text, "tool.uv", lambda document: apply(document, managed, previous, families)
    )


def prepare(project: Path, dropped: Collection[str]) -> None:
    """Nothing to do for uv.lock after the sources in `dropped` left pyproject.toml."""
    # uv notices on its own that an index left pyproject.toml and resolves the
    # packages locked from it anew; every other package keeps its version.
    return


# `lock --adopt`: the hand-written entries of uv's tables that the plan takes over
# (`backends.adoption_edit` asks each manager's editor; None: not in a table of uv's).


def adopt_pin(document: TOMLDocument, pin: HandPin, pins: Sequence[HandPin]) -> list[str] | None:
    """A `[tool.uv.sources]` entry is removed; a wheel's version moves into the requirement."""
    if pin.where != SOURCES:
        return None
    sources: Any = document["tool"]["uv"]["sources"]
    key = toml_edit.key_of(sources, pin.package)
    if key is None:
        return []
    before = toml_edit.one_line(toml_edit.plain(sources[key]))
    del sources[key]
    changes = [f"{SOURCES} {key} = {before}: removed"]
    version = next((p.version for p in pins if p.kind == "url" and p.version), None)
    if version is not None:
        changes.extend(requirements_edit.pin_version(document, pin.package, version))
    return changes


def drop_index(document: TOMLDocument, index: HandIndex) -> list[str] | None:
    """An unused `[[tool.uv.index]]` is removed, or its URL from `[tool.uv]` index-url,
    extra-index-url or find-links (a URL or a list of them)."""
    if index.where == f"[[{INDEXES}]]":
        toml_edit.remove_named(document["tool"]["uv"], "index", INDEXES, index.name)
        return [f"{index.said}: removed (no longer used)"]
    if not index.where.startswith("[tool.uv] "):
        return None
    uv: Any = document["tool"]["uv"]
    key = index.where.split()[-1]
    value = uv.get(key)
    if isinstance(value, lazy.tomlkit().items.Array):
        toml_edit.edit_inline_array(value, lambda url: url == index.url, [])
        if not value:
            del uv[key]
    elif value == index.url:
        del uv[key]
    return [f"[tool.uv] {key}: {index.url} removed (no longer used)"]


def make_explicit(document: TOMLDocument, index: HandIndex) -> list[str] | None:
    """None: uv has no priority of an older uv that it refuses (Poetry 1.x's are Poetry's)."""
    return None
