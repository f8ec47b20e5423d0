"""Fixtures for the CUDA environment tests: the probe program and a machine of fake toolkits."""

from __future__ import annotations

import subprocess

import pytest

from tests.support.cuda_trees import PROBE_SOURCE
from tests.support.cuda_trees import Machine
from tests.support.cuda_trees import Probe
from tests.support.cuda_trees import gcc
from tests.support.cuda_trees import make_toolkit


@pytest.fixture(scope="session")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Probe:
    folder = tmp_path_factory.mktemp("probe")
    source = folder / "probe.c"
    source.write_text(PROBE_SOURCE)
    program = folder / "probe"
    subprocess.run([gcc(), "-o", str(program), str(source), "-ldl"], check=True, timeout=60)
    return Probe(program)


@pytest.fixture(scope="session")
def machine(tmp_path_factory: pytest.TempPathFactory) -> Machine:
    usr_local = tmp_path_factory.mktemp("fake-root") / "usr" / "local"
    cuda118 = make_toolkit(
        usr_local / "cuda-11.8",
        "11.8.89",
        cudart=("libcudart.so.11.0", 11),
        cudnn="8.9.7",
        nvcc=True,
    )
    cuda124 = make_toolkit(
        usr_local / "cuda-12.4", "12.4.131", cudart=("libcudart.so.12", 12), nvcc=True
    )
    (usr_local / "cuda").symlink_to("cuda-12.4")
    return Machine(usr_local, cuda118, cuda124)
