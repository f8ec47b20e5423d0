"""Every package manager's reader of its own tables in pyproject.toml (`request.tables`),
from the one list of backends (`backends.registry`).

All of them read every project: the authors may have written Poetry's tables or uv's
whichever manager locks it, and what they wrote is their request either way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.backends.registry import BACKENDS
from poetry_cuda.backends.registry import loaded


if TYPE_CHECKING:
    from poetry_cuda.request.tables import TableReader


READERS: tuple[TableReader, ...] = tuple(loaded(backend.reader) for backend in BACKENDS)
