"""Issue 41 pattern 12 (Poetry): a per-platform list, PyPI's torch on macOS and the cu121
build elsewhere, beside a cpu source nothing uses. The sources are named as poetry-cuda
names its own (`pytorch-cu121` at download.pytorch.org/whl/cu121 is both the authors' and
poetry-cuda's name; here the test world's mirror names): adopted as found, nothing added,
and the unused source left alone."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import read_toml
from poetry_cuda.knowledge import packaged
from tests.support.adoption_walk import GPU_HOST
from tests.support.adoption_walk import walk


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli


pytestmark = pytest.mark.slow
MAC_HOST = {"schema": 1, "os": "macos", "machine": "arm64"}


def test_poetry_per_platform_list(cli: Cli, tmp_path: Path, server: WorldServer) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "gpu.json").write_text(json.dumps(GPU_HOST))
    (project / "mac.json").write_text(json.dumps(MAC_HOST))
    [torch] = [f for f in packaged.load().families if f.name == "torch"]
    cu121, cpu = (server.pytorch_url(v) for v in ("cu121", "cpu"))
    gpu_source = torch.source_name("cu121", cu121, mirrored=True)
    cpu_source = torch.source_name("cpu", cpu, mirrored=True)
    authors = (
        '[tool.poetry]\npackage-mode = false\n\n[tool.poetry.dependencies]\npython = "~3.11"\n'
        "torch = [\n"
        '    { version = "2.5.1", source = "pypi-stand-in", markers = "sys_platform == \'darwin\'" },\n'
        f'    {{ version = "2.5.1+cu121", source = "{gpu_source}", '
        "markers = \"sys_platform != 'darwin'\" },\n]\n\n"
        f'[[tool.poetry.source]]\nname = "pypi-stand-in"\nurl = "{server.pypi_url}"\n'
        'priority = "primary"\n\n'
        f'[[tool.poetry.source]]\nname = "{gpu_source}"\nurl = "{cu121}"\npriority = "explicit"\n\n'
        f'[[tool.poetry.source]]\nname = "{cpu_source}"\nurl = "{cpu}"\npriority = "explicit"\n'
    )
    (project / "pyproject.toml").write_text(
        authors + f'\n[tool.poetry-cuda.mirrors]\npytorch = "{server.pytorch_mirror}"\n'
    )
    walk(cli, project, "--target", "gpu.json", "--target", "mac.json")

    assert (project / "pyproject.toml").read_text().startswith(authors)  # nothing changed
    entries = sorted(
        (str(p["version"]), p["source"]["reference"])
        for p in read_toml(project / "poetry.lock")["package"]
        if p["name"] == "torch"
    )
    assert entries == [("2.5.1", "pypi-stand-in"), ("2.5.1+cu121", gpu_source)]
    [record] = read_toml(project / "cuda.lock")["packages"]
    assert (record["variant"], record["source"]) == ("cu121", gpu_source)
