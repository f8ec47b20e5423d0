"""A system nvcc of another CUDA than the lock's is named on standard error by `env` and
`run`, and doctor warns; the project's own toolkit first on PATH says nothing."""

from __future__ import annotations

import json
import sys

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from poetry_cuda.cudaenv.decide import ProjectEnv
from poetry_cuda.cudaenv.nvcc_notice import VARIABLE
from poetry_cuda.cudaenv.nvcc_notice import is_build
from poetry_cuda.cudaenv.path_nvcc import Nvcc
from poetry_cuda.cudaenv.path_nvcc import mismatch
from poetry_cuda.planning.plan import SystemRequirement
from tests.support.cuda_trees import make_toolkit
from tests.support.projects import TORCH
from tests.support.projects import make_project


if TYPE_CHECKING:
    from tests.support.cli import Cli
    from tests.support.cuda_trees import Machine


WARNING = "Warning: the nvcc on PATH ({path}) is CUDA 13.0.88, but the locked builds are CUDA 12.4"


def project_env(cuda: str | None, *needs: SystemRequirement) -> ProjectEnv:
    return ProjectEnv("linux", cuda, None, (), (), (), (), needs)


def flash_attn(spec: str) -> SystemRequirement:
    return SystemRequirement("flash-attn", "nvcc", spec, "builds its kernels", "install nvcc")


NVCC_13 = Nvcc("/usr/local/bin/nvcc", "13.0.88")


def test_another_major_than_the_locked_builds_is_a_mismatch() -> None:
    found = mismatch(NVCC_13, project_env("12.4"))
    assert found is not None
    assert "the locked builds are CUDA 12.4" in str(found.said)
    assert "install a CUDA 12.x toolkit" in str(found.fix)
    assert mismatch(Nvcc("/x/nvcc", "12.6.77"), project_env("12.4")) is None


def test_a_locked_nvcc_requirement_outside_its_range_is_a_mismatch() -> None:
    found = mismatch(Nvcc("/x/nvcc", "12.1.66"), project_env(None, flash_attn(">=12.3,<13")))
    assert found is not None
    assert "flash-attn needs nvcc >=12.3,<13" in str(found.said)
    assert mismatch(Nvcc("/x/nvcc", "12.4.131"), project_env(None, flash_attn(">=12.3"))) is None


def test_nothing_locked_for_cuda_or_no_nvcc_says_nothing() -> None:
    assert mismatch(NVCC_13, project_env(None)) is None
    assert mismatch(None, project_env("12.4")) is None


@pytest.fixture
def nvcc_13(tmp_path: Path) -> Path:
    """A CUDA 13.0 toolkit outside every searched folder, its nvcc wrapped in a bin on PATH."""
    root = make_toolkit(tmp_path / "elsewhere" / "cuda-13.0", "13.0.88", cudart=None, nvcc=True)
    wrappers = tmp_path / "wrappers"
    wrappers.mkdir()
    wrapper = wrappers / "nvcc"
    wrapper.write_text(f'#!/bin/sh\nexec {root}/bin/nvcc "$@"\n')
    wrapper.chmod(0o755)
    return wrappers


@pytest.mark.skipif(sys.platform != "linux", reason="fake trees are Linux ones")
def test_env_run_and_doctor_name_a_system_nvcc_of_another_major(
    cli: Cli, tmp_path: Path, nvcc_13: Path, machine: Machine
) -> None:
    torch = make_project(tmp_path / "torch-app", **TORCH)  # type: ignore[arg-type]
    only_118 = tmp_path / "only-11.8"
    only_118.mkdir()
    (only_118 / "cuda-11.8").symlink_to(machine.cuda118)
    path = f"{nvcc_13}:{cli.env['PATH']}"
    env = {"POETRY_CUDA_TOOLKITS": str(only_118), "CUDA_HOME": "", "PATH": path}
    warning = WARNING.format(path=nvcc_13 / "nvcc")
    shown = cli.run("env", cwd=torch, env=env)
    assert shown.code == 0, shown
    assert warning in shown.stderr
    assert "Fix: install a CUDA 12.x toolkit" in shown.stderr
    assert warning not in shown.stdout  # what a shell evaluates stays variables only
    ran = cli.run("run", "nvcc", "--version", cwd=torch, env=env)
    assert ran.code == 0, ran
    assert "release 13.0" in ran.stdout
    assert warning in ran.stderr
    doctor = cli.run("doctor", cwd=torch, env=env)
    lines = [line.strip() for line in doctor.stdout.splitlines()]
    assert any(line.startswith("warn") and warning[len("Warning: ") :] in line for line in lines)
    another_user = {"XDG_CACHE_HOME": str(tmp_path / "another-user")}  # not told yet
    zh = cli.run("env", cwd=torch, env={**env, **another_user, "LANG": "zh_CN.UTF-8"})
    assert f"警告：PATH 上的 nvcc（{nvcc_13 / 'nvcc'}）是 CUDA 13.0.88" in zh.stderr
    assert "解决办法：安装一个 CUDA 12.x 工具包" in zh.stderr


