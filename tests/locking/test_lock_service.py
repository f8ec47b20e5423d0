"""The lock use case seen from a machine the lock was not made for, `plan` agreeing with
`lock`, and the re-lock after `poetry remove` (`locking.service`, `locking.recorded`).

A first lock on a laptop without a driver records a target without one. On a GPU server
afterwards, `plan` shows what `lock` writes (the CPU build, for the targets cuda.lock
records), and `plan`, `lock`, doctor and the install hook say that this machine's GPU is
left unused, naming `lock --target this`.
"""

from __future__ import annotations

import json

from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.cli.hooks import install_warnings
from poetry_cuda.files import read_toml
from poetry_cuda.knowledge.packaged import load
from tests.support.example import snapshot
from tests.support.example import torch_example


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli
    from tests.support.fake_nvml import FakeNvml


GPU_HOST = "hosts/workstation-rtx4090.json"


def _variants(project: Path) -> dict[str, str]:
    return {p["name"]: p["variant"] for p in read_toml(project / "cuda.lock")["packages"]}


def _without_targets(project: Path) -> Path:
    """The example without its `targets` setting: cuda.lock alone says what it serves."""
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('targets = ["hosts/*.json"]\n', ""))
    return project


@pytest.fixture
def laptop_locked(cli: Cli, tmp_path: Path, server: WorldServer, fake_nvml: FakeNvml) -> Path:
    """The example, first locked on a machine without an NVIDIA driver."""
    project = _without_targets(torch_example(tmp_path, server))
    first = cli.run("lock", cwd=project, env=fake_nvml.scenario(library=False))
    assert first.code == 0, first.stderr
    assert _variants(project)["torch"] == "cpu"
    return project


@pytest.mark.slow
def test_on_a_gpu_machine_plan_shows_what_lock_writes_and_both_warn(
    cli: Cli, laptop_locked: Path, fake_nvml: FakeNvml
) -> None:
    project = laptop_locked
    server = fake_nvml.scenario()  # driver 550.54.14, an RTX 4090
    plan = cli.run("plan", cwd=project, env=server)
    assert plan.code == 0, plan.stderr
    assert "Plan for the targets cuda.lock records" in plan.stdout
    assert "Plan for this machine" not in plan.stdout
    torch = next(line for line in plan.stdout.splitlines() if line.strip().startswith("torch "))
    assert "cpu" in torch.split()
    assert "will not use this machine's GPU" in plan.stdout
    assert "`poetry-cuda lock --target this`" in plan.stdout

    planned = json.loads(cli.run("plan", "--json", cwd=project, env=server).stdout)
    assert {p["name"]: p["variant"] for p in planned["packages"]}["torch"] == "cpu"
    assert any("--target this" in warning for warning in planned["warnings"])

    before = snapshot(project)
    lock = cli.run("lock", cwd=project, env=server)
    assert lock.code == 0, lock.stderr
    assert "will not use this machine's GPU" in lock.stdout
    assert "`poetry-cuda lock --target this`" in lock.stdout
    assert snapshot(project) == before  # what plan showed is what lock wrote

    here = cli.run("lock", "--target", "this", cwd=project, env=server)
    assert here.code == 0, here.stderr
    assert _variants(project)["torch"] == "cu124"
    assert "will not use this machine's GPU" not in here.stdout


@pytest.mark.slow
def test_doctor_and_the_install_hook_warn_of_the_unused_gpu(
    cli: Cli, laptop_locked: Path, fake_nvml: FakeNvml, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = laptop_locked
    server = fake_nvml.scenario()
    report = cli.run("doctor", "--json", cwd=project, env=server)
    rows: list[dict[str, Any]] = json.loads(report.stdout)["findings"]
    torch = next(r for r in rows if r["check"] == "variant" and r["subject"] == "torch")
    assert torch["status"] == "warn", torch
    assert "--target this" in torch["fix"]

    for name, value in server.items():
        monkeypatch.setenv(name, value)
    warnings = [str(w) for w in install_warnings(project, load())]
    assert any(
        "torch cpu from cuda.lock will not use this machine's GPU" in w
        and "`poetry cuda lock --target this`" in w
        for w in warnings
    ), warnings

    laptop = fake_nvml.scenario(library=False)  # no GPU to leave unused: nothing to say
    for name, value in laptop.items():
        monkeypatch.setenv(name, value)
    assert install_warnings(project, load()) == []


def test_an_adopt_dry_run_says_what_it_would_adopt(cli: Cli, tmp_path: Path) -> None:
    project = tmp_path / "hand"
    project.mkdir()
    (project / "pyproject.toml").write_text(
        """\
[tool.poetry]
package-mode = false

[tool.poetry.dependencies]
python = "~3.11"
torch = { version = "2.5.1+cu118", source = "torchcu118" }

[[tool.poetry.source]]
name = "torchcu118"
url = "https://download.pytorch.org/whl/cu118"
priority = "explicit"
"""
    )
    (project / "gpu.json").write_text(
        json.dumps(
            {
                "schema": 1,
                "os": "linux",
                "machine": "x86_64",
                "driver": {"version": "550.54.14"},
                "gpus": [{"index": 0, "name": "RTX 4090", "compute_capability": "8.9"}],
            }
        )
    )
    before = (project / "pyproject.toml").read_bytes()
    asked = ("--target", "gpu.json", "--cuda", "cu124")
    preview = cli.run("lock", "--adopt", "--dry-run", *asked, cwd=project)
    assert preview.code == 0, preview.stderr
    assert "Would adopt" in preview.stdout
    assert "Adopted" not in preview.stdout
    assert (project / "pyproject.toml").read_bytes() == before
    assert not (project / "cuda.lock").exists()


@pytest.mark.slow
def test_poetry_remove_locks_cuda_lock_again(
    cli: Cli, tmp_path: Path, server: WorldServer, fake_nvml: FakeNvml
) -> None:
    project = _without_targets(torch_example(tmp_path, server))
    laptop = fake_nvml.scenario(library=False)
    made = cli.run("lock", "--target", GPU_HOST, cwd=project, env=laptop)
    assert made.code == 0, made.stderr
    assert _variants(project) == {"torch": "cu124", "torchvision": "cu124"}

    removed = cli.run("remove", "torchvision", cwd=project, env=laptop, program="poetry")
    assert removed.code == 0, removed.stderr
    assert _variants(project) == {"torch": "cu124"}  # the team's target, kept
    check = cli.run("lock", "--check", cwd=project, env=laptop)
    assert check.code == 0, check.stderr
