"""The knowledge base: NVIDIA's driver tables and each package's CUDA builds.

`load()` reads the data files shipped in ``poetry_cuda/knowledge/data`` once per
process; `load_directory()` reads another directory (tests, maintainers' drafts).
Both validate every row and raise `poetry_cuda.errors.InputFileError` naming the
file and key of the first bad one.
"""

from __future__ import annotations

import functools

from importlib.resources import files
from typing import TYPE_CHECKING

from poetry_cuda.knowledge._loader import load_directory


if TYPE_CHECKING:
    from poetry_cuda.knowledge.model import KnowledgeBase


__all__ = ["load", "load_directory"]


@functools.cache
def load() -> KnowledgeBase:
    """The packaged knowledge base, read and validated on first use."""
    return load_directory(files(__name__) / "data")
