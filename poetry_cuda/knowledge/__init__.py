"""The knowledge base: NVIDIA's driver tables and each package's CUDA builds.

`load()` reads the data files shipped in ``poetry_cuda/knowledge/data`` once per
process, their parsed TOML cached in the user's cache folder (`cache`);
`load_directory()` reads another directory (tests, maintainers' drafts), uncached.
Both validate every row and raise `poetry_cuda.errors.InputFileError` naming the
file and key of the first bad one.
"""

from __future__ import annotations

import functools

from importlib.resources import files
from typing import TYPE_CHECKING

from poetry_cuda.knowledge._loader import load_directory
from poetry_cuda.knowledge.cache import default_folder
from poetry_cuda.knowledge.cache import load_cached


if TYPE_CHECKING:
    from poetry_cuda.knowledge.model import KnowledgeBase


__all__ = ["load", "load_directory"]


@functools.cache
def load() -> KnowledgeBase:
    """The packaged knowledge base, read and validated on first use."""
    return load_cached(files(__name__) / "data", default_folder())
