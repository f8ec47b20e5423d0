"""The indexes that serve a family's wheel variants (``data/variants/indexes.toml``).

Read as every table of the knowledge base is: each row checked, with its source and
confidence (`tables.provenance`); a bad row is one `InputFileError` naming the file and key.
"""

from __future__ import annotations

from pathlib import Path

from poetry_cuda.files import parse_toml
from poetry_cuda.files import read_bounded
from poetry_cuda.knowledge.model import LAYOUTS
from poetry_cuda.knowledge.model import Confidence
from poetry_cuda.knowledge.tables import provenance
from poetry_cuda.knowledge.tables import voice
from poetry_cuda.records import frozen
from poetry_cuda.schema import Table
from poetry_cuda.schema import by


FILE = Path(__file__).with_name("data") / "variants" / "indexes.toml"
NAME = "variants/indexes.toml"


@frozen
class VariantIndex:
    """A family's variant index: where, its layout, the release series it holds."""

    family: str
    url: str
    layout: str
    series: tuple[str, ...]
    source: str
    confidence: Confidence


def parse(text: str) -> tuple[VariantIndex, ...]:
    """The rows of the file's `text`, each checked."""
    try:
        document = parse_toml(text)
    except ValueError as error:
        raise voice(NAME).fail("", f"not valid TOML ({str(error)[:200]})") from None
    top = Table(document, voice(NAME))
    if top.value("schema", int, "the schema number") != 1:
        raise top.error("schema", "this poetry-cuda reads schema 1")
    rows: list[VariantIndex] = []
    for row in top.tables("index", by("family")):
        family = row.text("family")
        if any(known.family == family for known in rows):
            raise row.error("family", f"{family} is listed twice")
        url = row.text("url")
        if not url.startswith("https://") or not url.endswith("/"):
            raise row.error("url", "must be an https URL ending in '/'")
        layout = row.choice("layout", LAYOUTS)
        series = row.texts("series")
        row.text("labels", None)  # what the index publishes, for the reader
        row.text("note", None)
        rows.append(VariantIndex(family, url, layout, series, *provenance(row)))
        row.done()
    top.done()
    return tuple(rows)


def load() -> tuple[VariantIndex, ...]:
    """The rows shipped with poetry-cuda."""
    return parse(read_bounded(FILE, limit=1024 * 1024).decode("utf-8"))


def index_of(family: str, rows: tuple[VariantIndex, ...]) -> VariantIndex | None:
    return next((row for row in rows if row.family == family), None)
