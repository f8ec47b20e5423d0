"""`run` with the real CUDA toolkit of this machine, where there is one (no GPU needed)."""

from __future__ import annotations

import json
import os
import sys

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from poetry_cuda.host.toolkits import toolkit_version
from tests.support.cuda_trees import Probe
from tests.support.projects import make_project


if TYPE_CHECKING:
    from tests.support.cli import Cli


def real_toolkit() -> tuple[Path, str]:
    root = Path("/usr/local/cuda")
    if sys.platform != "linux" or not (root / "bin" / "nvcc").is_file():
        pytest.skip("no CUDA toolkit with nvcc at /usr/local/cuda")
    real = Path(os.path.realpath(root))
    version, _ = toolkit_version(real, nvcc=real / "bin" / "nvcc", environ=os.environ, timeout=30)
    if version is None:
        pytest.skip("the version of the toolkit at /usr/local/cuda is unknown")
    return real, version


def test_run_uses_the_real_toolkit_a_requirement_asks_for(
    cli: Cli, tmp_path: Path, probe: Probe
) -> None:
    root, version = real_toolkit()
    major = int(version.split(".")[0])
    spec = f">={major}.0,<{major + 1}"
    project = make_project(
        tmp_path / "ext-app",
        packages=[("my-ext", "cu", f"{major}.0")],
        requirements=[("nvcc", spec), ("cuda-runtime", spec)],
    )
    env = {"CUDA_HOME": "", "LD_LIBRARY_PATH": "", "POETRY_CUDA_TOOLKITS": ""}
    data = json.loads(cli.run("env", "--shell", "json", cwd=project, env=env).stdout)
    assert data["toolkit"]["root"] == str(root)
    assert data["set"]["PATH"].startswith(f"{root / 'bin'}:")

    nvcc = cli.run("run", "--", "nvcc", "--version", cwd=project, env=env)
    assert nvcc.code == 0, nvcc
    assert f"release {major}." in nvcc.stdout

    loaded = cli.run("run", "--", str(probe.program), "libcudart.so", cwd=project, env=env)
    assert loaded.code == 0, loaded
    got_major, where = Probe.parse(loaded.stdout)["libcudart.so"]
    assert got_major == major  # cudaRuntimeGetVersion of the real library
    assert where.startswith(str(root))
