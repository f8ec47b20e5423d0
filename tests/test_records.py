"""A record is a frozen dataclass, at a tenth of the cost to define: the same behaviour.

Every test runs on both ways a record is made: built by `records` (the Pythons it was
checked on) and by `dataclass(frozen=True)` (any other Python).
"""

from __future__ import annotations

import dataclasses
import pickle
import sys

from dataclasses import dataclass
from dataclasses import field
from typing import Any
from typing import ClassVar

import pytest

from poetry_cuda import records
from poetry_cuda.records import frozen


@pytest.fixture(autouse=True, params=[True, False], ids=["built", "dataclass"])
def way(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Records made here as on a checked Python, or as on any other."""
    fast: bool = request.param
    monkeypatch.setattr(records, "FAST", fast)
    return fast


def test_records_are_built_here_only_on_the_pythons_they_were_checked_on() -> None:
    assert records.CHECKED == ((3, 10), (3, 11), (3, 12), (3, 13))
    assert all(records.checked((*version, 0)) for version in records.CHECKED)
    assert not records.checked((3, 14, 0))
    assert not records.checked((4, 0))
    assert records.checked(sys.version_info) == (sys.version_info[:2] <= (3, 13))


def test_each_way_makes_what_it_says(way: bool) -> None:
    @frozen
    class Pair:
        a: int
        b: int = 0

    # A record's methods are closures of records.py; dataclass compiles its own.
    assert (Pair.__init__.__code__.co_filename == records.__file__) == way
    assert Pair(1) == Pair(1, 0)


def twins() -> tuple[type[Any], type[Any]]:
    """The same definition, as a frozen dataclass and as a record."""

    def body() -> dict[str, Any]:
        return {
            "__annotations__": {
                "name": "str",
                "count": "int",
                "tags": "tuple[str, ...]",
                "extra": "dict[str, int]",
                "note": "str",
                "LIMIT": "ClassVar[int]",
            },
            "tags": (),
            "extra": field(default_factory=dict, compare=False),
            "note": field(default="", repr=False),
            "LIMIT": 3,
            "__module__": __name__,
            "__qualname__": "Thing",
        }

    made: type[Any] = dataclass(frozen=True)(type("Thing", (), body()))
    recorded = frozen(type("Thing", (), body()))
    return made, recorded


CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    (("a", 1), {}),
    (("a",), {"count": 2, "tags": ("x",)}),
    ((), {"name": "b", "count": 3, "extra": {"k": 1}, "note": "n"}),
    (("a", 1, ("t",), {"k": 2}, "note"), {}),
]
BAD_CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((), {}),
    (("a",), {}),
    (("a", 1), {"name": "b"}),
    (("a", 1), {"colour": "red"}),
    (("a", 1, (), {}, "", "too many"), {}),
]


@pytest.mark.parametrize(("args", "kwargs"), CALLS)
def test_a_record_behaves_as_the_frozen_dataclass(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    made, recorded = twins()
    a, b = made(*args, **kwargs), recorded(*args, **kwargs)
    assert repr(a) == repr(b)
    assert dataclasses.asdict(a) == dataclasses.asdict(b)
    assert [f.name for f in dataclasses.fields(a)] == [f.name for f in dataclasses.fields(b)]
    assert b == recorded(*args, **kwargs)
    assert hash(b) == hash(recorded(*args, **kwargs))
    assert (a == made("other", 9)) == (b == recorded("other", 9))
    assert b != a  # another class, as between two dataclasses
    assert recorded.LIMIT == 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        b.name = "changed"
    with pytest.raises(dataclasses.FrozenInstanceError):
        del b.name
    assert dataclasses.replace(b, count=7) == recorded(
        **{**dataclasses.asdict(b), "count": 7, "tags": b.tags}
    )
    assert b.__match_args__ == a.__match_args__
    assert dataclasses.is_dataclass(b)  # last: it narrows b's type


def test_fields_compared_false_are_left_out_of_equality_and_hash() -> None:
    _, recorded = twins()
    assert recorded("a", 1, extra={"x": 1}) == recorded("a", 1, extra={"y": 2})
    assert hash(recorded("a", 1, extra={"x": 1})) == hash(recorded("a", 1))


def test_defaults_are_fresh_per_instance_and_on_the_class_where_plain() -> None:
    made, recorded = twins()
    assert recorded("a", 1).extra is not recorded("a", 1).extra
    assert recorded.tags == made.tags == ()
    assert not hasattr(recorded, "count")


@pytest.mark.parametrize(("args", "kwargs"), BAD_CALLS)
def test_a_bad_call_is_a_type_error_as_with_the_dataclass(
    args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    made, recorded = twins()
    with pytest.raises(TypeError):
        made(*args, **kwargs)
    with pytest.raises(TypeError):
        recorded(*args, **kwargs)


def test_order_compares_fields_as_tuples() -> None:
    @frozen(order=True)
    class Version:
        major: int
        minor: int = 0

    @dataclass(frozen=True, order=True)
    class Twin:
        major: int
        minor: int = 0

    pairs = [(1, 2), (1, 0), (2, 0), (0, 9), (1, 2)]
    ours = sorted(Version(*p) for p in pairs)
    theirs = sorted(Twin(*p) for p in pairs)
    assert [(v.major, v.minor) for v in ours] == [(t.major, t.minor) for t in theirs]
    assert Version(1) <= Version(1, 0) < Version(1, 1)
    with pytest.raises(TypeError):
        assert Version(1) < Twin(2)  # type: ignore[operator]


def test_inherited_fields_come_first() -> None:
    @frozen
    class Base:
        a: int

    @frozen
    class Child(Base):
        b: str = "x"

    assert [f.name for f in dataclasses.fields(Child)] == ["a", "b"]
    assert repr(Child(1)) == ("test_inherited_fields_come_first.<locals>.Child(a=1, b='x')")


def test_own_methods_win_and_what_a_record_lacks_is_refused() -> None:
    @frozen
    class Shown:
        a: int
        SCALE: ClassVar[int] = 2

        def __repr__(self) -> str:
            return f"<{self.a}>"

    assert repr(Shown(1)) == "<1>"
    with pytest.raises(TypeError, match="__post_init__"):

        @frozen
        class Checked:
            a: int

            def __post_init__(self) -> None:
                pass


def test_records_pickle_as_dataclasses_do() -> None:
    # The project never pickles (a rule); this holds only that nothing surprising hides.
    assert pickle.loads(pickle.dumps(Point(1, 2))) == Point(1, 2)


@frozen
class Point:
    x: int
    y: int
