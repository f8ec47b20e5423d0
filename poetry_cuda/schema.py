"""One reader for parsed TOML and JSON documents: typed values, errors that name the key.

The knowledge tables, host profiles, cuda.lock and `[tool.poetry-cuda]` are read
through `Table`, so that every bad value is reported the same way: the file, the
dotted key (``release[2.5].variant[cu124].sass[1]``) and the problem, with the why
and fix of the document's `Voice`. A key whose value is None (JSON's null) is absent.
"""

from __future__ import annotations

import enum

from typing import TYPE_CHECKING
from typing import Any
from typing import TypeVar
from typing import overload

from poetry_cuda.display import echoed
from poetry_cuda.display import quoted
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import did_you_mean
from poetry_cuda.messages import message
from poetry_cuda.messages import translated
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Collection
    from collections.abc import Iterator
    from collections.abc import Mapping

    from poetry_cuda.errors import PoetryCudaError
    from poetry_cuda.messages import Localized
    from poetry_cuda.messages import Message


T = TypeVar("T")
D = TypeVar("D")
C = TypeVar("C", bound=str)


class _Absent(enum.Enum):
    """No default given: the key is required (a sentinel, as None is a valid default)."""

    ABSENT = enum.auto()


ABSENT = _Absent.ABSENT


@frozen
class Voice:
    """How a document's errors read: their class, how they name it, why and how to fix.

    `prefix` starts every message (``"cuda.lock: "``, ``"[tool.poetry-cuda] "``); `fix`
    may be a function of the dotted key, for documents whose fix names it.
    """

    error: type[PoetryCudaError]
    prefix: str
    why: Localized = ""
    fix: Localized | Callable[[str], Localized] = ""

    def fail(
        self,
        where: str,
        problem: Localized,
        fix: Localized | None = None,
        *,
        hint: Message | None = None,
    ) -> PoetryCudaError:
        """The error at `where`; `hint` (the known name nearest a mistyped one) follows."""
        where = echoed(where or "(top level)")
        if fix is None:
            fix = self.fix(where) if callable(self.fix) else self.fix
        at: Localized = f"{self.prefix}{where}"
        if self.prefix.endswith(": "):  # a file's name: its colon is the reader's punctuation
            at = Phrase((self.prefix[:-2], where), ": ")
        # A problem in the catalogue reads in the user's language; another is English as written.
        what: Localized = (
            message("schema.at", where=at, problem=problem)
            if translated(problem)
            else Phrase((at, problem), ": ")
        )
        if hint is not None:
            what = Phrase((what, hint), ". ")
        return self.error(what, why=self.why, fix=fix)


