"""What the benchmarks share: timing, isolated tool environments, and result tables.

Every benchmark module has `measure(runs) -> list[Table]` (used by `run_all.py`) and a
`main()` that prints its tables. A `Table` renders as aligned text for the terminal and
as Markdown for the README. Timings are medians of runs taken alternately (A, B, A, B...)
so that load from other processes falls on both sides alike; the load average is noted
with every table, because this machine may be shared.

Timed programs run as a user's installed ones do, with bytecode: `with_bytecode()` compiles
poetry_cuda and the venv's site-packages before a benchmark times anything, and no child
process gets PYTHONDONTWRITEBYTECODE (which a development shell may set), so neither side of
a comparison recompiles its modules on every run.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import os
import statistics
import subprocess
import sys
import sysconfig
import time

from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING

from tests.support.isolation import UV_OFFLINE
from tests.support.isolation import hermetic_env


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Collection
    from collections.abc import Mapping
    from collections.abc import Sequence


ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
EXAMPLES = ROOT / "examples"
# Set in development shells so that no .pyc is written; never passed to a timed program.
NO_BYTECODE = "PYTHONDONTWRITEBYTECODE"


@dataclass(frozen=True)
class Check:
    """A target and whether this run met it, for the summary."""

    what: str
    measured: str
    target: str
    met: bool


@dataclass
class Table:
    """One benchmark's result: a title, the target it checks, rows of cells, and notes."""

    title: str
    headers: tuple[str, ...]
    rows: list[tuple[str, ...]] = field(default_factory=list)
    target: str = ""
    notes: list[str] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)

    def add(self, *cells: str) -> None:
        self.rows.append(cells)

    def text(self) -> str:
        widths = [
            max(len(row[i]) for row in (self.headers, *self.rows)) for i in range(len(self.headers))
        ]

        def line(cells: Sequence[str]) -> str:
            first = cells[0].ljust(widths[0])
            rest = [cell.rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True)]
            return "  ".join([first, *rest]).rstrip()

        lines = [self.title, *([f"target: {self.target}"] if self.target else [])]
        lines += [line(self.headers), line(["-" * w for w in widths])]
        lines += [line(row) for row in self.rows]
        lines += [f"  {note}" for note in self.notes]
        return "\n".join(lines)

    def markdown(self) -> str:
        lines = [f"**{self.title}**" + (f" (target: {self.target})" if self.target else ""), ""]
        lines.append("| " + " | ".join(self.headers) + " |")
        lines.append("|" + "|".join([":--", *["--:"] * (len(self.headers) - 1)]) + "|")
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        if self.notes:
            lines.append("")
            lines += [f"- {note}" for note in self.notes]
        return "\n".join(lines)


