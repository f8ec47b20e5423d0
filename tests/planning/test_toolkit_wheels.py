"""toolkit = "wheels": the table, the managed additions, the assembled CUDA_HOME."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.cudaenv.tree import assemble
from poetry_cuda.errors import InputFileError
from poetry_cuda.files import parse_toml
from poetry_cuda.host.detect import detect_this_machine
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.knowledge.packaged import toolkit_wheels
from poetry_cuda.knowledge.tables import TOOLKIT_WHEELS_FILE
from poetry_cuda.knowledge.tables import validate_toolkit_wheels
from poetry_cuda.planning.managed import Managed
from poetry_cuda.planning.managed import Pin
from poetry_cuda.planning.plan import PYPI
from poetry_cuda.planning.plan import Choice
from poetry_cuda.planning.plan import Plan
from poetry_cuda.planning.toolkit_wheels import additions as additions_of
from poetry_cuda.planning.toolkit_wheels import for_major as row_of
from poetry_cuda.request.settings import parse_settings
from poetry_cuda.versions import CudaVersion
from tests.support.projects import APP
from tests.support.projects import write_project


if TYPE_CHECKING:
    from pathlib import Path

    from poetry_cuda.knowledge.model import ToolkitWheels
    from poetry_cuda.planning.plan import Addition
    from poetry_cuda.request.settings import Settings
    from tests.support.cli import Cli


def table() -> tuple[ToolkitWheels, ...]:
    return toolkit_wheels()


def for_major(major: int) -> ToolkitWheels | None:
    return row_of(toolkit_wheels(), major)


def parse(text: str) -> tuple[ToolkitWheels, ...]:
    return validate_toolkit_wheels({TOOLKIT_WHEELS_FILE: parse_toml(text)})


def additions(plan: Plan, settings: Settings) -> tuple[tuple[Addition, ...], tuple[str, ...]]:
    return additions_of(plan, settings, load())


def plan_with(*cudas: tuple[str, str, str | None]) -> Plan:
    packages = tuple(
        Choice(name, family, "cu", CudaVersion.parse(c) if c else None, PYPI, None, (), "")
        for name, family, c in cudas
    )
    return Plan("newest", ("this machine",), packages, (), ())


def settings(toolkit: str = "wheels", cuda: str = "auto") -> Settings:
    return parse_settings({"tool": {"poetry-cuda": {"toolkit": toolkit, "cuda": cuda}}})


def test_the_table_has_a_sourced_row_per_major() -> None:
    rows = table()
    assert [row.cuda for row in rows] == [11, 12, 13]
    assert all(row.source and row.confidence in ("verified", "uncertain") for row in rows)
    assert for_major(13) is not None and for_major(13).nvcc  # type: ignore[union-attr]
    assert for_major(12) is not None and not for_major(12).nvcc  # type: ignore[union-attr]


def test_bad_rows_name_the_key() -> None:
    with pytest.raises(InputFileError, match=r"major\[12\]\.minors"):
        parse(
            'schema = 1\n[[major]]\ncuda = 12\npackages = []\nminors = ["11.8"]\n'
            'nvcc = false\nroot = "nvidia/*"\nsource = "x"\nconfidence = "verified"\n'
        )


def test_cuda_12_adds_the_three_cu12_wheels_and_warns_about_nvcc() -> None:
    plan = plan_with(("torch", "torch", "12.4"), ("torchvision", "torch", "12.4"))
    added, warnings = additions(plan, settings())
    assert [(a.name, a.spec) for a in added] == [
        ("nvidia-cuda-nvcc-cu12", "==12.4.*"),
        ("nvidia-cuda-runtime-cu12", "==12.4.*"),
        ("nvidia-cuda-cccl-cu12", "==12.4.*"),
    ]
    assert "no nvcc" in warnings[0]
    pins = Managed.of(plan.__class__(**{**plan.__dict__, "additions": added})).pins
    assert Pin("nvidia-cuda-nvcc-cu12", None, "==12.4.*") in pins


def test_torchs_cuda_wins_and_an_exact_cuda_setting_stands_in() -> None:
    plan = plan_with(("paddlepaddle-gpu", "paddle", "13.0"), ("torch", "torch", "13.2"))
    added, warnings = additions(plan, settings())
    assert {a.spec for a in added} == {"==13.2.*"}
    assert "nvidia-cuda-nvcc" in [a.name for a in added]
    assert warnings == ()
    added, _ = additions(plan_with(), settings(cuda="13.1"))
    assert {a.spec for a in added} == {"==13.1.*"}


def test_nothing_added_for_system_mode_or_unpublished_versions() -> None:
    plan = plan_with(("torch", "torch", "12.4"))
    assert additions(plan, settings("system")) == ((), ())
    added, warnings = additions(plan_with(("torch", "torch", "12.7")), settings())
    assert added == ()
    assert "no matching toolkit wheels for CUDA 12.7" in warnings[0]
    added, warnings = additions(plan_with(), settings())
    assert added == () and "chose no CUDA version" in warnings[0]


def test_plan_project_adds_them(tmp_path: Path) -> None:
    from poetry_cuda.backends.readers import READERS
    from poetry_cuda.planning.planner import Options
    from poetry_cuda.planning.planner import plan_project

    write_project(
        tmp_path,
        name="x",
        dependencies=(),
        tool={"poetry-cuda": {"toolkit": "wheels", "cuda": "13.2"}},
    )
    (tmp_path / "host.json").write_text(json.dumps({"schema": 1, "os": "linux"}))
    options = Options(targets=(str(tmp_path / "host.json"),))
    planned = plan_project(
        tmp_path, options, load(), {}, detect=detect_this_machine, readers=READERS
    )
    assert [a.name for a in planned.plan.additions][:1] == ["nvidia-cuda-nvcc"]


def fake_wheels_12(site: Path) -> None:
    nvidia = site / "nvidia"
    for path in (
        "cuda_nvcc/bin/ptxas",
        "cuda_nvcc/include/crt/host_config.h",
        "cuda_nvcc/nvvm/libdevice/libdevice.10.bc",
        "cuda_runtime/include/cuda_runtime.h",
        "cuda_runtime/lib/libcudart.so.12",
        "cuda_runtime/lib/__init__.py",
        "cuda_cccl/include/cub/cub.cuh",
        "cuda_cccl/include/cuda/std/version",
    ):
        (nvidia / path).parent.mkdir(parents=True, exist_ok=True)
        (nvidia / path).write_text("")
    (site / "nvidia_cuda_nvcc_cu12-12.4.131.dist-info").mkdir()


def test_assemble_merges_the_cuda_12_wheels(tmp_path: Path) -> None:
    venv = tmp_path / ".venv"
    site = venv / "lib" / "python3.11" / "site-packages"
    fake_wheels_12(site)
    row = for_major(12)
    assert row is not None
    tree = assemble(venv, site, row)
    assert tree is not None
    root = venv / "cuda"
    assert (tree.root, tree.version, tree.nvcc) == (str(root), "12.4.131", False)
    assert (root / "bin" / "ptxas").resolve() == site / "nvidia/cuda_nvcc/bin/ptxas"
    for header in ("cuda_runtime.h", "crt/host_config.h", "cub/cub.cuh", "cuda/std/version"):
        assert (root / "include" / header).exists(), header
    assert (
        root / "lib64" / "libcudart.so"
    ).resolve() == site / "nvidia/cuda_runtime/lib/libcudart.so.12"
    assert not (root / "lib" / "__init__.py").exists()
    assert json.loads((root / "version.json").read_text())["cuda"]["version"] == "12.4.131"
    stamp = (root / ".poetry-cuda.json").stat().st_mtime_ns
    assert assemble(venv, site, row) == tree  # unchanged wheels: not rebuilt
    assert (root / ".poetry-cuda.json").stat().st_mtime_ns == stamp
    (site / "nvidia_cuda_nvcc_cu12-12.4.131.dist-info").rename(
        site / "nvidia_cuda_nvcc_cu12-12.4.99.dist-info"
    )
    assert assemble(venv, site, row).version == "12.4.99"  # type: ignore[union-attr]
    assert sorted(p.name for p in venv.iterdir()) == ["cuda", "lib"]  # no leftovers


def test_assemble_without_the_wheels_is_none(tmp_path: Path) -> None:
    row = for_major(13)
    assert row is not None
    assert assemble(tmp_path, tmp_path, row) is None


def _nvcc_project(folder: Path, manager: dict[str, object]) -> Path:
    """A project with no dependencies whose own nvcc is CUDA 13.2's, from PyPI's wheels."""
    toolkit = {"cuda": "13.2", "toolkit": "wheels"}
    return write_project(
        folder,
        name=folder.name,
        version="0.1.0",
        requires_python=">=3.10",
        dependencies=(),
        tool={**manager, "poetry-cuda": toolkit},
    )


@pytest.mark.network
@pytest.mark.slow
def test_real_nvcc_wheel_compiles_with_the_projects_cuda(cli: Cli, tmp_path: Path) -> None:
    """lock + plain poetry install from PyPI, then nvcc 13.2 from the venv, not the system's."""
    if sys.platform != "linux" or not shutil.which("g++"):
        pytest.skip("needs Linux and a host compiler (g++)")
    project = _nvcc_project(tmp_path / "ext-app", {"poetry": APP})
    locked = cli.run("lock", cwd=project, timeout=600)
    assert locked.code == 0, locked
    # A plain install: the managed group that brings the toolkit wheels is not optional.
    installed = cli.run("install", cwd=project, program="poetry", timeout=900)
    assert installed.code == 0, installed

    version = cli.run("run", "--", "nvcc", "--version", cwd=project)
    assert version.code == 0, version
    assert "release 13.2" in version.stdout

    (project / "k.cu").write_text(
        "__global__ void twice(float *x) { x[threadIdx.x] *= 2; }\n"
        "void launch(float *x) { twice<<<1, 32>>>(x); }\n"
    )
    compiled = cli.run(
        "run", "--", "nvcc", "-c", "-Xcompiler", "-fPIC", "k.cu", "-o", "k.o", cwd=project
    )
    assert compiled.code == 0, compiled
    # What torch.utils.cpp_extension does next: link against $CUDA_HOME/lib64 -lcudart.
    linked = cli.run(
        "run",
        "--",
        "sh",
        "-c",
        'g++ -shared k.o -L"$CUDA_HOME/lib64" -lcudart -o k.so',
        cwd=project,
    )
    assert linked.code == 0, linked
    readelf = shutil.which("readelf")
    assert readelf is not None
    needed = subprocess.run(
        [readelf, "-d", str(project / "k.so")],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert "libcudart.so.13" in needed.stdout

    through_poetry = cli.run("run", "nvcc", "--version", cwd=project, program="poetry")
    assert "release 13.2" in through_poetry.stdout, through_poetry


@pytest.mark.network
@pytest.mark.slow
def test_a_plain_uv_sync_installs_the_projects_nvcc(cli: Cli, tmp_path: Path) -> None:
    """The uv backend: lock, then a plain `uv sync` installs nvcc 13.2 into .venv."""
    if sys.platform != "linux":
        pytest.skip("the CUDA 13 toolkit wheels used here are Linux wheels")
    project = _nvcc_project(tmp_path / "ext-uv", {"uv": {"package": False}})
    locked = cli.run("lock", cwd=project, timeout=600)
    assert locked.code == 0, locked
    assert "Backend: uv" in locked.stdout + locked.stderr
    synced = cli.run("sync", cwd=project, program="uv", timeout=900)
    assert synced.code == 0, synced
    assert cli.run("lock", "--check", cwd=project, timeout=600).code == 0

    version = cli.run("run", "--", "nvcc", "--version", cwd=project)
    assert version.code == 0, version
    assert "release 13.2" in version.stdout


def test_cuda_11_wheels_exist_only_for_11_8() -> None:
    # nvidia-cuda-cccl-cu11 is published only as 11.8.89 (and .post1): ==11.7.* cannot resolve.
    row = for_major(11)
    assert row is not None
    assert row.minors == (CudaVersion(11, 8),)
