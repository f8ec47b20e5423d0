"""Planning at scale: `make_plan` for 1, 10 and 100 targets and 1, 20 and 50 CUDA packages.

Pure and in-process: the settings, targets and dependencies are built in memory and
only `poetry_cuda.planning.assemble.make_plan` (choosing every family's variant, checking fixed
flavours, collecting system requirements) is timed, with the knowledge base loaded
once beforehand. The packages:

- 1: torch;
- 20: every CUDA-flavoured package the knowledge base knows of, one of each kind:
  the torch family (torch, torchvision, torchaudio) and its companions (triton,
  xformers, torchao), paddlepaddle-gpu, the fixed flavours jax[cuda12], cupy-cuda12x,
  cupy-cuda11x, onnxruntime-gpu (< 1.27, CUDA 12) and tensorflow[and-cuda], and the packages that build
  with nvcc (flash-attn, mmcv, detectron2, sam2, apex, deepspeed, llama-cpp-python,
  pycuda);
- 50: those 20 and 30 packages the knowledge base does not know, each with its own
  `[tool.poetry-cuda.packages.<name>]` rule (needs nvcc and cuDNN).

The targets cycle through five hosts: an RTX 4090 on driver 550 (CUDA 12.4), an A100 on
535 (12.2, so cu124 is only minor-compatible), an RTX 3090 on 560 (12.6), an L4 on 570
(12.8) and a macOS laptop. Growth is compared with linear growth step by step (10 -> 100
targets is 10x more work at most); it must be no worse than linear.

    .venv/bin/python benchmarks/plan_scale.py [--runs 5]
"""

from __future__ import annotations

import dataclasses
import gc
import itertools
import sys
import time

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any


sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import Check
from benchmarks.common import Table
from benchmarks.common import arguments
from benchmarks.common import load
from benchmarks.common import show
from poetry_cuda.backends.readers import READERS
from poetry_cuda.host.profiles import profile_from_json
from poetry_cuda.knowledge.packaged import load as load_knowledge
from poetry_cuda.planning.assemble import make_plan
from poetry_cuda.planning.targets import Target
from poetry_cuda.planning.targets import settle
from poetry_cuda.request.dependencies import read_dependencies
from poetry_cuda.request.settings import parse_settings


if TYPE_CHECKING:
    from collections.abc import Callable


RUNS = 7
QUICK_RUNS = 3
TARGET_COUNTS = (1, 10, 100)
PACKAGE_COUNTS = (1, 20, 50)
LINEAR_SLACK = 1.1
KNOWN = (
    "torch",
    "torchvision",
    "torchaudio",
    "triton",
    "xformers",
    "torchao",
    "paddlepaddle-gpu",
    "jax[cuda12]",
    "cupy-cuda12x",
    "cupy-cuda11x",
    "onnxruntime-gpu<1.27",  # its CUDA 12 builds: 1.27 moved to CUDA 13, which no host runs
    "tensorflow[and-cuda]",
    "flash-attn",
    "mmcv",
    "detectron2",
    "sam2",
    "apex",
    "deepspeed",
    "llama-cpp-python",
    "pycuda",
)
HOSTS: tuple[dict[str, Any], ...] = (
    {"driver": "550.54.14", "cuda": "12.4", "gpu": "NVIDIA GeForce RTX 4090", "cc": "8.9"},
    {"driver": "535.104.05", "cuda": "12.2", "gpu": "NVIDIA A100-SXM4-80GB", "cc": "8.0"},
    {"driver": "560.35.03", "cuda": "12.6", "gpu": "NVIDIA GeForce RTX 3090", "cc": "8.6"},
    {"driver": "570.86.10", "cuda": "12.8", "gpu": "NVIDIA L4", "cc": "8.9"},
    {},
)


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' * (count != 1)}"


def pyproject(packages: int) -> dict[str, Any]:
    unknown = [f"cuda-ext-{index:02}" for index in range(packages - len(KNOWN))]
    rules = {name: {"needs": ["nvcc>=12.1,<13", "cudnn>=9"]} for name in unknown}
    return {
        "project": {"name": "scale", "version": "0", "dependencies": [*KNOWN[:packages], *unknown]},
        "tool": {"poetry-cuda": {"packages": rules} if rules else {}},
    }


def targets(count: int) -> tuple[Target, ...]:
    nvidia = load_knowledge().nvidia
    found = []
    for index in range(count):
        host = HOSTS[index % len(HOSTS)]
        document: dict[str, Any] = {"schema": 1, "os": "macos", "machine": "arm64", "driver": None}
        if host:
            document = {
                "schema": 1,
                "os": "linux",
                "machine": "x86_64",
                "driver": {"version": host["driver"], "cuda": host["cuda"], "source": "nvml"},
                "gpus": [{"index": 0, "name": host["gpu"], "compute_capability": host["cc"]}],
            }
        label = f"hosts/host-{index:03}.json"
        profile = dataclasses.replace(profile_from_json(document, label), label=label)
        found.append(settle(profile, nvidia)[0])
    return tuple(found)


