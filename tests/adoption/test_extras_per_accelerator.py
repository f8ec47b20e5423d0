"""Patterns 3 and 4 of the adoption issue: extras per accelerator that `[tool.uv] conflicts`
keeps apart, each taking torch from its own explicit index with `extra =` sources. Each
extra is a fork: the ROCm and XPU pins do not narrow the CUDA extra's plan, cuda.lock
records every extra with the targets it serves, and `sync` installs the extra that fits the
machine (the CUDA one on NVIDIA, ROCm on AMD, XPU on Intel, the CPU one elsewhere)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.doctor.extras import pick_extras
from poetry_cuda.files import read_toml
from poetry_cuda.host.profiles import profile_from_json
from poetry_cuda.knowledge.packaged import nvidia
from poetry_cuda.locking.lockfile import read as read_cuda_lock
from poetry_cuda.planning.targets import settle
from tests.support.fake_nvml import RTX_4090
from tests.support.forked import HOSTS
from tests.support.forked import files
from tests.support.forked import forked_project
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


def locked_forks(cli: Cli, project: Path, targets: tuple[str, ...]) -> dict[str, dict[str, object]]:
    """The adoption sequence with every host as a target; cuda.lock's forks by name."""
    before = files(project)
    dry = cli.run("lock", "--dry-run", *targets, cwd=project)
    assert dry.code == 0, dry.stdout + dry.stderr
    assert files(project) == before
    first = cli.run("lock", *targets, cwd=project)
    assert first.code == 0, first.stdout + first.stderr
    assert (project / "pyproject.toml").read_bytes() == before["pyproject.toml"]
    after = files(project)
    again = cli.run("lock", cwd=project)
    assert again.code == 0, again.stdout + again.stderr
    assert files(project) == after
    check = cli.run("lock", "--check", cwd=project)
    assert check.code == 0, check.stdout + check.stderr
    return {e["name"]: e for e in read_toml(project / "cuda.lock")["extras"]}


def picked(project: Path, host: str) -> str | None:
    """The extra `sync` installs on `host` (the rule it applies to the machine it detects)."""
    lock = read_cuda_lock(project / "cuda.lock")
    target, _ = settle(profile_from_json(HOSTS[host], host), nvidia())
    picks = pick_extras(lock.extras, target, nvidia(), policy=lock.policy, allow_cpu_fallback=False)
    return next((p.extra.name for p in picks if p.extra is not None), None)


def test_different_builds_per_extra(
    cli: Cli, gpu_server: WorldServer, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    project = forked_project(tmp_path / "project", gpu_server, DIFFERENT_BUILDS)
    forks = locked_forks(cli, project, write_hosts(project))
    shown = {name: (f["variant"], f["version"], f["serves"]) for name, f in forks.items()}
    assert shown == {
        "cuda": ("cu128", "2.8.0", ["gpu.json"]),
        "rocm": ("rocm6.4", "2.9.1", ["amd.json"]),
    }
    assert (picked(project, "gpu.json"), picked(project, "amd.json")) == ("cuda", "rocm")

    gpu = cli.run("sync", "--dry-run", cwd=project, env=fake_nvml.scenario(gpus=[RTX_4090]))
    assert gpu.code == 0, gpu.stdout + gpu.stderr
    assert "Would run: uv sync --locked --extra cuda\n" in gpu.stdout


def test_extras_per_accelerator(
    cli: Cli, gpu_server: WorldServer, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    project = forked_project(tmp_path / "project", gpu_server, EVERY_ACCELERATOR)
    forks = locked_forks(cli, project, write_hosts(project))
    shown = {name: (f["variant"], f["version"], f["serves"]) for name, f in forks.items()}
    assert shown == {
        "cpu": ("cpu", "2.9.1", ["cpu.json"]),
        "cuda": ("cu128", "2.9.1", ["gpu.json"]),  # not narrowed by the ROCm and XPU pins
        "rocm": ("rocm6.4", "2.9.1", ["amd.json"]),
        "xpu": ("xpu", "2.10.0", ["arc.json"]),
    }
    assert {host: picked(project, host) for host in HOSTS} == {
        "gpu.json": "cuda",
        "amd.json": "rocm",
        "arc.json": "xpu",
        "cpu.json": "cpu",
    }
    for env, extra in (
        (fake_nvml.scenario(gpus=[RTX_4090]), "cuda"),
        (fake_nvml.scenario(library=False), "cpu"),
    ):
        dry = cli.run("sync", "--dry-run", cwd=project, env=env)
        assert dry.code == 0, dry.stdout + dry.stderr
        assert f"Would run: uv sync --locked --extra {extra}\n" in dry.stdout
