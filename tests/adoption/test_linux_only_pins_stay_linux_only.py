"""Issue 41 pattern 14: the authors' `triton==3.2.0; sys_platform == 'linux'` from PyPI stays
theirs. It was planned as a companion of torch and moved to the CUDA index under the
build's `linux or win32` marker, with a managed group entry that asked for triton on Windows
too (where it has no wheels; Windows uses triton-windows). An unlabelled companion the
authors declare only for some environments, and pin to no index, is left as written."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import read_toml
from tests.support.adoption_walk import walk


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli


pytestmark = pytest.mark.slow
GPUS = [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}]
HOSTS = {
    "linux.json": {"os": "linux", "driver": {"version": "580.65.06"}},
    "windows.json": {"os": "windows", "driver": {"version": "580.88"}},
}
LINUX = "sys_platform == 'linux'"


def test_linux_only_pins_stay_linux_only(cli: Cli, tmp_path: Path, server: WorldServer) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for name, facts in HOSTS.items():
        profile = {"schema": 1, "machine": "x86_64", "gpus": GPUS, **facts}
        (project / name).write_text(json.dumps(profile))
    authors = (
        '[project]\nname = "tts"\nversion = "0.1.0"\nrequires-python = ">=3.11,<3.12"\n'
        f'dependencies = ["torch==2.6.0", "triton==3.2.0; {LINUX}"]\n\n'
        "[tool.uv]\npackage = false\n\n"
        f'[[tool.uv.index]]\nname = "pytorch-cu126"\nurl = "{server.pytorch_url("cu126")}"\n'
        "explicit = true\n\n[tool.uv.sources]\n"
        'torch = [{ index = "pytorch-cu126", marker = "sys_platform == \'linux\' or '
        "sys_platform == 'win32'\" }]\n"
    )
    (project / "pyproject.toml").write_text(
        authors + f'\n[tool.poetry-cuda.mirrors]\npytorch = "{server.pytorch_mirror}"\n\n'
        f'[[tool.uv.index]]\nname = "local-pypi"\nurl = "{server.pypi_url}"\ndefault = true\n'
    )
    walk(cli, project, "--target", "linux.json", "--target", "windows.json")

    pyproject = read_toml(project / "pyproject.toml")
    assert "triton" not in pyproject["tool"]["uv"]["sources"]
    assert "dependency-groups" not in pyproject  # nothing asks for triton on Windows
    locked = {p["name"]: p for p in read_toml(project / "uv.lock")["package"]}
    assert locked["triton"]["source"]["registry"] == server.pypi_url
    [root] = [p for p in locked.values() if p["name"] == "tts"]
    assert {"name": "triton", "marker": LINUX} in root["dependencies"]
    records = {p["name"] for p in read_toml(project / "cuda.lock")["packages"]}
    assert records == {"torch"}


def test_a_cuda_build_for_windows_only_says_so(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    """The authors' CUDA source is for Windows only (Linux takes PyPI's torch): cuda.lock's
    record says which environments the build is pinned for."""
    project = tmp_path / "project"
    project.mkdir()
    profile = {"schema": 1, "machine": "x86_64", "gpus": GPUS, **HOSTS["windows.json"]}
    (project / "windows.json").write_text(json.dumps(profile))
    (project / "pyproject.toml").write_text(
        '[project]\nname = "win"\nversion = "0.1.0"\nrequires-python = ">=3.11,<3.12"\n'
        'dependencies = ["torch==2.6.0"]\n\n[tool.uv]\npackage = false\n\n'
        f'[[tool.uv.index]]\nname = "pytorch-cu126"\nurl = "{server.pytorch_url("cu126")}"\n'
        "explicit = true\n\n[tool.uv.sources]\n"
        'torch = [{ index = "pytorch-cu126", marker = "sys_platform == \'win32\'" }]\n'
        f'\n[tool.poetry-cuda.mirrors]\npytorch = "{server.pytorch_mirror}"\n\n'
        f'[[tool.uv.index]]\nname = "local-pypi"\nurl = "{server.pypi_url}"\ndefault = true\n'
    )
    walk(cli, project, "--target", "windows.json")
    [torch] = read_toml(project / "cuda.lock")["packages"]
    assert (torch["variant"], torch["source"]) == ("cu126", "pytorch-cu126")
    assert "(for sys_platform == 'win32')" in torch["reason"]
