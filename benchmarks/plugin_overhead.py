"""Plugin load overhead: Poetry commands with and without poetry-cuda, side by side.

Runs each command alternately with and without poetry-cuda's entry point, in the same
interpreter and Poetry (a small runner drops our entry point from Poetry's plugin
discovery on the "without" side, and runs identically otherwise), and prints the
median wall times and their ratio. Also times `poetry-cuda detect`. Target: the plugin
adds under 5% to `poetry --version`.

    .venv/bin/python benchmarks/plugin_overhead.py [--runs 15]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time

from pathlib import Path


BIN = Path(sys.executable).parent
PROJECT = """\
[project]
name = "plain"
version = "0.1.0"
requires-python = ">=3.10"
dependencies = []

[tool.poetry]
package-mode = false
"""


def wall(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


RUNNER = """
import sys
from poetry.plugins.plugin_manager import PluginManager
keep = sys.argv.pop(1) == "with"
found = PluginManager.get_plugin_entry_points
def entry_points(self):
    return [ep for ep in found(self) if keep or not ep.value.startswith("poetry_cuda")]
PluginManager.get_plugin_entry_points = entry_points
from poetry.console.application import main
sys.exit(main())
"""


def compare(name: str, args: list[str], cwd: Path, runs: int) -> tuple[str, float, float]:
    poetry = [sys.executable, "-c", RUNNER]
    with_plugin, without = [], []
    wall([*poetry, "with", *args], cwd)  # warm the file cache
    for _ in range(runs):
        with_plugin.append(wall([*poetry, "with", *args], cwd))
        without.append(wall([*poetry, "without", *args], cwd))
    return name, statistics.median(with_plugin), statistics.median(without)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as temporary:
        project = Path(temporary)
        (project / "pyproject.toml").write_text(PROJECT)
        rows = [
            compare("poetry --version", ["--version"], project, runs),
            compare("poetry check", ["check"], project, runs),
        ]
        detect = statistics.median(
            wall([str(BIN / "poetry-cuda"), "detect"], project) for _ in range(runs)
        )
    print(f"{'command':<22} {'with plugin':>12} {'without':>10} {'ratio':>7}")
    for name, with_plugin, without in rows:
        print(
            f"{name:<22} {with_plugin * 1000:>10.0f}ms {without * 1000:>8.0f}ms "
            f"{with_plugin / without:>7.3f}"
        )
    print(f"{'poetry-cuda detect':<22} {detect * 1000:>10.0f}ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
