"""The knowledge base shipped with poetry-cuda, read once per process.

`load()` reads the data files in ``poetry_cuda/knowledge/data``, from their compiled form
shipped beside them (`compiled`) when it is theirs; `load_directory()` reads another
directory (tests, maintainers' drafts) from its TOML. Both validate every row and raise
`poetry_cuda.errors.InputFileError` naming the file and key of the first bad one. A
command that only needs the model's types (`knowledge.model`) imports none of this.
"""

from __future__ import annotations

import functools

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.knowledge._loader import load_directory
from poetry_cuda.knowledge.compiled import load_compiled
from poetry_cuda.knowledge.compiled import load_compiled_nvidia


if TYPE_CHECKING:
    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.knowledge.model import Nvidia


__all__ = ["load", "load_directory", "nvidia"]
# The package's own folder, not importlib.resources: poetry-cuda is always installed as files
# (it is no zip-safe tool), and importlib.resources brings zipfile, a tenth of a command's
# start-up.
DATA = Path(__file__).with_name("data")


@functools.cache
def nvidia() -> Nvidia:
    """Only NVIDIA's driver tables (what `detect` and `sync` need), read as `load` reads."""
    return load_compiled_nvidia(DATA)


@functools.cache
def load() -> KnowledgeBase:
    """The packaged knowledge base, read and validated on first use."""
    return load_compiled(DATA)