def arguments(doc: str, runs: int) -> int:
    """Parse `--runs N` (default `runs`) for a benchmark's `main()`."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--runs", type=int, default=runs)
    return int(parser.parse_args().runs)


def show(tables: Sequence[Table]) -> int:
    print("\n\n".join(table.text() for table in tables))
    return 0


def wall(
    command: Sequence[str],
    cwd: Path,
    env: Mapping[str, str] | None = None,
    *,
    check: bool = True,
) -> float:
    """Seconds `command` takes, output captured; raises on failure unless `check=False`."""
    return timed(command, cwd, env, allowed=(0,) if check else ())[0]


def timed(
    command: Sequence[str],
    cwd: Path,
    env: Mapping[str, str] | None = None,
    *,
    allowed: Collection[int] = (0,),
) -> tuple[float, int]:
    """Seconds `command` takes and its exit code, output captured; raises when the exit code
    is not in `allowed` (empty: any code is accepted). Runs with bytecode (`with_bytecode`)."""
    with_bytecode()
    environ = dict(os.environ if env is None else env)
    environ.pop(NO_BYTECODE, None)
    start = time.perf_counter()
    done = subprocess.run(
        list(command), cwd=cwd, env=environ, capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - start
    if allowed and done.returncode not in allowed:
        raise RuntimeError(
            f"{' '.join(command)} failed ({done.returncode}) in {cwd.name}:\n{done.stderr[-2000:]}"
        )
    return elapsed, done.returncode


def timer(
    command: Sequence[str], cwd: Path, env: Mapping[str, str], *, check: bool = True
) -> Callable[[], float]:
    """A case for `alternate`: one timed run of `command`."""
    return lambda: wall(command, cwd, env, check=check)


def alternate(runs: int, cases: Mapping[str, Callable[[], float]]) -> dict[str, float]:
    """Run each case `runs` times, interleaved, after one untimed run each; the medians."""
    for case in cases.values():
        case()
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(runs):
        for name, case in cases.items():
            times[name].append(case())
    return {name: statistics.median(values) for name, values in times.items()}


def lock_runner(
    command: list[str],
    project: Path,
    base: Path,
    *,
    lockfile: str,
    cache_variable: str,
    cold: bool,
    fresh: bool,
) -> Callable[[], float]:
    """A timed run of a lock `command` in `project`.

    `fresh` removes the lock file first; `cold` gives every run an empty cache folder
    through `cache_variable` (POETRY_CACHE_DIR, UV_CACHE_DIR).
    """
    counter = itertools.count()

    def run() -> float:
        if fresh:
            (project / lockfile).unlink(missing_ok=True)
        extra = {}
        if cold:
            extra[cache_variable] = str(base / f"cold-{project.name}-{next(counter)}")
        return wall(command, project, tool_env(base, **extra))

    return run


LOCK_CASES = (("cold cache", True, True), ("warm cache", False, True), ("up to date", False, False))


def compare_locks(
    runs: int, ours: Callable[..., Callable[[], float]], theirs: Callable[..., Callable[[], float]]
) -> list[tuple[str, float, float]]:
    """(case, our median, their median) for a cold cache, a warm one and an up-to-date lock.

    `ours` and `theirs` make a timed run from `cold=` and `fresh=` (see `lock_runner`).
    """
    found = []
    for name, cold, fresh in LOCK_CASES:
        times = alternate(
            runs, {"ours": ours(cold=cold, fresh=fresh), "theirs": theirs(cold=cold, fresh=fresh)}
        )
        found.append((name, times["ours"], times["theirs"]))
    return found


def tool_env(home: Path, **extra: str) -> dict[str, str]:
    """The hermetic environment for Poetry and uv under `home`, offline from PyPI (every index a
    project uses is on 127.0.0.1)."""
    defaults = {
        # Kept out of the cache so that a cold cache does not also mean a new virtualenv.
        "POETRY_VIRTUALENVS_PATH": str(home / "virtualenvs"),
        **UV_OFFLINE,
    }
    env = hermetic_env(home, **{**defaults, **extra})
    env.pop(NO_BYTECODE, None)
    return env


@functools.cache
def with_bytecode() -> None:
    """Compile poetry_cuda and the venv's site-packages (once per process; fast when done).

    An installed package has bytecode; without it every timed start would compile the
    modules it imports, on both sides of a comparison, and measure that instead.
    """
    folders = {ROOT / "poetry_cuda", *(Path(sysconfig.get_path(k)) for k in ("purelib", "platlib"))}
    command = [sys.executable, "-m", "compileall", "-q", "-j", "0", *map(str, sorted(folders))]
    environ = {key: value for key, value in os.environ.items() if key != NO_BYTECODE}
    # Some distributions ship files that do not compile (templates, old test data); those are
    # never imported, so a non-zero exit is not an error here.
    subprocess.run(command, env=environ, capture_output=True, check=False)


def load() -> str:
    """The 1-minute load average against the CPU count, for the notes."""
    one, _, _ = os.getloadavg()
    return f"load average {one:.2f} on {os.cpu_count()} CPUs"


def summary(tables: Sequence[Table]) -> Table:
    """Every check of `tables` in one table."""
    table = Table("Targets", ("what", "measured", "target", "met"))
    for check in (check for table in tables for check in table.checks):
        table.add(check.what, check.measured, check.target, "yes" if check.met else "**no**")
    return table


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def ratio(value: float, base: float) -> str:
    return f"{value / base:.2f}" if base else "n/a"


def size(count: int) -> str:
    """Bytes in the largest unit that keeps the number readable."""
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} B"
