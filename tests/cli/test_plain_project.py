"""A plain PEP 621 project (`[project]` alone, as `uv init --bare` writes it: no lock, no
`[tool.poetry]`, no `[tool.uv]`) with backend = "auto": locked by the package manager that
is installed, saying which and why, and, on its first lock, which lock file it creates."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.support.isolation import UV_OFFLINE
from tests.support.without_poetry import blocker


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Cli


pytestmark = pytest.mark.slow

PLAIN = """\
[project]
name = "plain"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = []
"""
NAMES_NONE = "nothing in the project names a package manager"


def plain_project(folder: Path) -> Path:
    project = folder / "plain"
    project.mkdir()
    (project / "pyproject.toml").write_text(PLAIN)
    return project


def test_item_3_a_plain_project_locks_with_uv_where_only_uv_is_installed(
    cli: Cli, tmp_path: Path
) -> None:
    project = plain_project(tmp_path)
    env = {**blocker(tmp_path / "no-poetry"), **UV_OFFLINE}
    locked = cli.run("lock", cwd=project, env=env)
    assert locked.code == 0, locked.stdout + locked.stderr
    assert "The project has no uv.lock yet: this lock creates it with uv" in locked.stderr
    assert f"Backend: uv ({NAMES_NONE}, and only uv is installed)" in locked.stdout
    assert (project / "uv.lock").is_file()
    assert not (project / "poetry.lock").exists()
    synced = cli.run("sync", "--dry-run", cwd=project, env=env)
    assert synced.code == 0, synced.stdout + synced.stderr
    assert "Would run: uv sync --locked" in synced.stdout


def test_item_3_a_plain_project_says_which_manager_of_two_locks_it(
    cli: Cli, tmp_path: Path
) -> None:
    project = plain_project(tmp_path)
    planned = cli.run("lock", "--dry-run", cwd=project, env=UV_OFFLINE)
    assert planned.code == 0, planned.stdout + planned.stderr
    both = (
        f"Backend: poetry ({NAMES_NONE}; poetry and uv are both installed and poetry comes "
        'first: backend = "uv" in [tool.poetry-cuda] chooses uv)'
    )
    assert both in planned.stdout
    locked = cli.run("lock", cwd=project, env=UV_OFFLINE)
    assert locked.code == 0, locked.stdout + locked.stderr
    said = "The project has no poetry.lock yet: this lock creates it with poetry"
    assert said in locked.stderr
    # said as chosen, before the lock wrote poetry.lock
    assert both in locked.stdout
    assert "poetry.lock exists" not in locked.stdout
    assert (project / "poetry.lock").is_file()
    # the other, as the message says
    (project / "pyproject.toml").write_text(PLAIN + '\n[tool.poetry-cuda]\nbackend = "uv"\n')
    (project / "poetry.lock").unlink()
    relocked = cli.run("lock", cwd=project, env=UV_OFFLINE)
    assert relocked.code == 0, relocked.stdout + relocked.stderr
    assert 'Backend: uv (backend = "uv" in [tool.poetry-cuda])' in relocked.stdout
    assert (project / "uv.lock").is_file()
