"""`sync`: the locked project installed by real Poetry and real uv, the fitting extra of a
multi-variant project chosen for the (fake) GPU, and the same output from both entry points."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.doctor.installed import read_environment
from tests.support.example import torch_example
from tests.support.fake_nvml import RTX_4090
from tests.support.projects import write_cuda_lock
from tests.support.projects import write_extras_lock
from tests.support.projects import write_multi_variant_uv_project
from tests.support.projects import write_project


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli
    from tests.support.cli import Result
    from tests.support.example import Backend
    from tests.support.fake_nvml import FakeNvml


def installed_torch(project: Path) -> str | None:
    torch = read_environment(project / ".venv", ()).get("torch")
    return torch.version if torch else None


def both(cli: Cli, project: Path, env: dict[str, str], *args: str) -> Result:
    """`poetry-cuda sync ARGS` and `poetry cuda sync ARGS`, which must say the same."""
    script = cli.run("sync", *args, cwd=project, env=env)
    plugin = cli.run("cuda", "sync", *args, cwd=project, env=env, program="poetry")
    assert (script.code, script.stdout, script.stderr) == (
        plugin.code,
        plugin.stdout,
        plugin.stderr,
    )
    return script


def extra_finding(cli: Cli, project: Path, env: dict[str, str]) -> dict[str, str]:
    report = cli.run("doctor", "--json", cwd=project, env=env)
    rows = json.loads(report.stdout)["findings"]
    (row,) = [r for r in rows if r["area"] == "environment" and r["check"] == "extra"]
    return dict(row)


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["poetry", "uv"])
def test_a_single_variant_project_installs_its_lock(
    cli: Cli, tmp_path: Path, server: WorldServer, fake_nvml: FakeNvml, backend: Backend
) -> None:
    project = torch_example(tmp_path, server, backend)
    gpu = fake_nvml.scenario()
    made = cli.run("lock", cwd=project, env=gpu)
    assert made.code == 0, made.stderr

    dry = both(cli, project, gpu, "--dry-run")
    assert dry.code == 0, dry.stderr
    command = "poetry install" if backend == "poetry" else "uv sync --locked"
    assert f"Would run: {command}\n" in dry.stdout
    assert "Extra" not in dry.stdout
    assert installed_torch(project) is None  # a dry run installs nothing

    synced = cli.run("sync", cwd=project, env=gpu)
    assert synced.code == 0, synced.stdout + synced.stderr
    assert f"Running: {command}\n" in synced.stdout
    assert installed_torch(project) == "2.5.1+cu124"


@pytest.mark.slow
def test_the_package_managers_failure_is_exit_4_with_its_message(
    cli: Cli, tmp_path: Path, server: WorldServer, fake_nvml: FakeNvml
) -> None:
    project = torch_example(tmp_path, server, "uv")
    gpu = fake_nvml.scenario()
    assert cli.run("lock", cwd=project, env=gpu).code == 0
    # Both locks are fresh, but uv cannot make the environment: a file stands in its place.
    (project / ".venv").write_text("not an environment\n")
    failed = cli.run("sync", cwd=project, env=gpu)
    assert failed.code == 4, failed.stdout + failed.stderr
    assert "`uv sync --locked` failed" in failed.stderr
    assert "Project virtual environment directory" in failed.stderr  # uv's own message


@pytest.mark.slow
def test_a_multi_variant_project_gets_the_extra_that_fits_each_machine(
    cli: Cli, tmp_path: Path, server: WorldServer, fake_nvml: FakeNvml
) -> None:
    project = write_multi_variant_uv_project(
        tmp_path / "multi",
        pypi=server.pypi_url,
        cpu=server.pytorch_url("cpu"),
        cu124=server.pytorch_url("cu124"),
    )
    locked = cli.run("lock", cwd=project, program="uv")
    assert locked.code == 0, locked.stderr
    write_extras_lock(project)
    gpu = fake_nvml.scenario(driver="550.54.14", cuda=12040, gpus=[RTX_4090])
    laptop = fake_nvml.scenario(library=False)

    dry = both(cli, project, gpu, "--dry-run")
    assert dry.code == 0, dry.stderr
    assert "Extra: cu124 for torch (the highest-CUDA extra that runs here" in dry.stdout
    assert "sm_89 has SASS in cu124" in dry.stdout
    assert "Would run: uv sync --locked --extra cu124\n" in dry.stdout
    synced = cli.run("sync", cwd=project, env=gpu)
    assert synced.code == 0, synced.stdout + synced.stderr
    assert installed_torch(project) == "2.5.1+cu124"
    assert extra_finding(cli, project, gpu)["status"] == "ok"

    dry = both(cli, project, laptop, "--dry-run")
    assert "Extra: cpu for torch (this machine has no NVIDIA driver" in dry.stdout
    assert "Would run: uv sync --locked --extra cpu\n" in dry.stdout
    synced = cli.run("sync", cwd=project, env=laptop)
    assert synced.code == 0, synced.stdout + synced.stderr
    assert installed_torch(project) == "2.5.1+cpu"

    # The CPU build on the GPU machine: doctor fails it and names sync.
    finding = extra_finding(cli, project, gpu)
    assert finding["status"] == "fail"
    assert "cpu extra" in finding["message"]
    assert "sync" in finding["fix"] and "cu124" in finding["fix"]

    old = fake_nvml.scenario(driver="470.82.01", cuda=11040, gpus=[RTX_4090])
    refused = both(cli, project, old, "--dry-run")
    assert refused.code == 3
    assert "No extra of torch fits this machine" in refused.stderr
    assert "  cu124: cu124 needs" in refused.stderr
    assert "  cpu: cpu is a CPU build" in refused.stderr
    assert "allow-cpu-fallback" in refused.stderr


def test_without_cuda_lock_sync_says_to_lock_first(cli: Cli, tmp_path: Path) -> None:
    project = write_project(tmp_path / "bare", dependencies=["torch==2.5.1"])
    result = both(cli, project, {}, "--dry-run")
    assert result.code == 2
    assert "no cuda.lock" in result.stderr
    assert "poetry cuda lock" in result.stderr


def test_a_stale_cuda_lock_is_refused(cli: Cli, tmp_path: Path) -> None:
    project = write_project(tmp_path / "stale", dependencies=["torch==2.5.1"])
    write_cuda_lock(project)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + '\n[tool.poetry-cuda]\npolicy = "native"\n')
    result = both(cli, project, {}, "--dry-run")
    assert result.code == 2
    assert "cuda.lock is stale" in result.stderr
    assert "lock" in result.stderr
