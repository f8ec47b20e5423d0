"""Mirrors known by name (`pytorch = "sjtu"`): their URL template and layout, with sources.

The table (``mirrors.toml`` beside this module: the loader of ``data/`` reads every
other file there as a package family) has one row per family key and name.
"""

from __future__ import annotations

import functools
import re

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Literal
from typing import get_args

from poetry_cuda.knowledge._loader import data_table
from poetry_cuda.knowledge._loader import provenance
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from poetry_cuda.knowledge.model import Confidence


Layout = Literal["simple", "flat"]
"""simple: a PEP 503 index (a page per project); flat: one listing of files (find-links)."""
LAYOUTS: tuple[Layout, ...] = get_args(Layout)

FILE = "mirrors.toml"
SCHEMA = 1


@frozen
class KnownMirror:
    family: str  # the key in [tool.poetry-cuda.mirrors]: "pytorch"
    name: str
    url: str  # a template with "{variant}"
    layout: Layout
    source: str
    confidence: Confidence


def parse(text: str, file: str = FILE) -> tuple[KnownMirror, ...]:
    """Read and validate the table; errors name the file and the row."""
    top = data_table(text, file, SCHEMA)
    rows: list[KnownMirror] = []
    for row in top.tables("mirror", lambda r, i: f"{r.get('family', i)}.{r.get('name', i)}"):
        family, name = row.text("family"), row.text("name")
        if any(known.family == family and known.name == name for known in rows):
            raise row.error("name", f"{family}.{name} is listed twice")
        if not _NAME.fullmatch(name):
            raise row.error("name", f"{name!r} is not a name (lower-case letters, digits, '-')")
        url = row.text("url")
        if not _is_template(url):
            raise row.error("url", "must be an https URL template with {variant}")
        source, confidence = provenance(row)
        rows.append(
            KnownMirror(family, name, url, row.choice("layout", LAYOUTS), source, confidence)
        )
        row.done()
    top.done()
    return tuple(rows)


# A mirror's name is what users write in its place (`pytorch = "sjtu"`), compared lower-cased.
_NAME = re.compile("[a-z0-9][a-z0-9-]{0,62}")
# https://host/path with "{variant}" in the path: no userinfo, port, query or fragment, and
# nothing a URL parser could read two ways (the request layer's full rule holds it too).
_TEMPLATE = re.compile(r"https://[a-z0-9.-]+/[A-Za-z0-9._~/{}-]*")


def _is_template(url: str) -> bool:
    return len(url) <= 2048 and "{variant}" in url and _TEMPLATE.fullmatch(url) is not None


@functools.cache
def table() -> tuple[KnownMirror, ...]:
    """The packaged table, read once per process."""
    return parse(Path(__file__).with_name(FILE).read_text(encoding="utf-8"))


def of_family(family: str) -> tuple[KnownMirror, ...]:
    """The mirrors of one family key, by name."""
    return tuple(row for row in table() if row.family == family)
