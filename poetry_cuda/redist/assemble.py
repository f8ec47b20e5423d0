"""A project's CUDA_HOME made of links into the redist store.

NVIDIA's archives each unpack to ``<name>-<platform>-<version>-archive/`` with some of
``bin``, ``include``, ``lib`` and ``nvvm``. Tools that want a CUDA_HOME expect them side
by side: nvcc reads ``nvcc.profile`` beside itself and takes ``TOP = $(_HERE_)/..`` from
the path it was started by, not the resolved one, so ``bin`` must be a real folder of the
CUDA_HOME (a linked ``bin`` would make ``bin/..`` the store's nvcc folder, without the
runtime's headers). `assemble` therefore makes each of those folders real and links what
is below them, merging folders that several archives share; ``lib64`` is a link to
``lib``, where ``-L$(TOP)/lib64`` looks (Windows keeps ``lib`` alone). The store is only
read. The tree is rebuilt when the archives changed or it is no longer exactly what they
make (a link removed or pointed elsewhere), and replaced whole, so that no reader sees
half of it.
"""

from __future__ import annotations

import json
import os
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

    The first tree that has a name wins it (list cuda_nvcc first). A tree that is already
    exactly what they make is left as it is.
    """
    stamp = _stamp(unpacked, windows)
    wanted = layout(unpacked, windows=windows)
    if _current(cuda_home, stamp, wanted):
        return False
    cuda_home.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{cuda_home.name}-", dir=cuda_home.parent))
    try:
        staging.chmod(0o755)  # mkdtemp's folders are private; a CUDA_HOME is not
        for path, target in wanted.items():
            if target is None:
                (staging / path).mkdir()
            else:
                (staging / path).symlink_to(target)
        (staging / STAMP).write_text(stamp, encoding="utf-8")
        replace_folder(staging, cuda_home, settled=lambda t: _current(t, stamp, wanted))
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return True


def is_current(cuda_home: Path, unpacked: Sequence[Path], *, windows: bool = False) -> bool:
    """Whether `cuda_home` is exactly what `assemble` makes of `unpacked`: the same folders,
    the same links, nothing else (a link removed or pointed elsewhere since is found)."""
    return _current(cuda_home, _stamp(unpacked, windows), layout(unpacked, windows=windows))


def layout(unpacked: Sequence[Path], *, windows: bool = False) -> dict[str, str | None]:
    """What the CUDA_HOME of `unpacked` holds, in creation order: each path below it, and
    the target of a link or None for a real folder."""
    wanted: dict[str, str | None] = {}
    for part in PARTS:
        _merge(wanted, part, [tree / part for tree in unpacked if (tree / part).is_dir()])
    if not windows:
        wanted["lib64"] = "lib"
    return wanted


def _stamp(unpacked: Sequence[Path], windows: bool) -> str:
    return json.dumps(
        {"layout": LAYOUT, "sources": [str(path) for path in unpacked], "windows": windows},
        sort_keys=True,
    )


def _current(cuda_home: Path, stamp: str, wanted: dict[str, str | None]) -> bool:
    if _read(cuda_home / STAMP) != stamp:
        return False
    try:
        return _walk(cuda_home) == {**wanted, STAMP: ""}
    except OSError:
        return False


def _walk(folder: Path, prefix: str = "") -> dict[str, str | None]:
    """What `folder` holds, as `layout` writes it (a file's value is ""), links not followed."""
    found: dict[str, str | None] = {}
    with os.scandir(folder) as entries:
        for entry in entries:
            path = f"{prefix}{entry.name}"
            if entry.is_symlink():
                found[path] = str(Path(entry.path).readlink())
            elif entry.is_dir(follow_symlinks=False):
                found[path] = None
                found.update(_walk(Path(entry.path), f"{path}/"))
            else:
                found[path] = ""
    return found


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def _merge(wanted: dict[str, str | None], path: str, sources: Sequence[Path]) -> None:
    """A real folder at `path` of links to the entries of `sources`; folders in several are
    merged."""
    wanted[path] = None
    names: dict[str, list[Path]] = {}
    for source in sources:
        for entry in sorted(source.iterdir()):
            names.setdefault(entry.name, []).append(entry)
    for name, entries in names.items():
        folders = [e for e in entries if e.is_dir() and not e.is_symlink()]
        if len(folders) > 1:
            _merge(wanted, f"{path}/{name}", folders)
        else:
            wanted[f"{path}/{name}"] = str(entries[0])
