"""`plan --json` through the console script: each package's Requires-Python and the
availability fact that decided it, with the project's requires-python read from disk."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.knowledge.packaged import load


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Cli


BLACKWELL_580 = {
    "schema": 1,
    "os": "linux",
    "machine": "x86_64",
    "driver": {"version": "580.95.05"},
    "gpus": [{"index": 0, "compute_capability": "12.0"}],
}


def _project(tmp_path: Path, requires_python: str) -> Path:
    project = tmp_path / "p"
    project.mkdir()
    (project / "pyproject.toml").write_text(
        "[project]\n"
        'name = "p"\n'
        'version = "0.1.0"\n'
        f'requires-python = "{requires_python}"\n'
        'dependencies = ["torch", "torchaudio"]\n'
    )
    (project / "host.json").write_text(json.dumps(BLACKWELL_580))
    return project


@pytest.mark.parametrize(
    ("requires_python", "torch", "passed"),
    [(">=3.11", "2.15.0+cu132", False), (">=3.10", "2.14.1+cu132", True)],
)
def test_plan_json_names_requires_python_and_availability(
    cli: Cli, tmp_path: Path, requires_python: str, torch: str, passed: bool
) -> None:
    project = _project(tmp_path, requires_python)
    result = cli.run("plan", "--target", "host.json", "--json", cwd=project)
    assert result.code == 0, result.stderr
    document = json.loads(result.stdout)
    chosen, audio = document["packages"]
    assert (chosen["name"], chosen["version"]) == ("torch", torch)
    series = ".".join(torch.split(".")[:2])
    torch_family = next(f for f in load().families if f.name == "torch")
    release = next(r for r in torch_family.releases if r.series == series)
    assert chosen["requires_python"] == release.requires_python
    availability = chosen["availability"]
    assert availability["fact"].startswith(f"torch {torch} is published for linux-x86_64")
    assert availability["source"] and availability["confidence"] in (
        "verified",
        "third-party",
        "uncertain",
    )
    assert audio["availability"]["fact"].startswith("torchaudio 2.11.1+cu132 requires torch>=2.11")
    said = any("torch 2.15.0 requires Python >=3.11" in w for w in document["warnings"])
    assert said == passed