class Table:
    """One table (or JSON object) being read; `done` refuses the keys nobody asked for.

    Every accessor takes `fix`, for a key whose fix says more than the document's.
    """

    def __init__(self, data: Mapping[str, Any], voice: Voice, path: str = "") -> None:
        self.data = data
        self.voice = voice
        self.path = path
        self._asked: set[str] = set()

    def where(self, key: str) -> str:
        return ".".join(p for p in (self.path, key) if p)

    def error(
        self,
        key: str,
        problem: Localized,
        *,
        fix: Localized | None = None,
        hint: Message | None = None,
    ) -> PoetryCudaError:
        return self.voice.fail(self.where(key), problem, fix, hint=hint)

    def has(self, key: str) -> bool:
        return self.data.get(key) is not None

    def __iter__(self) -> Iterator[str]:
        """The keys as written, for tables whose keys are names (mirrors, packages)."""
        return iter(self.data)

    @overload
    def value(self, key: str, kind: type[T], what: str, *, fix: Localized | None = None) -> T: ...
    @overload
    def value(
        self, key: str, kind: type[T], what: str, default: D, *, fix: Localized | None = None
    ) -> T | D: ...
    def value(
        self,
        key: str,
        kind: type[T],
        what: str,
        default: object = ABSENT,
        *,
        fix: Localized | None = None,
    ) -> object:
        """The value of `key`, of type `kind` (`what` describes it); required without `default`."""
        return self._get(key, kind, what, default, fix)

    def _get(self, key: str, kind: type, what: str, default: object, fix: Localized | None) -> Any:
        self._asked.add(key)
        if not self.has(key):
            if default is ABSENT:
                raise self.error(key, message("schema.missing", what=type_word(what)), fix=fix)
            return default
        value = self.data[key]
        # bool is an int: never accept one where a number is meant.
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise self.error(key, expected(what, value), fix=fix)
        return value

    @overload
    def text(self, key: str, *, fix: Localized | None = None) -> str: ...
    @overload
    def text(self, key: str, default: D, *, fix: Localized | None = None) -> str | D: ...
    def text(self, key: str, default: object = ABSENT, *, fix: Localized | None = None) -> object:
        """A string that must not be empty, unless a string default stands for it."""
        return self._text(key, default, fix)

    def _text(self, key: str, default: object, fix: Localized | None = None) -> Any:
        value = self._get(key, str, "a string", default, fix)
        if isinstance(value, str) and not value.strip() and not isinstance(default, str):
            raise self.error(key, message("schema.empty"), fix=fix)
        return value

    def texts(
        self,
        key: str,
        default: tuple[str, ...] | _Absent = ABSENT,
        *,
        what: str = "a list of strings",
        item: str = "a string",
        fix: Localized | None = None,
    ) -> tuple[str, ...]:
        """A list of strings; a bad item is named by its index (``sass[1]``)."""
        values = self._get(key, list, what, default, fix)
        for i, value in enumerate(values):
            if not isinstance(value, str):
                raise self.error(f"{key}[{i}]", expected(item, value), fix=fix)
        return tuple(values)

    def parse(self, key: str, text: str, parser: Callable[[str], T]) -> T:
        """`parser(text)`, its ValueError (InvalidVersion and InvalidSpecifier too) named by key."""
        try:
            return parser(text)
        except ValueError as error:
            raise self.error(key, echoed(str(error))) from None

    def parsed(self, key: str, parser: Callable[[str], T], default: str | _Absent = ABSENT) -> T:
        """`text` of `key` as `parser` reads it; `default` is a text to parse."""
        return self.parse(key, self._text(key, default), parser)

    def parsed_list(
        self, key: str, parser: Callable[[str], T], default: tuple[str, ...] | _Absent = ()
    ) -> tuple[T, ...]:
        """`texts` of `key` as `parser` reads each (absent: none)."""
        return tuple(
            self.parse(f"{key}[{i}]", text, parser)
            for i, text in enumerate(self.texts(key, default))
        )

    def choice(
        self,
        key: str,
        options: tuple[C, ...],
        default: C | _Absent = ABSENT,
        *,
        fix: Localized | None = None,
    ) -> C:
        """One of `options`, typed as they are (a Literal type for a tuple of Literals)."""
        self._asked.add(key)
        if not self.has(key):
            if isinstance(default, _Absent):
                missing = message("schema.missing-one-of", options=", ".join(options))
                raise self.error(key, missing, fix=fix)
            return default
        value = self.data[key]
        for option in options:
            if value == option:
                return option
        hint = did_you_mean(value, options, '"') if isinstance(value, str) else None
        wrong = message("schema.not-one-of", value=quoted(value), options=", ".join(options))
        raise self.error(key, wrong, fix=fix, hint=hint)

    @overload
    def table(self, key: str, *, what: str = ..., fix: Localized | None = None) -> Table: ...
    @overload
    def table(
        self, key: str, default: Mapping[str, Any], *, what: str = ..., fix: Localized | None = None
    ) -> Table: ...
    @overload
    def table(
        self, key: str, default: None, *, what: str = ..., fix: Localized | None = None
    ) -> Table | None: ...
    def table(
        self,
        key: str,
        default: Mapping[str, Any] | _Absent | None = ABSENT,
        *,
        what: str = "a table",
        fix: Localized | None = None,
    ) -> Table | None:
        """The sub-table at `key`; its errors name ``key.subkey``."""
        data = self._get(key, dict, what, default, fix)
        return None if data is None else Table(data, self.voice, self.where(key))

    def tables(
        self,
        key: str,
        label: Callable[[Mapping[str, Any], int], str] | None = None,
        *,
        what: str = "an array of tables",
        item: str = "a table",
    ) -> list[Table]:
        """The array of tables at `key` (absent: none), each named ``key[label]``.

        `label` names a row by one of its fields (see `by`); by default rows are numbered.
        """
        rows = self._get(key, list, what, [], None)
        out = []
        for i, row in enumerate(rows):
            if not isinstance(row, dict):
                raise self.error(f"{key}[{i}]", expected(item, row))
            name = f"{key}[{label(row, i) if label else i}]"
            out.append(Table(row, self.voice, self.where(name)))
        return out

    def only(self, keys: Collection[str], *, fix: Localized | None = None) -> None:
        """Refuse the first key (in sorted order) that is not one of `keys`."""
        unknown = sorted(set(self.data) - set(keys))
        if unknown:
            hint = did_you_mean(unknown[0], keys, '"')
            raise self.error(unknown[0], message("schema.unknown-key"), fix=fix, hint=hint)

    def done(self) -> None:
        """Refuse a key that no accessor asked for: a typo must not pass unnoticed."""
        self.only(self._asked)


# The kinds of value a document's keys hold, as errors name them, in the reader's words.
TYPE_WORDS: Mapping[str, Message] = {
    "a string": message("type.string"),
    "an integer": message("type.integer"),
    "a boolean": message("type.boolean"),
    "a number of bytes": message("type.bytes"),
    "a table": message("type.table"),
    "an array of tables": message("type.tables"),
    "a list": message("type.list"),
    "a list of strings": message("type.strings"),
    "a list of values": message("type.values"),
    "a list of paths": message("type.paths"),
    "a path": message("type.path"),
    "a URL": message("type.url"),
    "a table of features": message("type.features"),
    "a table of namespaces": message("type.namespaces"),
    "a table of packages": message("type.packages"),
    "a provider table": message("type.provider"),
    "a CUDA major version": message("type.cuda-major"),
    "a CUDA major such as 12": message("type.cuda-major-example"),
    "an object": message("type.object"),
    "a list of objects": message("type.objects"),
    "a table of platform = variant": message("type.platform-variants"),
    "a list of {member = version} tables": message("type.member-versions"),
}


def type_word(what: str) -> Localized:
    """The kind of value `what` names ("an integer"), in the reader's words where known."""
    return TYPE_WORDS.get(what, what)


def expected(what: str, got: object) -> Message:
    """The problem of a value of another kind than `what`: "expected WHAT, got VALUE"."""
    return message("schema.expected", what=type_word(what), got=quoted(got))


def by(field: str) -> Callable[[Mapping[str, Any], int], str]:
    """Label array rows by one of their fields (``release[2.5]``), else by position."""
    return lambda row, i: str(row.get(field, i))
