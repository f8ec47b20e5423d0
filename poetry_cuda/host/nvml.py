"""The NVML probe: runs the `poetry_cuda.host._nvml` worker and decodes its answer.

NVML is the driver's own library, so it is asked first; but a broken driver can make
it hang or crash, so it is only ever loaded in a child process with a time limit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.host.paths import HostPaths
from poetry_cuda.host.probe import GpuFacts
from poetry_cuda.host.probe import ProbeResult
from poetry_cuda.host.profiles import ProbeReport
from poetry_cuda.host.profiles import Problem
from poetry_cuda.host.run import Running
from poetry_cuda.host.run import run
from poetry_cuda.host.run import signal_name
from poetry_cuda.host.run import start
from poetry_cuda.messages import message
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion


if TYPE_CHECKING:
    from collections.abc import Mapping

    from poetry_cuda.host.profiles import OperatingSystem


PROBE = "nvml"
# Run by path, isolated (-I): importing the package around it would double the child's
# start-up, and -I keeps the working directory and PYTHON* variables out of its imports.
WORKER = Path(__file__).with_name("_nvml.py")
LIBRARY = "libnvidia-ml.so.1"

DRIVER_NOT_LOADED = 9
LIBRARY_NOT_FOUND = 12
LIB_RM_VERSION_MISMATCH = 18

VERSION_MISMATCH = Problem(
    probe=PROBE,
    message=(
        "Driver/library version mismatch: the kernel module and user-space libraries "
        "differ, usually a driver upgraded without reboot"
    ),
    fix="reboot, or reload the nvidia kernel modules",
)


def worker_environment(environ: Mapping[str, str], *, wsl_lib: Path) -> dict[str, str]:
    """The worker's environment: the caller's, so LD_LIBRARY_PATH keeps working."""
    env = dict(environ)
    # WSL2 keeps the Windows driver's NVML outside the usual library path.
    if (wsl_lib / LIBRARY).exists():
        env["LD_LIBRARY_PATH"] = os.pathsep.join(
            entry for entry in (env.get("LD_LIBRARY_PATH"), str(wsl_lib)) if entry
        )
    return env


class EarlyWorker:
    """A worker started ahead of detection (`start_early`), handed to it as `early=`.

    Detection collects it when it asks NVML with the same interpreter and environment the
    worker was started with; whoever started it stops it (`stop`) if nothing collected it.
    """

    def __init__(self, key: tuple[object, ...], running: Running) -> None:
        self._key = key
        self._running: Running | None = running

    def take(self, key: tuple[object, ...]) -> Running | None:
        """The worker, if it was started as `key` says and nothing took it yet."""
        if key != self._key:
            return None
        running, self._running = self._running, None
        return running

    def stop(self) -> None:
        """Kill the worker, unless detection took it."""
        running, self._running = self._running, None
        if running is not None:
            running.stop()


def start_early(environ: Mapping[str, str], *, python: str = sys.executable) -> EarlyWorker | None:
    """Start the worker now, so that its answer is ready when detection asks for it.

    Its start-up (a Python process importing pynvml) then runs beside the command's own
    imports and reading instead of after them. `probe_nvml(early=...)` collects it, under
    the same time limit. None where no worker runs (macOS) or it cannot start (detection
    then starts it again, and says why it cannot).
    """
    if not python or sys.platform == "darwin":
        return None
    env = worker_environment(environ, wsl_lib=HostPaths().wsl_lib)
    try:
        return EarlyWorker(_key(python, env), start(_argv(python), env=env))
    except OSError:
        return None


def _key(python: str, env: Mapping[str, str]) -> tuple[object, ...]:
    return (python, tuple(sorted(env.items())))


def _argv(python: str) -> list[str]:
    return [python, "-I", str(WORKER)]


def probe_nvml(
    *,
    environ: Mapping[str, str],
    os_name: OperatingSystem,
    wsl_lib: Path,
    timeout: float,
    python: str = sys.executable,
    early: EarlyWorker | None = None,
) -> ProbeResult:
    """Run the worker with `python` (or collect `early`, where it was started so) and decode
    what it printed."""
    if not python:
        return _error("no Python interpreter to run the NVML worker with")
    env = worker_environment(environ, wsl_lib=wsl_lib)
    running = early.take(_key(python, env)) if early is not None else None
    try:
        if running is not None:
            completed = running.collect(timeout)
        else:
            completed = run(_argv(python), env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return ProbeResult(
            report=ProbeReport(
                PROBE, "timeout", f"NVML did not answer within {timeout:g} s (worker stopped)"
            )
        )
    except OSError as error:
        return _error(f"cannot start the NVML worker: {error.strerror or error}")
    if completed.returncode < 0:
        return _error(f"the NVML worker died from {signal_name(completed.returncode)} inside NVML")
    lines = [line for line in completed.stdout.splitlines() if line.strip()]
    if completed.returncode != 0 or not lines:
        detail = completed.stderr.strip().splitlines()[-1:] or [f"exit {completed.returncode}"]
        return _error(f"the NVML worker failed: {detail[0]}")
    try:
        payload = json.loads(lines[-1])
    except ValueError:
        return _error("the NVML worker printed no result")
    return decode(payload, os_name=os_name)


def _error(detail: str) -> ProbeResult:
    return ProbeResult(report=ProbeReport(PROBE, "error", detail))


def decode(payload: object, *, os_name: OperatingSystem) -> ProbeResult:
    """Turn the worker's JSON into findings (pure: tests feed it documents)."""
    if not isinstance(payload, dict):
        return _error("the NVML worker printed an unexpected result")
    if "worker_error" in payload:
        return _error(f"the NVML worker failed: {payload['worker_error']}")
    init_error = payload.get("init_error")
    if isinstance(init_error, dict):
        return _init_failure(init_error, os_name=os_name)

    notes = []
    driver = _driver(payload.get("driver"))
    if driver is None:
        notes.append("no driver version")
    cuda = _cuda(payload.get("cuda"))
    if cuda is None:
        notes.append("no CUDA version")
    raw_gpus = payload.get("gpus")
    gpus = None if not isinstance(raw_gpus, list) else tuple(_gpus(raw_gpus))
    missing = [name for name in payload.get("missing") or [] if isinstance(name, str)]
    if missing:
        notes.append(f"this NVML lacks {', '.join(missing)} (an old driver)")
    for failure in payload.get("failures") or []:
        if isinstance(failure, dict):
            notes.append(f"{failure.get('call')} failed: {failure.get('name')}")
    summary = [
        f"driver {driver}" if driver else None,
        f"CUDA {cuda}" if cuda else None,
        "GPUs not listed" if gpus is None else f"{len(gpus)} GPU(s)",
    ]
    detail = ", ".join(part for part in summary if part)
    if notes:
        detail += "; " + "; ".join(dict.fromkeys(notes))
    return ProbeResult(
        report=ProbeReport(PROBE, "found", detail), driver=driver, cuda=cuda, gpus=gpus
    )


