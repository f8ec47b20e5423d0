"""Run every benchmark and regenerate the results in docs/benchmarks.md.

Runs the benchmarks one after another (each prints its tables as it finishes), then
replaces what docs/benchmarks.md holds between `<!-- benchmarks:start -->` and
`<!-- benchmarks:end -->` with a summary of the targets, every table and a description
of the machine. The markers are added under a `## Benchmarks` heading at the end of
docs/benchmarks.md when absent; nothing else in the file changes. `--quick` takes fewer runs
(a rougher table, in a fraction of the time); `--only` runs some benchmarks and leaves
docs/benchmarks.md alone. The shared wheel store's benchmark (`shared_store`: minutes and some
9 GiB of disk) runs only when named: `--only shared_store`.

    python3 tools/dev.py bench [--quick] [--only NAME ...] [--no-readme]
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import time

from pathlib import Path
from typing import TYPE_CHECKING


sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import commands
from benchmarks import doctor
from benchmarks import lock_transfer
from benchmarks import plan_scale
from benchmarks import plugin_overhead
from benchmarks import poetry_lock
from benchmarks import shared_store
from benchmarks import uv_lock
from benchmarks.common import BIN
from benchmarks.common import ROOT
from benchmarks.common import load
from benchmarks.common import summary


if TYPE_CHECKING:
    from types import ModuleType

    from benchmarks.common import Table


# The millisecond measurements first: after two minutes of Poetry locks, on a 2-CPU virtual
# machine, the same start-up and up-to-date uv measurements read 10-40 ms slower, Python's
# start-up far more than uv's (an up-to-date `uv lock` 4 ms, `poetry-cuda lock` 38 ms).
BENCHMARKS: dict[str, ModuleType] = {
    "commands": commands,
    "uv_lock": uv_lock,
    "plugin_overhead": plugin_overhead,
    "poetry_lock": poetry_lock,
    "doctor": doctor,
    "lock_transfer": lock_transfer,
    "plan_scale": plan_scale,
}
# Run only when named with --only: they take minutes and gigabytes of disk.
ON_REQUEST: dict[str, ModuleType] = {"shared_store": shared_store}
README = ROOT / "docs" / "benchmarks.md"  # the results page the README links to
START = "<!-- benchmarks:start -->"
END = "<!-- benchmarks:end -->"


def machine() -> list[str]:
    """Generic facts about this machine: CPUs, OS and tool versions."""
    model = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        found = re.search(r"^model name\s*:\s*(.+)$", cpuinfo.read_text(), re.MULTILINE)
        model = found.group(1).strip() if found else model
    system = f"{platform.system()} ({platform.machine()})"
    release = Path("/etc/os-release")
    if release.is_file():
        name = re.search(r'^PRETTY_NAME="?([^"\n]+)"?$', release.read_text(), re.MULTILINE)
        system += f", {name.group(1)}" if name else ""

    def version(program: str, *args: str) -> str:
        done = subprocess.run(
            [str(BIN / program), *args], capture_output=True, text=True, check=False
        )
        return done.stdout.strip() or "not found"

    tools = f"{version('poetry', '--version')}; {version('uv', '--version')}"
    return [
        f"CPU: {os.cpu_count()} x {model}",
        f"OS: {system}",
        f"Python {platform.python_version()}; {tools}",
    ]


def section(tables: list[Table], quick: bool, seconds: float, loads: tuple[str, str]) -> str:
    lines = [
        START,
        "",
        "Measured side by side in one run of `python3 tools/dev.py bench"
        + (" --quick" if quick else "")
        + f"` ({seconds / 60:.0f} minutes; regenerate it with the same command). Every index is "
        "a local one on 127.0.0.1 serving real wheels laid out like download.pytorch.org, so "
        "the figures show what poetry-cuda adds, not network time. Wall times are medians of "
        "alternating runs, and the machine may be shared, so each table notes the load: "
        f"{loads[0]} at the start, {loads[1]} at the end. Differences of a few percent are "
        "within run-to-run noise. Every program runs with bytecode, as an installed one does: "
        "poetry_cuda and the venv's site-packages are compiled (`python -m compileall`) before "
        "anything is timed, and no timed process gets PYTHONDONTWRITEBYTECODE.",
        "",
        *(f"- {fact}" for fact in machine()),
        "",
        summary(tables).markdown(),
    ]
    for table in tables:
        lines += ["", table.markdown()]
    lines += ["", END]
    return "\n".join(lines)


def write_readme(text: str) -> None:
    """Replace the marked section (re-reading the page just before writing)."""
    current = README.read_text(encoding="utf-8")
    if START in current and END in current:
        before, rest = current.split(START, 1)
        _, after = rest.split(END, 1)
        updated = before + text + after
    else:
        updated = current.rstrip("\n") + "\n\n## Benchmarks\n\n" + text + "\n"
    README.write_text(updated, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--quick", action="store_true", help="fewer runs per measurement")
    parser.add_argument(
        "--only", nargs="+", choices=sorted({**BENCHMARKS, **ON_REQUEST}), default=None
    )
    parser.add_argument("--no-readme", action="store_true", help="print only")
    options = parser.parse_args()
    names = options.only or list(BENCHMARKS)
    started, first_load = time.perf_counter(), load()
    tables: list[Table] = []
    for name in names:
        module = {**BENCHMARKS, **ON_REQUEST}[name]
        runs = module.QUICK_RUNS if options.quick else module.RUNS
        print(f"== {name} ({runs} runs)", flush=True)
        begun = time.perf_counter()
        measured: list[Table] = module.measure(runs)
        for table in measured:
            print(table.text() + "\n", flush=True)
        print(f"({name}: {time.perf_counter() - begun:.0f} s)\n", flush=True)
        tables += measured
    seconds = time.perf_counter() - started
    print(summary(tables).text())
    print(f"\n{seconds:.0f} s in all")
    if options.only is None and not options.no_readme:
        write_readme(section(tables, options.quick, seconds, (first_load, load())))
        print(f"updated the benchmarks section of {README.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
