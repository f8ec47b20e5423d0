"""The project's own CUDA toolkit (`toolkit = "redist"`) against cuda.lock.

`gather` reads what is on disk: which of the archives cuda.lock records for this platform
the shared store holds whole (as the store checks an entry before each use), what
`<venv>/cuda` was assembled from, and where its nvcc leads. `check` judges it: archives
for this machine's platform, every archive stored, the tree assembled from exactly those
archives, its nvcc the stored one, and its CUDA version the project's (torch's, which
extensions built with it must match).
"""

from __future__ import annotations

import json
import os
import platform as machine_info

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.cudaenv.tree import FOLDER
from poetry_cuda.doctor.findings import fail
from poetry_cuda.doctor.findings import ok
from poetry_cuda.doctor.findings import warn
from poetry_cuda.errors import InputFileError
from poetry_cuda.files import read_bounded
from poetry_cuda.host.profiles import host_machine
from poetry_cuda.messages import message
from poetry_cuda.records import frozen
from poetry_cuda.redist.assemble import STAMP
from poetry_cuda.redist.manifest import platform_of
from poetry_cuda.redist.store import Store


if TYPE_CHECKING:
    from collections.abc import Collection

    from poetry_cuda.doctor.findings import Finding
    from poetry_cuda.host.profiles import OperatingSystem
    from poetry_cuda.locking.lockfile import CudaLock
    from poetry_cuda.redist.manifest import Archive
    from poetry_cuda.versions import CudaVersion


FIX = message("toolkit.fix")


@frozen
class ToolkitState:
    archives: tuple[Archive, ...]  # what cuda.lock records for this machine's platform
    missing: tuple[Archive, ...]  # of those, what the store does not hold whole
    expected: tuple[str, ...]  # the store folders the tree should be assembled from
    assembled: tuple[str, ...] | None  # what `<venv>/cuda` was assembled from; None: no tree
    project_cuda: CudaVersion | None
    nvcc: str | None = None  # where `<venv>/cuda/bin/nvcc` leads, when to a file
    platform: str = ""  # this machine's NVIDIA platform name (or "<os> <machine>")
    recorded: tuple[str, ...] = ()  # the platforms cuda.lock records archives for


def gather(
    cuda_lock: CudaLock, venv: Path | None, os_name: OperatingSystem, preferred: Collection[str]
) -> ToolkitState | None:
    """What is on disk for a `toolkit = "redist"` lock; None for any other lock. `preferred`
    are the packages whose CUDA is the project's (the knowledge base's)."""
    if cuda_lock.toolkit is None:
        return None
    machine = host_machine(machine_info.machine(), os_name)
    here = platform_of(os_name, machine)
    archives = cuda_lock.toolkit.for_platform(here or "")
    store = Store.default()
    missing = tuple(a for a in archives if not store.holds(a))
    assembled = None
    nvcc = None
    if venv is not None and (venv / FOLDER / STAMP).is_file():
        try:
            stamp = json.loads(
                read_bounded(venv / FOLDER / STAMP, limit=1 << 20, kind=InputFileError)
            )
            assembled = tuple(str(source) for source in stamp["sources"])
        except (InputFileError, ValueError, KeyError, TypeError):
            assembled = ()  # a stamp this version cannot read: assembled from nothing known
        found = venv / FOLDER / "bin" / "nvcc"
        nvcc = os.path.realpath(found) if found.is_file() else None
    return ToolkitState(
        archives=archives,
        missing=missing,
        expected=tuple(str(store.folder(a)) for a in archives),
        assembled=assembled,
        project_cuda=cuda_lock.project_cuda(preferred),
        nvcc=nvcc,
        platform=here or f"{os_name} {machine}",
        recorded=tuple(sorted({a.platform for a in cuda_lock.toolkit.archives})),
    )


def check(state: ToolkitState) -> list[Finding]:
    if not state.archives and state.recorded:
        return [
            fail(
                "environment",
                "project-toolkit",
                message(
                    "toolkit.other-platforms",
                    recorded=", ".join(state.recorded),
                    platform=state.platform,
                ),
                message("toolkit.lock-for-this"),
            )
        ]
    if not state.archives:
        return [
            warn(
                "environment",
                "project-toolkit",
                message("toolkit.no-archives"),
                message("toolkit.lock-for-this"),
            )
        ]
    found = []
    # Missing before assembly is for `env` to fetch; missing under an assembled tree breaks it.
    status = warn if state.assembled is None else fail
    for archive in state.missing:
        found.append(
            status(
                "environment",
                "project-toolkit",
                message(
                    "toolkit.archive-missing",
                    archive=f"{archive.component} {archive.version} ({archive.platform})",
                ),
                FIX,
                subject=archive.component,
            )
        )
    nvcc = next((a for a in state.archives if a.component == "cuda_nvcc"), state.archives[0])
    again = message("toolkit.assemble-again")
    if state.assembled is None:
        found.append(warn("environment", "project-toolkit", message("toolkit.not-assembled"), FIX))
    elif len(state.assembled) != len(state.expected) or not all(
        Path(source).is_relative_to(folder)
        for source, folder in zip(state.assembled, state.expected, strict=True)
    ):
        found.append(
            fail(
                "environment",
                "project-toolkit",
                message("toolkit.other-archives"),
                again,
            )
        )
    elif state.nvcc is None or not Path(state.nvcc).is_relative_to(
        os.path.realpath(state.expected[state.archives.index(nvcc)])
    ):
        wrong = (
            message("toolkit.no-nvcc")
            if state.nvcc is None
            else message("toolkit.other-nvcc", nvcc=state.nvcc)
        )
        found.append(fail("environment", "project-toolkit", wrong, again))
    cuda = state.project_cuda
    major_minor = ".".join(nvcc.version.split(".")[:2])
    if cuda is not None and major_minor != f"{cuda.major}.{cuda.minor}":
        found.append(
            fail(
                "environment",
                "project-toolkit",
                message("toolkit.nvcc-mismatch", nvcc=nvcc.version, cuda=cuda),
                message("toolkit.nvcc-mismatch-fix"),
            )
        )
    if not found:
        found.append(
            ok(
                "environment",
                "project-toolkit",
                message("toolkit.assembled", nvcc=nvcc.version),
            )
        )
    return found
