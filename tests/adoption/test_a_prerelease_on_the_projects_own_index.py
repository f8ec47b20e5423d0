"""Issue 41 pattern 10: an exact pre-release on the project's own recognised index
(`paddlepaddle-gpu==3.0.0b2`, an explicit Paddle cu118 index and its source) was refused
with exit 3, "a pre-release the knowledge base does not list". A pin the project serves from
its own recognised index is used as it is, with a warning; one with no such index is still
refused."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import read_toml
from tests.support.adoption_walk import GPU_HOST
from tests.support.adoption_walk import walk


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli


pytestmark = pytest.mark.slow


def write(project: Path, server: WorldServer, authors: str) -> None:
    project.mkdir()
    (project / "gpu.json").write_text(json.dumps(GPU_HOST))
    (project / "pyproject.toml").write_text(
        '[project]\nname = "paddle-beta"\nversion = "0.1.0"\nrequires-python = ">=3.11,<3.12"\n'
        'dependencies = ["paddlepaddle-gpu==3.0.0b2"]\n\n'
        "[tool.uv]\npackage = false\n\n" + authors + "\n[tool.poetry-cuda.mirrors]\n"
        f'paddle = "{server.paddle_mirror}"\n\n'
        f'[[tool.uv.index]]\nname = "local-pypi"\nurl = "{server.pypi_url}"\ndefault = true\n'
    )


def test_a_prerelease_on_the_projects_own_index(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    project = tmp_path / "project"
    index = server.paddle_url("cu118")
    write(
        project,
        server,
        f'[[tool.uv.index]]\nname = "paddle-cu118"\nurl = "{index}"\nexplicit = true\n\n'
        '[tool.uv.sources]\npaddlepaddle-gpu = { index = "paddle-cu118" }\n',
    )
    plan = cli.run("plan", "--target", "gpu.json", "--json", cwd=project)
    assert plan.code == 0, plan.stderr
    document = json.loads(plan.stdout)
    [lead] = document["packages"]
    assert (lead["variant"], lead["source"]["name"]) == ("cu118", "paddle-cu118"), lead
    [warning] = [w for w in document["warnings"] if "3.0.0b2" in w]
    assert "a pre-release the knowledge base does not list" in warning

    walk(cli, project, "--target", "gpu.json")
    locked = {p["name"]: p for p in read_toml(project / "uv.lock")["package"]}
    assert locked["paddlepaddle-gpu"]["version"] == "3.0.0b2"
    assert locked["paddlepaddle-gpu"]["source"]["registry"] == index
    record = read_toml(project / "cuda.lock")["packages"][0]
    assert (record["name"], record["variant"]) == ("paddlepaddle-gpu", "cu118")


def test_a_prerelease_on_no_index_of_the_projects_is_still_refused(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    project = tmp_path / "project"
    write(project, server, "")
    refused = cli.run("plan", "--target", "gpu.json", cwd=project)
    assert refused.code == 3, refused.stdout + refused.stderr
    assert "a pre-release the knowledge base does not list" in refused.stderr
