"""The loaded kernel module's driver version, from ``/sys`` and ``/proc`` (Linux only).

These files name the driver but not the highest CUDA version it supports; the caller
derives that from NVIDIA's table, or takes it from nvidia-smi.
"""

from __future__ import annotations

import re

from typing import TYPE_CHECKING

from poetry_cuda.errors import os_problem
from poetry_cuda.host.probe import ProbeResult
from poetry_cuda.host.profiles import ProbeReport
from poetry_cuda.host.system_files import read_small
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import message
from poetry_cuda.versions import DriverVersion


if TYPE_CHECKING:
    from pathlib import Path

    from poetry_cuda.messages import Localized


PROBE = "procfs"
_VERSION = re.compile(r"^[0-9]{1,9}(?:\.[0-9]{1,9}){1,3}$")


def parse_sys_module_version(text: str) -> str | None:
    """The content of ``/sys/module/nvidia/version``: just ``550.54.14``."""
    text = text.strip()
    return text if _VERSION.match(text) else None


def parse_proc_driver_version(text: str) -> str | None:
    """The driver version in ``/proc/driver/nvidia/version``.

    The ``NVRM version:`` line comes in several shapes; the version is the first
    word that looks like one, whatever the words before it:

    * ``NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024``
    * ``NVIDIA UNIX Open Kernel Module for x86_64  565.57.01  Release Build  (...)``
    * ``NVIDIA UNIX aarch64 Kernel Module  535.104.05  ...``
    """
    for line in text.splitlines():
        head, colon, rest = line.partition(":")
        if not colon or head.strip() != "NVRM version":
            continue
        for word in rest.split():
            if _VERSION.match(word):
                return word
    return None


def probe_procfs(*, sys_root: Path, proc_root: Path) -> ProbeResult:
    """Read the kernel module's version: ``/sys`` first, as NVIDIA recommends."""
    sources = (
        (sys_root / "module" / "nvidia" / "version", parse_sys_module_version),
        (proc_root / "driver" / "nvidia" / "version", parse_proc_driver_version),
    )
    notes: list[Localized] = []
    for path, parse in sources:
        try:
            text = read_small(path)
        except FileNotFoundError:
            continue
        except OSError as error:
            notes.append(Phrase((str(path), os_problem(error)), ": "))
            continue
        version = parse(text)
        if version is None:
            notes.append(message("probe.no-version-in", path=path))
            continue
        return ProbeResult(
            report=ProbeReport(PROBE, "found", f"{path}: {version}"),
            driver=DriverVersion.parse(version),
        )
    if notes:
        return ProbeResult(report=ProbeReport.saying(PROBE, "error", Phrase(tuple(notes), "; ")))
    return ProbeResult(
        report=ProbeReport.saying(
            PROBE,
            "absent",
            message("probe.no-nvidia-module", first=sources[0][0], second=sources[1][0]),
        )
    )
