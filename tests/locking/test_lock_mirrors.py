"""Mirrors of each layout, end to end with the real uv and Poetry against loopback stand-ins.

simple (`/whl/<variant>/`), simple with a suffix (`/mirror-suffix/<variant>/simple/`, SEU's) and
flat (`/mirror-flat/<variant>/`, `+` as `&#43;`, Aliyun's): uv locks all three, Poetry the
simple ones and refuses the flat one before anything is written.
"""

from __future__ import annotations

import shutil

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import read_toml
from tests.support.example import EXAMPLES
from tests.support.example import PYPI
from tests.support.example import snapshot
from tests.support.index import refused_url
from tests.support.isolation import UV_OFFLINE


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli


pytestmark = pytest.mark.slow
UV = {**UV_OFFLINE, "UV_HTTP_RETRIES": "0"}
FILES = ("pyproject.toml", "poetry.lock", "uv.lock", "cuda.lock")


def mirror_value(server: WorldServer, layout: str) -> str:
    """The `pytorch = ...` value of each stand-in, as a user writes it."""
    if layout == "flat":
        return f'{{ url = "{server.flat_mirror}", layout = "flat" }}'
    return f'"{server.suffix_mirror if layout == "suffix" else server.pytorch_mirror}"'


def project_for(tmp_path: Path, server: WorldServer, backend: str, layout: str) -> Path:
    project = tmp_path / "torch_project"
    shutil.copytree(EXAMPLES / "torch_project", project)
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text().replace('">=3.10,<3.14"', '">=3.11,<3.12"')
    mirror = f"\n[tool.poetry-cuda.mirrors]\npytorch = {mirror_value(server, layout)}\n"
    if backend == "uv":
        text = text.replace("[tool.poetry]\npackage-mode = false\n", "[tool.uv]\npackage = false\n")
        text += f'{mirror}\n[[tool.uv.index]]\nname = "{PYPI}"\nurl = "{server.pypi_url}"\n'
        text += "default = true\n"
    else:
        text += f'{mirror}\n[[tool.poetry.source]]\nname = "{PYPI}"\nurl = "{server.pypi_url}"\n'
        text += 'priority = "primary"\n'
    pyproject.write_text(text)
    return project


@pytest.mark.parametrize("layout", ["simple", "suffix", "flat"])
def test_uv_locks_from_every_layout(
    cli: Cli, tmp_path: Path, server: WorldServer, layout: str
) -> None:
    project = project_for(tmp_path, server, "uv", layout)
    result = cli.run("lock", cwd=project, env=UV)
    assert result.code == 0, result.stderr
    url = {
        "simple": server.pytorch_url("cu124"),
        "suffix": server.suffix_mirror.format(variant="cu124"),
        "flat": server.flat_mirror.format(variant="cu124"),
    }[layout]
    [index] = [
        i for i in read_toml(project / "pyproject.toml")["tool"]["uv"]["index"] if i["name"] != PYPI
    ]
    expected = {"name": index["name"], "url": url, "explicit": True}
    assert index == ({**expected, "format": "flat"} if layout == "flat" else expected)
    [torch] = [
        p
        for p in read_toml(project / "uv.lock")["package"]
        if p["name"] == "torch" and p["version"] == "2.5.1+cu124"
    ]
    assert torch["source"] == {"registry": url}
    assert all(wheel["url"].startswith(url) for wheel in torch["wheels"])
    before = snapshot(project, FILES)
    assert cli.run("lock", cwd=project, env=UV).code == 0
    assert snapshot(project, FILES) == before
    assert cli.run("lock", "--check", cwd=project, env=UV).code == 0


