"""Pattern 5 of the adoption issue: one PEP 735 dependency group per build, each taking torch
from its own index through `group =` sources, kept apart by `[tool.uv] conflicts`. Each group
is a fork: cuda.lock records it, and `sync` installs the group that fits the machine."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

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
PROJECT = """[project]
name = "groups-per-build"
version = "0.1.0"
requires-python = ">=3.11,<3.12"
dependencies = []

[dependency-groups]
cu126 = ["torch==2.7.1"]
cu128 = ["torch==2.8.0"]
"rocm6.3" = ["torch==2.9.1", "pytorch-triton-rocm"]
cpu = ["torch==2.8.0"]

[tool.uv]
conflicts = [
  [{ group = "cu126" }, { group = "cu128" }, { group = "rocm6.3" }, { group = "cpu" }],
]

[tool.uv.sources]
torch = [
  { index = "pytorch-cu126", group = "cu126" },
  { index = "pytorch-cu128", group = "cu128" },
  { index = "pytorch-rocm6.3", group = "rocm6.3" },
  { index = "pytorch-cpu", group = "cpu" },
]
pytorch-triton-rocm = [{ index = "pytorch-rocm6.3", group = "rocm6.3" }]

[[tool.uv.index]]
name = "pytorch-cu126"
url = "{pytorch}/cu126"
explicit = true

[[tool.uv.index]]
name = "pytorch-cu128"
url = "{pytorch}/cu128"
explicit = true

[[tool.uv.index]]
name = "pytorch-rocm6.3"
url = "{pytorch}/rocm6.3"
explicit = true

[[tool.uv.index]]
name = "pytorch-cpu"
url = "{pytorch}/cpu"
explicit = true
"""


def test_dependency_groups_per_build(
    cli: Cli, gpu_server: WorldServer, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    project = forked_project(tmp_path / "project", gpu_server, PROJECT)
    forks = lock_as_found(cli, project, write_hosts(project))
    shown = {
        name: (f["kind"], f["variant"], f["version"], f["serves"]) for name, f in forks.items()
    }
    assert shown == {
        "cu126": ("group", "cu126", "2.7.1", []),
        "cu128": ("group", "cu128", "2.8.0", ["gpu.json"]),
        "rocm6-3": ("group", "rocm6.3", "2.9.1", ["amd.json"]),  # the name, normalized
        "cpu": ("group", "cpu", "2.8.0", ["arc.json", "cpu.json"]),  # no XPU group
    }
    machines = {m: synced_fork(cli, project, machine_env(m, fake_nvml, tmp_path)) for m in MACHINES}
    assert machines == {
        "nvidia": "--group cu128",
        "amd": "--group rocm6-3",
        "intel": "--group cpu",
        "cpu": "--group cpu",
    }
    # An MI50's gfx906 is in the rocm6.3 build of torch 2.9.1 (not in rocm6.4's).
    assert synced_fork(cli, project, machine_env("mi50", fake_nvml, tmp_path)) == "--group rocm6-3"
