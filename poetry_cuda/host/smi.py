"""The ``nvidia-smi`` probe: the fallback when NVML cannot be used from Python.

Two pure parsers (the ``--query-gpu`` CSV and the table header's ``CUDA Version``)
and the runner, which finds the program as an absolute path and never waits on it
for longer than the timeout.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.host.probe import GpuFacts
from poetry_cuda.host.probe import ProbeResult
from poetry_cuda.host.profiles import ProbeReport
from poetry_cuda.host.run import run
from poetry_cuda.messages import message
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion


if TYPE_CHECKING:
    from collections.abc import Mapping

    from poetry_cuda.host.profiles import OperatingSystem
    from poetry_cuda.host.run import Completed


PROBE = "nvidia-smi"
FIELDS = ("index", "name", "uuid", "memory.total", "compute_cap", "driver_version")
# Drivers before ~510 do not know compute_cap and reject the whole query.
OLD_FIELDS = tuple(field for field in FIELDS if field != "compute_cap")
_CUDA = re.compile(r"CUDA Version\s*:\s*([0-9]{1,9}\.[0-9]{1,9})(?![0-9])")
_NO_DRIVER = "couldn't communicate with the NVIDIA driver"
_NUMBER = re.compile(r"^[0-9]{1,9}$")


def query_arguments(fields: tuple[str, ...]) -> list[str]:
    return [f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"]


def _value(text: str) -> str | None:
    text = text.strip()
    # nvidia-smi writes "[N/A]", "[Not Supported]" or "N/A" for what it cannot tell.
    if not text or text.startswith("[") or text == "N/A":
        return None
    return text


def parse_query(
    text: str, *, with_compute_cap: bool = True
) -> tuple[tuple[GpuFacts, ...], DriverVersion | None]:
    """Parse ``--query-gpu`` output in `FIELDS` order (`OLD_FIELDS` without compute_cap).

    Returns the GPUs and the driver version; lines that are not GPU rows are skipped.
    """
    tail = 4 if with_compute_cap else 3
    gpus = []
    driver = None
    for line in text.splitlines():
        cells = line.split(",")
        if len(cells) < 2 + tail or not _NUMBER.match(cells[0].strip()):
            continue
        # Only the name may hold a comma, so it is whatever lies between the ends.
        name = _value(",".join(cells[1:-tail]))
        uuid, memory, *rest = (_value(cell) for cell in cells[-tail:])
        capability = rest[0] if with_compute_cap else None
        version = rest[-1]
        gpus.append(
            GpuFacts(
                index=int(cells[0]),
                name=name,
                uuid=uuid,
                memory_mib=int(memory) if memory and _NUMBER.match(memory) else None,
                compute_capability=_capability(capability),
            )
        )
        if driver is None and version:
            driver = _driver(version)
    return tuple(gpus), driver


def _capability(text: str | None) -> ComputeCapability | None:
    try:
        return ComputeCapability.parse(text) if text else None
    except ValueError:
        return None


def _driver(text: str) -> DriverVersion | None:
    try:
        return DriverVersion.parse(text)
    except ValueError:
        return None


def parse_header_cuda(text: str) -> CudaVersion | None:
    """The driver's highest CUDA version from the plain ``nvidia-smi`` table (or ``-q``)."""
    match = _CUDA.search(text)
    return CudaVersion.parse(match.group(1)) if match else None


def find_nvidia_smi(
    environ: Mapping[str, str], *, os_name: OperatingSystem, wsl_lib: Path
) -> str | None:
    """The absolute path of nvidia-smi: PATH first, then where drivers install it."""
    if os_name == "windows":
        name = "nvidia-smi.exe"
        extra = [
            Path(environ.get("WINDIR", r"C:\Windows"), "System32"),
            Path(environ.get("ProgramFiles", r"C:\Program Files"), "NVIDIA Corporation", "NVSMI"),
        ]
    else:
        name = "nvidia-smi"
        extra = [wsl_lib]
    search = [entry for entry in environ.get("PATH", "").split(os.pathsep) if entry]
    search += [str(directory) for directory in extra]
    found = shutil.which(name, path=os.pathsep.join(search))
    return str(Path(found).absolute()) if found else None


def probe_smi(
    *,
    environ: Mapping[str, str],
    os_name: OperatingSystem,
    wsl_lib: Path,
    timeout: float,
    want_cuda: bool,
) -> ProbeResult:
    """Ask nvidia-smi for every GPU, and (if `want_cuda`) for the driver's CUDA version."""
    program = find_nvidia_smi(environ, os_name=os_name, wsl_lib=wsl_lib)
    if program is None:
        return ProbeResult(
            report=ProbeReport.saying(
                PROBE, "absent", message("probe.not-found", program="nvidia-smi")
            )
        )
    notes = []
    try:
        completed = run([program, *query_arguments(FIELDS)], env=environ, timeout=timeout)
        with_compute_cap = "is not a valid field" not in completed.output
        if not with_compute_cap:
            notes.append("this driver's nvidia-smi cannot report compute_cap")
            completed = run([program, *query_arguments(OLD_FIELDS)], env=environ, timeout=timeout)
        if completed.returncode != 0:
            return _failed(program, completed)
        gpus, driver = parse_query(completed.stdout, with_compute_cap=with_compute_cap)
        cuda = None
        if want_cuda:
            header = run([program], env=environ, timeout=timeout)
            cuda = parse_header_cuda(header.stdout)
            if cuda is None:
                notes.append("no 'CUDA Version' in its table")
    except subprocess.TimeoutExpired:
        return ProbeResult(
            report=ProbeReport(PROBE, "timeout", f"{program} did not answer within {timeout:g} s")
        )
    except OSError as error:
        return ProbeResult(
            report=ProbeReport(PROBE, "error", f"{program}: {error.strerror or error}")
        )
    summary = [f"driver {driver}" if driver else "no driver version", f"{len(gpus)} GPU(s)"]
    if cuda:
        summary.append(f"CUDA {cuda}")
    return ProbeResult(
        report=ProbeReport(PROBE, "found", f"{program}: " + ", ".join(summary + notes)),
        driver=driver,
        cuda=cuda,
        gpus=gpus,
    )


def _failed(program: str, completed: Completed) -> ProbeResult:
    message = completed.first_line() or f"exit status {completed.returncode}"
    result = "absent" if _NO_DRIVER in completed.output else "error"
    return ProbeResult(report=ProbeReport(PROBE, result, f"{program}: {message}"))
