"""Poetry lock overhead: `poetry cuda lock` against plain `poetry lock`, side by side.

Two copies of the example torch project lock against the test world's indexes served on
127.0.0.1: one through `poetry cuda lock` (the plugin command), one with plain
`poetry --no-plugins lock` and the same managed tables already in its pyproject.toml
(the group and sources poetry-cuda wrote, as if written by hand). Runs alternate, and
the medians, their ratio and what poetry-cuda adds are printed for three cases:

- cold: a fresh, empty POETRY_CACHE_DIR for every run, no poetry.lock;
- warm: the cache filled by earlier runs, no poetry.lock (a resolution from scratch);
- up to date: warm cache and the poetry.lock of the previous run.

The virtualenv Poetry makes for the project lives outside the cache and is made once.
Target: under 10% added.

    .venv/bin/python benchmarks/poetry_lock.py [--runs 5]
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
from tests.support.example import configure


if TYPE_CHECKING:
    from collections.abc import Callable


RUNS = 5
QUICK_RUNS = 1
POETRY = str(BIN / "poetry")


def runner(
    command: list[str], project: Path, base: Path, *, cold: bool, fresh: bool
) -> Callable[[], float]:
    return lock_runner(
        command,
        project,
        base,
        lockfile="poetry.lock",
        cache_variable="POETRY_CACHE_DIR",
        cold=cold,
        fresh=fresh,
    )


def measure(runs: int) -> list[Table]:
    table = Table(
        "`poetry cuda lock` against plain `poetry lock` with the same tables written by hand",
        ("lock", "poetry cuda lock", "poetry lock", "ratio", "added"),
        target="under 10% added",
    )
    before = load()
    with tempfile.TemporaryDirectory() as temporary:
        base = Path(temporary)
        with WorldServer(build_world(base / "world")) as server:
            plugin = base / "with-poetry-cuda"
            shutil.copytree(EXAMPLES / "torch_project", plugin)
            configure(plugin, server)
            wall([POETRY, "cuda", "lock"], plugin, tool_env(base))
            plain = base / "plain-poetry"
            plain.mkdir()
            shutil.copy(plugin / "pyproject.toml", plain / "pyproject.toml")
            ours = [POETRY, "cuda", "lock"]
            theirs = [POETRY, "--no-plugins", "lock"]
            for name, ours_s, theirs_s in compare_locks(
                runs, partial(runner, ours, plugin, base), partial(runner, theirs, plain, base)
            ):
                added = ours_s / theirs_s - 1
                table.add(
                    name, ms(ours_s), ms(theirs_s), ratio(ours_s, theirs_s), ms(ours_s - theirs_s)
                )
                table.checks.append(
                    Check(
                        f"`poetry cuda lock` added, {name}",
                        f"{added:+.0%} ({ms(ours_s - theirs_s)})",
                        "< +10%",
                        added < 0.10,
                    )
                )
            requests = []
            for command, project in ((ours, plugin), (theirs, plain)):
                server.reset_counters()
                runner(command, project, base, cold=True, fresh=True)()
                requests.append(server.request_count())
    table.notes.append(
        "the example torch project: torch and torchvision for an RTX 4090 host and a macOS "
        f"laptop; a cold lock makes {requests[0]} index requests through poetry-cuda, "
        f"{requests[1]} through plain Poetry"
    )
    table.notes.append(f"median of {runs} alternating runs; {before} before, {load()} after")
    return [table]


def main() -> int:
    return show(measure(arguments(__doc__ or "", RUNS)))


if __name__ == "__main__":
    sys.exit(main())
