"""Which targets a plan is made for: one precedence, and targets compared by their facts.

`--target` wins over `targets` in [tool.poetry-cuda], which wins over POETRY_CUDA_TARGET;
this machine is detected only when none of them names a target.
"""

from __future__ import annotations

import json
import shutil

from typing import TYPE_CHECKING

import pytest

from tests.support.example import EXAMPLES
from tests.support.example import configure


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli


MACOS = "hosts/laptop-macos.json"
RTX = "hosts/workstation-rtx4090.json"


@pytest.fixture
def example(tmp_path: Path) -> Path:
    project = tmp_path / "torch_project"
    shutil.copytree(EXAMPLES / "torch_project", project)
    return project


def set_targets(project: Path, line: str) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('targets = ["hosts/*.json"]', line))


def planned_targets(cli: Cli, project: Path, *args: str, env: dict[str, str]) -> list[str]:
    result = cli.run("plan", "--json", *args, cwd=project, env=env)
    assert result.code == 0, result
    targets: list[str] = json.loads(result.stdout)["targets"]
    return targets


@pytest.mark.parametrize(
    ("option", "configured", "variable", "expected"),
    [
        (RTX, f'targets = ["{MACOS}"]', MACOS, "option"),  # --target wins over both
        (None, f'targets = ["{RTX}"]', MACOS, "configured"),  # then `targets`
        (None, "", MACOS, "variable"),  # then POETRY_CUDA_TARGET
        (None, "", None, "detected"),  # then this machine
    ],
)
def test_precedence(
    cli: Cli,
    example: Path,
    option: str | None,
    configured: str,
    variable: str | None,
    expected: str,
) -> None:
    set_targets(example, configured)
    args = ("--target", option) if option else ()
    env = {"POETRY_CUDA_TARGET": str(example / variable)} if variable else {}
    labels = {
        "option": RTX,
        "configured": RTX,
        "variable": str(example / MACOS),
        "detected": "this machine",
    }
    assert planned_targets(cli, example, *args, env=env) == [labels[expected]]


def test_the_variable_does_not_override_configured_targets(cli: Cli, example: Path) -> None:
    """The mistake this guards against: a user's exported variable silently replacing the
    committed `targets` (a GPU server planned as a laptop without a driver)."""
    set_targets(example, f'targets = ["{RTX}"]')
    env = {"POETRY_CUDA_TARGET": str(example / MACOS)}
    result = cli.run("plan", "--json", cwd=example, env=env)
    assert result.code == 0, result
    assert json.loads(result.stdout)["packages"][0]["variant"] == "cu124"


COPIES = 10_000


@pytest.mark.timeout(240)
def test_ten_thousand_identical_profiles_are_one_target(cli: Cli, example: Path) -> None:
    profile = (example / RTX).read_text()
    hosts = example / "hosts"
    shutil.rmtree(hosts)
    hosts.mkdir()
    for i in range(COPIES):
        # The same facts, spelled differently: key order and the optional driver.cuda.
        data = json.loads(profile)
        if i % 2:
            data["driver"].pop("cuda")
            data = dict(reversed(data.items()))
        (hosts / f"node-{i:05}.json").write_text(json.dumps(data))
    (hosts / "other.json").write_text(json.dumps({**json.loads(profile), "gpus": []}))
    result = cli.run("plan", "--json", cwd=example)
    assert result.code == 0, result
    assert json.loads(result.stdout)["targets"] == ["hosts/node-00000.json", "hosts/other.json"]
    readable = cli.run("plan", cwd=example)
    assert readable.stdout.splitlines()[0] == (
        "Plan for hosts/node-00000.json, hosts/other.json (policy newest)"
    )


@pytest.mark.slow
def test_identical_targets_are_one_in_cuda_lock(
    cli: Cli, example: Path, server: WorldServer
) -> None:
    configure(example, server)
    for i in range(50):
        shutil.copy(example / RTX, example / "hosts" / f"copy-{i:02}.json")
    result = cli.run("lock", cwd=example)
    assert result.code == 0, result
    lock = (example / "cuda.lock").read_text()
    assert lock.count("[[targets]]") == 2  # the macOS laptop and one RTX 4090 workstation
