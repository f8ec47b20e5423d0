"""Patterns 3 and 4 of the adoption issue: extras per accelerator that `[tool.uv] conflicts`
keeps apart, each taking torch from its own explicit index with `extra =` sources. Each
extra is a fork: the ROCm and XPU pins do not narrow the CUDA extra's plan, cuda.lock
records every extra with the targets it serves, and `sync` installs the extra that fits the
machine (the CUDA one on NVIDIA, ROCm on AMD, XPU on Intel, the CPU one elsewhere)."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

import pytest

from tests.support.forked import HOSTS
from tests.support.forked import MACHINES
from tests.support.forked import forked_project
from tests.support.forked import lock_as_found
from tests.support.forked import machine_env
from tests.support.forked import synced_fork
from tests.support.forked import write_hosts


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli
    from tests.support.fake_nvml import FakeNvml


pytestmark = pytest.mark.slow
INDEXES = """
[[tool.uv.index]]
name = "pytorch-cpu"
url = "{pytorch}/cpu"
explicit = true

[[tool.uv.index]]
name = "pytorch-cu128"
url = "{pytorch}/cu128"
explicit = true

[[tool.uv.index]]
name = "pytorch-rocm"
url = "{pytorch}/rocm6.4"
explicit = true

[[tool.uv.index]]
name = "pytorch-xpu"
url = "{pytorch}/xpu"
explicit = true
"""
DIFFERENT_BUILDS = (
    """[project]
name = "builds-per-extra"
version = "0.1.0"
requires-python = ">=3.11,<3.12"
dependencies = []

[project.optional-dependencies]
cuda = ["torch==2.8.0+cu128"]
rocm = ["torch==2.9.1+rocm6.4", "pytorch-triton-rocm"]

[tool.uv]
conflicts = [[{ extra = "cuda" }, { extra = "rocm" }]]

[tool.uv.sources]
torch = [
  { index = "pytorch-cu128", extra = "cuda" },
  { index = "pytorch-rocm", extra = "rocm" },
]
pytorch-triton-rocm = [{ index = "pytorch-rocm", extra = "rocm" }]
"""
    + INDEXES
)
EVERY_ACCELERATOR = (
    """[project]
name = "extras-per-accelerator"
version = "0.1.0"
requires-python = ">=3.11,<3.12"
dependencies = []

[project.optional-dependencies]
cpu = ["torch==2.9.1"]
cuda = ["torch==2.9.1"]
rocm = ["torch==2.9.1+rocm6.4; sys_platform == 'linux'", "pytorch-triton-rocm; sys_platform == 'linux'"]
xpu = ["torch==2.10.0+xpu; sys_platform == 'linux'", "triton-xpu; sys_platform == 'linux'"]

[tool.uv]
conflicts = [[{ extra = "cpu" }, { extra = "cuda" }, { extra = "rocm" }, { extra = "xpu" }]]

