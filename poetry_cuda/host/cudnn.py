"""System cuDNN: its headers, its libraries in the usual folders, and ``ldconfig -p``.

A header (``cudnn_version.h``, or ``cudnn.h`` before cuDNN 8) gives the full
version; a library gives its major version from its name (``libcudnn.so.8``) and
the full one when the versioned file (``libcudnn.so.8.9.7``) sits beside it.
"""

from __future__ import annotations

import os
import re
import subprocess

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.host.paths import ldconfig_libraries
from poetry_cuda.host.profiles import Cudnn
from poetry_cuda.host.profiles import ProbeReport
from poetry_cuda.host.run import run
from poetry_cuda.host.system_files import read_small
from poetry_cuda.messages import message


if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Mapping

    from poetry_cuda.host.profiles import OperatingSystem


PROBE = "cudnn"
LDCONFIG_PROBE = "ldconfig"
HEADERS = ("cudnn_version.h", "cudnn_version_v*.h", "cudnn.h", "cudnn_v*.h")
_DEFINE = re.compile(
    r"^\s*#\s*define\s+CUDNN_(MAJOR|MINOR|PATCHLEVEL)\s+([0-9]{1,9})\s*$", re.MULTILINE
)
_LIBRARY = re.compile(
    r"^(?:libcudnn\.so\.([0-9]{1,9}(?:\.[0-9]{1,9}){0,2})|cudnn64_([0-9]{1,9})\.dll)$"
)
_SONAME = re.compile(r"libcudnn\.so\.\d+")


def parse_header(text: str) -> str | None:
    """``8.9.7`` from the ``#define CUDNN_MAJOR 8`` / ``MINOR`` / ``PATCHLEVEL`` lines."""
    parts = dict(_DEFINE.findall(text))
    if "MAJOR" not in parts or "MINOR" not in parts:
        return None
    return ".".join(
        str(int(parts[key])) for key in ("MAJOR", "MINOR", "PATCHLEVEL") if key in parts
    )


def parse_library_name(name: str) -> str | None:
    """``libcudnn.so.8`` gives ``8``, ``libcudnn.so.8.9.7`` gives ``8.9.7``, ``cudnn64_9.dll`` ``9``."""
    match = _LIBRARY.match(name)
    if not match:
        return None
    return match.group(1) or match.group(2)


def parse_ldconfig(text: str) -> list[tuple[str, str]]:
    """The ``(soname, path)`` of every libcudnn in ``ldconfig -p`` output."""
    return [(name, path) for name, path in ldconfig_libraries(text) if _SONAME.fullmatch(name)]


def _major(version: str) -> str:
    return version.split(".")[0]


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def _library_version(path: Path) -> str | None:
    """The fullest version a library's name or its symlink target's name tells."""
    named = parse_library_name(path.name)
    if named is None:
        return None
    target = parse_library_name(Path(os.path.realpath(path)).name)
    if target and _major(named) == _major(target):
        return max(named, target, key=_key)
    return named


def _from_headers(folders: Iterable[Path]) -> list[Cudnn]:
    found = []
    for folder in folders:
        for pattern in HEADERS:
            for header in sorted(folder.glob(pattern)) if folder.is_dir() else []:
                try:
                    version = parse_header(read_small(header))
                except OSError:
                    continue
                if version:
                    found.append(Cudnn(version=version, path=str(header), source="header"))
    return found


def _from_library_dirs(folders: Iterable[Path]) -> list[Cudnn]:
    found = []
    for folder in folders:
        try:
            names = sorted(entry.name for entry in folder.iterdir())
        except OSError:
            continue
        by_major: dict[str, list[str]] = {}
        for name in names:
            version = _library_version(folder / name)
            if version:
                by_major.setdefault(_major(version), []).append(version)
        for major, versions in by_major.items():
            # Report the soname link (what programs load), with the fullest version known.
            soname = folder / f"libcudnn.so.{major}"
            dll = folder / f"cudnn64_{major}.dll"
            path = soname if soname.exists() else dll if dll.exists() else None
            if path is None:
                continue
            found.append(
                Cudnn(version=max(versions, key=_key), path=str(path), source="library-dir")
            )
    return found


def probe_ldconfig(
    candidates: Iterable[Path], *, environ: Mapping[str, str], timeout: float
) -> tuple[list[Cudnn], ProbeReport]:
    """Ask the dynamic linker's cache (``ldconfig -p``) where libcudnn is."""
    program = next((path for path in candidates if path.is_file()), None)
    if program is None:
        return [], ProbeReport.saying(
            LDCONFIG_PROBE, "absent", message("probe.not-found", program="ldconfig")
        )
    try:
        completed = run([str(program), "-p"], env=environ, timeout=timeout)
    except subprocess.TimeoutExpired:
        return [], ProbeReport(
            LDCONFIG_PROBE, "timeout", f"{program} -p did not answer within {timeout:g} s"
        )
    except OSError as error:
        return [], ProbeReport(LDCONFIG_PROBE, "error", f"{program}: {error.strerror or error}")
    if completed.returncode != 0:
        return [], ProbeReport(LDCONFIG_PROBE, "error", f"{program} -p: {completed.first_line()}")
    found = []
    for _soname, path in parse_ldconfig(completed.stdout):
        version = _library_version(Path(path))
        if version:
            found.append(Cudnn(version=version, path=path, source="ldconfig"))
    result = "found" if found else "absent"
    detail = ", ".join(c.path for c in found) or message("probe.no-libcudnn")
    return found, ProbeReport.saying(LDCONFIG_PROBE, result, detail)


def find_cudnn(
    *,
    os_name: OperatingSystem,
    toolkit_roots: Iterable[str],
    include_dirs: Iterable[Path],
    library_dirs: Iterable[Path],
    ldconfig: Iterable[Path],
    environ: Mapping[str, str],
    timeout: float,
) -> tuple[tuple[Cudnn, ...], tuple[ProbeReport, ...]]:
    """Every cuDNN found (one entry per real file), sorted by version."""
    roots = [Path(root) for root in toolkit_roots]
    headers = [root / "include" for root in roots]
    libraries = [folder for root in roots for folder in (root / "lib64", root / "lib")]
    if os_name == "windows":
        # The standalone installer: NVIDIA\CUDNN\v9.x\{include,bin}\<CUDA version>\.
        base = Path(environ.get("ProgramFiles", r"C:\Program Files"), "NVIDIA", "CUDNN")
        for install in sorted(base.glob("v*")) if base.is_dir() else []:
            headers += [install / "include", *sorted((install / "include").glob("*"))]
            libraries += [install / "bin", *sorted((install / "bin").glob("*"))]
        libraries += [root / "bin" for root in roots]
    else:
        headers += list(include_dirs)
        libraries += list(library_dirs)
    found = _from_headers(headers) + _from_library_dirs(libraries)
    reports = []
    if os_name == "linux":
        cached, ldconfig_report = probe_ldconfig(ldconfig, environ=environ, timeout=timeout)
        found += cached
        reports.append(ldconfig_report)
    unique: dict[str, Cudnn] = {}
    for entry in found:
        unique.setdefault(os.path.realpath(entry.path), entry)
    cudnn = tuple(sorted(unique.values(), key=lambda c: (_key(c.version), c.path)))
    detail = "; ".join(f"{c.version} at {c.path} ({c.source})" for c in cudnn)
    report = ProbeReport.saying(
        PROBE, "found" if cudnn else "absent", detail or message("probe.no-cudnn")
    )
    return cudnn, (report, *reports)
