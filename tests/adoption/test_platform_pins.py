"""Pattern 1 of the adoption issue: one exact torch pin per platform, with
`required-environments`. Each platform is a fork planned from its own pins alone: the Windows
pin does not narrow Linux's, and plain `uv lock`'s resolution is what the lock records."""

from __future__ import annotations

import json

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
WINDOWS = 'sys_platform == "win32"'
LINUX = 'sys_platform == "linux"'
MACOS = 'sys_platform == "darwin"'
PROJECT = """[project]
name = "platform-pins"
version = "0.1.0"
requires-python = ">=3.11,<3.12"
dependencies = [
  "torch==2.7.1+cu128; sys_platform == 'win32'",
  "torch==2.8.0+cu128; sys_platform == 'linux'",
  "torch>=2.9.1; sys_platform == 'darwin'",
]

[tool.uv]
required-environments = [
  "sys_platform == 'linux' and platform_machine == 'x86_64'",
  "sys_platform == 'win32'",
]

[tool.uv.sources]
torch = [{ index = "pytorch-cu128", marker = "sys_platform != 'darwin'" }]

[[tool.uv.index]]
name = "pytorch-cu128"
url = "{pytorch}/cu128"
explicit = true
"""


def test_per_platform_exact_pins(
    cli: Cli, server: WorldServer, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    project = forked_project(tmp_path / "project", server, PROJECT)
    text = cli.run("plan", "--target", "gpu.json", cwd=project)
    assert text.code == 0, text.stdout + text.stderr
    shown = [
        line.split("  ")[1:] for line in text.stdout.splitlines() if "(platform marker)" in line
    ]
    assert [[part.strip() for part in fork if part] for fork in shown] == [
        [WINDOWS, "torch 2.7.1 cu128 (platform marker)"],
        [LINUX, "torch 2.8.0 cu128 (platform marker) for gpu.json"],
        [MACOS, "torch 2.15.0 cpu (platform marker)"],
    ]
    plan = cli.run("plan", "--target", "gpu.json", "--json", cwd=project)
    assert plan.code == 0, plan.stdout + plan.stderr

    forks = lock_as_found(cli, project)
    assert set(forks) == {WINDOWS, LINUX, MACOS}
    assert {name: (f["kind"], f["marker"]) for name, f in forks.items()} == {
        name: ("marker", name) for name in forks
    }
    assert (forks[LINUX]["variant"], forks[LINUX]["version"]) == ("cu128", "2.8.0")
    assert (forks[WINDOWS]["variant"], forks[WINDOWS]["version"]) == ("cu128", "2.7.1")
    assert forks[MACOS]["variant"] == "cpu"
    assert forks[LINUX]["serves"] == ["gpu.json"]
    assert forks[WINDOWS]["serves"] == []

    # The platform picks the fork, as uv's markers do: sync names no extra, on any host.
    gpu = fake_nvml.scenario(gpus=[RTX_4090])
    for host in (gpu, fake_nvml.scenario(library=False)):
        dry = cli.run("sync", "--dry-run", cwd=project, env=host)
        assert dry.code == 0, dry.stdout + dry.stderr
        assert f"Platform fork: {LINUX} for torch (its marker ({LINUX}) takes" in dry.stdout
        assert "Would run: uv sync --locked\n" in dry.stdout
        assert "Extra" not in dry.stdout

    # doctor checks the installed build against the fork of this platform.
    synced = cli.run("sync", cwd=project, env=gpu)
    assert synced.code == 0, synced.stdout + synced.stderr
    report = cli.run("doctor", "--json", cwd=project, env=gpu)
    rows = json.loads(report.stdout)["findings"]
    (row,) = [r for r in rows if r["area"] == "environment" and r["check"] == "extra"]
    assert row["status"] == "ok", row
    assert row["message"] == f"the platform fork {LINUX} is installed (torch 2.8.0+cu128)"
