"""Shared wheel store: two Poetry projects with one locked CUDA stack, side by side.

A padded, real-shaped CUDA stack (tests/support/padded_stack.py: torch, triton, 15 nvidia-*
libraries and three pure-Python dependencies, 20 wheels of 20 to 200 MiB unpacked, with
many shared libraries, modules and headers each) is served on 127.0.0.1, locked once by
Poetry, and installed into two projects A and B with the same poetry.lock, three ways:

- `poetry install`: Poetry's own installer (copies; the wheels kept in its cache);
- the store: poetry-cuda's shared store (`poetry_cuda.wheelstore`): each wheel unpacked
  once per user, its files linked into Poetry's own virtual environment with the
  dist-info Poetry writes;
- uv: `uv pip sync --require-hashes` into Poetry's virtual environment, with a requirements
  list made from poetry.lock and uv's cache as the store (uv links from its cache);
- the environment alone: Poetry making its virtual environment and nothing installed, the
  floor under any install into the environment Poetry makes.

For each: a cold install of A (empty cache or store, new environment), the second project B
from the warm cache or store, and B's environment deleted and made again; the environment
is made by Poetry (its EnvManager, in the installing process, as `poetry install` makes it)
and that time is counted; the installing process (`store_install.py`) imports only what the
install does. Real disk is measured as `du` does, each hard-linked file counted once: one
environment, and both environments with the cache or store. After the store and uv, a
plain `poetry install` in B must find nothing to do; its time is shown too.

Targets: both environments and the store on at most 1.1x the real disk of one environment;
the second project and a recreated environment in at most 1/10 of `poetry install`'s time;
a cold install no slower than `poetry install`.

    .venv/bin/python benchmarks/shared_store.py [--runs 3] [--scale 1.0] [--stack DIR]
        [--work DIR] [--only poetry store uv venv]

`--stack` keeps the built stack between runs (half a minute to build; 750 MiB of wheels
at scale 1); `--work` is where the projects, caches and stores go (some 9 GiB at scale 1;
a temporary folder by default, removed afterwards). `--pypi torch==2.9.1` measures the real
stack from PyPI instead (3 GB downloaded per cold install, some 25 GiB of disk); where
Poetry's lock installs a distribution twice on this machine (torch 2.15.0 from PyPI: two
nvidia-cublas on Linux), the version `poetry-cuda lock` names is pinned for this platform
and the project locked again, as a user fixes it (`lock_one_version`). Not part
of a plain `tools/dev.py bench`: it takes minutes and gigabytes, so it runs alone, or with
`tools/dev.py bench --only shared_store`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import sys
import tempfile
import time

from pathlib import Path
from typing import TYPE_CHECKING


sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import BIN
from benchmarks.common import Check
from benchmarks.common import Table
from benchmarks.common import load
from benchmarks.common import show
from benchmarks.common import size
from benchmarks.common import timed
from benchmarks.common import tool_env
from poetry_cuda.files import read_toml
from poetry_cuda.locking import duplicates
from tests.support.index import IndexServer
from tests.support.padded_stack import STACK
from tests.support.padded_stack import build_stack
from tests.support.padded_stack import unpacked_bytes
from tests.support.store_worlds import poetry_project


if TYPE_CHECKING:
    from collections.abc import Iterator
    from collections.abc import Mapping
    from collections.abc import Sequence


RUNS = 3
QUICK_RUNS = 1
POETRY = str(BIN / "poetry")
INSTALL = Path(__file__).with_name("store_install.py")  # the install each case times
CANDIDATES = ("poetry", "store", "uv", "venv")
LABELS = {
    "poetry": "`poetry install`",
    "store": "shared store",
    "uv": "`uv pip sync`",
    "venv": "environment alone",
}
PYPI = "https://pypi.org/simple/"
NOTHING_TO_DO = "No dependencies to install or update"


def real_disk(paths: Sequence[Path]) -> int:
    """Bytes these folders take on disk, as `du` counts them: each inode once (hard links
    shared between the folders count once), by its allocated blocks."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for root in paths:
        if not root.exists():
            continue
        for folder, names, files in os.walk(root):
            for name in [*names, *files]:
                info = os.lstat(Path(folder) / name)
                key = (info.st_dev, info.st_ino)
                if key not in seen:
                    seen.add(key)
                    total += info.st_blocks * 512
    return total


