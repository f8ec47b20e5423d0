"""`frozen`: a frozen dataclass that costs a tenth of one to define.

`dataclasses.dataclass` writes each method as source and compiles it (`exec`), six times
per frozen class: about a millisecond a class, and poetry-cuda defines about a hundred,
so a command spent more time defining its value types than planning. `frozen` makes the
same methods from closures instead. A record is a dataclass to everything that asks
(`dataclasses.fields`, `replace`, `asdict`, `is_dataclass` read `__dataclass_fields__`),
and it behaves as `@dataclass(frozen=True)` does: the same `__init__` (positional or
keyword, defaults and `field(default_factory=...)`), `__repr__`, `__eq__` and `__hash__`
over the compared fields, `FrozenInstanceError` on assignment, and with `order=True` the
comparisons. A test holds the two equal on the same definitions. What dataclasses offer
beyond that (`__post_init__`, `InitVar`, `kw_only`, slots) is refused, not ignored.

The fields it builds lean on two of dataclasses' private names (`_FIELD`, a field's
`_field_type`), so it is used only on the Pythons it was checked on (`CHECKED`, the suite
runs on each); on any other, a record is `dataclass(frozen=True)` itself, slower to define
and the same to use.
"""

from __future__ import annotations

import dataclasses
import sys

from dataclasses import MISSING
from dataclasses import Field
from dataclasses import FrozenInstanceError
from typing import TYPE_CHECKING
from typing import Any
from typing import TypeVar
from typing import overload


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Sequence

    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_: object) -> Callable[[T], T]:
        return lambda decorated: decorated


T = TypeVar("T", bound=type)
# The Pythons whose dataclasses `_build` was checked against (tests/test_records.py).
CHECKED = ((3, 10), (3, 11), (3, 12), (3, 13))
# What `dataclasses.fields()` looks for: a field that is neither a ClassVar nor an InitVar.
PLAIN_FIELD: object = getattr(dataclasses, "_FIELD", None)


def checked(version: Sequence[object]) -> bool:
    """Whether records are built here on Python `version` (else by `dataclass`)."""
    return tuple(version[:2]) in CHECKED and PLAIN_FIELD is not None


FAST = checked(sys.version_info)


@overload
def frozen(cls: T, /) -> T: ...


@overload
def frozen(*, order: bool = False) -> Callable[[T], T]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, Field))
def frozen(cls: T | None = None, /, *, order: bool = False) -> T | Callable[[T], T]:
    """Make `cls` a frozen dataclass (`@frozen`, or `@frozen(order=True)`)."""

    def make(cls: T) -> T:
        return define(cls, order=order, fast=FAST)

    return make if cls is None else make(cls)


def define(cls: T, *, order: bool, fast: bool) -> T:
    """`cls` as a frozen record: built here (`fast`), or by `dataclass(frozen=True)`."""
    if "__post_init__" in cls.__dict__:  # refused either way, so that code runs on both
        raise TypeError(f"{cls.__name__}: record has no __post_init__; use a dataclass")
    if fast:
        _build(cls, order)
    else:
        dataclasses.dataclass(frozen=True, order=order)(cls)  # the same class, without slots
    return cls


def _fields(cls: type) -> dict[str, Field[Any]]:
    """The fields of `cls`, its bases' first, as `dataclass` collects them."""
    fields: dict[str, Field[Any]] = {}
    for base in reversed(cls.__mro__[1:]):
        fields.update(getattr(base, "__dataclass_fields__", {}))
    for name, annotation in vars(cls).get("__annotations__", {}).items():
        if str(annotation).startswith(("ClassVar", "typing.ClassVar")):
            continue
        if str(annotation).startswith(("InitVar", "dataclasses.InitVar")):
            raise TypeError(f"{cls.__name__}.{name}: record has no InitVar; use a dataclass")
        default = cls.__dict__.get(name, MISSING)
        spec: Field[Any] = (
            default if isinstance(default, Field) else dataclasses.field(default=default)
        )
        if not spec.init:
            raise TypeError(f"{cls.__name__}.{name}: record fields are all __init__'s")
        spec.name, spec.type = name, annotation
        spec._field_type = PLAIN_FIELD  # type: ignore[attr-defined]
        fields[name] = spec
        if spec.default is MISSING:
            if name in cls.__dict__:
                delattr(cls, name)
        else:
            setattr(cls, name, spec.default)
    return fields


