"""The one reader: typed values from parsed documents, errors that name the file and key."""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Literal

import pytest

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.files import parse_toml
from poetry_cuda.schema import Table
from poetry_cuda.schema import Voice
from poetry_cuda.schema import by
from poetry_cuda.versions import CudaVersion


if TYPE_CHECKING:
    from collections.abc import Callable


VOICE = Voice(
    InputFileError,
    "demo.toml: ",
    why="the demo must be right",
    fix=lambda where: f"correct {where} in demo.toml",
)
DOC = """\
name = "torch"
size = 3
policy = "native"
arches = ["8.0", "9.0"]

[family]
lead = "torch"

[[release]]
series = "2.5"
cuda = "12.4"

[[release]]
series = "2.6"
cuda = "twelve"
"""
Colour = Literal["red", "green"]
COLOURS: tuple[Colour, ...] = ("red", "green")


def read(text: str = DOC) -> Table:
    return Table(parse_toml(text), VOICE)


def message(error: pytest.ExceptionInfo[PoetryCudaError]) -> str:
    return error.value.render()


def test_typed_values_and_defaults() -> None:
    top = read()
    assert top.value("name", str, "a string") == "torch"
    assert top.value("size", int, "an integer") == 3
    assert top.value("absent", int, "an integer", None) is None
    assert top.choice("policy", ("newest", "native")) == "native"
    colour: Colour = top.choice("colour", COLOURS, "red")
    assert colour == "red"
    assert top.parsed_list("arches", CudaVersion.parse) == (CudaVersion(8, 0), CudaVersion(9, 0))
    assert top.table("family").text("lead") == "torch"
    assert [r.parsed("cuda", str) for r in top.tables("release", by("series"))] == [
        "12.4",
        "twelve",
    ]


def test_an_error_names_the_file_the_dotted_key_why_and_fix() -> None:
    rows = read().tables("release", by("series"))
    with pytest.raises(InputFileError) as caught:
        rows[1].parsed("cuda", CudaVersion.parse)
    assert message(caught) == (
        "demo.toml: release[2.6].cuda: not a CUDA version: 'twelve' (expected e.g. '12.4' or "
        "'cu124')\n"
        "Why: the demo must be right\n"
        "Fix: correct release[2.6].cuda in demo.toml"
    )


BAD = 'flag = true\nempty = " "\nmixed = ["a", 2]\nrows = [{}, 5]\n' + DOC


@pytest.mark.parametrize(
    ("read_it", "what"),
    [
        (lambda t: t.value("missing", str, "a string"), "missing: missing (expected a string)"),
        (lambda t: t.value("name", int, "an integer"), "name: expected an integer, got 'torch'"),
        (lambda t: t.value("flag", int, "an integer"), "flag: expected an integer, got True"),
        (lambda t: t.text("empty"), "empty: must not be empty"),
        (lambda t: t.texts("mixed"), "mixed[1]: expected a string, got 2"),
        (lambda t: t.choice("policy", COLOURS), "policy: 'native' is not one of red, green"),
        (lambda t: t.choice("absent", COLOURS), "absent: missing (expected one of red, green)"),
        (lambda t: t.table("name"), "name: expected a table, got 'torch'"),
        (lambda t: t.tables("name"), "name: expected an array of tables, got 'torch'"),
        (lambda t: t.tables("rows"), "rows[1]: expected a table, got 5"),
        (
            lambda t: t.table("family").value("lead", int, "a number"),
            "family.lead: expected a number, got 'torch'",
        ),
    ],
)
def test_each_kind_of_bad_value(read_it: Callable[[Table], object], what: str) -> None:
    top = Table(parse_toml(BAD), VOICE)
    with pytest.raises(InputFileError) as caught:
        read_it(top)
    assert caught.value.what == f"demo.toml: {what}"


def test_a_text_default_may_be_empty_and_null_is_absent() -> None:
    top = Table({"source": "", "gone": None}, VOICE)
    assert top.text("source", "inherited") == ""
    assert top.value("gone", str, "a string", "x") == "x"
    assert not top.has("gone")


def test_done_refuses_a_key_nobody_asked_for() -> None:
    top = read()
    top.value("name", str, "a string")
    with pytest.raises(InputFileError) as caught:
        top.done()
    assert caught.value.what == "demo.toml: arches: unknown key"
    assert caught.value.fix == "correct arches in demo.toml"


def test_only_names_the_first_unknown_key_with_its_own_fix() -> None:
    voice = Voice(ConfigError, "[tool.demo] ")
    with pytest.raises(ConfigError) as caught:
        Table({"b": 1, "zz": 2, "c": 3}, voice).only({"b"}, fix="remove it")
    assert caught.value.render() == "[tool.demo] c: unknown key\nFix: remove it"


def test_a_document_that_is_not_a_table_is_named_top_level() -> None:
    assert (
        VOICE.fail("", "expected a JSON object").what
        == "demo.toml: (top level): expected a JSON object"
    )
