"""Editing pyproject.toml in place, in the shapes it is written in, without ever breaking it.

Both backends edit through this layer: `rewrite` drives one edit, `apply_indexes` keeps
the named explicit indexes poetry-cuda writes (Poetry's sources, uv's indexes), and the
conflicts a user's own entries cause are worded once (`own_source_conflict`,
`managed_group`).

tomlkit keeps every byte it is not asked to change, but it mis-writes some edits: a table
added inside an inline table raises, a table added to an inline array gives invalid TOML,
a table added under dotted keys lands elsewhere. So the backends edit only standard
tables (`table`), add inline entries to an inline array (`edit_inline_array`), and
`render` re-parses every result and compares it with the edited document before it is
written: a layout this misses is refused with exit 2, never written broken.

tomlkit itself is imported by the first edit (`lazy.tomlkit`), so that loading a backend
costs the commands that only read (`doctor`, `env`, `sync`) nothing of it.
"""

from __future__ import annotations

import json
import math

from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda import lazy
from poetry_cuda.errors import ConfigError
from poetry_cuda.files import parse_toml
from poetry_cuda.names import canonical_name
from poetry_cuda.planning.managed import is_our_source
from poetry_cuda.records import frozen
from poetry_cuda.request.tables import MANAGED_GROUP


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Collection
    from collections.abc import Iterator
    from collections.abc import Sequence

    from tomlkit.items import Array
    from tomlkit.toml_document import TOMLDocument

    from poetry_cuda.knowledge.model import Family


def edit_errors() -> tuple[type[Exception], ...]:
    """What tomlkit raises where an edit cannot be expressed in the document's layout."""
    return (lazy.tomlkit().exceptions.TOMLKitError, ValueError)


def rewrite(text: str, where: str, apply: Callable[[TOMLDocument], None]) -> str:
    """pyproject.toml's `text` after `apply` edited its document; `text` if nothing changed.

    `where` names the table the edits belong to, for the message when a layout is refused.
    """
    document = parse(text)
    try:
        apply(document)
    except edit_errors() as error:
        raise layout_error(where, str(error)) from None
    result = render(document, where)
    if result.endswith("\n\n") and not text.endswith("\n\n"):
        result = result.rstrip("\n") + "\n"  # a table added or dropped at the end leaves a blank
    if result == text:
        return text
    # Only layout changed (tomlkit's own spelling of what was there): keep the user's bytes.
    tomlkit = lazy.tomlkit()
    return text if tomlkit.parse(result) == tomlkit.parse(text) else result


@frozen
class IndexShape:
    """How one package manager spells the named, explicit index poetry-cuda writes."""

    where: str  # the array of tables: "tool.poetry.source", "tool.uv.index"
    noun: str  # what the manager calls one: "source", "index"
    flag: str  # the key that makes it explicit: `priority = "explicit"`, `explicit = true`
    explicit: str | bool
    blank_after: bool = False  # end each added table with a blank line
    # The key that marks a flat (find-links) index, for a manager that reads one: uv's
    # `format = "flat"`. Its absence is the simple (PEP 503) layout.
    flat_key: str | None = None

    def fields(self, name: str, url: str, *, flat: bool = False) -> dict[str, str | bool]:
        found: dict[str, str | bool] = {"name": name, "url": url, self.flag: self.explicit}
        if flat and self.flat_key is not None:
            found[self.flat_key] = "flat"
        return found

    def is_flat(self, entry: Any) -> bool:
        return self.flat_key is not None and entry.get(self.flat_key) == "flat"

    def is_explicit(self, entry: Any) -> bool:
        found = entry.get(self.flag)
        if isinstance(self.explicit, bool):
            return found is self.explicit  # `explicit = 1` is no boolean
        return isinstance(found, str) and found == self.explicit

    def is_ours(self, entry: Any, families: Sequence[Family]) -> bool:
        """An entry exactly as poetry-cuda writes it (its own name and URL, explicit)."""
        ours = is_our_source(entry.get("name"), entry.get("url"), families)
        return ours and self.is_explicit(entry)


