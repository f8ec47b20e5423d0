"""Which components of a CUDA release nvcc needs: the knowledge base's table
``redist_components.toml``.

Each row names the manifest keys nvcc needs to compile and link, from its `first` CUDA
minor until the next row's; CUDA 13 split cuda_crt and libnvvm out of cuda_nvcc, and
13.3 renamed cuda_cccl to cccl. The table is data with a source per row, not branches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.errors import ConfigError
from poetry_cuda.knowledge.packaged import nvcc_parts
from poetry_cuda.messages import message


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import NvccParts
    from poetry_cuda.versions import CudaVersion


def nvcc_components(cuda: CudaVersion, rows: Sequence[NvccParts] | None = None) -> NvccParts:
    """The row for `cuda`: the last whose `first` is not above it (of the packaged table
    unless `rows` are given)."""
    rows = nvcc_parts() if rows is None else rows
    found = [row for row in rows if row.first <= cuda]
    if not found:
        raise ConfigError(
            message("redist.no-archives", cuda=cuda),
            why=message("redist.no-archives-why", first=rows[0].first),
            fix=message("redist.no-archives-fix", first=rows[0].first, cuda=cuda),
        )
    return found[-1]
