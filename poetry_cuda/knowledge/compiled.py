"""The packaged data files compiled to JSON beside them, so that a process skips the TOML parse.

Parsing the TOML is most of the time `load` takes; the knowledge base stays those TOML
files, with their sources. ``data/compiled.json`` holds their parsed documents and
nothing else. It is written by the maintainers' tool (``tools/compile_knowledge.py``),
committed, and shipped in the package beside the TOML files, so it is trusted exactly as
the code is: nothing that decides a plan is read from a folder that a user's programs
write (a cache, a clone). Every row is still validated on every load, so an error reads
as it does from the TOML.

The file is a header line, ``{"format", "key", "crc32"}``, then the documents as JSON.
`key` is a CRC-32 over every TOML file's name, size and bytes and `FORMAT`, with their
total size: when a TOML file was edited and the file not compiled again, the key differs
and the TOML is read instead (correct, only slower; a test says to compile). `crc32` is
the CRC-32 of the documents' bytes, so damage is found before they are parsed. A CRC,
not a digest: the key and the check guard against drift and damage, not against whoever
can write the package (they can change the code too), and hashlib's OpenSSL costs each
command a twentieth of its start-up. A compiled file that is missing, damaged, of
another shape, or whose rows do not validate is passed over: the TOML is read, and its
error, if any, is the one raised (`loader` decides which to read).
"""

from __future__ import annotations

import json
import zlib

from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.files import MiB
from poetry_cuda.files import read_bounded
from poetry_cuda.knowledge.tables import parse_data
from poetry_cuda.knowledge.tables import validate


if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path


FILE = "compiled.json"
FORMAT = 1
LIMIT = 16 * MiB  # the packaged documents are about 0.1 MiB as JSON

Documents = dict[str, dict[str, Any]]


def compile_data(data: Mapping[str, bytes]) -> bytes:
    """The compiled file of the TOML files `data` (by name, as `loader.read_data` gives them).

    Raises InputFileError for a file that does not validate.
    """
    documents = {name: parse_data(name, raw) for name, raw in data.items()}
    validate(documents)  # what validates is strings, integers, booleans, lists and tables
    body = (
        json.dumps(documents, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
        + b"\n"
    )
    header = {"format": FORMAT, "key": content_key(data), "crc32": checksum(body)}
    return json.dumps(header).encode("ascii") + b"\n" + body


def content_key(data: Mapping[str, bytes]) -> str:
    """The CRC-32 over the TOML files' names, sizes and bytes (in name order) and the
    format, with their total size."""
    crc = zlib.crc32(f"poetry-cuda knowledge {FORMAT}\n".encode())
    for name in sorted(data):
        encoded = name.encode("utf-8")
        crc = zlib.crc32(b"%d:%s%d:" % (len(encoded), encoded, len(data[name])), crc)
        crc = zlib.crc32(data[name], crc)
    return f"{crc:08x}-{sum(len(raw) for raw in data.values())}"


def checksum(body: bytes) -> str:
    """The CRC-32 of what follows the header line, as the header holds it."""
    return f"{zlib.crc32(body):08x}"


def read(path: Path, key: str, names: list[str]) -> Documents | None:
    """The documents compiled at `path` for the TOML files of `key`, by `names`; None unless
    the file is sound and whole. (Their rows are for `validate` to judge.)"""
    try:
        header, _, body = read_bounded(path, limit=LIMIT).partition(b"\n")
        if json.loads(header) != {"format": FORMAT, "key": key, "crc32": checksum(body)}:
            return None
        documents = json.loads(body)
        if not isinstance(documents, dict) or sorted(documents) != sorted(names):
            return None
        if not all(isinstance(documents[n], dict) for n in names):
            return None
    except (PoetryCudaError, ValueError, RecursionError):  # missing, not a file, damaged
        return None
    return {name: documents[name] for name in names}
