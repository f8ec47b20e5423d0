"""An index poetry-cuda adds serves only the packages pinned to it, with real Poetry and real uv.

The December 2022 `torchtriton` compromise worked because PyTorch's nightly index was searched for
every package: a name registered there shadowed PyPI's. Here the cu124 index serves a higher
`filelock` (a dependency of torch) and a package no other index has; the lock must take `filelock`
from the PyPI stand-in, never ask the CUDA index for it, and fail on the CUDA-only package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import read_toml
from tests.support.example import torch_example
from tests.support.hostile import CUDA_ONLY
from tests.support.hostile import HOSTILE_FILELOCK
from tests.support.hostile_projects import BACKENDS
from tests.support.hostile_projects import UV
from tests.support.hostile_projects import lock
from tests.support.hostile_projects import snapshot


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli
    from tests.support.example import Backend


pytestmark = pytest.mark.slow


def _add_dependency(project: Path, requirement: str) -> None:
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text()
    pyproject.write_text(text.replace('    "torchvision==0.20.1",\n', f'    "{requirement}",\n'))


def _managed_names(project: Path) -> set[str]:
    """The packages cuda.lock says were pinned to a CUDA index."""
    return {
        p["name"] for p in read_toml(project / "cuda.lock")["packages"] if p["variant"] != "cpu"
    }


def test_poetry_sources_are_explicit_and_serve_only_their_packages(
    cli: Cli, tmp_path: Path, hostile: WorldServer
) -> None:
    project = torch_example(tmp_path, hostile, "poetry")
    result = lock(cli, project)
    assert result.code == 0, result.stderr

    sources = read_toml(project / "pyproject.toml")["tool"]["poetry"]["source"]
    added = [s for s in sources if s["name"] != "local-pypi"]
    assert added and all(s["priority"] == "explicit" for s in added)
    names = {s["name"] for s in added}

    packages = read_toml(project / "poetry.lock")["package"]
    [filelock] = [p for p in packages if p["name"] == "filelock"]
    assert filelock["version"] == "3.16.1"
    assert filelock["source"]["reference"] == "local-pypi"
    from_cuda = {p["name"] for p in packages if (p.get("source") or {}).get("reference") in names}
    assert from_cuda == _managed_names(project) == {"torch", "torchvision"}
    # Poetry never even asked the CUDA index about a package not pinned to it.
    assert hostile.request_count("/whl/cu124/filelock/") == 0
    assert hostile.request_count("/whl/cu124/nvidia-") == 0


def test_uv_indexes_are_explicit_and_serve_only_their_packages(
    cli: Cli, tmp_path: Path, hostile: WorldServer
) -> None:
    project = torch_example(tmp_path, hostile, "uv")
    result = lock(cli, project)
    assert result.code == 0, result.stderr

    indexes = read_toml(project / "pyproject.toml")["tool"]["uv"]["index"]
    added = [i for i in indexes if i["name"] != "local-pypi"]
    assert added and all(i.get("explicit") is True for i in added)
    urls = {i["url"] for i in added}

    packages = read_toml(project / "uv.lock")["package"]
    [filelock] = [p for p in packages if p["name"] == "filelock"]
    assert filelock["version"] == "3.16.1"
    assert filelock["source"]["registry"] == hostile.pypi_url
    from_cuda = {p["name"] for p in packages if p["source"].get("registry") in urls}
    assert from_cuda == _managed_names(project) == {"torch", "torchvision"}
    assert hostile.request_count("/whl/cu124/filelock/") == 0
    assert hostile.request_count("/whl/cu124/nvidia-") == 0

    # The control: the same index, not explicit, hands uv the hostile filelock.
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("explicit = true\n", ""))
    relock = cli.run("lock", "--upgrade", cwd=project, program="uv", env=UV)
    assert relock.code == 0, relock.stderr
    packages = read_toml(project / "uv.lock")["package"]
    assert [p["version"] for p in packages if p["name"] == "filelock"] == [HOSTILE_FILELOCK]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_higher_version_on_the_cuda_index_is_not_taken_when_asked_for(
    cli: Cli, tmp_path: Path, hostile: WorldServer, backend: Backend
) -> None:
    """Even a direct `filelock>=4` the CUDA index could satisfy fails rather than use it."""
    project = torch_example(tmp_path, hostile, backend)
    _add_dependency(project, "filelock>=4")
    before = snapshot(project, backend)
    result = lock(cli, project)
    assert result.code == 4, result.stdout + result.stderr
    assert "filelock" in result.stderr
    assert HOSTILE_FILELOCK not in result.stdout
    assert snapshot(project, backend) == before
    assert hostile.request_count("/whl/cu124/filelock/") == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_package_only_the_cuda_index_has_does_not_resolve(
    cli: Cli, tmp_path: Path, hostile: WorldServer, backend: Backend
) -> None:
    project = torch_example(tmp_path, hostile, backend)
    _add_dependency(project, CUDA_ONLY)
    before = snapshot(project, backend)
    result = lock(cli, project)
    assert result.code == 4, result.stdout + result.stderr
    assert CUDA_ONLY in result.stderr
    assert snapshot(project, backend) == before
    assert hostile.request_count(f"/whl/cu124/{CUDA_ONLY}/") == 0
