"""RECORD files (the installed-files list of the wheel and installed-project formats), read
and written as Python's packaging tools do."""

from __future__ import annotations

import base64
import csv
import io

from typing import TYPE_CHECKING

from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Iterable


ALGORITHM = "sha256"


@frozen
class Row:
    """One RECORD row: a path (relative to the folder holding the dist-info, ``/``
    separated), its hash as RECORD writes it (``sha256=<urlsafe base64>``, "" for none) and
    its size (None for none)."""

    path: str
    hash: str = ""
    size: int | None = None


def record_hash(digest: bytes) -> str:
    """A sha256 digest in RECORD's form: ``sha256=`` and urlsafe base64 without padding."""
    return f"{ALGORITHM}=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def parse(text: str) -> list[Row]:
    """The rows of a RECORD; ValueError when a row is not path, hash, size."""
    rows = []
    for number, fields in enumerate(csv.reader(io.StringIO(text)), start=1):
        if not fields:
            continue
        if len(fields) != 3 or not fields[0]:
            raise ValueError(f"row {number} is not path, hash, size")
        path, hashed, size = fields
        if size and not size.isdigit():
            raise ValueError(f"row {number}: the size {size!r} is not a number")
        rows.append(Row(path.replace("\\", "/"), hashed, int(size) if size else None))
    return rows


def render(rows: Iterable[Row]) -> bytes:
    """RECORD's bytes for `rows`, in the given order (csv, LF line ends, as pypa/installer
    writes them)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=",", quotechar='"', lineterminator="\n")
    for row in rows:
        writer.writerow((row.path, row.hash, "" if row.size is None else str(row.size)))
    return buffer.getvalue().encode("utf-8")
