"""The plugin's hooks on Poetry's own commands, with real Poetry and the plugin installed."""

from __future__ import annotations

import subprocess

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import read_toml
from tests.support.cli import BIN
from tests.support.example import snapshot
from tests.support.example import torch_entries
from tests.support.projects import APP
from tests.support.projects import write_project


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli


pytestmark = pytest.mark.slow


def installed(project: Path, package: str) -> str:
    python = project / ".venv" / "bin" / "python"
    script = f"import importlib.metadata as m; print(m.version({package!r}))"
    run = subprocess.run([str(python), "-c", script], capture_output=True, text=True, check=True)
    return run.stdout.strip()


def test_add_puts_a_family_member_on_the_familys_source(cli: Cli, locked_example: Path) -> None:
    result = cli.run("add", "torchaudio==2.5.1", cwd=locked_example, program="poetry")
    assert result.code == 0, result.stderr
    # Installed from the CUDA index at once, not from PyPI and fixed later.
    assert installed(locked_example, "torchaudio") == "2.5.1+cu124"
    assert "poetry-cuda: torchaudio 2.5.1+cu124 from pytorch-cu124-mirror-" in result.stdout
    cuda_lock = read_toml(locked_example / "cuda.lock")
    audio = next(p for p in cuda_lock["packages"] if p["name"] == "torchaudio")
    torch = next(p for p in cuda_lock["packages"] if p["name"] == "torch")
    assert (audio["variant"], audio["source"]) == ("cu124", torch["source"])
    assert cli.run("lock", "--check", cwd=locked_example).code == 0


def test_a_failed_add_leaves_every_file_unchanged(cli: Cli, locked_example: Path) -> None:
    before = snapshot(locked_example)
    # torchaudio 2.4.1 pins torch 2.4.1, which the project's torch==2.5.1 excludes.
    result = cli.run("add", "torchaudio==2.4.1", cwd=locked_example, program="poetry")
    assert result.code != 0
    assert "version solving failed" in result.stdout + result.stderr
    assert snapshot(locked_example) == before


def test_plain_poetry_lock_keeps_the_cuda_builds(cli: Cli, locked_example: Path) -> None:
    before = [e for e in torch_entries(locked_example) if str(e[1]).startswith("pytorch-")]
    result = cli.run("lock", "--regenerate", cwd=locked_example, program="poetry")
    assert result.code == 0, result.stderr
    assert [e for e in torch_entries(locked_example) if str(e[1]).startswith("pytorch-")] == before


def test_install_warns_before_installing_a_variant_the_driver_cannot_run(
    cli: Cli, locked_example: Path
) -> None:
    # Driver 470 runs CUDA 11.4 at most; cu124 needs a 525+ driver for minor compatibility.
    env = {**cli.env, "POETRY_CUDA_DRIVER_VERSION": "470.239.06"}
    # One stream for both outputs, to see the order.
    run = subprocess.run(
        [str(BIN / "poetry"), "install"],
        cwd=locked_example,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stdout
    lines = run.stdout.splitlines()
    warning = next(i for i, line in enumerate(lines) if "poetry-cuda:" in line)
    assert "torch cu124 from cuda.lock will not use this machine's GPU" in lines[warning]
    assert "poetry cuda lock" in lines[warning]
    installer = next(i for i, line in enumerate(lines) if "Installing dependencies" in line)
    assert warning < installer


def test_sync_warns_when_cuda_lock_is_stale(cli: Cli, locked_example: Path) -> None:
    pyproject = locked_example / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("torchvision==0.20.1", "torchvision"))
    result = cli.run("sync", cwd=locked_example, program="poetry")
    assert "poetry-cuda: cuda.lock is stale" in result.stderr


def test_unmanaged_projects_hear_nothing(cli: Cli, tmp_path: Path, server: WorldServer) -> None:
    project = write_project(
        tmp_path / "plain",
        name="plain",
        requires_python=">=3.11,<3.12",
        dependencies=(),
        tool={"poetry": APP},
    )
    result = cli.run("install", cwd=project, program="poetry")
    assert result.code == 0, result.stderr
    assert "poetry-cuda" not in result.stdout + result.stderr
