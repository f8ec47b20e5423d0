"""Issue 41 pattern 8: an index the authors wrote without a name (`[tool.uv] extra-index-url`,
or a `[[tool.uv.index]]` with no `name`) at the URL the plan chooses. No source can name it,
so `lock` wrote `torch = [{ index = "None" }]` (or the URL as the name), which uv rejects. It
stays as the authors wrote it, and poetry-cuda adds its own named index beside it."""

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


@pytest.mark.parametrize(
    ("variant", "torch", "written"),
    [
        ("cu128", "2.8.0", 'extra-index-url = ["{url}"]\n'),
        ("cu124", "2.5.1", '\n[[tool.uv.index]]\nurl = "{url}"\n'),
    ],
    ids=["extra-index-url", "unnamed-index"],
)
def test_an_unnamed_index(
    cli: Cli, tmp_path: Path, server: WorldServer, variant: str, torch: str, written: str
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "gpu.json").write_text(json.dumps(GPU_HOST))
    url = server.pytorch_url(variant)
    authors = (
        '[project]\nname = "unnamed"\nversion = "0.1.0"\nrequires-python = ">=3.11,<3.12"\n'
        f'dependencies = ["torch=={torch}"]\n\n'
        "[tool.uv]\npackage = false\n" + written.replace("{url}", url)
    )
    (project / "pyproject.toml").write_text(
        authors + f'\n[tool.poetry-cuda.mirrors]\npytorch = "{server.pytorch_mirror}"\n\n'
        f'[[tool.uv.index]]\nname = "local-pypi"\nurl = "{server.pypi_url}"\ndefault = true\n'
    )
    walk(cli, project, "--target", "gpu.json")

    lines = (project / "pyproject.toml").read_text().splitlines()
    assert all(line in lines for line in authors.splitlines())  # as the authors wrote it
    uv = read_toml(project / "pyproject.toml")["tool"]["uv"]
    [source] = uv["sources"]["torch"]
    [named] = [i for i in uv["index"] if i.get("name") == source["index"]]
    assert (named["url"], named["explicit"]) == (url, True)
    locked = {p["name"]: p for p in read_toml(project / "uv.lock")["package"]}
    assert locked["torch"]["version"] == f"{torch}+{variant}"
    assert locked["torch"]["source"]["registry"] == url
