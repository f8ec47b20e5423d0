"""Command start-up: `poetry-cuda` commands against the least the same work needs.

A copy of the example torch project as a uv project, locked once (`poetry-cuda lock`
against the test world's indexes on 127.0.0.1) and installed (`uv sync --locked`), as a
user's project is after `lock` and `sync`. In it, alternately and in the same interpreter:

- `python -c pass`, the interpreter's own start-up, the floor for `poetry-cuda --version`;
- `benchmarks/floor.py`, the floor for every command that reads the project: the standard
  library reading pyproject.toml and the host profiles, and printing a CUDA build per host;
- `poetry-cuda --version`, `plan`, `detect`, `doctor` and `env`, each exiting as it does on
  this machine (doctor exits 1 where it finds a failure, such as a CUDA lock on a machine
  without a driver; `env` exits 1 where no installed toolkit meets a locked requirement).

The medians are printed with their ratio to the floor and the milliseconds above it.
A second table counts the distributions that installing `poetry-cuda` brings, read from
the installed metadata of this venv (no index is asked): without extras, and with the
`poetry` extra where there is one. Targets: the ratios of the issue "Fast as a uv user
expects", and Poetry installed only for its backend.

    .venv/bin/python benchmarks/commands.py [--runs 15]
"""

from __future__ import annotations

import sys
import tempfile

from collections import defaultdict
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING


sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from benchmarks.common import BIN
from benchmarks.common import Check
from benchmarks.common import Table
from benchmarks.common import alternate
from benchmarks.common import arguments
from benchmarks.common import load
from benchmarks.common import ms
from benchmarks.common import show
from benchmarks.common import timed
from benchmarks.common import tool_env
from benchmarks.common import wall
from tests.support.catalog import WorldServer
from tests.support.catalog import build_world
from tests.support.example import torch_example


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Collection
    from collections.abc import Mapping


RUNS = 15
QUICK_RUNS = 5
PYTHON = sys.executable
FLOOR = Path(__file__).resolve().parent / "floor.py"
START = "`python -c pass`"
READ = "floor script"
BASELINES = {START: [PYTHON, "-c", "pass"], READ: [PYTHON, str(FLOOR)]}
# (arguments, the baseline, the highest ratio to it, the exit codes it may end with)
COMMANDS: tuple[tuple[str, str, float, tuple[int, ...]], ...] = (
    ("--version", START, 1.5, (0,)),
    ("plan", READ, 3.0, (0,)),
    ("detect", READ, 3.5, (0,)),
    ("doctor", READ, 4.5, (0, 1)),
    ("env", READ, 2.5, (0, 1)),
)
DISTRIBUTION = "poetry-cuda"
EXTRA = "poetry"


def counted(
    command: list[str], cwd: Path, env: Mapping[str, str], allowed: Collection[int], codes: set[int]
) -> Callable[[], float]:
    """A case for `alternate` that adds each run's exit code to `codes`."""

    def run() -> float:
        elapsed, code = timed(command, cwd, env, allowed=allowed)
        codes.add(code)
        return elapsed

    return run


def prepared(base: Path) -> Path:
    """The example as a uv project, locked and installed, with the server already closed."""
    env = tool_env(base)
    with WorldServer(build_world(base / "world")) as server:
        project = torch_example(base, server, "uv")
        wall([str(BIN / "poetry-cuda"), "lock"], project, env)
        wall([str(BIN / "uv"), "sync", "--locked"], project, env)
    return project