class Case:
    """One way of installing: how it installs project A and B, and what it keeps on disk."""

    def __init__(self, name: str, base: Path, index: str) -> None:
        self.name = name
        self.home = base / f"{name}-home"
        self.store = base / f"{name}-store"
        self.index = index
        self.env = tool_env(
            self.home,
            POETRY_VIRTUALENVS_IN_PROJECT="true",
            POETRY_NO_INTERACTION="1",
            POETRY_VIRTUALENVS_USE_POETRY_PYTHON="true",
            UV_CACHE_DIR=str(self.store),
            UV_NO_PROGRESS="1",
        )
        self.projects = [base / f"{name}-A", base / f"{name}-B"]

    def kept(self) -> list[Path]:
        """What the case keeps besides the environments: Poetry's cache, the store."""
        return [self.home / "poetry-cache"] if self.name == "poetry" else [self.store]

    def install(self, project: Path) -> float:
        """Seconds to install `project`, its environment made as `poetry install` makes it."""
        if self.name == "poetry":
            return timed([POETRY, "--no-plugins", "install"], project, self.env)[0]
        command = [sys.executable, str(INSTALL), self.name, str(project), str(self.store)]
        return timed([*command, self.index], project, self.env)[0]

    def later_poetry_install(self, project: Path) -> float:
        """Seconds of a plain `poetry install` after the case's install; it must find
        nothing to do."""
        import subprocess

        started = time.perf_counter()
        done = subprocess.run(
            [POETRY, "--no-plugins", "install"],
            cwd=project,
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        )
        elapsed = time.perf_counter() - started
        if NOTHING_TO_DO not in done.stdout:
            raise RuntimeError(f"{self.name}: `poetry install` after it did work:\n{done.stdout}")
        return elapsed


def requirements(lock: Path) -> str:
    """poetry.lock as a hash-pinned requirements list, for uv."""
    lines = []
    for package in read_toml(lock)["package"]:
        hashes = " ".join(f"--hash={item['hash']}" for item in package["files"])
        marker = package.get("markers")
        where = f" ; {marker}" if isinstance(marker, str) else ""
        lines.append(f"{package['name']}=={package['version']}{where} {hashes}")
    return "\n".join(lines) + "\n"


@contextlib.contextmanager
def folder(path: str | None) -> Iterator[Path]:
    if path:
        Path(path).mkdir(parents=True, exist_ok=True)
        yield Path(path)
        return
    with tempfile.TemporaryDirectory(prefix="poetry-cuda-shared-store-") as temporary:
        yield Path(temporary)


def measure(
    runs: int,
    *,
    scale: float = 1.0,
    stack: str | None = None,
    work: str | None = None,
    only: Sequence[str] = CANDIDATES,
    pypi: str | None = None,
) -> list[Table]:
    """The tables; with `pypi` (a requirement such as ``torch==2.9.1``) the real stack from
    PyPI instead of the padded one (a download of gigabytes per cold install)."""
    before = load()
    with folder(work) as base, contextlib.ExitStack() as stack_of:
        if pypi:
            index, dependencies = PYPI, [pypi]
        else:
            stack_root = stack_of.enter_context(folder(stack))
            build_stack(stack_root, scale=scale)
            index = stack_of.enter_context(IndexServer(stack_root)).url("/simple/")
            dependencies = ["torch==2.9.1"]
        template = base / "template"
        env = Case("lock", base, index).env
        pins = lock_one_version(template, index, dependencies, env, on_pypi=bool(pypi))
        if pins:
            print(f"   pinned as `poetry-cuda lock` prescribes: {', '.join(pins)}", flush=True)
        cases = [Case(name, base, index) for name in CANDIDATES if name in only]
        found: dict[str, list[dict[str, float]]] = {case.name: [] for case in cases}
        for run in range(runs):  # the ways in turn, so the machine's load falls on all
            for case in cases:
                found[case.name].append(_cycle(case, template, measure_disk=run == 0))
    results = {
        name: {key: statistics.median(c[key] for c in cycles if key in c) for key in cycles[0]}
        for name, cycles in found.items()
    }
    what = (
        f"{pypi} from PyPI"
        if pypi
        else f"{len(STACK)} wheels, {size(unpacked_bytes(scale))} unpacked"
    )
    where = "the indexes of PyPI" if pypi else "every index on 127.0.0.1"
    return _tables(results, what, runs, f"{where}; {before}")


def lock_one_version(
    folder: Path,
    index: str,
    dependencies: Sequence[str],
    env: Mapping[str, str],
    *,
    on_pypi: bool = False,
) -> list[str]:
    """The project in `folder`, locked by Poetry with the pins `poetry-cuda lock` prescribes;
    returns the pins. Where Poetry's lock installs a distribution twice on this machine (the
    real torch stack from PyPI: two nvidia-cublas on Linux, whose mixed files crash `import
    torch`, and which the shared store refuses), the version its resolution meant here is
    pinned for this platform (`locking.duplicates`), and the project locked again."""
    pins: list[str] = []
    while True:
        project = poetry_project(folder, index, [*dependencies, *pins])
        if on_pypi:
            _without_sources(project / "pyproject.toml")
        timed([POETRY, "--no-plugins", "lock"], project, env)
        lock = read_toml(project / "poetry.lock")
        found = duplicates.find(lock, "poetry", duplicates.here())
        if not found:
            return pins
        more = [f.entry(os) for os, f in found]
        new = [entry for entry in dict.fromkeys(more) if entry is not None and entry not in pins]
        if None in more or not new:  # nothing to pin, or the pins did not help
            raise duplicates.refusal(found, "poetry.lock")
        pins += new