def apply_indexes(
    parent: Any,
    key: str,
    shape: IndexShape,
    wanted: dict[str, str],
    previous: Collection[str],
    families: Sequence[Family],
    flat: Collection[str] = (),
) -> None:
    """Keep every user index; add the managed ones, drop those the plan no longer needs.

    `wanted` maps each index the plan uses to its URL; `previous` names the indexes an
    earlier lock managed (cuda.lock's managed-sources); `families` are the knowledge
    base's, whose names and URLs say which indexes are ours; `flat` names the wanted
    indexes that are flat listings (`IndexShape.flat_key`).
    """
    current = entries(parent, key, shape.where)
    wanted = dict(wanted)
    dropped = set()
    for entry in current:
        name = entry.get("name")
        if name in wanted:
            if not shape.is_ours(entry, families):
                explicit = "" if shape.is_explicit(entry) else ", not explicit"
                raise ConfigError(
                    f"[[{shape.where}]] {name!r} already exists with url = "
                    f"{entry.get('url')!r}{explicit}",
                    why=f"poetry-cuda needs {name!r} to be the explicit {shape.noun} "
                    f"{wanted[name]}",
                    fix=f"rename or remove your {shape.noun} {name!r}",
                )
            # The same URL, given another layout: the name is ours, the format follows.
            if shape.flat_key is not None and shape.is_flat(entry) != (name in flat):
                if name in flat:
                    entry[shape.flat_key] = "flat"
                else:
                    del entry[shape.flat_key]
            del wanted[name]
        elif name in previous:
            if not shape.is_ours(entry, families):
                raise foreign_entry(f"[[{shape.where}]]", name, entry.get("url"))
            dropped.add(name)  # an index an earlier plan needed and this one does not
    existing = parent.get(key)
    if not dropped and not wanted:
        return
    tomlkit = lazy.tomlkit()
    # `key = [{ ... }]`: ours are written inline too
    if isinstance(existing, tomlkit.items.Array):
        edit_inline_array(
            existing,
            lambda entry: entry.get("name") in dropped,
            [_inline(shape.fields(name, url, flat=name in flat)) for name, url in wanted.items()],
        )
        if not existing:
            del parent[key]
        return
    kept = [entry for entry in current if entry.get("name") not in dropped]
    for name, url in wanted.items():
        table = tomlkit.table()
        table.update(shape.fields(name, url, flat=name in flat))
        if shape.blank_after:
            table.add(tomlkit.nl())
        if kept and not kept[-1].as_string().endswith("\n\n"):
            table.trivia.indent = "\n"  # a blank line after the entry before it
        kept.append(table)
    pieces = _pieces(parent, key)
    if len(pieces) > 1:  # `[[key]]` entries in several places of the file: edit each place
        _drop_from(pieces, key, lambda entry: entry.get("name") in dropped)
        added = kept[len(current) - len(dropped) :]
        if added:
            last = next((t for t in reversed(pieces) if key in t), pieces[-1])
            if key not in last:
                last[key] = tomlkit.aot()
            last[key].extend(added)
        return
    if existing is not None:
        existing.clear()
        existing.extend(kept)
        if not kept:
            del parent[key]
    elif kept:
        created = tomlkit.aot()
        created.extend(kept)
        parent[key] = created


def remove_entries(parent: Any, key: str, drop: Callable[[Any], bool]) -> None:
    """Remove the tables `drop` selects from the array of tables `key`, wherever it is
    written (inline, as `[[...]]` entries, or in several places of the file), and `key`
    itself where nothing is left of it."""
    existing = parent.get(key)
    if existing is None:
        return
    pieces = _pieces(parent, key)
    if len(pieces) > 1:
        _drop_from(pieces, key, drop)
        return
    if isinstance(existing, lazy.tomlkit().items.Array):
        edit_inline_array(existing, drop, [])
    else:
        kept = [entry for entry in existing if not drop(entry)]
        existing.clear()
        existing.extend(kept)
    if not existing:
        del parent[key]


def _drop_from(pieces: list[Any], key: str, drop: Callable[[Any], bool]) -> None:
    """Drop entries from each table that holds a piece of `key` (an emptied piece goes:
    tomlkit would write it as `key = []`, beside the other pieces' `[[key]]`)."""
    for table in pieces:
        kept = [entry for entry in table[key] if not drop(entry)]
        if kept:
            table[key].clear()
            table[key].extend(kept)
        else:
            del table[key]


def _pieces(parent: Any, key: str) -> list[Any]:
    """The tables that hold a piece of the array of tables `key`, where it is split.

    When other tables stand between its `[[...]]` entries, tomlkit reads the parent as a
    proxy over several tables, and edits made through its merged array are lost: each
    piece is edited in its own table instead.
    """
    tomlkit = lazy.tomlkit()
    if not isinstance(parent, tomlkit.container.OutOfOrderTableProxy):
        return []
    tables = parent._tables  # tomlkit offers no public way to reach them
    return [t for t in tables if isinstance(t.get(key), tomlkit.items.AoT)]


