"""What a build runs on: CUDA, ROCm, XPU or the CPU, and which GPU vendor's stack each is.

The accelerator is a `Literal` of the four names with helpers, not an `enum.Enum` (uv's
`Accelerator` is an enum in Rust, where that costs nothing): the names are the values
host profiles, plan JSON and cuda.lock carry, so a Literal is read and written as it
is, checked by `schema.Table.choice` like the other closed sets of the house
(`OperatingSystem`, `Policy`), and matched exhaustively by mypy, with no conversion at
every edge and no import of `enum` on start-up.

A variant's label says its accelerator (`accelerator_of`): ``cu124`` and ``cu12x`` are
CUDA, ``rocm6.4`` ROCm, ``xpu`` Intel's XPU, ``cpu`` the CPU. A build is never a CPU
build for want of a CUDA version: a ROCm build has none and is a GPU build all the same.
CUDA is the accelerator poetry-cuda plans builds of every family for (`PLANNED`); the
torch family also gets ROCm and XPU builds on a machine whose GPUs are AMD's or Intel's
(`planning.gpu_stacks`). A host whose GPUs need a build no family plans gets the CPU
build, and is told which GPU was left out and why.
"""

from __future__ import annotations

import re

from typing import Literal


Accelerator = Literal["cuda", "rocm", "xpu", "cpu"]
ACCELERATORS: tuple[Accelerator, ...] = ("cuda", "rocm", "xpu", "cpu")
PLANNED: tuple[Accelerator, ...] = ("cuda", "cpu")  # the ones every family is planned for

Vendor = Literal["nvidia", "amd", "intel"]
VENDORS: tuple[Vendor, ...] = ("nvidia", "amd", "intel")
VENDOR_ACCELERATOR: dict[Vendor, Accelerator] = {"nvidia": "cuda", "amd": "rocm", "intel": "xpu"}

NAMES: dict[Accelerator, str] = {"cuda": "CUDA", "rocm": "ROCm", "xpu": "XPU", "cpu": "CPU"}
VENDOR_NAMES: dict[Vendor, str] = {"nvidia": "NVIDIA", "amd": "AMD", "intel": "Intel"}

# cu124, cu12x (a CUDA major's builds); rocm6.4, rocm6.2.4; xpu; cpu.
_LABELS: tuple[tuple[re.Pattern[str], Accelerator], ...] = (
    (re.compile(r"cu[0-9]{2,4}x?"), "cuda"),
    (re.compile(r"rocm[0-9]{1,3}(?:\.[0-9]{1,3}){0,2}"), "rocm"),
    (re.compile(r"xpu"), "xpu"),
    (re.compile(r"cpu"), "cpu"),
)


def accelerator_of(label: str) -> Accelerator | None:
    """The accelerator a variant label names (``cu124`` CUDA, ``rocm6.4`` ROCm, ``xpu``
    XPU, ``cpu`` CPU); None for a label of no known form (a fixed flavour's ``cuda12x``)."""
    return next((kind for pattern, kind in _LABELS if pattern.fullmatch(label)), None)


def build_accelerator(label: str, *, has_cuda: bool) -> Accelerator:
    """A build's accelerator: CUDA when it has a CUDA version, else the one its label
    names, else the CPU (a build with neither a CUDA version nor a GPU label)."""
    if has_cuda:
        return "cuda"
    named = accelerator_of(label)
    return "cpu" if named is None or named == "cuda" else named


def stack_name(accelerator: Accelerator) -> str:
    """``CUDA``, ``ROCm``, ``XPU``, ``CPU``: as messages spell it."""
    return NAMES[accelerator]
