"""What is installed: the project's virtual environment, read from its files.

Every distribution is read from ``site-packages/*.dist-info/METADATA`` (name and
version only), so no interpreter is started. For the CUDA builds that record the CUDA
version they were built with (the knowledge base's `Installed` rows: torch in
torch/version.py, paddle in paddle/version/__init__.py), that is read too; for
``nvidia-*`` wheels, the shared libraries their RECORD lists are checked to exist.
"""

from __future__ import annotations

import contextlib
import os
import re

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.knowledge.model import installed_of
from poetry_cuda.names import canonical_name
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Iterator
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import Installed


_LIBRARY = re.compile(r"\.so(\.\d+)*$|\.dll$")
CPU = "cpu"


@frozen
class Distribution:
    name: str  # normalized
    version: str
    dist_info: Path
    # The CUDA version the build records ("12.4"), CPU for a CPU build, None if unknown.
    build_cuda: str | None = None
    missing_libraries: tuple[str, ...] = ()  # RECORD entries (nvidia-* only) not on disk


@frozen
class Environment:
    root: Path
    site_packages: tuple[Path, ...]
    distributions: dict[str, Distribution]
    nvidia_bytes: int  # total size of every site-packages/nvidia folder

    def get(self, name: str) -> Distribution | None:
        return self.distributions.get(canonical_name(name))

    def python(self) -> Path | None:
        for candidate in (self.root / "bin" / "python", self.root / "Scripts" / "python.exe"):
            if candidate.exists():
                return candidate
        return None


def site_packages(root: Path) -> tuple[Path, ...]:
    """``lib/pythonX.Y/site-packages`` (POSIX) or ``Lib/site-packages`` (Windows)."""
    found = sorted(root.glob("lib/python*/site-packages")) + sorted(
        root.glob("lib64/python*/site-packages")
    )
    if (root / "Lib" / "site-packages").is_dir():
        found.append(root / "Lib" / "site-packages")
    unique: dict[str, Path] = {}
    for path in found:
        unique.setdefault(os.path.realpath(path), path)
    return tuple(unique.values())


def parse_metadata(text: str) -> tuple[str, str] | None:
    """(Name, Version) from the header of a METADATA file."""
    name = version = None
    for line in text.splitlines():
        if not line.strip():
            break
        key, _, value = line.partition(":")
        if key == "Name":
            name = value.strip()
        elif key == "Version":
            version = value.strip()
    return (name, version) if name and version else None


def parse_build_cuda(text: str, pattern: str) -> str | None:
    """``12.4`` from ``cuda = '12.4'`` (the first group of `pattern`); CPU for
    ``None``/``False``; None when absent."""
    match = re.search(pattern, text)
    if not match:
        return None
    value = match.group(1).strip().strip("'\"")
    return CPU if value in ("None", "False", "") else value


def _record_libraries(dist_info: Path) -> Iterator[str]:
    try:
        text = (dist_info / "RECORD").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return
    for line in text.splitlines():
        path = line.split(",", 1)[0]
        if _LIBRARY.search(path) and not path.startswith(".."):
            yield path


def _distribution(folder: Path, dist_info: Path, rows: Sequence[Installed]) -> Distribution | None:
    try:
        parsed = parse_metadata(
            (dist_info / "METADATA").read_text(encoding="utf-8", errors="replace")
        )
    except OSError:
        return None
    if parsed is None:
        return None
    name, version = canonical_name(parsed[0]), parsed[1]
    build_cuda = None
    row = installed_of(rows, name)
    if row is not None and row.version_file is not None and row.cuda_pattern is not None:
        with contextlib.suppress(OSError):
            text = (folder / row.version_file).read_text(encoding="utf-8")
            build_cuda = parse_build_cuda(text, row.cuda_pattern)
    missing: tuple[str, ...] = ()
    if name.startswith("nvidia-"):
        missing = tuple(p for p in _record_libraries(dist_info) if not (folder / p).exists())
    return Distribution(name, version, dist_info, build_cuda, missing)


def folder_size(folder: Path) -> int:
    total = 0
    for directory, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += (Path(directory) / name).lstat().st_size
    return total


def read_environment(root: Path, rows: Sequence[Installed]) -> Environment:
    """Every distribution installed in the virtual environment at `root`, with the CUDA
    its build records for the packages `rows` describe (the knowledge base's `installed`)."""
    folders = site_packages(root)
    distributions: dict[str, Distribution] = {}
    nvidia = 0
    for folder in folders:
        for dist_info in sorted(folder.glob("*.dist-info")):
            found = _distribution(folder, dist_info, rows)
            if found is not None:
                distributions.setdefault(found.name, found)
        if (folder / "nvidia").is_dir():
            nvidia += folder_size(folder / "nvidia")
    return Environment(root, folders, distributions, nvidia)