def _inline(fields: dict[str, str | bool]) -> str:
    item = lazy.tomlkit().item
    return "{ " + ", ".join(f"{k} = {item(v).as_string()}" for k, v in fields.items()) + " }"


def foreign_entry(kind: str, name: str, url: object) -> ConfigError:
    """cuda.lock lists `name` as managed, but the entry in pyproject.toml is not poetry-cuda's."""
    return ConfigError(
        f"cuda.lock lists {name!r} among its managed-sources, but the {kind} {name!r} "
        f"(url = {url!r}) in pyproject.toml is not one poetry-cuda writes",
        why="poetry-cuda removes only the explicit sources whose name and URL it produces "
        "itself; a cuda.lock alone is no proof, since anyone can commit one",
        fix=f"if {name!r} is yours, delete cuda.lock (or remove {name!r} from its "
        "managed-sources) and lock again; poetry-cuda then leaves it alone",
    )


def own_source_conflict(
    where: str, written: str, package: str, index: str, url: str
) -> ConfigError:
    """The user pinned a package the plan puts on one of poetry-cuda's indexes elsewhere."""
    return ConfigError(
        f"{where}: {written} is your own source, but the plan puts {package} on {index!r} ({url})",
        why="poetry-cuda pins CUDA-flavoured packages to the chosen index itself, and will not "
        "override a source you set",
        fix=f"remove that source from {package} (poetry-cuda manages it), or remove the "
        'package\'s CUDA choice with cuda = "cpu"',
    )


def managed_group(groups: Any, where: str, marker: str, delete: str) -> Any:
    """The managed group in `groups`, if there is one.

    A group of that name without poetry-cuda's `marker` line is the user's: poetry-cuda
    rewrites its group whole on every lock, so it refuses to take that one over.
    """
    group = groups.get(MANAGED_GROUP)
    if group is not None and not has_comment(group, marker):
        raise ConfigError(
            f"{where} is not the group poetry-cuda writes: it lacks the line `{marker}`",
            why="poetry-cuda rewrites that group whole on every lock, and would drop what you "
            "put in it",
            fix=f"move your dependencies to a group of another name and {delete}; poetry-cuda "
            "then writes its own",
        )
    return group


def remove(parent: Any, key: str, name: str) -> None:
    """Delete `parent[key][name]`, and `parent[key]` with it once nothing else is left there."""
    container = parent[key]
    del container[name]
    if not container:
        del parent[key]


def plain(value: Any) -> Any:
    """A tomlkit item as plain Python data (lists, dicts, strings)."""
    return value.unwrap() if hasattr(value, "unwrap") else value


def shown(value: object, *, limit: int | None = 60) -> str:
    """A value as the user wrote it, cut to `limit` characters (None: whole)."""
    text = value.as_string() if hasattr(value, "as_string") else repr(value)
    return text if limit is None or len(text) <= limit else text[: limit - 3] + "..."


def parse(text: str) -> TOMLDocument:
    tomlkit = lazy.tomlkit()
    try:
        document: TOMLDocument = tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as error:
        raise ConfigError(
            f"pyproject.toml: not valid TOML ({error})",
            fix="correct the syntax at the position shown",
        ) from None
    return document


def layout_error(where: str, detail: str) -> ConfigError:
    return ConfigError(
        f"pyproject.toml: cannot write poetry-cuda's entries into {where} ({detail})",
        why="poetry-cuda edits pyproject.toml in place and never writes a file whose meaning "
        "changed or that no longer parses",
        fix=f"write {where} as a standard table, one `key = value` per line under a "
        f"[{where}] header (and arrays of tables as [[...]] entries), then lock again",
    )


def table(parent: Any, key: str, where: str, *, create: bool = True) -> Any:
    """`parent[key]` as a standard table, added (as a header-less super-table) when absent.

    An inline table cannot hold the tables and marker comments poetry-cuda writes, and
    any other value there is not a table at all: both are refused, naming `where`.
    """
    tomlkit = lazy.tomlkit()
    found = parent.get(key)
    if found is None:
        if not create:
            return None
        found = tomlkit.table(is_super_table=True)
        parent[key] = found
    elif isinstance(found, tomlkit.items.InlineTable):
        raise layout_error(where, f"{key} = {{ ... }} is an inline table")
    elif not isinstance(found, (tomlkit.items.Table, tomlkit.container.OutOfOrderTableProxy)):
        raise ConfigError(
            f"pyproject.toml: {where} must be a table, not {shown(found)}",
            fix=f"write it as a [{where}] table",
        )
    return found


