"""The nvcc a project's commands would run, against what cuda.lock records.

`env` and `run` put the project's toolkit first on PATH, but where none of the project's
CUDA major is installed, the nvcc found next (a distribution's, another toolkit's wrapper
in /usr/local/bin) compiles extensions for another CUDA than torch's, silently. This says
so: a line on standard error in `env` and `run`, a warning in doctor. Deciding is pure
(`mismatch`); finding the nvcc and asking its version is the I/O (`nvcc_on_path`).
"""

from __future__ import annotations

import shutil
import subprocess

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.cudaenv.decide import satisfies
from poetry_cuda.host.run import run
from poetry_cuda.host.toolkits import parse_nvcc_version
from poetry_cuda.messages import message
from poetry_cuda.records import frozen
from poetry_cuda.versions import CudaVersion


if TYPE_CHECKING:
    from collections.abc import Mapping

    from poetry_cuda.cudaenv.decide import ProjectEnv
    from poetry_cuda.messages import Language
    from poetry_cuda.messages import Message


VERSION_TIMEOUT = 10.0  # seconds for `nvcc --version`; a real one answers in a fraction


@frozen
class Nvcc:
    """The nvcc first on a PATH and the CUDA version it reports."""

    path: str
    version: str  # "13.0.88"


@frozen
class Mismatch:
    """The nvcc on PATH is not what the lock needs: the sentence and its fix."""

    nvcc: Nvcc
    said: Message
    fix: Message


def nvcc_on_path(env: ProjectEnv, path: str, environ: Mapping[str, str]) -> Nvcc | None:
    """The nvcc `path` finds and its version; None when there is none or it does not say.

    The project's own toolkit is known by its version file; any other nvcc is asked.
    """
    name = "nvcc.exe" if env.os == "windows" else "nvcc"
    found = shutil.which(name, path=path)
    if found is None:
        return None
    toolkit = env.toolkit
    bin_folder = Path(found).parent.resolve()
    if (
        toolkit is not None
        and toolkit.bin is not None
        and bin_folder == Path(toolkit.bin).resolve()
    ):
        return Nvcc(found, toolkit.version)
    try:
        completed = run(
            [found, "--version"], env={**environ, "PATH": path}, timeout=VERSION_TIMEOUT
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    version = parse_nvcc_version(completed.stdout)
    return Nvcc(found, version) if version else None


def mismatch(nvcc: Nvcc | None, env: ProjectEnv) -> Mismatch | None:
    """Where the nvcc on PATH contradicts a locked nvcc requirement or the CUDA major of the
    locked builds; None where it agrees, or nothing is locked for CUDA."""
    if nvcc is None:
        return None
    cuda = env.cuda
    for need in env.needs:
        if need.kind == "nvcc" and need.spec and not satisfies(nvcc.version, need.spec):
            return Mismatch(
                nvcc,
                message(
                    "nvcc.mismatch-need",
                    path=nvcc.path,
                    version=nvcc.version,
                    package=need.package,
                    spec=need.spec,
                ),
                message("nvcc.mismatch-fix-need", satisfy=need.satisfy or need.spec),
            )
    if cuda is None:
        return None
    try:
        locked = CudaVersion.parse(cuda)
        found = CudaVersion.parse(nvcc.version)
    except ValueError:
        return None
    if locked.major == found.major:
        return None
    return Mismatch(
        nvcc,
        message("nvcc.mismatch-cuda", path=nvcc.path, version=nvcc.version, cuda=cuda),
        message("nvcc.mismatch-fix-cuda", major=locked.major),
    )


def check(env: ProjectEnv, path: str, environ: Mapping[str, str]) -> Mismatch | None:
    """The nvcc `path` finds, held to the project's lock (see `mismatch`)."""
    if env.cuda is None and not any(n.kind == "nvcc" for n in env.needs):
        return None  # nothing locked for CUDA: no nvcc is wrong, none is asked
    return mismatch(nvcc_on_path(env, path, environ), env)


def warning_lines(found: Mismatch, language: Language) -> list[str]:
    """The mismatch as `env` and `run` print it on standard error."""
    return [
        message("warning.line", text=found.said).text(language),
        message("error.fix", fix=found.fix).text(language),
    ]
