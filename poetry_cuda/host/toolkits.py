"""System CUDA toolkits: the folders that hold nvcc and the CUDA headers and libraries.

Candidates come from ``CUDA_HOME``/``CUDA_PATH``, ``nvcc`` on PATH, ``/usr/local/cuda``,
``/usr/local/cuda-*`` and ``/opt/cuda`` (on Windows the installer's
``NVIDIA GPU Computing Toolkit\\CUDA\\v*``). One folder reached several ways (the
``/usr/local/cuda`` symlink and its target) is one toolkit, reported at its real path.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.host.profiles import ProbeReport
from poetry_cuda.host.profiles import Toolkit
from poetry_cuda.host.run import run
from poetry_cuda.host.system_files import read_small
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import message
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Iterator
    from collections.abc import Mapping

    from poetry_cuda.host.profiles import OperatingSystem
    from poetry_cuda.messages import Localized


PROBE = "toolkits"
# ASCII digits, few enough per part to be a version number.
_VERSION = re.compile(r"^[0-9]{1,9}\.[0-9]{1,9}(?:\.[0-9]{1,9}){0,2}$")
_VERSION_TXT = re.compile(r"CUDA Version\s+([0-9]+\.[0-9]+(?:\.[0-9]+)*)")
_NVCC = re.compile(
    r"release ([0-9]{1,9}\.[0-9]{1,9}), V([0-9]{1,9}\.[0-9]{1,9}\.[0-9]{1,9})(?![0-9])"
    r"|release ([0-9]{1,9}\.[0-9]{1,9})(?![0-9.])"
)
# The wheels NVIDIA's redistributable toolkits record; nvcc's version is the
# toolkit's, the runtime's is the next best.
_DIST_INFO = re.compile(r"^nvidia_cuda_(nvcc|runtime)-([0-9]+\.[0-9]+(?:\.[0-9]+)*)\.dist-info$")


def parse_version_json(text: str) -> str | None:
    """``version.json`` (CUDA >= 11.1): ``{"cuda": {"version": "12.4.1"}, ...}``."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nesting deeper than the parser goes
        return None
    cuda = data.get("cuda") if isinstance(data, dict) else None
    version = cuda.get("version") if isinstance(cuda, dict) else None
    return version if isinstance(version, str) and _VERSION.match(version) else None


def parse_version_txt(text: str) -> str | None:
    """``version.txt`` (older toolkits): ``CUDA Version 11.0.228``."""
    match = _VERSION_TXT.search(text)
    return match.group(1) if match and _VERSION.match(match.group(1)) else None


def parse_dist_info(names: list[str]) -> str | None:
    """The toolkit version from ``dist-info`` folder names: nvcc's, else the runtime's."""
    found: dict[str, str] = {}
    for name in names:
        match = _DIST_INFO.match(name)
        if match and _VERSION.match(match.group(2)):
            found.setdefault(match.group(1), match.group(2))
    return found.get("nvcc") or found.get("runtime")


def parse_nvcc_version(text: str) -> str | None:
    """``nvcc --version``: ``Cuda compilation tools, release 13.0, V13.0.88`` gives 13.0.88."""
    match = _NVCC.search(text)
    if not match:
        return None
    return match.group(2) or match.group(3)


@frozen
class ToolkitFolder:
    path: Path
    source: str
    # The nvcc on PATH that pointed here; it may be a wrapper script elsewhere.
    nvcc: Path | None = None


def looks_like_toolkit(root: Path) -> bool:
    markers = ("version.json", "version.txt", "dist-info", "include/cuda_runtime.h")
    return any((root / marker).exists() for marker in markers)


