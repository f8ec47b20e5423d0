"""Plugin load overhead: Poetry commands with and without poetry-cuda, side by side.

Runs each command alternately with and without poetry-cuda's entry point, in the same
interpreter and Poetry (a small runner drops our entry point from Poetry's plugin
discovery on the "without" side, and runs identically otherwise), and prints the
median wall times and their ratio. The project has no CUDA packages: two ordinary
dependencies, locked once against the PyPI stand-in on 127.0.0.1 so that `poetry show`
has a poetry.lock to read (none of the timed commands touches an index). Target: the
plugin adds at most 2%.

A second table times `poetry cuda plan` against `poetry --version`, both through the
installed `poetry` with its plugins, in a copy of the example torch project as a Poetry
project: what the plugin's own command adds to Poetry's start-up. Target: at most 60 ms.

    .venv/bin/python benchmarks/plugin_overhead.py [--runs 11]
"""

from __future__ import annotations

import sys
import tempfile

from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import BIN
from benchmarks.common import Check
from benchmarks.common import Table
from benchmarks.common import alternate
from benchmarks.common import arguments
from benchmarks.common import load
from benchmarks.common import ms
from benchmarks.common import ratio
from benchmarks.common import show
from benchmarks.common import timer
from benchmarks.common import tool_env
from benchmarks.common import wall
from tests.support.catalog import WorldServer
from tests.support.catalog import build_world
from tests.support.example import torch_example


RUNS = 11
QUICK_RUNS = 3
PROJECT = """\
[project]
name = "plain"
version = "0.1.0"
requires-python = ">=3.11,<3.12"
dependencies = ["filelock", "numpy"]

[tool.poetry]
package-mode = false

[[tool.poetry.source]]
name = "local-pypi"
url = "{url}"
priority = "primary"
"""
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
COMMANDS = (
    ("poetry --version", ["--version"]),
    ("poetry check", ["check"]),
    ("poetry show", ["show"]),
)
# The most a plugin may slow an unrelated command, and `poetry cuda plan` may add.
OVERHEAD = 1.02
PLAN_ADDED = 0.06


def measure(runs: int) -> list[Table]:
    table = Table(
        "Plugin overhead on commands unrelated to CUDA",
        ("command", "with plugin", "without", "ratio"),
        target=f"ratio at most {OVERHEAD}",
    )
    plan = Table(
        "`poetry cuda plan` against `poetry --version`, the plugin installed",
        ("command", "median", "added"),
        target=f"at most {ms(PLAN_ADDED)} added",
    )
    before = load()
    with tempfile.TemporaryDirectory() as temporary:
        base = Path(temporary)
        env = tool_env(base)
        project = base / "plain"
        project.mkdir()
        with WorldServer(build_world(base / "world")) as server:
            (project / "pyproject.toml").write_text(PROJECT.format(url=server.pypi_url))
            wall([str(BIN / "poetry"), "--no-plugins", "lock"], project, env)
            torch = torch_example(base, server, "poetry")
        poetry = [sys.executable, "-c", RUNNER]
        for name, args in COMMANDS:
            times = alternate(
                runs,
                {
                    "with": timer([*poetry, "with", *args], project, env),
                    "without": timer([*poetry, "without", *args], project, env),
                },
            )
            overhead = times["with"] / times["without"]
            table.add(name, ms(times["with"]), ms(times["without"]), ratio(*times.values()))
            table.checks.append(
                Check(
                    f"plugin overhead: `{name}`",
                    f"{overhead:.2f}x",
                    f"<= {OVERHEAD}x",
                    overhead <= OVERHEAD,
                )
            )
        table.notes.append(f"median of {runs} alternating runs; {before} before, {load()} after")
        before = load()
        poetry_cli = str(BIN / "poetry")
        times = alternate(
            runs,
            {
                "version": timer([poetry_cli, "--version"], torch, env),
                "plan": timer([poetry_cli, "cuda", "plan"], torch, env),
            },
        )
    added = times["plan"] - times["version"]
    plan.add("`poetry --version`", ms(times["version"]), "")
    plan.add("`poetry cuda plan`", ms(times["plan"]), f"+{ms(added)}")
    plan.checks.append(
        Check(
            "`poetry cuda plan` over `poetry --version`",
            f"+{ms(added)} ({times['plan'] / times['version']:.2f}x)",
            f"<= +{ms(PLAN_ADDED)}",
            added <= PLAN_ADDED,
        )
    )
    plan.notes.append(
        "the example torch project as a Poetry project; plan is offline and reads its host profiles"
    )
    plan.notes.append(f"median of {runs} alternating runs; {before} before, {load()} after")
    return [table, plan]


def main() -> int:
    return show(measure(arguments(__doc__ or "", RUNS)))


if __name__ == "__main__":
    sys.exit(main())
