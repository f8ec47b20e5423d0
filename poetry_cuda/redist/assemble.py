"""A project's CUDA_HOME made of links into the redist store.

NVIDIA's archives each unpack to ``<name>-<platform>-<version>-archive/`` with some of
``bin``, ``include``, ``lib`` and ``nvvm``. Tools that want a CUDA_HOME expect them side
by side: nvcc reads ``nvcc.profile`` beside itself and takes ``TOP = $(_HERE_)/..`` from
the path it was started by, not the resolved one, so ``bin`` must be a real folder of the
CUDA_HOME (a linked ``bin`` would make ``bin/..`` the store's nvcc folder, without the
runtime's headers). `assemble` therefore makes each of those folders real and links what
is below them, merging folders that several archives share; ``lib64`` is a link to
``lib``, where ``-L$(TOP)/lib64`` looks (Windows keeps ``lib`` alone). The store is only
read. The tree is rebuilt only when the archives changed, and replaced whole, so that no
reader sees half of it.
"""

from __future__ import annotations

import json
import shutil
import tempfile

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.files import replace_folder


if TYPE_CHECKING:
    from collections.abc import Sequence


PARTS = ("bin", "include", "lib", "nvvm")
STAMP = ".poetry-cuda-redist.json"
LAYOUT = 1


def assemble(cuda_home: Path, unpacked: Sequence[Path], *, windows: bool = False) -> bool:
    """Make `cuda_home` the union of the `unpacked` archive trees; True when (re)built.

    The first tree that has a name wins it (list cuda_nvcc first).
    """
    stamp = json.dumps(
        {"layout": LAYOUT, "sources": [str(path) for path in unpacked], "windows": windows},
        sort_keys=True,
    )
    if _read(cuda_home / STAMP) == stamp:
        return False
    cuda_home.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{cuda_home.name}-", dir=cuda_home.parent))
    try:
        staging.chmod(0o755)  # mkdtemp's folders are private; a CUDA_HOME is not
        for part in PARTS:
            _merge(staging / part, [tree / part for tree in unpacked if (tree / part).is_dir()])
        if not windows:
            (staging / "lib64").symlink_to("lib")
        (staging / STAMP).write_text(stamp, encoding="utf-8")
        replace_folder(staging, cuda_home, settled=lambda t: _read(t / STAMP) == stamp)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return True


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def _merge(destination: Path, sources: Sequence[Path]) -> None:
    """A real folder of links to the entries of `sources`; folders in several are merged."""
    destination.mkdir()
    names: dict[str, list[Path]] = {}
    for source in sources:
        for entry in sorted(source.iterdir()):
            names.setdefault(entry.name, []).append(entry)
    for name, entries in names.items():
        folders = [e for e in entries if e.is_dir() and not e.is_symlink()]
        if len(folders) > 1:
            _merge(destination / name, folders)
        else:
            (destination / name).symlink_to(entries[0])