def candidates(
    environ: Mapping[str, str], *, os_name: OperatingSystem, usr_local: Path, opt: Path
) -> Iterator[ToolkitFolder]:
    """Every place a toolkit may be, in order of precedence."""
    for variable in ("CUDA_HOME", "CUDA_PATH"):
        if environ.get(variable):
            yield ToolkitFolder(Path(environ[variable]), variable)
    nvcc_name = "nvcc.exe" if os_name == "windows" else "nvcc"
    nvcc = shutil.which(nvcc_name, path=environ.get("PATH", ""))
    if nvcc:
        yield ToolkitFolder(Path(nvcc).resolve().parent.parent, "PATH", nvcc=Path(nvcc))
    if os_name == "windows":
        program_files = Path(environ.get("ProgramFiles", r"C:\Program Files"))
        base = program_files / "NVIDIA GPU Computing Toolkit" / "CUDA"
        for path in _sorted_glob(base, "v*"):
            yield ToolkitFolder(path, "Program Files")
        return
    yield ToolkitFolder(usr_local / "cuda", "/usr/local/cuda")
    for path in _sorted_glob(usr_local, "cuda-*"):
        yield ToolkitFolder(path, "/usr/local/cuda-*")
    yield ToolkitFolder(opt / "cuda", "/opt/cuda")


def _sorted_glob(base: Path, pattern: str) -> list[Path]:
    try:
        return sorted(base.glob(pattern))
    except OSError:
        return []


def toolkit_version(
    root: Path, *, nvcc: Path | None, environ: Mapping[str, str], timeout: float
) -> tuple[str | None, str]:
    """The toolkit's version and where it was read; ``nvcc --version`` is the last resort."""
    for name, parse in (("version.json", parse_version_json), ("version.txt", parse_version_txt)):
        try:
            version = parse(read_small(root / name))
        except OSError:
            continue
        if version:
            return version, name
    for folder in (root / "dist-info", root):
        try:
            names = [entry.name for entry in folder.iterdir()]
        except OSError:
            continue
        version = parse_dist_info(names)
        if version:
            return version, "dist-info"
    if nvcc is None:
        return None, "no version.json, version.txt, dist-info or nvcc"
    try:
        completed = run([str(nvcc), "--version"], env=environ, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"{nvcc} --version did not answer within {timeout:g} s"
    except OSError as error:
        return None, f"{nvcc}: {error.strerror or error}"
    version = parse_nvcc_version(completed.stdout)
    return version, "nvcc --version" if version else f"{nvcc} --version: no release number"


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def find_toolkits(
    environ: Mapping[str, str],
    *,
    os_name: OperatingSystem,
    usr_local: Path,
    opt: Path,
    timeout: float,
) -> tuple[tuple[Toolkit, ...], ProbeReport]:
    """Every toolkit found, sorted by version, and a report of the search."""
    nvcc_name = "nvcc.exe" if os_name == "windows" else "nvcc"
    seen: set[str] = set()
    toolkits = []
    notes: list[Localized] = []
    for candidate in candidates(environ, os_name=os_name, usr_local=usr_local, opt=opt):
        if not candidate.path.is_dir():
            if candidate.source in ("CUDA_HOME", "CUDA_PATH"):
                notes.append(
                    message("probe.not-a-folder", setting=f"{candidate.source}={candidate.path}")
                )
            continue
        root = Path(os.path.realpath(candidate.path))
        if str(root) in seen:
            continue
        if candidate.nvcc is not None and not looks_like_toolkit(root):
            notes.append(message("probe.nvcc-outside", nvcc=candidate.nvcc))
            continue
        seen.add(str(root))
        nvcc = root / "bin" / nvcc_name
        found_nvcc = nvcc if nvcc.is_file() else None
        version, origin = toolkit_version(root, nvcc=found_nvcc, environ=environ, timeout=timeout)
        if version is None:
            notes.append(f"{root}: {origin}")
            continue
        toolkits.append(
            Toolkit(
                version=version,
                root=str(root),
                nvcc=str(found_nvcc) if found_nvcc else None,
                source=candidate.source,
            )
        )
    toolkits.sort(key=lambda toolkit: (_version_key(toolkit.version), toolkit.root))
    described: list[Localized] = [
        message("probe.toolkit-at", version=t.version, root=t.root, source=t.source)
        for t in toolkits
    ]
    detail = Phrase((*described, *notes), "; ") if described or notes else ""
    if toolkits:
        return tuple(toolkits), ProbeReport.saying(PROBE, "found", detail)
    return (), ProbeReport.saying(PROBE, "absent", detail or message("probe.no-toolkit"))
