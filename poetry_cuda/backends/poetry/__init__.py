"""The Poetry backend: Poetry's own lock and install (`runner`, behind `manager`), its tables
as the authors wrote them (`reader`), the pyproject.toml tables poetry-cuda writes for it
(`editor`), what Poetry 2 cannot lock (`rules`), and per-user mirrors inside Poetry's own
process (`mirror`). `BACKEND` registers it (`backends.registry`)."""

from __future__ import annotations

from poetry_cuda.backends.base import Registered


BACKEND = Registered(
    "poetry",
    reader="poetry_cuda.backends.poetry.reader",
    editor="poetry_cuda.backends.poetry.editor",
    manager="poetry_cuda.backends.poetry.manager:PoetryManager",
    installed="poetry_cuda.backends.poetry.runner:has_poetry",
)
