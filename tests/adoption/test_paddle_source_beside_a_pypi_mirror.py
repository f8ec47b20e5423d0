"""Issue 41 pattern 11 (Poetry): a Paddle cu118 source beside a PyPI mirror as the primary
source, `paddlepaddle-gpu = { version = "2.6.2", source = "paddlepaddle-cu118" }`. The plan
takes PyPI's 2.6.2 (a CUDA 11.8 build), so `lock` refused the authors' source ("the plan
takes it from PyPI"), and after `--adopt` the lock from the mirror was not taken for PyPI's
(exit 4). Paddle's own index of the variant is accepted as found, and a package locked from
the PyPI mirror is PyPI's upload."""

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
PINNED = 'paddlepaddle-gpu = { version = "2.6.2", source = "paddlepaddle-cu118" }'


def write(directory: Path, server: WorldServer, dependency: str) -> Path:
    project = directory / "project"
    project.mkdir()
    (project / "gpu.json").write_text(json.dumps(GPU_HOST))
    (project / "pyproject.toml").write_text(
        "[tool.poetry]\npackage-mode = false\n\n"
        f'[tool.poetry.dependencies]\npython = "~3.11"\n{dependency}\n\n'
        # The PyPI stand-in plays the mirror (pypi.tuna.tsinghua.edu.cn/simple).
        f'[[tool.poetry.source]]\nname = "tsinghua"\nurl = "{server.pypi_url}"\n'
        'priority = "primary"\n\n'
        '[[tool.poetry.source]]\nname = "paddlepaddle-cu118"\n'
        f'url = "{server.paddle_url("cu118")}/"\npriority = "explicit"\n\n'
        f'[tool.poetry-cuda.mirrors]\npaddle = "{server.paddle_mirror}"\n'
    )
    return project


def locked_source(project: Path) -> str:
    [paddle] = [
        p for p in read_toml(project / "poetry.lock")["package"] if p["name"] == "paddlepaddle-gpu"
    ]
    assert paddle["version"] == "2.6.2"
    return str(paddle["source"]["reference"])


def test_paddle_source_beside_a_pypi_mirror(cli: Cli, tmp_path: Path, server: WorldServer) -> None:
    project = write(tmp_path, server, PINNED)
    authors = (project / "pyproject.toml").read_text()
    walk(cli, project, "--target", "gpu.json")
    assert PINNED in (project / "pyproject.toml").read_text().splitlines()
    assert all(line in (project / "pyproject.toml").read_text() for line in authors.splitlines())
    assert locked_source(project) == "paddlepaddle-cu118"
    [record] = read_toml(project / "cuda.lock")["packages"]
    assert (record["variant"], record["source"]) == ("cu118", "paddlepaddle-cu118")


def test_a_package_locked_from_the_pypi_mirror_is_pypis(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    project = write(tmp_path, server, 'paddlepaddle-gpu = "2.6.2"')
    walk(cli, project, "--target", "gpu.json")
    assert locked_source(project) == "tsinghua"
