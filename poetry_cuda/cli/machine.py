"""This machine's profile, detected only when a command needs it.

Planning takes detection as a function: a plan for the targets a project names or that
cuda.lock records then never loads the probes (NVML, nvidia-smi, /proc, the toolkits,
cuDNN), about a tenth of a plan's start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from collections.abc import Mapping

    from poetry_cuda.host.profiles import HostProfile


def detect_this_machine(environ: Mapping[str, str]) -> HostProfile:
    """`host.detect.detect_this_machine`, imported on the first call."""
    from poetry_cuda.host.detect import detect_this_machine as detect

    return detect(environ)
