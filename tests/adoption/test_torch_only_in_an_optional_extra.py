"""Issue 41 pattern 7: torch only in an optional extra (a test extra), another framework (jax;
numpy stands in) in the main dependencies. uv: poetry-cuda's source for the optional torch
is in no dependency group, so a later `lock` took it for the authors' and dropped the index
it names: uv then refused the source ("references an undeclared index"). It is poetry-cuda's
own, known by its shape and its index, and every later lock keeps both. Poetry: the
optional managed group, unbounded, locked a second, newer torch beside the extra's (a lock
refused as installing torch twice)."""

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


@pytest.mark.parametrize("backend", ["uv", "poetry"])
def test_torch_only_in_an_optional_extra(
    cli: Cli, tmp_path: Path, server: WorldServer, backend: str
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "gpu.json").write_text(json.dumps(GPU_HOST))
    if backend == "uv":
        manager = "[tool.uv]\npackage = false\n\n"
        pypi = (
            f'[[tool.uv.index]]\nname = "local-pypi"\nurl = "{server.pypi_url}"\ndefault = true\n'
        )
    else:
        manager = "[tool.poetry]\npackage-mode = false\n\n"
        pypi = (
            f'[[tool.poetry.source]]\nname = "local-pypi"\nurl = "{server.pypi_url}"\n'
            'priority = "primary"\n'
        )
    (project / "pyproject.toml").write_text(
        '[project]\nname = "jax-project"\nversion = "0.1.0"\nrequires-python = ">=3.11,<3.12"\n'
        'dependencies = ["numpy"]\n\n'
        '[project.optional-dependencies]\ntest = ["torch==2.5.1"]\n\n'
        + manager
        + f'[tool.poetry-cuda.mirrors]\npytorch = "{server.pytorch_mirror}"\n\n'
        + pypi
    )
    walk(cli, project, "--target", "gpu.json")

    pyproject = read_toml(project / "pyproject.toml")
    if backend == "uv":
        uv = pyproject["tool"]["uv"]
        [source] = uv["sources"]["torch"]
        assert source["index"] in {index["name"] for index in uv["index"]}
        assert "dependency-groups" not in pyproject
        locked = {p["name"]: p["version"] for p in read_toml(project / "uv.lock")["package"]}
        assert locked["torch"] == "2.5.1+cu124"
    else:
        # Poetry locks the optional managed group apart from the extra: pinned to the
        # planned version, it locks one torch, not a newer one beside it.
        group = pyproject["tool"]["poetry"]["group"]["poetry-cuda"]
        assert group["optional"] is True
        assert group["dependencies"]["torch"]["version"] == "==2.5.1+cu124"
        torches = [
            str(p["version"])
            for p in read_toml(project / "poetry.lock")["package"]
            if p["name"] == "torch"
        ]
        assert set(torches) <= {"2.5.1", "2.5.1+cu124"}, torches
    record = next(p for p in read_toml(project / "cuda.lock")["packages"] if p["name"] == "torch")
    assert record["variant"] == "cu124"