def batch(packages: int, target_count: int) -> tuple[Callable[[], float], int]:
    """A timed batch of plans (100 ms or more), and how many packages a plan decides about."""
    kb = load_knowledge()
    data = pyproject(packages)
    deps = read_dependencies(data, READERS)
    settings, hosts = parse_settings(data), targets(target_count)
    plan = make_plan(deps, hosts, settings, kb)
    decided = {c.name for c in plan.packages} | {r.package for r in plan.system_requirements}
    start, calls = time.perf_counter(), 0
    while time.perf_counter() - start < 0.1:
        make_plan(deps, hosts, settings, kb)
        calls += 1

    def run() -> float:
        start = time.perf_counter()
        for _ in range(calls):
            make_plan(deps, hosts, settings, kb)
        return (time.perf_counter() - start) / calls

    return run, len(decided)


def measure(runs: int) -> list[Table]:
    before = load()
    batches: dict[tuple[int, int], Callable[[], float]] = {}
    decided: dict[int, int] = {}
    for packages in PACKAGE_COUNTS:
        for count in TARGET_COUNTS:
            batches[packages, count], decided[packages] = batch(packages, count)
    samples: dict[tuple[int, int], list[float]] = {key: [] for key in batches}
    gc.collect()
    gc.disable()  # as timeit does: a collection would fall on whichever case runs then
    try:
        for _ in range(runs):  # round robin, so that a busy moment touches every case alike
            for key, run in batches.items():
                samples[key].append(run())
    finally:
        gc.enable()
    # The fastest batch is the one least disturbed by other processes (timeit's advice).
    times = {key: min(values) for key, values in samples.items()}
    grid = Table(
        "Plan time (`make_plan`, in-process) by CUDA packages and targets",
        ("packages", *(plural(count, "target") for count in TARGET_COUNTS)),
    )
    for packages in PACKAGE_COUNTS:
        grid.add(
            f"{packages} ({decided[packages]} decided)",
            *(f"{times[packages, count] * 1000:.2f} ms" for count in TARGET_COUNTS),
        )
    grid.notes.append(
        "packages: 1 = torch; 20 = every CUDA-flavoured package the knowledge base knows "
        "(torch family and companions, paddle, jax[cuda12], cupy, onnxruntime-gpu, "
        "tensorflow[and-cuda], nvcc builders); 50 = those and 30 user rules "
        "`[tool.poetry-cuda.packages.*]`; 'decided' counts the plan's packages and "
        "system requirements"
    )
    grid.notes.append(
        "targets cycle through RTX 4090 / driver 550, A100 / 535, RTX 3090 / 560, L4 / 570 "
        f"and a macOS laptop; fastest of {runs} batches of 100 ms or more; {before} before, {load()} after"
    )
    growth = Table(
        "Plan time growth against linear growth",
        ("step", "at", "work x", "time x", "time x / work x", "no worse than linear"),
        target="time x / work x <= 1",
    )

    def step(name: str, small: int, large: int, at: str, work: float, grown: float) -> None:
        linear = "yes" if grown / work <= LINEAR_SLACK else "NO"
        cells = (f"{work:.3g}", f"{grown:.2f}", f"{grown / work:.2f}", linear)
        growth.add(f"{name} {small} -> {large}", at, *cells)

    for packages in PACKAGE_COUNTS:
        for small, large in itertools.pairwise(TARGET_COUNTS):
            grown = times[packages, large] / times[packages, small]
            step("targets", small, large, plural(packages, "package"), large / small, grown)
    for count in TARGET_COUNTS:
        for small, large in itertools.pairwise(PACKAGE_COUNTS):
            work = decided[large] / decided[small]
            grown = times[large, count] / times[small, count]
            step("packages", small, large, plural(count, "target"), work, grown)
    worst = max(float(row[4]) for row in growth.rows)
    growth.checks.append(
        Check("plan time growth / linear growth, worst step", f"{worst:.2f}", "<= 1", worst <= 1)
    )
    growth.notes.append(
        "work x is the step in targets, or in packages decided; "
        f"'yes' allows {LINEAR_SLACK - 1:.0%} for noise"
    )
    return [grid, growth]


def main() -> int:
    return show(measure(arguments(__doc__ or "", RUNS)))


if __name__ == "__main__":
    sys.exit(main())
