"""Pattern 5 of the adoption issue: one PEP 735 dependency group per build, each taking torch
from its own index through `group =` sources, kept apart by `[tool.uv] conflicts`. Each group
is a fork: cuda.lock records it, and `sync` installs the group that fits the machine."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.support.fake_nvml import RTX_4090
from tests.support.forked import forked_project
from tests.support.forked import lock_as_found


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
cpu = ["torch==2.8.0"]

[tool.uv]
conflicts = [[{ group = "cu126" }, { group = "cu128" }, { group = "cpu" }]]

[tool.uv.sources]
torch = [
  { index = "pytorch-cu126", group = "cu126" },
  { index = "pytorch-cu128", group = "cu128" },
  { index = "pytorch-cpu", group = "cpu" },
]

[[tool.uv.index]]
name = "pytorch-cu126"
url = "{pytorch}/cu126"
explicit = true

[[tool.uv.index]]
name = "pytorch-cu128"
url = "{pytorch}/cu128"
explicit = true

[[tool.uv.index]]
name = "pytorch-cpu"
url = "{pytorch}/cpu"
explicit = true
"""


def test_dependency_groups_per_build(
    cli: Cli, server: WorldServer, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    project = forked_project(tmp_path / "project", server, PROJECT)
    forks = lock_as_found(cli, project)
    assert {name: (f["kind"], f["variant"], f["version"]) for name, f in forks.items()} == {
        "cu126": ("group", "cu126", "2.7.1"),
        "cu128": ("group", "cu128", "2.8.0"),
        "cpu": ("group", "cpu", "2.8.0"),
    }
    assert forks["cu128"]["serves"] == ["gpu.json"]

    gpu = cli.run("sync", "--dry-run", cwd=project, env=fake_nvml.scenario(gpus=[RTX_4090]))
    assert gpu.code == 0, gpu.stdout + gpu.stderr
    assert "Extra: cu128 for torch" in gpu.stdout
    assert "Would run: uv sync --locked --group cu128\n" in gpu.stdout
    laptop = cli.run("sync", "--dry-run", cwd=project, env=fake_nvml.scenario(library=False))
    assert laptop.code == 0, laptop.stdout + laptop.stderr
    assert "Would run: uv sync --locked --group cpu\n" in laptop.stdout
