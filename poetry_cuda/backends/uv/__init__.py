"""The uv backend: the real `uv lock` and `uv sync` (`runner`, behind `manager`), uv's tables
as the authors wrote them (`reader`), and the pyproject.toml tables poetry-cuda writes for uv
(`editor`). `BACKEND` registers it (`backends.registry`)."""

from __future__ import annotations

from poetry_cuda.backends.base import Registered


BACKEND = Registered(
    "uv",
    reader="poetry_cuda.backends.uv.reader",
    editor="poetry_cuda.backends.uv.editor",
    manager="poetry_cuda.backends.uv.manager:UvManager",
    installed="poetry_cuda.backends.uv.runner:has_uv",
)