def mapping(parent: Any, key: str, where: str) -> Any:
    """`parent[key]` as read-only table contents: a table, an inline table, or absent ({})."""
    found = parent.get(key) if hasattr(parent, "get") else None
    if found is None:
        return {}
    if not isinstance(found, dict):
        raise ConfigError(
            f"pyproject.toml: {where} must be a table, not {shown(found)}",
            fix=f"write it as a [{where}] table of `name = value` lines",
        )
    return found


def tool_table(document: Any, name: str) -> Any:
    """`[tool.<name>]` to read, whatever its layout ({} when absent)."""
    return mapping(mapping(document, "tool", "tool"), name, f"tool.{name}")


def entries(parent: Any, key: str, where: str) -> list[Any]:
    """The tables of the array `key`: `[[where]]` entries, or an inline array of tables."""
    found = parent.get(key)
    if found is None:
        return []
    items = lazy.tomlkit().items
    if not isinstance(found, (items.AoT, items.Array)) or not all(
        isinstance(e, dict) for e in found
    ):
        raise ConfigError(
            f"pyproject.toml: {where} must be an array of tables, not {shown(found)}",
            fix=f"write each entry as a [[{where}]] table",
        )
    return list(found)


def edit_inline_array(array: Array, drop: Callable[[Any], bool], added: list[str]) -> None:
    """Drop the entries `drop` selects from an inline array and append `added` (TOML text).

    The user's entries keep their bytes, comments included; ours read as a person writes
    them (`{ name = "...", ... }`).
    """
    for index in reversed(range(len(array))):
        if drop(array[index]):
            del array[index]
    for text in added:
        array.append(value(text))


def value(text: str) -> Any:
    """A TOML value parsed from text, so that it reads as written (uv's guide, ours)."""
    return lazy.tomlkit().parse(f"v = {text}\n")["v"]


def string(text: str) -> str:
    written: str = lazy.tomlkit().string(text).as_string()
    return written


def has_comment(item: Any, comment: str) -> bool:
    """Whether the table or array `item` holds the line `comment` ("# ...") itself."""
    items = lazy.tomlkit().items
    if isinstance(item, items.Table):
        lines: Iterator[Any] = (part for _, part in item.value.body)
        return any(
            isinstance(line, items.Comment) and line.as_string().strip() == comment
            for line in lines
        )
    if isinstance(item, items.Array):
        return any(line.strip() == comment for line in item.as_string().splitlines())
    return False


def render(document: TOMLDocument, where: str) -> str:
    """The edited document as text, once it reads back as exactly what was edited."""
    result: str = lazy.tomlkit().dumps(document)
    try:
        parsed = parse_toml(result)
    except (ValueError, RecursionError) as error:  # both parsers' errors are ValueErrors
        raise layout_error(where, f"tomlkit wrote invalid TOML: {error}") from None
    if not same(_pruned(parsed), _pruned(document.unwrap())):
        raise layout_error(where, "tomlkit wrote the entries in another table")
    return result


def same(a: object, b: object) -> bool:
    """Equal TOML values; `nan` equals `nan` (a value the user may have written)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def _pruned(value: Any) -> Any:
    """`value` without empty tables: tomlkit writes nothing for a header-less empty one."""
    if isinstance(value, dict):
        inner = {key: _pruned(item) for key, item in value.items()}
        return {key: item for key, item in inner.items() if item != {}}
    if isinstance(value, list):
        return [_pruned(item) for item in value]
    return value


def key_of(found: Any, package: str) -> str | None:
    """The key of the table `found` that names `package` (a canonical name), as written."""
    return next((k for k in found if canonical_name(k) == package), None)


def one_line(value: Any) -> str:
    """A dependency's value in one line, as inline TOML: tables of arrays read inline."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {one_line(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(one_line(item) for item in value) + "]"
    return json.dumps(value)


def remove_named(parent: Any, key: str, where: str, name: str) -> None:
    """Remove the entry named `name` from the array of tables `key` (`[[where]]`)."""
    entries(parent, key, where)  # refuses another shape
    remove_entries(parent, key, lambda entry: entry.get("name") == name)
