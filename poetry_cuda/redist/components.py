"""Which components of a CUDA release nvcc needs: the table ``components.toml``.

Each row names the manifest keys nvcc needs to compile and link, from its `first` CUDA
minor until the next row's; CUDA 13 split cuda_crt and libnvvm out of cuda_nvcc, and
13.3 renamed cuda_cccl to cccl. The table is data with a source per row, not branches.
"""

from __future__ import annotations

import functools

from pathlib import Path

from poetry_cuda.errors import ConfigError
from poetry_cuda.knowledge._loader import data_table
from poetry_cuda.knowledge._loader import provenance
from poetry_cuda.records import frozen
from poetry_cuda.schema import by
from poetry_cuda.versions import CudaVersion


FILE = "components.toml"
SCHEMA = 1


@frozen
class NvccParts:
    """The components nvcc needs, from CUDA `first` until the next row's."""

    first: CudaVersion
    components: tuple[str, ...]
    source: str
    confidence: str


def parse(text: str, file: str = FILE) -> tuple[NvccParts, ...]:
    """Read and validate the table; errors name the file and the row."""
    top = data_table(text, file, SCHEMA)
    rows: list[NvccParts] = []
    for row in top.tables("release", by("first")):
        first = row.parsed("first", CudaVersion.parse)
        if rows and first <= rows[-1].first:
            raise row.error("first", "rows must be in increasing order of `first`")
        names = row.texts("components")
        if "cuda_nvcc" not in names:
            raise row.error("components", "must include cuda_nvcc")
        source, confidence = provenance(row)
        rows.append(NvccParts(first, names, source, confidence))
        row.text("note", None)
        row.done()
    top.done()
    if not rows:
        raise top.error("release", "the table has no rows")
    return tuple(rows)


@functools.cache
def table() -> tuple[NvccParts, ...]:
    """The packaged table, read once per process."""
    return parse(Path(__file__).with_name(FILE).read_text(encoding="utf-8"))


def nvcc_components(cuda: CudaVersion, rows: tuple[NvccParts, ...] | None = None) -> NvccParts:
    """The row for `cuda`: the last whose `first` is not above it."""
    rows = table() if rows is None else rows
    found = [row for row in rows if row.first <= cuda]
    if not found:
        raise ConfigError(
            f'toolkit = "redist": NVIDIA publishes no redistributable archives for CUDA {cuda}',
            why=f"NVIDIA's redistributable archives start with CUDA {rows[0].first}",
            fix=f'use a CUDA version from {rows[0].first} on, or set toolkit = "system" and '
            f"install the CUDA {cuda} toolkit",
        )
    return found[-1]
