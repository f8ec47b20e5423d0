"""`lock --adopt` on a project its authors already locked with the plain package manager.

The adoption example of docs/commands.md, end to end: a hand-written source for one CUDA index, pins on
it, a lock by plain Poetry (or uv) that records packages from that source, then
`poetry-cuda lock --adopt --cuda <another build>`. The adoption removes the source the lock
still names; the lock is made again without that stale reference, and plain Poetry installs it.
"""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import read_toml
from tests.support.tools import Tools


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli


pytestmark = pytest.mark.slow

GPU_HOST = {
    "schema": 1,
    "os": "linux",
    "machine": "x86_64",
    "driver": {"version": "550.54.14"},
    "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}],
}
ASKED = ("--target", "gpu.json", "--cuda", "cu121")


def _poetry_project(folder: Path, server: WorldServer, source: str) -> Path:
    """docs/commands.md's example: torch and torchvision pinned to a hand-written cu118 source."""
    folder.mkdir(parents=True)
    (folder / "pyproject.toml").write_text(
        f"""\
[tool.poetry]
package-mode = false

[tool.poetry.dependencies]
python = "~3.11"
torch = {{ version = "2.1.2+cu118", source = "{source}" }}
torchvision = {{ version = "0.16.2", source = "{source}" }}

[[tool.poetry.source]]
name = "{source}"
url = "{server.pytorch_url("cu118")}"
priority = "explicit"

[[tool.poetry.source]]
name = "local-pypi"
url = "{server.pypi_url}"
priority = "primary"

[tool.poetry-cuda.mirrors]
pytorch = "{server.pytorch_mirror}"
"""
    )
    (folder / "gpu.json").write_text(json.dumps(GPU_HOST))
    return folder


def _uv_project(folder: Path, server: WorldServer, index: str) -> Path:
    """The same project as uv writes it: an explicit index and sources on it."""
    folder.mkdir(parents=True)
    (folder / "pyproject.toml").write_text(
        f"""\
[project]
name = "app"
version = "0"
requires-python = ">=3.11,<3.12"
dependencies = ["torch==2.1.2", "torchvision==0.16.2"]

[tool.uv]
package = false

[tool.uv.sources]
torch = {{ index = "{index}" }}
torchvision = {{ index = "{index}" }}

[[tool.uv.index]]
name = "{index}"
url = "{server.pytorch_url("cu118")}"
explicit = true

[[tool.uv.index]]
name = "local-pypi"
url = "{server.pypi_url}"
default = true

[tool.poetry-cuda.mirrors]
pytorch = "{server.pytorch_mirror}"
"""
    )
    (folder / "gpu.json").write_text(json.dumps(GPU_HOST))
    return folder


def _references(project: Path) -> set[str]:
    """The source names poetry.lock records its packages from."""
    lock = read_toml(project / "poetry.lock")
    return {str((p.get("source") or {}).get("reference")) for p in lock["package"]}


@pytest.mark.parametrize("source", ["torchcu118", "pytorch-cu118-hand"])
def test_adopting_a_project_plain_poetry_locked(
    source: str, cli: Cli, server: WorldServer, tmp_path: Path
) -> None:
    project = _poetry_project(tmp_path / "app", server, source)
    tools = Tools(tmp_path / "home")
    tools.poetry("lock", cwd=project)
    assert source in _references(project)

    refused = cli.run("lock", *ASKED, cwd=project)
    assert refused.code == 2, refused.stdout + refused.stderr
    assert "--adopt`" in refused.stderr

    adopted = cli.run("lock", "--adopt", *ASKED, cwd=project)
    assert adopted.code == 0, adopted.stdout + adopted.stderr
    assert f"'{source}'" in adopted.stdout and "removed (no longer used)" in adopted.stdout
    assert source not in _references(project)
    torch = next(p for p in read_toml(project / "cuda.lock")["packages"] if p["name"] == "torch")
    assert (torch["variant"], torch["version"]) == ("cu121", "2.1.2+cu121")

    assert cli.run("lock", "--check", "--target", "gpu.json", cwd=project).code == 0
    tools.poetry("install", cwd=project)
    version = tools.python(project / ".venv", "import torch; print(torch.__version__)")
    assert version == "2.1.2+cu121"


def test_adopting_a_project_plain_uv_locked(cli: Cli, server: WorldServer, tmp_path: Path) -> None:
    project = _uv_project(tmp_path / "app", server, "torchcu118")
    tools = Tools(tmp_path / "home")
    tools.uv("lock", cwd=project)

    adopted = cli.run("lock", "--adopt", *ASKED, cwd=project)
    assert adopted.code == 0, adopted.stdout + adopted.stderr
    assert "'torchcu118'" in adopted.stdout
    assert "/whl/cu118" not in (project / "uv.lock").read_text()
    torch = next(p for p in read_toml(project / "cuda.lock")["packages"] if p["name"] == "torch")
    assert (torch["variant"], torch["version"]) == ("cu121", "2.1.2+cu121")
    assert cli.run("lock", "--check", "--target", "gpu.json", cwd=project).code == 0


def test_a_source_nothing_declares_is_named_with_the_way_out(
    cli: Cli, server: WorldServer, tmp_path: Path
) -> None:
    """What is left for Poetry to miss, a dependency's own undeclared source, is said as such."""
    project = tmp_path / "app"
    project.mkdir()
    (project / "pyproject.toml").write_text(
        f"""\
[tool.poetry]
package-mode = false

[tool.poetry.dependencies]
python = "~3.11"
torch = "2.5.1"
filelock = {{ version = "*", source = "gone" }}

[[tool.poetry.source]]
name = "local-pypi"
url = "{server.pypi_url}"
priority = "primary"

[tool.poetry-cuda.mirrors]
pytorch = "{server.pytorch_mirror}"
"""
    )
    (project / "gpu.json").write_text(json.dumps(GPU_HOST))
    result = cli.run("lock", "--target", "gpu.json", cwd=project)
    assert result.code == 4, result
    assert 'Repository "gone" does not exist.' in result.stderr
    assert "Poetry looked for the source 'gone', which pyproject.toml does not declare" in (
        result.stderr
    )
    assert "`poetry cuda lock --regenerate`" in result.stderr
