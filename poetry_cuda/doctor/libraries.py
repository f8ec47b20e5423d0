"""System libraries a requirement may be met by, besides the toolkits and cuDNN that
detection already reports: the CUDA runtime (``libcudart``), NCCL and TensorRT
(``libnvinfer``), found in library folders and the dynamic linker's cache.

A library's name gives its version: ``libnccl.so.2.21.5`` fully, the soname
``libnccl.so.2`` only its major (the caller treats that as "some 2.x").
"""

from __future__ import annotations

import os
import re
import subprocess

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.host.paths import ldconfig_libraries
from poetry_cuda.host.run import run
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Mapping


# Requirement kind -> the library's stem (lib<stem>.so.<version>, <stem>64_<major>.dll).
STEMS = {"cuda-runtime": "cudart", "nccl": "nccl", "tensorrt": "nvinfer", "cudnn": "cudnn"}


@frozen
class Library:
    kind: str
    version: str  # as far as the name tells: "2", "11.8.89"
    path: str
    source: str  # "library folder", "ldconfig", "LD_LIBRARY_PATH"


def parse_name(name: str, stem: str) -> str | None:
    """``11.8.89`` from ``libcudart.so.11.8.89``; ``12`` from ``cudart64_12.dll``."""
    match = re.match(rf"^lib{stem}\.so\.(\d+(?:\.\d+)*)$", name) or re.match(
        rf"^{stem}64_(\d+)(?:_\d+)?\.dll$", name
    )
    return match.group(1) if match else None


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def _best(path: Path, stem: str) -> str | None:
    """The fullest version of `path`'s name and its symlink target's name."""
    named = parse_name(path.name, stem)
    if named is None:
        return None
    target = parse_name(Path(os.path.realpath(path)).name, stem)
    if target and target.split(".")[0] == named.split(".")[0]:
        return max(named, target, key=_key)
    return named


def scan_folders(folders: Iterable[tuple[Path, str]], kinds: Iterable[str]) -> list[Library]:
    """One `Library` per kind, major and real file in each folder."""
    stems = {kind: STEMS[kind] for kind in kinds if kind in STEMS}
    found: list[Library] = []
    for folder, source in folders:
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            continue
        for kind, stem in stems.items():
            by_real: dict[str, tuple[str, Path]] = {}
            for entry in entries:
                if not entry.name.startswith((f"lib{stem}.so.", f"{stem}64_")):
                    continue
                version = _best(entry, stem)
                if version is None:
                    continue
                real = os.path.realpath(entry)
                known = by_real.get(real)
                if known is None or _key(version) > _key(known[0]):
                    by_real[real] = (version, entry)
            found.extend(Library(kind, v, str(p), source) for v, p in by_real.values())
    return found


def from_ldconfig(
    programs: Iterable[Path], kinds: Iterable[str], *, environ: Mapping[str, str], timeout: float
) -> list[Library]:
    program = next((path for path in programs if path.is_file()), None)
    if program is None:
        return []
    try:
        completed = run([str(program), "-p"], env=environ, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if completed.returncode != 0:
        return []
    found = []
    for name, path in ldconfig_libraries(completed.stdout):
        for kind in kinds:
            stem = STEMS.get(kind)
            version = parse_name(name, stem) if stem else None
            if stem and version:
                found.append(Library(kind, _best(Path(path), stem) or version, path, "ldconfig"))
    return found


def library_path_folders(environ: Mapping[str, str]) -> tuple[Path, ...]:
    """The folders of LD_LIBRARY_PATH, which the dynamic loader searches first."""
    value = environ.get("LD_LIBRARY_PATH", "")
    return tuple(Path(entry) for entry in value.split(os.pathsep) if entry)