@pytest.mark.skipif(sys.platform != "linux", reason="fake trees are Linux ones")
def test_the_projects_toolkit_first_on_path_says_nothing(
    cli: Cli, tmp_path: Path, nvcc_13: Path, machine: Machine
) -> None:
    torch = make_project(tmp_path / "torch-app", **TORCH)  # type: ignore[arg-type]
    env = {
        "POETRY_CUDA_TOOLKITS": str(machine.usr_local),
        "PATH": f"{nvcc_13}:{cli.env['PATH']}",
    }
    for args in (("env",), ("run", "nvcc", "--version")):
        result = cli.run(*args, cwd=torch, env=env)
        assert result.code == 0, result
        assert "nvcc on PATH" not in result.stderr
    ran = cli.run("run", "nvcc", "--version", cwd=torch, env=env)
    assert "release 12.4" in ran.stdout


@pytest.mark.skipif(sys.platform != "linux", reason="fake trees are Linux ones")
def test_nvcc_mismatch_warning_is_shown_once_per_shell_and_before_a_build(
    cli: Cli, tmp_path: Path, nvcc_13: Path, machine: Machine
) -> None:
    """`env` at every prompt says it once: the shell that evaluated it keeps the mismatch's
    key (nothing is written); `run` says it before a build only."""
    torch = make_project(tmp_path / "torch-app", **TORCH)  # type: ignore[arg-type]
    other = make_project(tmp_path / "other-app", **TORCH)  # type: ignore[arg-type]
    only_118 = tmp_path / "only-11.8"
    only_118.mkdir()
    (only_118 / "cuda-11.8").symlink_to(machine.cuda118)
    env = {
        "POETRY_CUDA_TOOLKITS": str(only_118),
        "CUDA_HOME": "",
        "PATH": f"{nvcc_13}:{cli.env['PATH']}",
    }
    warning = WARNING.format(path=nvcc_13 / "nvcc")
    cache = Path(cli.env["XDG_CACHE_HOME"])
    cached_before = sorted(cache.rglob("*")) if cache.exists() else []
    first = cli.run("env", "--shell", "json", cwd=torch, env=env)
    assert first.code == 0, first
    assert warning in first.stderr
    told = json.loads(first.stdout)["set"][VARIABLE]
    again = cli.run("env", cwd=torch, env=env)
    assert warning in again.stderr  # a shell that did not evaluate the first is told again
    assert f"export {VARIABLE}='{told}'" in again.stdout
    evaluated = {**env, VARIABLE: told}
    for args in (("env",), ("env", "--shell", "json"), ("run", "python", "-c", "pass")):
        quiet = cli.run(*args, cwd=torch, env=evaluated)
        assert quiet.code == 0, quiet
        assert "nvcc on PATH" not in quiet.stderr, args  # told once is enough
    for build in (("nvcc", "--version"), ("python", "-m", "pip", "--version")):
        ran = cli.run("run", *build, cwd=torch, env=evaluated)
        assert ran.code == 0, ran
        assert warning in ran.stderr, build  # where the wrong nvcc would do its harm
    elsewhere = cli.run("env", cwd=other, env=evaluated)
    assert warning in elsewhere.stderr  # another project is another mismatch
    assert (sorted(cache.rglob("*")) if cache.exists() else []) == cached_before


@pytest.mark.parametrize(
    ("argv", "build"),
    [
        (["nvcc", "-c", "k.cu"], True),
        (["/usr/bin/cmake", ".."], True),
        (["ninja"], True),
        (["pip3.12", "install", "flash-attn"], True),
        (["uv", "pip", "install", "."], True),
        (["python3", "-m", "build"], True),
        (["python", "setup.py", "build_ext"], True),
        (["C:\\Python\\python.exe", "-m", "pip", "install", "."], True),
        (["gcc-12", "x.c"], True),
        (["python", "train.py"], False),
        (["python", "-m", "torch.utils.collect_env"], False),
        (["bash"], False),
    ],
)
def test_nvcc_mismatch_warning_knows_a_build_command(argv: list[str], build: bool) -> None:
    assert is_build(argv) is build
