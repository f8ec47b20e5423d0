"""Every package manager's reader of its own tables in pyproject.toml (`request.tables`).

All of them read every project: the authors may have written Poetry's tables or uv's
whichever manager locks it, and what they wrote is their request either way. A new backend
adds its reader here, and its manager to the interface's loader (`cli.registry`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.backends.poetry import reader as poetry_reader
from poetry_cuda.backends.uv import reader as uv_reader


if TYPE_CHECKING:
    from poetry_cuda.request.tables import TableReader


READERS: tuple[TableReader, ...] = (poetry_reader, uv_reader)
