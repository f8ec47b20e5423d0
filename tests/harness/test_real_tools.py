"""Real uv and real Poetry lock against the harness and install what they locked."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.support.index import JSON_TYPE
from tests.support.projects import CUDA_PLATFORMS
from tests.support.projects import locked_packages
from tests.support.projects import registries
from tests.support.projects import write_poetry_project
from tests.support.projects import write_uv_project


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.tools import Tools


pytestmark = pytest.mark.slow

IMPORT_TORCH = (
    "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available())"
)


def served_json(server: WorldServer) -> bool:
    return any(record.content_type == JSON_TYPE for record in server.requests)


def test_uv_locks_and_syncs_the_cuda_build(
    server: WorldServer, tools: Tools, tmp_path: Path
) -> None:
    project = write_uv_project(
        tmp_path / "project", pypi=server.pypi_url, cuda_index=server.pytorch_url("cu124")
    )
    tools.uv("lock", cwd=project)
    torch = {entry["version"]: entry for entry in locked_packages(project / "uv.lock", "torch")}
    assert set(torch) == {"2.5.1+cu124", "2.5.1"}
    assert torch["2.5.1+cu124"]["source"] == {"registry": server.pytorch_url("cu124")}
    assert torch["2.5.1+cu124"]["resolution-markers"] == [CUDA_PLATFORMS]
    assert torch["2.5.1"]["source"] == {"registry": server.pypi_url}
    assert registries(project / "uv.lock") == {server.pypi_url, server.pytorch_url("cu124")}
    assert served_json(server)

    tools.uv("sync", cwd=project)
    assert tools.python(project / ".venv", IMPORT_TORCH) == "2.5.1+cu124 12.4 False"
    libcudart = tools.python(
        project / ".venv",
        "import nvidia.cuda_runtime, pathlib; "
        "print(sorted(p.name for p in pathlib.Path(nvidia.cuda_runtime.__file__).parent.glob('lib/*')))",
    )
    assert libcudart == "['libcudart.so.12']"


def test_uv_locks_from_an_html_only_index(
    server: WorldServer, tools: Tools, tmp_path: Path
) -> None:
    server.json_enabled = False
    project = write_uv_project(
        tmp_path / "project", pypi=server.pypi_url, cuda_index=server.pytorch_url("cu124")
    )
    tools.uv("lock", cwd=project)
    versions = {entry["version"] for entry in locked_packages(project / "uv.lock", "torch")}
    assert versions == {"2.5.1+cu124", "2.5.1"}
    assert not served_json(server)


def test_poetry_locks_and_installs_the_cuda_build(
    server: WorldServer, tools: Tools, tmp_path: Path
) -> None:
    project = write_poetry_project(
        tmp_path / "project", pypi=server.pypi_url, cuda_index=server.pytorch_url("cu124")
    )
    tools.poetry("lock", cwd=project)
    [torch] = locked_packages(project / "poetry.lock", "torch")
    assert torch["version"] == "2.5.1+cu124"
    assert torch["source"] == {
        "type": "legacy",
        "url": server.pytorch_url("cu124"),
        "reference": "pytorch-cu124",
    }
    assert "nvidia-cuda-runtime-cu12" in torch["dependencies"]
    [runtime] = locked_packages(project / "poetry.lock", "nvidia-cuda-runtime-cu12")
    assert runtime["source"]["reference"] == "pypi-stand-in"
    assert served_json(server)

    tools.poetry("install", cwd=project)
    assert tools.python(project / ".venv", IMPORT_TORCH) == "2.5.1+cu124 12.4 False"


def test_poetry_locks_from_an_html_only_index(
    server: WorldServer, tools: Tools, tmp_path: Path
) -> None:
    server.json_enabled = False
    project = write_poetry_project(
        tmp_path / "project", pypi=server.pypi_url, cuda_index=server.pytorch_url("cu124")
    )
    tools.poetry("lock", cwd=project)
    [torch] = locked_packages(project / "poetry.lock", "torch")
    assert torch["version"] == "2.5.1+cu124"
    assert not served_json(server)