def _init_failure(error: dict[str, Any], *, os_name: OperatingSystem) -> ProbeResult:
    code = error.get("code")
    name = error.get("name") or f"NVML error {code}"
    said = error.get("message") or ""
    if code == LIBRARY_NOT_FOUND:
        library = "nvml.dll" if os_name == "windows" else LIBRARY
        return ProbeResult(
            report=ProbeReport.saying(
                PROBE, "absent", message("probe.no-nvidia-library", library=library)
            )
        )
    if code == DRIVER_NOT_LOADED:
        return ProbeResult(
            report=ProbeReport(
                PROBE, "absent", f"no NVIDIA driver: the kernel driver is not loaded ({name})"
            )
        )
    if code == LIB_RM_VERSION_MISMATCH:
        return ProbeResult(
            report=ProbeReport(PROBE, "error", f"{name}: {VERSION_MISMATCH.message}"),
            problems=(VERSION_MISMATCH,),
        )
    if code is None:
        return _error(f"pynvml cannot be imported ({said}); install nvidia-ml-py")
    return ProbeResult(
        report=ProbeReport(PROBE, "error", f"nvmlInit failed: {name} ({said})"),
        problems=(
            Problem(
                probe=PROBE,
                message=f"NVML cannot start: {name} ({said})",
                fix="run `nvidia-smi` to see the driver's own diagnosis",
            ),
        ),
    )


def _driver(value: object) -> DriverVersion | None:
    if not isinstance(value, str):
        return None
    try:
        return DriverVersion.parse(value)
    except ValueError:
        return None


def _cuda(value: object) -> CudaVersion | None:
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    try:
        return CudaVersion.from_nvml(value)
    except ValueError:
        return None


def _gpus(raw: list[object]) -> list[GpuFacts]:
    gpus = []
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("index"), int):
            continue
        capability = item.get("compute_capability")
        memory = item.get("memory_mib")
        gpus.append(
            GpuFacts(
                index=item["index"],
                name=item.get("name") if isinstance(item.get("name"), str) else None,
                uuid=item.get("uuid") if isinstance(item.get("uuid"), str) else None,
                memory_mib=memory if isinstance(memory, int) else None,
                compute_capability=_capability(capability),
            )
        )
    return gpus


def _capability(value: object) -> ComputeCapability | None:
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(part, int) and part >= 0 for part in value)
    ):
        return ComputeCapability(value[0], value[1])
    return None
