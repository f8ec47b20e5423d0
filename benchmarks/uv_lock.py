"""uv lock overhead: `poetry-cuda lock` against plain `uv lock`, side by side.

Two copies of the example torch project lock against the test world's indexes served on
127.0.0.1: one through `poetry-cuda lock`, one with plain `uv lock` and the same uv
tables already in its pyproject.toml (as if written by hand). Runs alternate, and the
medians, their ratio and the milliseconds poetry-cuda adds are printed for a cold cache
(a fresh UV_CACHE_DIR every run, no uv.lock), a warm cache (uv.lock removed before each
run) and an up-to-date lock, with `poetry-cuda plan` (the planning every lock does
first, without uv) for reference. Targets: at most 200 ms added with a warm cache and 120 ms
with the lock up to date (a cold cache is shown, not checked: it adds downloads that differ
between machines more than what poetry-cuda does).

    .venv/bin/python benchmarks/uv_lock.py [--runs 9]
"""

from __future__ import annotations

import shutil
import sys
import tempfile

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING


sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import BIN
from benchmarks.common import EXAMPLES
from benchmarks.common import Check
from benchmarks.common import Table
from benchmarks.common import alternate
from benchmarks.common import arguments
from benchmarks.common import compare_locks
from benchmarks.common import load
from benchmarks.common import lock_runner
from benchmarks.common import ms
from benchmarks.common import ratio
from benchmarks.common import show
from benchmarks.common import tool_env
from benchmarks.common import wall
from tests.support.catalog import WorldServer
from tests.support.catalog import build_world
from tests.support.example import configure_uv


if TYPE_CHECKING:
    from collections.abc import Callable


RUNS = 9
QUICK_RUNS = 3
UV = str(BIN / "uv")
POETRY_CUDA = str(BIN / "poetry-cuda")
# The most a lock may add over plain `uv lock`, in seconds, per case of `compare_locks`.
GOALS = {"warm cache": 0.2, "up to date": 0.12}


def runner(
    command: list[str], project: Path, base: Path, *, cold: bool, fresh: bool
) -> Callable[[], float]:
    return lock_runner(
        command,
        project,
        base,
        lockfile="uv.lock",
        cache_variable="UV_CACHE_DIR",
        cold=cold,
        fresh=fresh,
    )


def measure(runs: int) -> list[Table]:
    table = Table(
        "`poetry-cuda lock` (uv backend) against plain `uv lock` with the same tables",
        ("lock", "poetry-cuda lock", "uv lock", "ratio", "added"),
        target="at most 200 ms added with a warm cache, 120 ms up to date",
    )
    before = load()
    with tempfile.TemporaryDirectory() as temporary:
        base = Path(temporary)
        with WorldServer(build_world(base / "world")) as server:
            plugin = base / "with-poetry-cuda"
            shutil.copytree(EXAMPLES / "torch_project", plugin)
            configure_uv(plugin, server)
            wall([POETRY_CUDA, "lock"], plugin, tool_env(base))
            plain = base / "plain-uv"
            plain.mkdir()
            # The same tables poetry-cuda wrote, as a user would write them by hand.
            shutil.copy(plugin / "pyproject.toml", plain / "pyproject.toml")
            ours, theirs = [POETRY_CUDA, "lock"], [UV, "lock"]
            for name, ours_s, theirs_s in compare_locks(
                runs, partial(runner, ours, plugin, base), partial(runner, theirs, plain, base)
            ):
                added = ours_s - theirs_s
                table.add(name, ms(ours_s), ms(theirs_s), ratio(ours_s, theirs_s), ms(added))
                if name in GOALS:
                    table.checks.append(
                        Check(
                            f"`poetry-cuda lock` (uv) added, {name}",
                            f"+{ms(added)} ({ours_s / theirs_s:.2f}x)",
                            f"<= +{ms(GOALS[name])}",
                            added <= GOALS[name],
                        )
                    )
            plan = runner([POETRY_CUDA, "plan"], plugin, base, cold=False, fresh=False)
            table.add("poetry-cuda plan", ms(alternate(runs, {"plan": plan})["plan"]), "", "", "")
    table.notes.append("the same example project as for Poetry, with `[tool.uv]` tables")
    table.notes.append(f"median of {runs} alternating runs; {before} before, {load()} after")
    return [table]


def main() -> int:
    return show(measure(arguments(__doc__ or "", RUNS)))


if __name__ == "__main__":
    sys.exit(main())
