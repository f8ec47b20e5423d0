"""Bytes downloaded while locking a 200 MiB torch wheel: metadata files, range requests, neither.

The example project, with torch only, locks through `poetry-cuda lock` (Poetry backend,
then uv backend) against a pytorch mirror on 127.0.0.1 whose one cu124 torch wheel is
padded to 200 MiB of incompressible data, with an empty cache each time, in three
server modes:

- metadata: PEP 658 `.metadata` files beside the wheels (what download.pytorch.org and
  PyPI serve), range requests allowed;
- ranges: no metadata files, so the resolver must read the wheel, with HTTP Range
  (lazy wheel: the zip's central directory and METADATA member only);
- neither: no metadata files and no ranges: the whole wheel is downloaded, which is
  Poetry's worst known PyTorch problem (python-poetry/poetry#4231, #10521).

The server counts the body bytes it sends under the padded mirror; the ratio is against
downloading the whole wheel ("neither").

    .venv/bin/python benchmarks/lock_transfer.py
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time

from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import BIN
from benchmarks.common import EXAMPLES
from benchmarks.common import Check
from benchmarks.common import Table
from benchmarks.common import load
from benchmarks.common import show
from benchmarks.common import size
from benchmarks.common import tool_env
from benchmarks.common import wall
from tests.support.catalog import WorldServer
from tests.support.catalog import add_padded_torch
from tests.support.catalog import build_world
from tests.support.example import configure
from tests.support.example import configure_uv


RUNS = 1
QUICK_RUNS = 1
PADDED = "/padded/"
MODES = ("metadata", "ranges", "neither")
BACKENDS = {"Poetry": configure, "uv": configure_uv}


def fraction(part: int, whole: int) -> str:
    """`1/170,000` for a small part, `1.00` for about all of it."""
    if not whole:
        return "n/a"
    if part * 2 >= whole or not part:
        return f"{part / whole:.2f}"
    return f"1/{round(whole / part):,}"


def measure(runs: int = RUNS) -> list[Table]:
    del runs  # bytes do not vary from run to run: one lock per cell
    table = Table(
        "Bytes downloaded from the padded mirror while locking a 200 MiB torch wheel",
        ("backend", "mode", "bytes", "of whole wheel", "requests", "lock time"),
    )
    before = load()
    with tempfile.TemporaryDirectory() as temporary:
        base = Path(temporary)
        world = build_world(base / "world")
        wheel_size = add_padded_torch(world).stat().st_size
        with WorldServer(world) as server:
            for backend, configure in BACKENDS.items():
                results = {}
                for mode in MODES:
                    server.metadata_enabled = mode == "metadata"
                    server.ranges_enabled = mode != "neither"
                    project = base / f"{backend}-{mode}"
                    shutil.copytree(EXAMPLES / "torch_project", project)
                    pyproject = project / "pyproject.toml"
                    text = pyproject.read_text().replace('    "torchvision==0.20.1",\n', "")
                    pyproject.write_text(text)
                    configure(project, server, server.padded_pytorch_mirror)
                    server.reset_counters()
                    start = time.perf_counter()
                    wall([str(BIN / "poetry-cuda"), "lock"], project, tool_env(base / mode))
                    elapsed = time.perf_counter() - start
                    results[mode] = (
                        server.bytes_sent(PADDED),
                        server.request_count(PADDED),
                        elapsed,
                    )
                whole = results["neither"][0]
                for mode, (sent, requests, elapsed) in results.items():
                    table.add(
                        backend,
                        mode,
                        size(sent),
                        fraction(sent, whole),
                        str(requests),
                        f"{elapsed:.1f} s",
                    )
                    if mode != "neither":
                        table.checks.append(
                            Check(
                                f"{backend} lock download, {mode}",
                                f"{size(sent)} ({fraction(sent, whole)} of the wheel)",
                                "< 1 MiB",
                                sent < 1 << 20,
                            )
                        )
    table.notes.append(
        f"the padded wheel is {size(wheel_size)}; each lock starts with an empty "
        "cache; bytes are response bodies under the padded mirror (pages included)"
    )
    table.notes.append(f"{before} before, {load()} after")
    return [table]


def main() -> int:
    return show(measure())


if __name__ == "__main__":
    sys.exit(main())