def _without_sources(pyproject: Path) -> None:
    """The project on PyPI alone."""
    text = pyproject.read_text()
    pyproject.write_text(text[: text.index("[[tool.poetry.source]]")])


def _cycle(case: Case, template: Path, *, measure_disk: bool) -> dict[str, float]:
    """One cold install of A, B from the warm cache or store, B's environment recreated,
    and a plain `poetry install` in B; the disk the first time. Starts from nothing."""
    for path in [*case.projects, *case.kept(), case.home]:
        shutil.rmtree(path, ignore_errors=True)
    for project in case.projects:
        project.mkdir(parents=True)
        shutil.copy(template / "pyproject.toml", project / "pyproject.toml")
        shutil.copy(template / "poetry.lock", project / "poetry.lock")
        (project / "requirements.txt").write_text(requirements(template / "poetry.lock"))
    a, b = case.projects
    found = {"cold": case.install(a), "second": case.install(b)}
    shutil.rmtree(b / ".venv")
    found["recreate"] = case.install(b)
    if case.name == "venv":  # nothing installed: no later install, no disk to compare
        print(f"   {case.name}: {found}", flush=True)
        return found
    found["later"] = case.later_poetry_install(b)
    if measure_disk:
        found["one"] = real_disk([a / ".venv"])
        found["all"] = real_disk([a / ".venv", b / ".venv", *case.kept()])
    print(f"   {case.name}: {found}", flush=True)
    return found


def _tables(
    results: dict[str, dict[str, float]], stack: str, runs: int, context: str
) -> list[Table]:
    disk = Table(
        f"Two Poetry projects with one locked CUDA stack ({stack}): real disk",
        ("install", "one environment", "A + B + cache or store", "x one environment"),
        target="A + B + store <= 1.1 x one environment",
    )
    speed = Table(
        f"Two Poetry projects with one locked CUDA stack ({stack}): time",
        ("install", "cold (A)", "second project (B)", "recreate B", "later `poetry install`"),
        target="second and recreate <= 1/10 of `poetry install`; cold no slower",
    )
    base = results.get("poetry")
    for name, found in results.items():
        label = LABELS[name]
        if "one" in found:
            disk.add(
                label,
                size(int(found["one"])),
                size(int(found["all"])),
                f"{found['all'] / found['one']:.2f}",
            )
        cells = [
            f"{found[key]:.1f} s"
            + (f" ({found[key] / base[key]:.2f}x)" if base and name != "poetry" else "")
            for key in ("cold", "second", "recreate")
        ]
        speed.add(label, *cells, f"{found['later']:.1f} s" if "later" in found else "-")
    store = results.get("store")
    if store:
        share = store["all"] / store["one"]
        disk.checks.append(
            Check(
                "shared store: A + B + store",
                f"{share:.2f} x one environment",
                "<= 1.1",
                share <= 1.1,
            )
        )
    if store and base:
        for key, what, limit in (
            ("second", "second project", 0.1),
            ("recreate", "recreated environment", 0.1),
            ("cold", "cold install", 1.0),
        ):
            share = store[key] / base[key]
            speed.checks.append(
                Check(
                    f"shared store: {what}",
                    f"{share:.2f} x `poetry install`",
                    f"<= {limit:g}",
                    share <= limit,
                )
            )
    floor = results.get("venv")
    if floor and base:
        speed.notes.append(
            "the environment alone, as Poetry makes it: "
            f"{floor['second'] / base['second']:.2f}x of `poetry install`'s second project, "
            "the floor under any install into it"
        )
    speed.notes.append(
        "each environment is made by Poetry's EnvManager, as `poetry install` makes it, and "
        f"counted; medians of {runs} run{'s' if runs > 1 else ''}, the ways in turn; "
        f"{context} before, {load()} after"
    )
    disk.notes.append("counted as `du` does: allocated blocks, each hard-linked file once")
    return [disk, speed]


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--stack", default=None)
    parser.add_argument("--work", default=None)
    parser.add_argument("--only", nargs="+", choices=CANDIDATES, default=list(CANDIDATES))
    parser.add_argument("--pypi", metavar="REQUIREMENT", help="the real stack from PyPI")
    options = parser.parse_args()
    tables = measure(
        options.runs,
        scale=options.scale,
        stack=options.stack,
        work=options.work,
        only=options.only,
        pypi=options.pypi,
    )
    return show(tables)


if __name__ == "__main__":
    sys.exit(main())
