"""uv lock overhead: `poetry-cuda lock` against plain `uv lock`, side by side.

Two copies of the example torch project lock against the test world's indexes served on
127.0.0.1: one through `poetry-cuda lock`, one with plain `uv lock` and the same uv
tables already in its pyproject.toml (as if written by hand). Both run warm (same uv
cache, one run each first), alternately, and the medians, their ratio and the
milliseconds poetry-cuda adds are printed for an up-to-date lock and for a resolution
from scratch (uv.lock removed before each run), with `poetry-cuda plan` (the planning
every lock does first, without uv) for reference. Target: under 300 ms added.

    .venv/bin/python benchmarks/uv_lock.py [--runs 9]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the test world and its index server live in tests/support

from tests.support.catalog import WorldServer
from tests.support.catalog import build_world


BIN = Path(sys.executable).parent
UV = str(BIN / "uv")


def configure(project: Path, server: WorldServer) -> None:
    """The example as a uv project whose default index is the PyPI stand-in."""
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text().replace('">=3.10,<3.14"', '">=3.11,<3.12"')
    text = text.replace("[tool.poetry]\npackage-mode = false\n", "[tool.uv]\npackage = false\n")
    text += (
        f'\n[tool.poetry-cuda.mirrors]\npytorch = "{server.pytorch_mirror}"\n'
        f'\n[[tool.uv.index]]\nname = "local-pypi"\nurl = "{server.pypi_url}"\ndefault = true\n'
    )
    pyproject.write_text(text)


def wall(command: list[str], cwd: Path, env: dict[str, str], *, fresh: bool) -> float:
    if fresh:
        (cwd / "uv.lock").unlink(missing_ok=True)
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def compare(
    plugin: Path, plain: Path, env: dict[str, str], runs: int, *, fresh: bool
) -> tuple[float, float]:
    ours = [str(BIN / "poetry-cuda"), "lock"]
    theirs = [UV, "lock"]
    wall(ours, plugin, env, fresh=fresh)  # warm the cache and the file cache
    wall(theirs, plain, env, fresh=fresh)
    with_ours, with_uv = [], []
    for _ in range(runs):
        with_ours.append(wall(ours, plugin, env, fresh=fresh))
        with_uv.append(wall(theirs, plain, env, fresh=fresh))
    return statistics.median(with_ours), statistics.median(with_uv)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as temporary:
        base = Path(temporary)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("UV_", "VIRTUAL_ENV"))}
        env.update(
            {
                "UV_CACHE_DIR": str(base / "uv-cache"),
                "UV_PYTHON": sys.executable,
                "UV_PYTHON_DOWNLOADS": "never",
            }
        )
        world = build_world(base / "world")
        with WorldServer(world) as server:
            plugin = base / "with-poetry-cuda"
            shutil.copytree(ROOT / "examples" / "torch_project", plugin)
            configure(plugin, server)
            subprocess.run(
                [str(BIN / "poetry-cuda"), "lock"],
                cwd=plugin,
                env=env,
                check=True,
                capture_output=True,
            )
            plain = base / "plain-uv"
            plain.mkdir()
            # The same tables poetry-cuda wrote, as a user would write them by hand.
            shutil.copy(plugin / "pyproject.toml", plain / "pyproject.toml")
            rows = [
                ("up to date", *compare(plugin, plain, env, runs, fresh=False)),
                ("from scratch", *compare(plugin, plain, env, runs, fresh=True)),
            ]
            plan = [str(BIN / "poetry-cuda"), "plan"]
            planning = statistics.median(wall(plan, plugin, env, fresh=False) for _ in range(runs))
    print(f"{'lock':<14} {'poetry-cuda':>12} {'uv lock':>9} {'ratio':>7} {'added':>8}")
    for name, ours, theirs in rows:
        print(
            f"{name:<14} {ours * 1000:>10.0f}ms {theirs * 1000:>7.0f}ms "
            f"{ours / theirs:>7.2f} {(ours - theirs) * 1000:>6.0f}ms"
        )
    print(f"{'poetry-cuda plan':<14} {planning * 1000:>10.0f}ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
