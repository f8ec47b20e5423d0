"""`poetry-cuda doctor` wall time (without --deep), with `detect` for comparison.

Builds a project like the paddle example, already locked (pyproject.toml, cuda.lock
recording paddlepaddle-gpu 2.6.2 with its CUDA runtime and cuDNN needs, poetry.lock)
and an in-project venv holding a few distributions, then runs both commands
alternately on this machine and prints the median and the slowest run of each. Offline.
Target: doctor well under a second.

    .venv/bin/python benchmarks/doctor.py [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from pathlib import Path

from poetry_cuda import lockfile
from poetry_cuda.files import read_toml
from poetry_cuda.lock import recorded_names
from poetry_cuda.lock import relevant_parts
from poetry_cuda.lockfile import CudaLock
from poetry_cuda.lockfile import LockedPackage
from poetry_cuda.plan import SystemRequirement


BIN = Path(sys.executable).parent
PYPROJECT = """\
[project]
name = "paddle-project"
version = "0.1.0"
requires-python = ">=3.10,<3.13"
dependencies = ["paddlepaddle-gpu==2.6.2"]

[tool.poetry]
package-mode = false
"""
POETRY_LOCK = """\
[[package]]
name = "paddlepaddle-gpu"
version = "2.6.2"
files = [{file = "paddlepaddle_gpu-2.6.2-cp311-cp311-manylinux1_x86_64.whl", hash = "sha256:0"}]

[package.dependencies]
numpy = ">=1.13"
"""


def make_project(folder: Path) -> Path:
    (folder / "pyproject.toml").write_text(PYPROJECT)
    (folder / "poetry.lock").write_text(POETRY_LOCK)
    needs = (
        SystemRequirement("paddlepaddle-gpu", "cuda-runtime", ">=11.8,<12", "cudart", "install"),
        SystemRequirement("paddlepaddle-gpu", "cudnn", ">=8.6.0,<9", "libcudnn.so.8", "install"),
    )
    package = LockedPackage(
        "paddlepaddle-gpu", "cu118", "11.8", "pypi", "https://pypi.org/simple", "2.6.2", (), ""
    )
    draft = CudaLock("", "poetry", "newest", "auto", (), (package,), needs, ())
    relevant = relevant_parts(read_toml(folder / "pyproject.toml"), recorded_names(draft))
    record = CudaLock(**{**draft.__dict__, "content_hash": lockfile.content_hash(relevant)})
    (folder / lockfile.FILENAME).write_text(record.dumps())
    site = folder / ".venv" / "lib" / "python3.11" / "site-packages"
    for name, version in (("paddlepaddle_gpu", "2.6.2"), ("numpy", "2.1.0"), ("pillow", "11.0")):
        info = site / f"{name}-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Name: {name}\nVersion: {version}\n")
    return folder


def wall(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, check=False, capture_output=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as temp:
        project = make_project(Path(temp))
        env = {**os.environ, "POETRY_VIRTUALENVS_IN_PROJECT": "true"}
        script = str(BIN / "poetry-cuda")
        times: dict[str, list[float]] = {"doctor": [], "detect": []}
        for _ in range(runs):
            for command, values in times.items():
                values.append(wall([script, command], project, env))
    for command, values in times.items():
        print(
            f"poetry-cuda {command:7} median {statistics.median(values) * 1000:6.0f} ms, "
            f"slowest {max(values) * 1000:6.0f} ms ({runs} runs)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
