"""Pattern 2 of the adoption issue: extras that `[tool.uv] conflicts` keeps apart pin torch
to different exact versions from one CUDA index. Each extra is a fork: its pin does not
narrow the other's."""

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
name = "conflicting-extras"
version = "0.1.0"
requires-python = ">=3.11,<3.12"
dependencies = []

[project.optional-dependencies]
vllm = ["torchvision", "torch==2.7.1"]
sglang = ["torch==2.8.0"]

[tool.uv]
conflicts = [[{ extra = "vllm" }, { extra = "sglang" }]]

[tool.uv.sources]
torch = [{ index = "pytorch-cu128" }]
torchvision = [{ index = "pytorch-cu128" }]

[[tool.uv.index]]
name = "pytorch-cu128"
url = "{pytorch}/cu128"
explicit = true
"""


def test_conflicting_extras_with_different_exact_pins(
    cli: Cli, server: WorldServer, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    project = forked_project(tmp_path / "project", server, PROJECT)
    forks = lock_as_found(cli, project)
    assert {name: (f["kind"], f["variant"], f["version"]) for name, f in forks.items()} == {
        "vllm": ("extra", "cu128", "2.7.1"),
        "sglang": ("extra", "cu128", "2.8.0"),
    }
    assert "marker" not in forks["vllm"]

    # Both extras install the same build: which one is the user's to say, not the machine's.
    for host in (fake_nvml.scenario(gpus=[RTX_4090]), fake_nvml.scenario(library=False)):
        dry = cli.run("sync", "--dry-run", cwd=project, env=host)
        assert dry.code == 0, dry.stdout + dry.stderr
        assert "Would run: uv sync --locked\n" in dry.stdout
