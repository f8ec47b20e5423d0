"""`lock` failure modes, --check and --dry-run: every file is left byte-identical."""

from __future__ import annotations

import shutil

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import parse_toml
from tests.support.example import EXAMPLES
from tests.support.example import FILES
from tests.support.example import snapshot
from tests.support.index import refused_url
from tests.support.isolation import UV_OFFLINE


if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from tests.support.cli import Cli


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    project = tmp_path / "torch_project"
    shutil.copytree(EXAMPLES / "torch_project", project)
    with refused_url() as dead:
        pyproject = project / "pyproject.toml"
        pyproject.write_text(
            pyproject.read_text()
            + f'\n[tool.poetry-cuda.mirrors]\npytorch = "{dead}/whl/{{variant}}"\n'
            + f'\n[[tool.poetry.source]]\nname = "offline"\nurl = "{dead}/simple/"\n'
            + 'priority = "primary"\n'
        )
        yield project


def test_unreachable_index_is_exit_4_and_changes_nothing(cli: Cli, project: Path) -> None:
    before = snapshot(project)
    result = cli.run("lock", cwd=project)
    assert result.code == 4, result.stderr
    assert "Poetry's resolution failed" in result.stderr
    assert snapshot(project) == before


def test_a_pin_another_request_contradicts_is_exit_2_and_changes_nothing(
    cli: Cli, project: Path
) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"torch==2.5.1"', '"torch==2.5.1+cpu"'))
    before = snapshot(project)
    result = cli.run("lock", "--cuda", "cu124", cwd=project)
    assert result.code == 2
    assert "pins the cpu build (2.5.1+cpu); the plan chooses cu124" in result.stderr
    assert "`poetry-cuda lock --adopt`" in result.stderr
    assert snapshot(project) == before
    # Without a request of its own, the label is the project's request: no conflict.
    planned = cli.run("plan", cwd=project)
    assert planned.code == 0, planned.stderr
    assert "the project asks for the CPU build: torch is pinned to 2.5.1+cpu" in planned.stdout


def test_a_user_source_for_torch_is_exit_2(cli: Cli, project: Path) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text() + '\n[tool.poetry.dependencies]\ntorch = {source = "offline"}\n'
    )
    before = snapshot(project)
    result = cli.run("lock", cwd=project)
    assert result.code == 2
    assert "source = 'offline'" in result.stderr
    assert snapshot(project) == before


def test_dry_run_prints_the_plan_and_the_diff(cli: Cli, project: Path) -> None:
    before = snapshot(project)
    result = cli.run("lock", "--dry-run", cwd=project)
    assert result.code == 0, result.stderr
    assert "cu124" in result.stdout
    assert "Backend: poetry (pyproject.toml has [tool.poetry])" in result.stdout.splitlines()
    assert "+[tool.poetry.group.poetry-cuda]" in result.stdout
    assert 'priority = "explicit"' in result.stdout
    assert snapshot(project) == before


def test_check_without_a_lock_is_stale(cli: Cli, project: Path) -> None:
    result = cli.run("lock", "--check", cwd=project)
    assert result.code == 1
    assert "cuda.lock does not exist" in result.stderr


def test_uv_projects_lock_with_uv_and_the_plugin_asks_which_manager(
    cli: Cli, project: Path
) -> None:
    pyproject = project / "pyproject.toml"
    offline = parse_toml(pyproject.read_text())["tool"]["poetry"]["source"][0]["url"]
    pyproject.write_text(
        pyproject.read_text()
        + f'\n[[tool.uv.index]]\nname = "offline"\nurl = "{offline}"\ndefault = true\n'
    )
    files = (*FILES, "uv.lock")
    before = snapshot(project, files)
    inside = cli.run("cuda", "lock", cwd=project, program="poetry")
    assert inside.code == 2, inside.stderr
    assert "`poetry-cuda lock`" in inside.stderr
    assert 'backend = "uv"' in inside.stderr
    # The standalone command locks with uv, which cannot reach the index.
    result = cli.run("lock", cwd=project, env={"UV_HTTP_RETRIES": "0", **UV_OFFLINE})
    assert result.code == 4, result.stderr
    assert "uv's resolution failed" in result.stderr
    # uv's own message, naming the unreachable server (it may ask the PyPI stand-in or the
    # pytorch mirror first: both live there).
    assert "Failed to fetch" in result.stderr
    assert offline.split("//")[1].split("/")[0] in result.stderr
    assert snapshot(project, files) == before


def test_a_poetry_1_source_is_refused_before_anything_is_written(cli: Cli, project: Path) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text() + '\n[[tool.poetry.source]]\nname = "old"\n'
        'url = "https://example.org/simple/"\nsecondary = true\n'
    )
    before = pyproject.read_bytes()
    for mode in ((), ("--dry-run",), ("--check",)):
        result = cli.run("lock", *mode, cwd=project)
        assert result.code == 2, result.stderr
        assert "'old': secondary = true is a Poetry 1.x setting" in result.stderr
        assert 'priority = "supplemental"' in result.stderr
        assert "Traceback" not in result.stderr
    assert pyproject.read_bytes() == before
    assert not (project / "cuda.lock").exists()
