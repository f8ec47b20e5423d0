"""The CUDA files of a virtual environment's nvidia-* wheels, and a CUDA_HOME made of them.

The wheels put their files below ``site-packages/nvidia``: one folder per wheel for
CUDA 11 and 12 (``nvidia/cuda_runtime/lib``, ``nvidia/cuda_nvcc/bin``, ...), one shared
``nvidia/cu13`` folder for CUDA 13. Tools that want a CUDA_HOME
(`torch.utils.cpp_extension`, CMake, plain nvcc) expect ``bin``, ``include``, ``lib64``
and ``nvvm`` side by side, and link with ``-lcudart``, which needs the unversioned
``libcudart.so`` that no wheel ships. `assemble` builds that folder, ``<venv>/cuda``,
from symbolic links into the wheels, plus the unversioned library links and a
``version.json``; it is rebuilt only when the wheels changed, and replaced whole so that
no reader sees half of it.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.cudaenv.decide import Tree
from poetry_cuda.files import replace_folder


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import ToolkitWheels


FOLDER = "cuda"
STAMP = ".poetry-cuda.json"
PARTS = ("bin", "include", "lib", "nvvm")
_SKIP = {"__init__.py", "__pycache__"}
_SHARED = re.compile(r"^(lib[\w+-]+\.so)\.\d+(?:\.\d+)*$")
_LIBRARY = re.compile(r"^lib[\w+-]+\.so(?:\.\d+)*$|\.dll$")
_NVCC_DIST = re.compile(
    r"^nvidia_cuda_nvcc(?:_cu\d+)?-(\d+\.\d+(?:\.\d+)*)(?:\.post\d+)?\.dist-info$"
)


def site_packages(venv: Path, os_name: str) -> list[Path]:
    if os_name == "windows":
        found = [venv / "Lib" / "site-packages"]
    else:
        found = sorted(venv.glob("lib/python3*/site-packages"))
    return [path for path in found if path.is_dir()]


def _has_libraries(folder: Path) -> bool:
    try:
        return any(_LIBRARY.search(entry.name) for entry in folder.iterdir())
    except OSError:
        return False


def library_folders(site: Path, os_name: str) -> list[str]:
    """The folders of the wheels' shared libraries, in a stable order.

    Linux: ``nvidia/<lib>/lib`` (CUDA 11/12) and ``nvidia/cu13/lib``; Windows:
    ``nvidia/<lib>/bin`` and ``nvidia/cu13/bin/x86_64``.
    """
    nvidia = site / "nvidia"
    if not nvidia.is_dir():
        return []
    if os_name == "windows":
        candidates = [*sorted(nvidia.glob("*/bin")), nvidia / "cu13" / "bin" / "x86_64"]
    else:
        candidates = sorted(nvidia.glob("*/lib"))
    return [str(folder) for folder in dict.fromkeys(candidates) if _has_libraries(folder)]


def nvcc_version(site: Path) -> str | None:
    """The version of the installed nvcc wheel (``nvidia_cuda_nvcc_cu12-12.4.131.dist-info``)."""
    for entry in sorted(site.glob("nvidia_cuda_nvcc*.dist-info")):
        match = _NVCC_DIST.match(entry.name)
        if match:
            return match.group(1)
    return None


def components(site: Path, row: ToolkitWheels) -> list[Path]:
    """The wheel folders a CUDA_HOME is made of: nvcc's first, so its files win."""
    nvidia = site / "nvidia"
    if row.root == "nvidia/cu13":
        return [nvidia / "cu13"] if (nvidia / "cu13").is_dir() else []
    first = [nvidia / name for name in ("cuda_nvcc", "cuda_runtime", "cuda_cccl")]
    rest = sorted(p for p in nvidia.glob("*") if p.is_dir() and p.name not in _SKIP)
    return [p for p in dict.fromkeys([*first, *rest]) if p.is_dir() and p.name != "cu13"]


def assemble(venv: Path, site: Path, row: ToolkitWheels, *, build: bool = True) -> Tree | None:
    """``<venv>/cuda`` made of the toolkit wheels of `row`; None when they are not installed.

    `build=False` only says where the tree is (doctor is read-only).
    """
    version = nvcc_version(site)
    sources = components(site, row)
    if version is None or not sources:
        return None
    target = venv / FOLDER
    stamp = json.dumps(
        {"version": version, "sources": [str(s) for s in sources], "layout": 1}, sort_keys=True
    )
    if build and _read(target / STAMP) != stamp:
        _build(target, sources, version, stamp)
    return tree_of(target, version)


def tree_of(root: Path, version: str, origin: str = "wheels") -> Tree:
    bin_dir = root / "bin"
    return Tree(
        root=str(root),
        version=version,
        bin=str(bin_dir) if bin_dir.is_dir() else None,
        libraries=(str(root / "lib64"),),
        nvcc=(bin_dir / "nvcc").exists(),
        origin=origin,
    )


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def _build(target: Path, sources: Sequence[Path], version: str, stamp: str) -> None:
    staging = Path(tempfile.mkdtemp(prefix=f".{FOLDER}-", dir=target.parent))
    try:
        staging.chmod(0o755)  # mkdtemp's folders are private; a CUDA_HOME is not
        for part in PARTS:
            found = [source / part for source in sources if (source / part).is_dir()]
            if found:
                _merge(staging / part, found)
        lib = staging / "lib"
        lib.mkdir(exist_ok=True)
        _add_unversioned(lib)
        (staging / "lib64").symlink_to("lib")
        version_json = {"cuda": {"name": "CUDA SDK", "version": version}}
        (staging / "version.json").write_text(json.dumps(version_json, indent=2) + "\n")
        (staging / STAMP).write_text(stamp, encoding="utf-8")
        replace_folder(staging, target, settled=lambda t: _read(t / STAMP) == stamp)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def _merge(destination: Path, sources: Sequence[Path]) -> None:
    """A folder of links to the entries of `sources`; the first source wins a name."""
    destination.mkdir()
    names: dict[str, list[Path]] = {}
    for source in sources:
        for entry in sorted(source.iterdir()):
            if entry.name not in _SKIP:
                names.setdefault(entry.name, []).append(entry)
    for name, entries in names.items():
        folders = [e for e in entries if e.is_dir()]
        if len(folders) > 1 and len(folders) == len(entries):
            _merge(destination / name, folders)
        else:
            (destination / name).symlink_to(entries[0])


def _add_unversioned(lib: Path) -> None:
    """``libcudart.so`` beside ``libcudart.so.12``: what ``-lcudart`` looks for."""
    for entry in sorted(lib.iterdir()):
        match = _SHARED.match(entry.name)
        if match and not (lib / match.group(1)).exists():
            (lib / match.group(1)).symlink_to(entry.name)
