"""The wheel-variant metadata of known variant releases (``data/variants/releases.toml``).

Each row names a ``{name}-{version}-variants.json`` kept byte for byte beside the table, with
its sha256, source and confidence; a file whose bytes are not the row's is refused, like any
bad row. The bytes are handed on as they are: the caller parses them with the parser an
index's copy goes through (`planning.variant_metadata.parse_variants_json`), so what the
knowledge base ships and what a user passes with ``--variants`` are held to one standard.
"""

from __future__ import annotations

import hashlib
import re

from pathlib import Path
from typing import TYPE_CHECKING

from packaging.version import InvalidVersion
from packaging.version import Version

from poetry_cuda.files import parse_toml
from poetry_cuda.files import read_bounded
from poetry_cuda.knowledge.tables import provenance
from poetry_cuda.knowledge.tables import voice
from poetry_cuda.records import frozen
from poetry_cuda.schema import Table


if TYPE_CHECKING:
    from poetry_cuda.knowledge.model import Confidence


FOLDER = Path(__file__).with_name("data") / "variants"
NAME = "variants/releases.toml"
_SHA256 = re.compile(r"[0-9a-f]{64}")
FILE_LIMIT = 4 * 1024 * 1024  # as for an index's copy


@frozen
class VariantRelease:
    """One release's published variant metadata, and where it came from."""

    package: str
    version: str
    file: str
    data: bytes  # the file's bytes, checked against the row's sha256
    source: str
    confidence: Confidence

    @property
    def series(self) -> str:
        """``2.10`` of ``2.10.0``: the knowledge base's release series."""
        return ".".join(self.version.split(".")[:2])


def parse(text: str, folder: Path = FOLDER) -> tuple[VariantRelease, ...]:
    """The rows of the table's `text`, each checked, its file (in `folder`) read and parsed."""
    try:
        document = parse_toml(text)
    except ValueError as error:
        raise voice(NAME).fail("", f"not valid TOML ({str(error)[:200]})") from None
    top = Table(document, voice(NAME))
    if top.value("schema", int, "the schema number") != 1:
        raise top.error("schema", "this poetry-cuda reads schema 1")
    rows: list[VariantRelease] = []
    for row in top.tables("release", lambda r, i: f"{r.get('package', i)}-{r.get('version', i)}"):
        package = row.text("package")
        version = row.parse("version", row.text("version"), _version)
        if any(known.package == package and known.version == version for known in rows):
            raise row.error("version", f"{package} {version} is listed twice")
        file = row.text("file")
        if file != f"{package}-{version}-variants.json":
            raise row.error("file", f"must be {package}-{version}-variants.json")
        sha256 = row.text("sha256")
        if not _SHA256.fullmatch(sha256):
            raise row.error("sha256", "must be 64 lower-case hex digits")
        data = read_bounded(folder / file, limit=FILE_LIMIT)
        if hashlib.sha256(data).hexdigest() != sha256:
            raise row.error("sha256", f"is not the sha256 of {file}")
        row.text("note", None)
        source, confidence = provenance(row)
        rows.append(VariantRelease(package, version, file, data, source, confidence))
        row.done()
    top.done()
    return tuple(rows)


def _version(text: str) -> str:
    if str(Version(text)) != text:
        raise InvalidVersion(f"{text!r} is not written as PEP 440 normalises it")
    return text


def load() -> tuple[VariantRelease, ...]:
    """The rows shipped with poetry-cuda."""
    return parse(read_bounded(FOLDER / "releases.toml", limit=1024 * 1024).decode("utf-8"))


def releases_of(package: str, rows: tuple[VariantRelease, ...]) -> tuple[VariantRelease, ...]:
    """`package`'s rows, newest first."""
    found = [row for row in rows if row.package == package]
    return tuple(sorted(found, key=lambda row: Version(row.version), reverse=True))
