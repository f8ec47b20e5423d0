"""A derived cache of the packaged data files' parsed TOML, so that a process skips the parse.

Parsing the TOML is most of the time `load` takes; the knowledge base stays those TOML
files, with their sources. The cache is one JSON file in the user's cache folder
(``POETRY_CUDA_CACHE_DIR``, else poetry-cuda's folder there, see `files.user_cache`)
that holds the parsed documents and nothing else: every row is still validated on every
load, so an error reads as it does without the cache.

The file is a header line, ``{"format", "key", "crc32"}``, then the documents as JSON.
`key` is a CRC-32 over every data file's name, size and bytes, the poetry-cuda version and
`FORMAT`, with their total size: changing any byte of the data misses. `crc32` is the CRC-32
of the documents' bytes, so a truncated or damaged file misses too. A CRC, not a digest:
the cache guards against change and damage, a digest would not stop whoever can write the
user's cache folder (they can compute it too; every row is validated anyway), and
hashlib's OpenSSL costs each command a twentieth of its start-up. A file that is missing,
unreadable, damaged or of another shape is ignored and replaced; a folder that cannot be
written is left alone and the load goes on without a cache. It is written atomically (a
temporary file renamed over it), once the documents validate, and only when JSON holds
their values exactly (TOML dates it does not).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
import zlib

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import poetry_cuda

from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.files import MiB
from poetry_cuda.files import read_bounded
from poetry_cuda.files import replace_bytes
from poetry_cuda.files import user_cache
from poetry_cuda.knowledge._loader import parse_data
from poetry_cuda.knowledge._loader import read_data
from poetry_cuda.knowledge._loader import validate
from poetry_cuda.knowledge._loader import validate_nvidia


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping

    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.knowledge.model import Nvidia


ENVIRONMENT = "POETRY_CUDA_CACHE_DIR"
FILE = "knowledge.json"
FORMAT = 2  # 2: CRC-32 in place of sha256
LIMIT = 16 * MiB  # the packaged documents are about 0.2 MiB as JSON

Documents = dict[str, dict[str, Any]]


def default_folder() -> Path | None:
    """The cache folder of this process's user, or None without one (no home folder)."""
    return folder(os.environ, "windows" if sys.platform == "win32" else "posix", _home())


def folder(environ: Mapping[str, str], os_name: str, home: Path | None) -> Path | None:
    """POETRY_CUDA_CACHE_DIR, else poetry-cuda's folder in the user's cache folder."""
    if environ.get(ENVIRONMENT):
        return Path(environ[ENVIRONMENT])
    return None if home is None else user_cache(environ, os_name, home)


def _home() -> Path | None:
    try:
        home = Path.home()
    except (RuntimeError, KeyError, OSError):  # no HOME and no user database entry
        return None
    return home if home.is_absolute() else None  # Python 3.11 returns "~" unexpanded


def load_cached(directory: Path, cache: Path | None) -> KnowledgeBase:
    """The knowledge base in `directory`, its parsed documents kept in the folder `cache`.

    Without a folder (None) it reads as `load_directory` does.
    """
    cached, fill = _lookup(directory, cache)
    return validate(cached) if cached is not None else fill()


def load_cached_nvidia(directory: Path, cache: Path | None) -> Nvidia:
    """Only NVIDIA's driver tables of the knowledge base in `directory` (see `load_cached`).

    A cached set of documents was validated whole when it was written, so on a hit only
    the driver tables are checked again; a miss reads, checks and caches everything.
    """
    cached, fill = _lookup(directory, cache)
    return validate_nvidia(cached) if cached is not None else fill().nvidia


def _lookup(
    directory: Path, cache: Path | None
) -> tuple[Documents | None, Callable[[], KnowledgeBase]]:
    """The cached documents of `directory`'s files, if the cache holds them, and the miss's
    way: parse, validate and cache them."""
    data = read_data(directory)
    key = content_key(data)
    path = None if cache is None else cache / FILE
    cached = None if path is None else read(path, key, list(data))
    return cached, lambda: _fill(path, key, data)


def _fill(path: Path | None, key: str, data: Mapping[str, bytes]) -> KnowledgeBase:
    """Parse and validate `data`, and cache the parsed documents at `path` (if any)."""
    documents = {name: parse_data(name, raw) for name, raw in data.items()}
    knowledge = validate(documents)
    if path is not None and all(_exact(d) for d in documents.values()):
        write(path, key, documents)
    return knowledge


def content_key(data: Mapping[str, bytes]) -> str:
    """The CRC-32 over the data files' names, sizes and bytes (in name order), the version
    and the format, with the total size."""
    crc = zlib.crc32(f"poetry-cuda {poetry_cuda.__version__} {FORMAT}\n".encode())
    for name in sorted(data):
        encoded = name.encode("utf-8")
        crc = zlib.crc32(b"%d:%s%d:" % (len(encoded), encoded, len(data[name])), crc)
        crc = zlib.crc32(data[name], crc)
    return f"{crc:08x}-{sum(len(raw) for raw in data.values())}"


def checksum(payload: bytes) -> str:
    """The CRC-32 of the cached documents' bytes, as the header holds it."""
    return f"{zlib.crc32(payload):08x}"


def read(path: Path, key: str, names: list[str]) -> Documents | None:
    """The documents cached at `path` under `key`, by `names`; None unless sound and whole."""
    try:
        header, _, payload = read_bounded(path, limit=LIMIT).partition(b"\n")
        head = json.loads(header)
        if head != {"format": FORMAT, "key": key, "crc32": checksum(payload)}:
            return None
        documents = json.loads(payload)
    except (PoetryCudaError, ValueError, RecursionError):  # missing, not a file, damaged
        return None
    if not isinstance(documents, dict) or sorted(documents) != sorted(names):
        return None
    if not all(isinstance(documents[name], dict) for name in names):
        return None
    return {name: documents[name] for name in names}


def write(path: Path, key: str, documents: Documents) -> None:
    """Cache `documents` at `path` under `key`, atomically; a folder that refuses is left."""
    with contextlib.suppress(OSError, PoetryCudaError, ValueError):
        payload = json.dumps(documents, ensure_ascii=False, separators=(",", ":")).encode()
        header = {"format": FORMAT, "key": key, "crc32": checksum(payload)}
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_bytes(path, json.dumps(header).encode("ascii") + b"\n" + payload)


def _exact(value: object) -> bool:
    """Whether JSON gives `value` back equal and of the same types (TOML dates it does not)."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _exact(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_exact(v) for v in value)
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, (str, int))  # bool is an int
