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
import subprocess
import sys
import venv

from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")
STAMP = VENV / ".poetry-cuda-dev-stamp"


def run(*args: str | Path, check: bool = True) -> int:
    print("+", " ".join(str(a) for a in args), flush=True)
    return subprocess.run([str(a) for a in args], cwd=ROOT, check=check).returncode


def ensure_venv() -> None:
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
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
    try:
        return jobs[sys.argv[1]](sys.argv[2:])
    except subprocess.CalledProcessError as error:
        return error.returncode or 1


if __name__ == "__main__":
    sys.exit(main())
