"""Grouping a cluster's nodes: `detect --kubernetes` on 500, 5,000 and 20,000 nodes.

In-process, on real-shaped `kubectl get nodes -o json` documents written to a file first
(`tests/support/kubernetes_nodes.cluster`: every tenth node CPU-only, the rest GPU nodes
of five pools on three driver patch releases each, about 5 KiB a node). Two times per size:
reading the file (bounded read and JSON parse, `read_document`) and grouping the parsed
document (`read_cluster`). Growth is compared with linear growth: 10x the nodes may take
10x the time at most. The target: 5,000 nodes, read and grouped, in well under a second.

    .venv/bin/python benchmarks/kubernetes_groups.py [--runs 5]
"""

from __future__ import annotations

import gc
import itertools
import json
import sys
import tempfile
import time

from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import Check
from benchmarks.common import Table
from benchmarks.common import arguments
from benchmarks.common import load
from benchmarks.common import show
from poetry_cuda.host.kubernetes import read_cluster
from poetry_cuda.host.kubernetes import read_document
from tests.support.kubernetes_nodes import cluster


RUNS = 5
SIZES = (500, 5000, 20_000)
TARGET_SIZE = 5000
TARGET_SECONDS = 0.5  # "well under a second"
LINEAR_SLACK = 1.1


def timed(size: int, folder: Path, runs: int) -> tuple[float, float, int]:
    """The fastest read and the fastest grouping of `size` nodes, and the file's size."""
    path = folder / f"nodes-{size}.json"
    path.write_text(json.dumps(cluster(size), indent=4))
    reads, groupings = [], []
    gc.collect()
    gc.disable()  # as timeit does: a collection would fall on whichever case runs then
    try:
        for _ in range(runs):
            start = time.perf_counter()
            document, origin = read_document(str(path), None)
            reads.append(time.perf_counter() - start)
            start = time.perf_counter()
            found = read_cluster(document, origin)
            groupings.append(time.perf_counter() - start)
            assert found.read == size
    finally:
        gc.enable()
    return min(reads), min(groupings), path.stat().st_size


def measure(runs: int) -> list[Table]:
    before = load()
    with tempfile.TemporaryDirectory() as folder:
        times = {size: timed(size, Path(folder), runs) for size in SIZES}
    grid = Table(
        "detect --kubernetes: reading and grouping `kubectl get nodes -o json`",
        ("nodes", "file", "read (JSON)", "group", "read + group"),
        target=f"{TARGET_SIZE:,} nodes read and grouped in < {TARGET_SECONDS} s",
    )
    for size, (read, grouped, length) in times.items():
        cells = (f"{read * 1000:.0f} ms", f"{grouped * 1000:.1f} ms")
        grid.add(
            f"{size:,}", f"{length / 2**20:.1f} MiB", *cells, f"{(read + grouped) * 1000:.0f} ms"
        )
    read, grouped, _ = times[TARGET_SIZE]
    total = read + grouped
    grid.checks.append(
        Check(
            f"{TARGET_SIZE:,} nodes read and grouped",
            f"{total:.3f} s",
            f"< {TARGET_SECONDS} s",
            total < TARGET_SECONDS,
        )
    )
    grid.notes.append(f"fastest of {runs} runs, in-process; {before} before, {load()} after")
    growth = Table(
        "Grouping time growth against linear growth",
        ("step", "nodes x", "group time x", "read time x", "no worse than linear"),
        target="time x / nodes x <= 1",
    )
    worst = 0.0
    for small, large in itertools.pairwise(SIZES):
        work = large / small
        grouped_x = times[large][1] / times[small][1]
        read_x = times[large][0] / times[small][0]
        ratio = max(grouped_x, read_x) / work
        worst = max(worst, ratio)
        linear = "yes" if ratio <= LINEAR_SLACK else "NO"
        growth.add(
            f"{small:,} -> {large:,}", f"{work:.0f}", f"{grouped_x:.2f}", f"{read_x:.2f}", linear
        )
    growth.checks.append(
        Check(
            "grouping growth / linear growth, worst step",
            f"{worst:.2f}",
            "<= 1",
            worst <= LINEAR_SLACK,
        )
    )
    growth.notes.append(f"'yes' allows {LINEAR_SLACK - 1:.0%} for noise")
    return [grid, growth]


def main() -> int:
    tables = measure(arguments(__doc__ or "", RUNS))
    show(tables)
    return 0 if all(check.met for table in tables for check in table.checks) else 1


if __name__ == "__main__":
    sys.exit(main())
