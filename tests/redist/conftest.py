"""The loopback stand-in of NVIDIA's redist directory made from this machine's toolkit.

`toolkit` skips where /usr/local/cuda has no nvcc (or there is no g++); `standin` is the
folder the stand-in's `Server` serves, built once and kept in pytest's cache.
"""

from __future__ import annotations

import os
import shutil
import sys

from pathlib import Path

import pytest

from poetry_cuda.host.toolkits import toolkit_version
from tests.redist.real_toolkit import SYSTEM_CUDA
from tests.redist.real_toolkit import build
from tests.redist.real_toolkit import fingerprint


@pytest.fixture(scope="session")
def toolkit() -> tuple[Path, str]:
    if sys.platform != "linux" or not (SYSTEM_CUDA / "bin" / "nvcc").is_file():
        pytest.skip("no CUDA toolkit with nvcc at /usr/local/cuda")
    if shutil.which("g++") is None:
        pytest.skip("no host compiler (g++) for nvcc")
    root = Path(os.path.realpath(SYSTEM_CUDA))
    nvcc = root / "bin" / "nvcc"
    version, _ = toolkit_version(root, nvcc=nvcc, environ=os.environ, timeout=30)
    if version is None or not (root / "nvvm" / "bin" / "cicc").is_file():
        pytest.skip("the toolkit at /usr/local/cuda has no known version or no cicc")
    return root, version


@pytest.fixture(scope="session")
def standin(
    toolkit: tuple[Path, str],
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    root, version = toolkit
    cache = getattr(request.config, "cache", None)
    base = cache.mkdir("poetry-cuda-redist") if cache else tmp_path_factory.mktemp("standin")
    folder = base / fingerprint(root, version)
    if not (folder / "index.html").is_file():
        for stale in base.iterdir():  # archives of an older layout or toolkit
            shutil.rmtree(stale)
        staging = base / f".{folder.name}"
        build(staging, root, version)
        staging.rename(folder)
    return folder