def test_uv_follows_a_mirror_whose_layout_changes(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    """The same URL read as flat, then as simple: the managed index's format follows it."""
    project = project_for(tmp_path, server, "uv", "flat")
    assert cli.run("lock", "--dry-run", cwd=project, env=UV).code == 0
    pyproject = project / "pyproject.toml"
    assert cli.run("lock", cwd=project, env=UV).code == 0
    assert 'format = "flat"' in pyproject.read_text()
    text = pyproject.read_text().replace(
        f'pytorch = {{ url = "{server.flat_mirror}", layout = "flat" }}',
        f'pytorch = {{ url = "{server.flat_mirror}", layout = "simple" }}',
    )
    pyproject.write_text(text)
    dry = cli.run("lock", "--dry-run", cwd=project, env=UV)
    assert dry.code == 0, dry.stderr
    assert '-format = "flat"' in dry.stdout


@pytest.mark.parametrize("layout", ["simple", "suffix"])
def test_poetry_locks_from_a_simple_mirror(
    cli: Cli, tmp_path: Path, server: WorldServer, layout: str
) -> None:
    project = project_for(tmp_path, server, "poetry", layout)
    result = cli.run("lock", cwd=project)
    assert result.code == 0, result.stderr
    url = (
        server.pytorch_url("cu124")
        if layout == "simple"
        else server.suffix_mirror.format(variant="cu124")
    )
    [source] = [
        s
        for s in read_toml(project / "pyproject.toml")["tool"]["poetry"]["source"]
        if s["name"] != PYPI
    ]
    assert source == {"name": source["name"], "url": url, "priority": "explicit"}
    locked = [p for p in read_toml(project / "poetry.lock")["package"] if p["name"] == "torch"]
    assert {p["version"] for p in locked} == {"2.5.1+cu124", "2.5.1"}
    cuda = next(p for p in locked if p["version"] == "2.5.1+cu124")
    # Poetry records the source URL without its last slash.
    assert cuda["source"] == {"type": "legacy", "url": url.rstrip("/"), "reference": source["name"]}


@pytest.mark.parametrize("command", [("plan",), ("lock",), ("lock", "--dry-run")])
def test_poetry_refuses_a_flat_mirror_at_plan_time(
    cli: Cli, tmp_path: Path, server: WorldServer, command: tuple[str, ...]
) -> None:
    project = project_for(tmp_path, server, "poetry", "flat")
    before = snapshot(project, FILES)
    result = cli.run(*command, cwd=project)
    assert result.code == 2
    assert result.stderr.splitlines()[0] == (
        f"[tool.poetry-cuda] mirrors.pytorch = {server.flat_mirror} (flat) is a flat listing "
        "of wheels, which Poetry cannot use"
    )
    assert 'format = "flat"' in result.stderr  # uv can, and how
    assert 'pytorch = "sjtu" or pytorch = "seu" or pytorch = "nju"' in result.stderr
    assert 'backend = "uv"' in result.stderr
    assert snapshot(project, FILES) == before
    assert server.request_count() == 0  # refused before Poetry asked any index


@pytest.mark.parametrize("backend", ["poetry", "uv"])
def test_an_unreachable_mirror_is_named_with_the_known_ones(
    cli: Cli, tmp_path: Path, server: WorldServer, backend: str
) -> None:
    project = project_for(tmp_path, server, backend, "simple")
    with refused_url() as dead:
        pyproject = project / "pyproject.toml"
        pyproject.write_text(
            pyproject.read_text().replace(server.pytorch_mirror, f"{dead}/whl/{{variant}}")
        )
        before = snapshot(project, FILES)
        result = cli.run("lock", cwd=project, env=UV if backend == "uv" else None)
    assert result.code == 4, result.stderr
    tool = "Poetry" if backend == "poetry" else "uv"
    assert (
        f"Why: {tool} could not reach an index; the mirror in use: [tool.poetry-cuda] "
        f"mirrors.pytorch = {dead}/whl/{{variant}} (simple); mirrors known by name: "
        'pytorch = "sjtu", "seu", "nju", "aliyun" (flat: uv only)'
    ) in result.stderr
    assert "plan --check-index" in result.stderr
    assert snapshot(project, FILES) == before