[tool.uv.sources]
torch = [
  { index = "pytorch-cpu", extra = "cpu" },
  { index = "pytorch-cu128", extra = "cuda" },
  { index = "pytorch-rocm", extra = "rocm" },
  { index = "pytorch-xpu", extra = "xpu" },
]
pytorch-triton-rocm = [{ index = "pytorch-rocm", extra = "rocm" }]
triton-xpu = [{ index = "pytorch-xpu", extra = "xpu" }]
"""
    + INDEXES
)


def test_different_builds_per_extra(
    cli: Cli, gpu_server: WorldServer, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    project = forked_project(tmp_path / "project", gpu_server, DIFFERENT_BUILDS)
    forks = lock_as_found(cli, project, write_hosts(project))
    shown = {name: (f["variant"], f["version"], f["serves"]) for name, f in forks.items()}
    assert shown == {
        "cuda": ("cu128", "2.8.0", ["gpu.json"]),
        "rocm": ("rocm6.4", "2.9.1", ["amd.json"]),
    }
    machines = {
        m: synced_fork(cli, project, machine_env(m, fake_nvml, tmp_path)) for m in MACHINES[:2]
    }
    assert machines == {"nvidia": "--extra cuda", "amd": "--extra rocm"}
    for machine in MACHINES[2:]:  # an Intel GPU or none: no extra is a build for it
        dry = cli.run(
            "sync", "--dry-run", cwd=project, env=machine_env(machine, fake_nvml, tmp_path)
        )
        assert dry.code == 3, dry.stdout + dry.stderr
        assert "No extra of torch fits this machine" in dry.stderr
        assert "add a cpu extra to the project and lock again" in dry.stderr


def test_extras_per_accelerator(
    cli: Cli, gpu_server: WorldServer, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    project = forked_project(tmp_path / "project", gpu_server, EVERY_ACCELERATOR)
    forks = lock_as_found(cli, project, write_hosts(project))
    shown = {name: (f["variant"], f["version"], f["serves"]) for name, f in forks.items()}
    assert shown == {
        "cpu": ("cpu", "2.9.1", ["cpu.json"]),
        "cuda": ("cu128", "2.9.1", ["gpu.json"]),  # not narrowed by the ROCm and XPU pins
        "rocm": ("rocm6.4", "2.9.1", ["amd.json"]),
        "xpu": ("xpu", "2.10.0", ["arc.json"]),
    }
    plan = cli.run("plan", *write_hosts(project), cwd=project)
    assert plan.code == 0, plan.stdout + plan.stderr
    assert "Forks (one per extra, group or platform marker" in plan.stdout
    assert "  rocm  torch 2.9.1 rocm6.4 (extra) for amd.json\n" in plan.stdout
    assert "  xpu   torch 2.10.0 xpu (extra) for arc.json\n" in plan.stdout
    assert "needs ROCm builds" not in plan.stdout  # the rocm extra serves it
    assert "needs XPU builds" not in plan.stdout
    zh = cli.run("plan", *write_hosts(project), cwd=project, env={"LC_ALL": "zh_CN.UTF-8"})
    assert "分支（项目声明的每个 extra、依赖组或平台标记各一个" in zh.stdout
    assert "  cuda  torch 2.9.1 cu128 (可选依赖 extra)，用于 gpu.json\n" in zh.stdout
    machines = {m: synced_fork(cli, project, machine_env(m, fake_nvml, tmp_path)) for m in MACHINES}
    assert machines == {
        "nvidia": "--extra cuda",
        "amd": "--extra rocm",
        "intel": "--extra xpu",
        "cpu": "--extra cpu",
    }


def test_a_rocm_extra_not_built_for_the_gpu(
    cli: Cli, gpu_server: WorldServer, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    """The rocm extra's torch 2.9.1+rocm6.4 is not built for an MI50's gfx906 (rocm6.3's
    is): `sync` says so (exit 3) instead of installing it, or the CPU build, silently."""
    project = forked_project(tmp_path / "project", gpu_server, EVERY_ACCELERATOR)
    lock_as_found(cli, project, write_hosts(project))
    # The plan judges the fork on such a target by the same rule.
    host = {
        **HOSTS["amd.json"],
        "gpus": [{"name": "AMD Instinct MI50", "vendor": "amd", "gfx": "gfx906"}],
    }
    (project / "mi50.json").write_text(json.dumps(host))
    plan = cli.run("plan", "--target", "mi50.json", cwd=project)
    assert plan.code == 0, plan.stdout + plan.stderr
    assert "torch: no extra of the project runs on mi50.json" in plan.stdout + plan.stderr
    assert "2.9.1+rocm6.4 is not built for gfx906; 2.9.1+rocm6.3 is" in plan.stdout + plan.stderr
    mi50 = machine_env("mi50", fake_nvml, tmp_path)
    dry = cli.run("sync", "--dry-run", cwd=project, env=mi50)
    assert dry.code == 3, dry.stdout + dry.stderr
    assert "torch 2.9.1+rocm6.4 does not serve the GPUs here: AMD GPU (gfx906)" in dry.stderr
    assert "2.9.1+rocm6.4 is not built for gfx906; 2.9.1+rocm6.3 is" in dry.stderr
    assert "add an extra or group whose torch is 2.9.1+rocm6.3" in dry.stderr
    assert "Would run" not in dry.stdout

    with (project / "pyproject.toml").open("a") as pyproject:
        pyproject.write("\n[tool.poetry-cuda]\nallow-cpu-fallback = true\n")
    relocked = cli.run("lock", cwd=project)
    assert relocked.code == 0, relocked.stdout + relocked.stderr
    assert synced_fork(cli, project, mi50) == "--extra cpu"


def test_an_intel_gpu_older_than_arc_gets_the_cpu_extra(
    cli: Cli, gpu_server: WorldServer, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    """A UHD Graphics 770 runs no XPU build (Arc's device IP or newer do), as a plan for it
    says: `sync` installs the cpu extra there, not the xpu one."""
    project = forked_project(tmp_path / "project", gpu_server, EVERY_ACCELERATOR)
    lock_as_found(cli, project, write_hosts(project))
    igpu = machine_env("uhd770", fake_nvml, tmp_path)
    assert synced_fork(cli, project, igpu) == "--extra cpu"
