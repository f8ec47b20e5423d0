"""Editing pyproject.toml in place, in the shapes it is written in, without ever breaking it.

tomlkit keeps every byte it is not asked to change, but it mis-writes some edits: a table
added inside an inline table raises, a table added to an inline array gives invalid TOML,
a table added under dotted keys lands elsewhere. So the backends edit only standard
tables (`table`), add inline entries to an inline array (`edit_inline_array`), and
`render` re-parses every result and compares it with the edited document before it is
written: a layout this misses is refused with exit 2, never written broken.
"""

from __future__ import annotations

import math

from typing import TYPE_CHECKING
from typing import Any

import tomlkit
import tomlkit.exceptions

from tomlkit.container import OutOfOrderTableProxy
from tomlkit.items import AoT
from tomlkit.items import Array
from tomlkit.items import Comment
from tomlkit.items import InlineTable
from tomlkit.items import Table

from poetry_cuda.errors import ConfigError
from poetry_cuda.files import parse_toml


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterator

    from tomlkit.toml_document import TOMLDocument


# tomlkit raises ValueError where an edit cannot be expressed in the document's layout.
EDIT_ERRORS = (tomlkit.exceptions.TOMLKitError, ValueError)


def parse(text: str) -> TOMLDocument:
    try:
        return tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as error:
        raise ConfigError(
            f"pyproject.toml: not valid TOML ({error})",
            fix="correct the syntax at the position shown",
        ) from None


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
    found = parent.get(key)
    if found is None:
        if not create:
            return None
        found = tomlkit.table(is_super_table=True)
        parent[key] = found
    elif isinstance(found, InlineTable):
        raise layout_error(where, f"{key} = {{ ... }} is an inline table")
    elif not isinstance(found, (Table, OutOfOrderTableProxy)):
        raise ConfigError(
            f"pyproject.toml: {where} must be a table, not {_show(found)}",
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
            f"pyproject.toml: {where} must be a table, not {_show(found)}",
            fix=f"write it as a [{where}] table of `name = value` lines",
        )
    return found


def entries(parent: Any, key: str, where: str) -> list[Any]:
    """The tables of the array `key`: `[[where]]` entries, or an inline array of tables."""
    found = parent.get(key)
    if found is None:
        return []
    if not isinstance(found, (AoT, Array)) or not all(isinstance(e, dict) for e in found):
        raise ConfigError(
            f"pyproject.toml: {where} must be an array of tables, not {_show(found)}",
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
    return tomlkit.parse(f"v = {text}\n")["v"]


def string(text: str) -> str:
    return tomlkit.string(text).as_string()


def has_comment(item: Any, comment: str) -> bool:
    """Whether the table or array `item` holds the line `comment` ("# ...") itself."""
    if isinstance(item, Table):
        lines: Iterator[Any] = (part for _, part in item.value.body)
        return any(
            isinstance(line, Comment) and line.as_string().strip() == comment for line in lines
        )
    if isinstance(item, Array):
        return any(line.strip() == comment for line in item.as_string().splitlines())
    return False


def render(document: TOMLDocument, where: str) -> str:
    """The edited document as text, once it reads back as exactly what was edited."""
    result = tomlkit.dumps(document)
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


def _show(found: object) -> str:
    shown = found.as_string() if hasattr(found, "as_string") else repr(found)
    return shown if len(shown) <= 60 else shown[:57] + "..."
