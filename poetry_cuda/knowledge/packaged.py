"""The knowledge base shipped with poetry-cuda, read once per process.

`load()` reads the data files in ``poetry_cuda/knowledge/data`` through the one loader
(`loader`): from their compiled form shipped beside them when it is theirs, else from the
TOML. The single tables (`nvidia()`, `known_mirrors()`, `toolkit_wheels()`,
`nvcc_parts()`, `installed()`) are read from the same files, read once, each checked
alone from the compiled form; the torch family's ROCm and XPU builds (`rocm()`, `xpu()`)
from their own files in ``data/accelerators``. A command that only needs the model's types
(`knowledge.model`) imports none of this.
"""

from __future__ import annotations

import functools

from pathlib import Path
from typing import TYPE_CHECKING
from typing import TypeVar

from poetry_cuda.knowledge.loader import compiled_documents
from poetry_cuda.knowledge.loader import from_toml
from poetry_cuda.knowledge.loader import load_directory
from poetry_cuda.knowledge.loader import read_data
from poetry_cuda.knowledge.loader import read_part
from poetry_cuda.knowledge.model import preferred_packages
from poetry_cuda.knowledge.rocm import load_rocm
from poetry_cuda.knowledge.tables import validate
from poetry_cuda.knowledge.tables import validate_base_images
from poetry_cuda.knowledge.tables import validate_installed
from poetry_cuda.knowledge.tables import validate_mirrors
from poetry_cuda.knowledge.tables import validate_nvcc_parts
from poetry_cuda.knowledge.tables import validate_nvidia
from poetry_cuda.knowledge.tables import validate_toolkit_wheels
from poetry_cuda.knowledge.variant_indexes import VariantIndex
from poetry_cuda.knowledge.variant_indexes import load as load_variant_indexes
from poetry_cuda.knowledge.xpu import load_xpu


if TYPE_CHECKING:
    from collections.abc import Callable

    from poetry_cuda.knowledge.base_images import BaseImage
    from poetry_cuda.knowledge.model import Installed
    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.knowledge.model import KnownMirror
    from poetry_cuda.knowledge.model import NvccParts
    from poetry_cuda.knowledge.model import Nvidia
    from poetry_cuda.knowledge.model import ToolkitWheels
    from poetry_cuda.knowledge.rocm import RocmKnowledge
    from poetry_cuda.knowledge.tables import Documents
    from poetry_cuda.knowledge.xpu import XpuKnowledge


__all__ = [
    "base_images",
    "installed",
    "known_mirrors",
    "load",
    "load_directory",
    "mirrors_of",
    "nvcc_parts",
    "nvidia",
    "preferred",
    "rocm",
    "toolkit_wheels",
    "xpu",
]
T = TypeVar("T")
# The package's own folder, not importlib.resources: poetry-cuda is always installed as files
# (it is no zip-safe tool), and importlib.resources brings zipfile, a tenth of a command's
# start-up.
DATA = Path(__file__).with_name("data")


@functools.cache
def _packaged() -> tuple[dict[str, bytes], Documents | None]:
    """The packaged files and, when it is theirs, their compiled form: read once."""
    data = read_data(DATA)
    return data, compiled_documents(DATA, data)


@functools.cache
def _from_toml() -> KnowledgeBase:
    return from_toml(_packaged()[0])


def _read(part: Callable[[Documents], T], whole: Callable[[KnowledgeBase], T]) -> T:
    return read_part(_packaged()[1], part, lambda: whole(_from_toml()))


@functools.cache
def load() -> KnowledgeBase:
    """The packaged knowledge base, read and validated on first use."""
    return _read(validate, lambda base: base)


@functools.cache
def nvidia() -> Nvidia:
    """Only NVIDIA's driver tables (what `detect` and `sync` need), read as `load` reads."""
    return _read(validate_nvidia, lambda base: base.nvidia)


@functools.cache
def known_mirrors() -> tuple[KnownMirror, ...]:
    """The mirrors known by name (``mirrors.toml``), read as `load` reads."""
    return _read(validate_mirrors, lambda base: base.mirrors)


def mirrors_of(family: str) -> tuple[KnownMirror, ...]:
    """The mirrors known by name of one family key (`pytorch`), by name."""
    return tuple(row for row in known_mirrors() if row.family == family)


@functools.cache
def variant_indexes() -> tuple[VariantIndex, ...]:
    """The indexes that serve a family's wheel variants (``variants/indexes.toml``)."""
    return load_variant_indexes()


@functools.cache
def toolkit_wheels() -> tuple[ToolkitWheels, ...]:
    """The wheels of `toolkit = "wheels"` per CUDA major (``toolkit_wheels.toml``)."""
    return _read(validate_toolkit_wheels, lambda base: base.toolkit_wheels)


@functools.cache
def nvcc_parts() -> tuple[NvccParts, ...]:
    """The redistributables' components nvcc needs (``redist_components.toml``)."""
    return _read(validate_nvcc_parts, lambda base: base.nvcc_parts)


@functools.cache
def base_images() -> tuple[BaseImage, ...]:
    """NVIDIA's CUDA container images, newest CUDA first (``base_images.toml``)."""
    return _read(validate_base_images, lambda base: base.base_images)


@functools.cache
def installed() -> tuple[Installed, ...]:
    """What doctor reads of installed builds (the families' ``[family.installed]`` rows,
    then fixed.toml's ``[[installed]]``)."""
    return _read(validate_installed, lambda base: base.installed)


def preferred() -> frozenset[str]:
    """The packages whose CUDA is the project's when they have a CUDA build (torch)."""
    return preferred_packages(installed())


@functools.cache
def rocm() -> RocmKnowledge:
    """The torch family's ROCm builds for AMD GPUs (``accelerators/rocm.toml``)."""
    return load_rocm()


@functools.cache
def xpu() -> XpuKnowledge:
    """The torch family's XPU builds for Intel GPUs (``accelerators/xpu.toml``)."""
    return load_xpu()
