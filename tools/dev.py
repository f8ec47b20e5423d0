"""Set up the development environment and run the project's jobs.

    python3 tools/dev.py demo    # lock the bundled torch example against a local mirror
    python3 tools/dev.py test    # ruff, mypy and the tests (-m "" for the network ones too)
    python3 tools/dev.py bench   # the benchmarks; rewrites their tables in docs/benchmarks.md (--quick)

Only Python >= 3.10 and git are needed: the script creates `.venv`, installs the
project with its `dev` dependency group, and reinstalls only when pyproject.toml changes.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import venv

from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
STAMP = VENV / ".poetry-cuda-dev-stamp"
# pyproject.toml's requires-python; this file itself must still run on older Pythons, to say so.
MINIMUM = (3, 10)
WANTED = ".".join(map(str, MINIMUM))


def run(*args: str | Path, check: bool = True) -> int:
    print("+", " ".join(str(a) for a in args), flush=True)
    return subprocess.run([str(a) for a in args], cwd=ROOT, check=check).returncode


def too_old(version: tuple[int, ...]) -> bool:
    return tuple(version[:2]) < MINIMUM


def venv_version(folder: Path) -> tuple[int, ...] | None:
    """The version of the Python that made the virtual environment `folder` (its
    pyvenv.cfg), None where it has none that can be read."""
    try:
        lines = (folder / "pyvenv.cfg").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() in ("version", "version_info"):
            try:
                return tuple(int(part) for part in value.strip().split(".")[:2])
            except ValueError:
                return None
    return None


def unusable_venv() -> str | None:
    """Why the existing `.venv` must be made again, if it must: a Python too old for the
    project made it (an earlier run with one), or its interpreter is gone."""
    if not VENV.exists():
        return None
    made_by = venv_version(VENV)
    if made_by is not None and too_old(made_by):
        version = ".".join(map(str, made_by))
        return f"it was made by Python {version}, and the project needs Python >= {WANTED}"
    if not PYTHON.exists():
        return "its Python is missing"
    return None


def ensure_venv() -> None:
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    why = unusable_venv()
    if why is not None:
        print(f"Recreating .venv: {why}", flush=True)
        shutil.rmtree(VENV)
    if PYTHON.exists() and STAMP.exists() and STAMP.read_text() == digest:
        return
    if not PYTHON.exists():
        venv.create(VENV, with_pip=True)
    # Dependency groups (PEP 735) need pip >= 25.1.
    run(PYTHON, "-m", "pip", "install", "--quiet", "--upgrade", "pip>=25.1")
    run(PYTHON, "-m", "pip", "install", "--quiet", "--editable", ".", "--group", "dev")
    STAMP.write_text(digest)


def test(args: list[str]) -> int:
    ensure_venv()
    run(BIN / "ruff", "check", ".")
    run(BIN / "ruff", "format", "--check", ".")
    run(BIN / "mypy")
    return run(PYTHON, "-m", "pytest", *args, check=False)


def demo(args: list[str]) -> int:
    ensure_venv()
    return run(PYTHON, ROOT / "tools" / "demo.py", *args, check=False)


def bench(args: list[str]) -> int:
    ensure_venv()
    return run(PYTHON, ROOT / "benchmarks" / "run_all.py", *args, check=False)


def main() -> int:
    jobs = {"test": test, "demo": demo, "bench": bench}
    if len(sys.argv) < 2 or sys.argv[1] not in jobs:
        print(__doc__)
        return 2
    if too_old(tuple(sys.version_info[:2])):
        # Before anything is made: a .venv of this Python could never install the project.
        version = ".".join(map(str, sys.version_info[:3]))
        print(
            f"tools/dev.py needs Python >= {WANTED}; this is Python {version} "
            f"({sys.executable}).\nRun it with a newer one, e.g. "
            f"`python3.12 tools/dev.py {sys.argv[1]}`.",
            file=sys.stderr,
        )
        return 2
    try:
        return jobs[sys.argv[1]](sys.argv[2:])
    except subprocess.CalledProcessError as error:
        return error.returncode or 1


if __name__ == "__main__":
    sys.exit(main())