def _build(cls: type, order: bool) -> None:
    fields = _fields(cls)
    specs = tuple((name, f.default, f.default_factory) for name, f in fields.items())
    compared = tuple(name for name, f in fields.items() if f.compare)
    shown = tuple(name for name, f in fields.items() if f.repr)
    hashed = tuple(name for name, f in fields.items() if (f.compare if f.hash is None else f.hash))
    title, count = cls.__name__, len(specs)
    set_field = object.__setattr__

    def init(self: object, *args: object, **kwargs: object) -> None:
        if len(args) > count:
            raise TypeError(f"{title}.__init__() takes {count + 1} positional arguments")
        unknown = [name for name in kwargs if name not in fields]
        if unknown:
            raise TypeError(f"{title}.__init__() got an unexpected keyword argument {unknown[0]!r}")
        missing = []
        for index, (name, default, factory) in enumerate(specs):
            if index < len(args):
                if name in kwargs:
                    raise TypeError(f"{title}.__init__() got multiple values for argument {name!r}")
                value = args[index]
            elif name in kwargs:
                value = kwargs[name]
            elif default is not MISSING:
                value = default
            elif factory is not MISSING:
                value = factory()
            else:
                missing.append(repr(name))
                continue
            set_field(self, name, value)
        if missing:
            raise TypeError(
                f"{title}.__init__() missing {len(missing)} required positional "
                f"argument{'s' if len(missing) > 1 else ''}: {', '.join(missing)}"
            )

    def represent(self: object) -> str:
        values = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{type(self).__qualname__}({values})"

    def key(self: object, names: tuple[str, ...] = compared) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in names)

    def equal(self: object, other: object) -> object:
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented

    def hash_of(self: object) -> int:
        return hash(key(self, hashed))

    def refuse_set(self: object, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def refuse_delete(self: object, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    methods: dict[str, Callable[..., Any]] = {
        "__init__": init,
        "__repr__": represent,
        "__eq__": equal,
        "__hash__": hash_of,
        "__setattr__": refuse_set,
        "__delattr__": refuse_delete,
    }
    if order:
        methods.update(_comparisons(key))
    own_hash = cls.__dict__.get("__hash__", MISSING)
    keeps_hash = not (own_hash is MISSING or (own_hash is None and "__eq__" in cls.__dict__))
    for name, method in methods.items():
        if name in cls.__dict__ and name in ("__init__", "__repr__", "__eq__"):
            continue  # the class's own wins, as with dataclass
        if name == "__hash__" and keeps_hash:
            continue
        if name in cls.__dict__ and name not in ("__init__", "__repr__", "__eq__", "__hash__"):
            raise TypeError(f"{cls.__name__} defines {name}, which a frozen record makes")
        method.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, method)
    cls.__dataclass_fields__ = fields  # type: ignore[attr-defined]
    setattr(cls, "__match_args__", tuple(fields))  # noqa: B010 - mypy refuses the assignment


def _comparisons(key: Callable[[object], tuple[object, ...]]) -> dict[str, Callable[..., Any]]:
    """`order=True`: compare the compared fields in order, as tuples, within one class."""

    def compare(name: str) -> Callable[[object, object], object]:
        def comparison(self: object, other: object) -> object:
            if other.__class__ is self.__class__:
                return bool(getattr(key(self), name)(key(other)))
            return NotImplemented

        return comparison

    return {name: compare(name) for name in ("__lt__", "__le__", "__gt__", "__ge__")}
