"""The quick path reads and prints exactly as cleo would, wherever it answers."""

from __future__ import annotations

from typing import Any

import pytest

from cleo.formatters.formatter import Formatter
from cleo.io.inputs.argv_input import ArgvInput
from hypothesis import given
from hypothesis import strategies as st

from poetry_cuda.cli.application import create_application
from poetry_cuda.cli.markup import STYLES
from poetry_cuda.cli.markup import escape
from poetry_cuda.cli.markup import render
from poetry_cuda.cli.quick import parse
from poetry_cuda.cli.registry import COMMANDS
from poetry_cuda.cli.registry import command as command_class


TEXT = st.text(alphabet=st.sampled_from("ab <>/\\=;\0\n\x1bé"), max_size=12)


@st.composite
def markup(draw: st.DrawFn, depth: int = 0) -> str:
    """A line as the commands write one: styled runs, nested, around escaped text."""
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["text", "style", "unknown", "reset"][: 4 - depth]))
        if kind == "text":
            parts.append(escape(draw(TEXT)))
        elif kind == "unknown":
            parts.append(draw(st.sampled_from(["<warn>", "</warn>", "<x y>", "a<b"])))
        elif kind == "reset":
            parts.append(f"<{draw(st.sampled_from(sorted(STYLES)))}>{escape(draw(TEXT))}</>")
        else:
            name = draw(st.sampled_from(sorted(STYLES)))
            parts.append(f"<{name}>{draw(markup(depth + 1))}</{name}>")
    return "".join(parts)


@given(TEXT)
def test_escape_is_cleos(text: str) -> None:
    assert escape(text) == Formatter.escape(text)


@given(markup(), st.booleans())
def test_render_is_cleos(line: str, decorated: bool) -> None:
    assert render(line, decorated) == Formatter(decorated=decorated).format(line)


def cleo_values(name: str, tokens: list[str]) -> dict[str, Any]:
    """What cleo's application reads from `poetry-cuda NAME TOKENS...`."""
    command = create_application().find(name)
    command.merge_application_definition()
    given = ArgvInput(["poetry-cuda", name, *tokens])
    given.bind(command.definition)
    given.validate()
    values = {o.name: given.option(o.name) for o in command_class(name).options}
    values.update({a.name: given.argument(a.name) for a in command_class(name).arguments})
    return values


TOKENS = st.lists(
    st.sampled_from(
        [
            "--json",
            "--target",
            "--target=a.json",
            "--cuda",
            "12.4",
            "--cuda=cu124",
            "-v",
            "--cuda=",
            "",
            "-",
            "--",
            "--policy",
            "native",
            "--shell",
            "fish",
            "--dry-run",
            "--deep",
            "--check",
            "--adopt",
            "nvcc",
            "--version",
            "-x",
            "--regenerate=1",
        ]
    ),
    max_size=6,
)


@pytest.mark.parametrize("name", sorted(COMMANDS))
@given(tokens=TOKENS)
def test_where_the_quick_path_reads_options_it_reads_them_as_cleo(
    name: str, tokens: list[str]
) -> None:
    quick = parse(command_class(name), tokens)
    if quick is not None:
        assert quick == cleo_values(name, tokens)


@pytest.mark.parametrize(
    ("name", "tokens"),
    [
        ("plan", ["--json", "--cuda", "12.4", "--target", "a.json", "--target=b.json"]),
        ("lock", ["--dry-run", "--adopt", "--policy=native"]),
        ("env", ["--shell", "fish"]),
        ("run", ["--", "nvcc", "--version"]),
        ("doctor", []),
    ],
)
def test_the_common_invocations_take_the_quick_path(name: str, tokens: list[str]) -> None:
    assert parse(command_class(name), tokens) == cleo_values(name, tokens)


@pytest.mark.parametrize(
    ("name", "tokens"),
    [
        ("plan", ["--help"]),
        ("plan", ["-h"]),
        ("plan", ["-v"]),
        ("plan", ["--json", "--json"]),
        ("plan", ["--cuda", "12.4", "--cuda", "12.6"]),
        ("plan", ["--cuda"]),
        ("plan", ["--cuda="]),
        ("plan", ["--json=yes"]),
        ("plan", ["extra"]),
        ("run", ["nvcc"]),
        ("run", ["--"]),
        ("doctor", ["--ansi"]),
    ],
)
def test_what_cleo_reads_differently_or_rejects_goes_to_cleo(name: str, tokens: list[str]) -> None:
    assert parse(command_class(name), tokens) is None
