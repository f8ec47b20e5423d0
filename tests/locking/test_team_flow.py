"""One lock for the whole team, end to end with real Poetry and real uv.

A lock made for the GPU workstation is the lock of every machine: on a laptop or CI runner
without a driver (no NVML at all), `lock --check` passes, `lock` changes no byte and
`poetry add` keeps the CUDA builds; CPU builds come only when asked for; and a stale
poetry.lock or uv.lock is caught by `lock --check`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import read_toml
from tests.support.example import snapshot
from tests.support.example import torch_example


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli
    from tests.support.example import Backend
    from tests.support.fake_nvml import FakeNvml


pytestmark = pytest.mark.slow

GPU_HOST = "hosts/workstation-rtx4090.json"
MAC_HOST = "hosts/laptop-macos.json"


def _variants(project: Path) -> dict[str, str]:
    return {p["name"]: p["variant"] for p in read_toml(project / "cuda.lock")["packages"]}


def _team_project(tmp_path: Path, server: WorldServer, backend: Backend) -> Path:
    """The torch example without a `targets` setting: the lock alone says what it serves."""
    project = torch_example(tmp_path, server, backend)
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text()
    pyproject.write_text(text.replace('targets = ["hosts/*.json"]\n', ""))
    assert "targets =" not in pyproject.read_text()
    return project


@pytest.fixture
def laptop(fake_nvml: FakeNvml) -> dict[str, str]:
    """A machine without an NVIDIA driver, whatever machine runs the tests."""
    return fake_nvml.scenario(library=False)


@pytest.mark.parametrize("backend", ["poetry", "uv"])
def test_the_workstations_lock_is_the_laptops_lock(
    cli: Cli, tmp_path: Path, server: WorldServer, laptop: dict[str, str], backend: Backend
) -> None:
    project = _team_project(tmp_path, server, backend)
    made = cli.run("lock", "--target", GPU_HOST, "--target", MAC_HOST, cwd=project, env=laptop)
    assert made.code == 0, made.stderr
    assert _variants(project)["torch"] == "cu124"
    locked = snapshot(project)

    check = cli.run("lock", "--check", cwd=project, env=laptop)
    assert check.code == 0, check.stderr
    # The same host named by another spelling of its path is the same target.
    spelled = cli.run(
        "lock", "--check", "--target", str(project / GPU_HOST), "--target", MAC_HOST,
        cwd=project, env=laptop,
    )  # fmt: skip
    assert spelled.code == 0, spelled.stderr

    again = cli.run("lock", cwd=project, env=laptop)
    assert again.code == 0, again.stderr
    assert snapshot(project) == locked

    # A dependency added without locking again: the package manager's own lock is stale.
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            '"torchvision==0.20.1",', '"torchvision==0.20.1",\n    "numpy",'
        )
    )
    stale = cli.run("lock", "--check", cwd=project, env=laptop)
    assert stale.code == 1, stale.stdout + stale.stderr
    assert ("poetry.lock" if backend == "poetry" else "uv lock --check") in stale.stderr


def test_poetry_add_on_the_laptop_keeps_the_cuda_builds(
    cli: Cli, tmp_path: Path, server: WorldServer, laptop: dict[str, str]
) -> None:
    project = _team_project(tmp_path, server, "poetry")
    made = cli.run("lock", "--target", GPU_HOST, "--target", MAC_HOST, cwd=project, env=laptop)
    assert made.code == 0, made.stderr
    added = cli.run("add", "numpy", cwd=project, env=laptop, program="poetry")
    assert added.code == 0, added.stderr
    assert _variants(project) == {"torch": "cu124", "torchvision": "cu124"}
    assert "numpy" in (project / "pyproject.toml").read_text()
    assert cli.run("lock", "--check", cwd=project, env=laptop).code == 0


def test_cpu_builds_only_when_asked(
    cli: Cli, tmp_path: Path, server: WorldServer, laptop: dict[str, str]
) -> None:
    project = _team_project(tmp_path, server, "poetry")
    assert cli.run("lock", "--target", GPU_HOST, cwd=project, env=laptop).code == 0
    # A cuda.lock that records no targets (as one written by hand might): this machine is
    # planned for, and it has no driver.
    path = project / "cuda.lock"
    document = read_toml(path)
    text = path.read_text()
    start = text.index("[[targets]]")
    end = text.index("[[packages]]")
    path.write_text(text[:start] + text[end:])
    assert read_toml(path)["packages"] == document["packages"]
    before = snapshot(project)

    silent = cli.run("lock", cwd=project, env=laptop)
    assert silent.code == 3, silent.stderr
    assert "CPU" in silent.stderr and "--cuda cpu" in silent.stderr
    assert snapshot(project) == before

    asked = cli.run("lock", "--cuda", "cpu", cwd=project, env=laptop)
    assert asked.code == 0, asked.stderr
    assert _variants(project)["torch"] == "cpu"
    assert "serves no GPU" in asked.stderr + asked.stdout


def test_a_machine_without_a_driver_named_as_a_target_is_asked_for(
    cli: Cli, tmp_path: Path, server: WorldServer, laptop: dict[str, str]
) -> None:
    project = _team_project(tmp_path, server, "poetry")
    assert cli.run("lock", "--target", GPU_HOST, cwd=project, env=laptop).code == 0
    this = cli.run("lock", "--target", "this", cwd=project, env=laptop)
    assert this.code == 0, this.stderr
    assert _variants(project)["torch"] == "cpu"
    facts = read_toml(project / "cuda.lock")["targets"]
    assert [t["label"] for t in facts] == ["this machine"]
    assert "driver" not in facts[0]
