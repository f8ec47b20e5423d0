"""`uv lock --check` started ahead: used only when it answers for the final pyproject.toml."""

from __future__ import annotations

import subprocess

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.backends import uv


if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


PYPROJECT = '[project]\nname = "demo"\nversion = "1.0"\nrequires-python = ">=3.10"\n'


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    """A project without dependencies (uv locks it offline), locked."""
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    subprocess.run([uv.find_uv({}), "lock", "--offline"], cwd=tmp_path, check=True)
    yield tmp_path
    uv._stop_checks()


def files(project: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(project.iterdir()) if p.is_file()}


def test_an_up_to_date_lock_is_known_ahead_and_nothing_is_written(project: Path) -> None:
    before = files(project)
    uv.start_check(uv.find_uv({}), project)
    assert uv._checked_up_to_date(uv.find_uv({}), project)
    assert files(project) == before


def test_a_check_of_a_pyproject_the_plan_then_changed_is_not_used(project: Path) -> None:
    uv.start_check(uv.find_uv({}), project)
    (project / "pyproject.toml").write_text(PYPROJECT.replace("1.0", "2.0"))
    assert not uv._checked_up_to_date(uv.find_uv({}), project)


def test_a_stale_lock_is_found_stale_and_left_as_it_is(project: Path) -> None:
    (project / "pyproject.toml").write_text(PYPROJECT.replace("1.0", "2.0"))
    before = files(project)
    uv.start_check(uv.find_uv({}), project)
    assert not uv._checked_up_to_date(uv.find_uv({}), project)
    assert files(project) == before  # the check never writes: the real lock does


def test_without_a_lock_nothing_is_started(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    uv.start_check(uv.find_uv({}), tmp_path)
    assert not uv._checked_up_to_date(uv.find_uv({}), tmp_path)
    assert not (tmp_path / "uv.lock").exists()