def startup(runs: int) -> Table:
    table = Table(
        "`poetry-cuda` commands against the least the same work needs",
        ("command", "exit", "median", "floor", "floor median", "ratio", "added"),
        target="--version <= 1.5x python; plan <= 3x, detect <= 3.5x, doctor <= 4.5x, env <= 2.5x "
        "the floor script",
    )
    before = load()
    with tempfile.TemporaryDirectory() as temporary:
        base = Path(temporary)
        project = prepared(base)
        env = tool_env(base)
        codes: dict[str, set[int]] = defaultdict(set)
        cases = {
            name: counted(argv, project, env, (0,), codes[name]) for name, argv in BASELINES.items()
        }
        for args, _, _, allowed in COMMANDS:
            command = [str(BIN / "poetry-cuda"), args]
            cases[args] = counted(command, project, env, allowed, codes[args])
        times = alternate(runs, cases)
    for name in BASELINES:
        table.add(name, exits(codes[name]), ms(times[name]), "", "", "", "")
    for args, floor, goal, _ in COMMANDS:
        value, under = times[args], times[floor]
        share, added = value / under, value - under
        name = f"`poetry-cuda {args}`"
        table.add(
            name, exits(codes[args]), ms(value), floor, ms(under), f"{share:.2f}", f"+{ms(added)}"
        )
        table.checks.append(
            Check(f"{name} / {floor}", f"{share:.2f}x (+{ms(added)})", f"<= {goal}x", share <= goal)
        )
    table.notes.append(
        "the example torch project as a uv project, locked and installed; no NVIDIA driver "
        "unless this machine has one (doctor then reports the CUDA lock as a failure)"
    )
    table.notes.append(f"median of {runs} alternating runs; {before} before, {load()} after")
    return table


def exits(codes: set[int]) -> str:
    return ", ".join(str(code) for code in sorted(codes))


def closure(name: str, extras: frozenset[str] = frozenset()) -> tuple[set[str], set[str]]:
    """The distributions installing `name[extras]` brings, from the installed metadata.

    Requirements whose markers do not hold for this interpreter, and those of extras not
    asked for, are left out. Returns (installed names, required names not installed here).
    """
    found: set[str] = set()
    missing: set[str] = set()
    seen: set[tuple[str, frozenset[str]]] = set()
    pending = [(canonicalize_name(name), extras)]
    while pending:
        current, wanted = pending.pop()
        if (current, wanted) in seen:
            continue
        seen.add((current, wanted))
        try:
            distribution = metadata.distribution(current)
        except metadata.PackageNotFoundError:
            missing.add(current)
            continue
        found.add(current)
        for line in distribution.requires or ():
            requirement = Requirement(line)
            marker = requirement.marker
            contexts = [{"extra": extra} for extra in sorted(wanted | {""})]
            if marker is None or any(marker.evaluate(context) for context in contexts):
                pending.append((canonicalize_name(requirement.name), frozenset(requirement.extras)))
    return found, missing - found


def packages() -> Table:
    table = Table(
        "Distributions installed with `poetry-cuda` (this venv's metadata)",
        ("install", "distributions", "Poetry among them"),
        target="Poetry only where its backend is used",
    )
    extras = metadata.distribution(DISTRIBUTION).metadata.get_all("Provides-Extra") or []
    cases = [(DISTRIBUTION, frozenset[str]())]
    if EXTRA in {canonicalize_name(extra) for extra in extras}:
        cases.append((f"{DISTRIBUTION}[{EXTRA}]", frozenset({EXTRA})))
    counts: dict[str, tuple[int, bool]] = {}
    for label, wanted in cases:
        found, missing = closure(DISTRIBUTION, wanted)
        names = found | missing
        counts[label] = (len(names), "poetry" in names)
        table.add(f"`{label}`", str(len(names)), "yes" if "poetry" in names else "no")
        table.notes.append(f"`{label}`: {', '.join(sorted(names))}")
        if missing:
            table.notes.append(
                f"`{label}`: not installed here, so not followed: {', '.join(sorted(missing))}"
            )
    if len(cases) == 1:
        table.add(f"`{DISTRIBUTION}[{EXTRA}]`", "no such extra", "")
    measured = "; ".join(
        f"{count} with{'' if poetry else 'out'} Poetry (`{label}`)"
        for label, (count, poetry) in counts.items()
    )
    if len(cases) == 1:
        measured += f"; no `{EXTRA}` extra"
    table.checks.append(
        Check(
            "packages for the standalone script on a uv project",
            measured,
            "Poetry only with its backend",
            not counts[DISTRIBUTION][1],
        )
    )
    table.notes.append(
        "requirements followed for this interpreter's markers; poetry-cuda itself counted"
    )
    return table


def measure(runs: int) -> list[Table]:
    return [startup(runs), packages()]


def main() -> int:
    return show(measure(arguments(__doc__ or "", RUNS)))


if __name__ == "__main__":
    sys.exit(main())
