"""`poetry-cuda doctor` and `detect` wall times, and detection through NVML against nvidia-smi.

Builds a project like the paddle example, already locked (pyproject.toml, cuda.lock
recording paddlepaddle-gpu 2.6.2 with its CUDA runtime and cuDNN needs, poetry.lock)
and an in-project venv holding a few distributions. A fake driver stands in for the
real one (built with gcc from tests/fake_nvml): an RTX 4090 on driver 550.54.14, seen

- through NVML: the fake libnvidia-ml.so.1 on the library path;
- through the nvidia-smi fallback: no library, a fake nvidia-smi on PATH;
- not at all: neither (a machine without a driver).

Each command runs alternately with the others; the medians and the slowest runs are
printed, with `detect_host()` called in-process (no interpreter start-up or imports)
beside them. Offline. Target: doctor well under a second.

    .venv/bin/python benchmarks/doctor.py [--runs 15]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.locking.freshness import sealed
from poetry_cuda.locking.lockfile_toml import dumps


sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import BIN
from benchmarks.common import Check
from benchmarks.common import Table
from benchmarks.common import arguments
from benchmarks.common import load
from benchmarks.common import ms
from benchmarks.common import show
from benchmarks.common import timer
from benchmarks.common import tool_env
from poetry_cuda.files import read_toml
from poetry_cuda.host.detect import detect_host
from poetry_cuda.locking import lockfile
from poetry_cuda.locking.lockfile import CudaLock
from poetry_cuda.locking.lockfile import LockedPackage
from poetry_cuda.planning.plan import SystemRequirement
from poetry_cuda.versions import CudaVersion
from tests.support.fake_nvml import FakeNvml
from tests.support.fake_nvml import FakeNvmlUnavailableError
from tests.support.fake_nvml import FakeSmi
from tests.support.fake_nvml import real_nvml_present


if TYPE_CHECKING:
    from collections.abc import Callable


RUNS = 15
QUICK_RUNS = 5
FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "nvidia-smi"
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
    folder.mkdir()
    (folder / "pyproject.toml").write_text(PYPROJECT)
    (folder / "poetry.lock").write_text(POETRY_LOCK)
    needs = (
        SystemRequirement("paddlepaddle-gpu", "cuda-runtime", ">=11.8,<12", "cudart", "install"),
        SystemRequirement("paddlepaddle-gpu", "cudnn", ">=8.6.0,<9", "libcudnn.so.8", "install"),
    )
    package = LockedPackage(
        "paddlepaddle-gpu",
        "cu118",
        CudaVersion(11, 8),
        "pypi",
        "https://pypi.org/simple",
        "2.6.2",
        (),
        "",
    )
    draft = CudaLock("", "poetry", "newest", "auto", (), (package,), needs, ())
    record = sealed(draft, read_toml(folder / "pyproject.toml"))
    (folder / lockfile.FILENAME).write_text(dumps(record))
    site = folder / ".venv" / "lib" / "python3.11" / "site-packages"
    for name, version in (("paddlepaddle_gpu", "2.6.2"), ("numpy", "2.1.0"), ("pillow", "11.0")):
        info = site / f"{name}-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Name: {name}\nVersion: {version}\n")
    return folder


def detection_envs(folder: Path, base: dict[str, str]) -> dict[str, dict[str, str]]:
    """The environment of each way of finding the driver; empty without gcc."""
    try:
        fake = FakeNvml.build(folder)
    except FakeNvmlUnavailableError:
        return {}
    smi = FakeSmi(
        query=(FIXTURES / "query-rtx4090.csv").read_text(encoding="utf-8"),
        table=(FIXTURES / "table-550-rtx4090.txt").read_text(encoding="utf-8"),
    )
    return {
        "NVML": {**base, **fake.scenario()},
        "nvidia-smi": {**base, **fake.scenario(library=False, nvidia_smi=smi)},
        "no driver": {**base, **fake.scenario(library=False)},
    }


def in_process(env: dict[str, str]) -> float:
    start = time.perf_counter()
    detect_host(environ=env)
    return time.perf_counter() - start


def measure(runs: int) -> list[Table]:
    table = Table(
        "`poetry-cuda doctor` and `detect`, and how the driver is found",
        ("command", "driver seen through", "median", "slowest", "detect_host() in-process"),
        target="doctor well under a second",
    )
    before = load()
    with tempfile.TemporaryDirectory() as temp:
        base = Path(temp)
        project = make_project(base / "project")
        env = tool_env(base, POETRY_VIRTUALENVS_IN_PROJECT="true")
        envs = detection_envs(base / "fake-nvml", env) or {"this machine": env}
        script = str(BIN / "poetry-cuda")
        first = next(iter(envs))
        cases: dict[tuple[str, str], Callable[[], float]] = {
            ("doctor", first): timer([script, "doctor"], project, envs[first], check=False)
        }
        for name, scenario in envs.items():
            cases["detect", name] = timer([script, "detect"], project, scenario)
        times: dict[tuple[str, str], list[float]] = {key: [] for key in cases}
        inside: dict[str, list[float]] = {name: [] for name in envs}
        for scenario in envs.values():
            in_process(scenario)  # imports and first use, untimed
        for _ in range(runs):
            for key, case in cases.items():
                times[key].append(case())
            for name, scenario in envs.items():
                inside[name].append(in_process(scenario))
    for (command, name), values in times.items():
        table.add(
            f"poetry-cuda {command}",
            name,
            ms(statistics.median(values)),
            ms(max(values)),
            ms(statistics.median(inside[name])) if command == "detect" else "",
        )
    doctor = statistics.median(times["doctor", first])
    table.checks.append(Check("`poetry-cuda doctor`", ms(doctor), "< 1000 ms", doctor < 1))
    if "NVML" in envs:
        as_command = statistics.median(times["detect", "nvidia-smi"]) / statistics.median(
            times["detect", "NVML"]
        )
        alone = statistics.median(inside["nvidia-smi"]) / statistics.median(inside["NVML"])
        table.notes.append(
            f"detection through nvidia-smi / through NVML: {as_command:.2f} for the command, "
            f"{alone:.2f} in-process; doctor runs with the NVML driver"
        )
    else:
        table.notes.append("no gcc: the fake driver could not be built; this machine as it is")
    if real_nvml_present():
        table.notes.append("this machine has a real libnvidia-ml, which NVML may have found")
    table.notes.append(f"median of {runs} alternating runs; {before} before, {load()} after")
    return [table]


def main() -> int:
    return show(measure(arguments(__doc__ or "", RUNS)))


if __name__ == "__main__":
    sys.exit(main())
