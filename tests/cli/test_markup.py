"""The script renders the commands' markup exactly as cleo renders it inside Poetry."""

from __future__ import annotations

from cleo.formatters.formatter import Formatter
from hypothesis import given
from hypothesis import strategies as st

from poetry_cuda.cli.markup import STYLES
from poetry_cuda.cli.markup import escape
from poetry_cuda.cli.markup import render


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
