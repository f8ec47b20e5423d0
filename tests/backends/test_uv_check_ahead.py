"""uv's part of `lock` started ahead: used only when it answers for the final inputs."""

from __future__ import annotations

import shutil
import subprocess

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.backends.uv import runner as uv


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterator
    from pathlib import Path

    Start = Callable[[Path], uv.UvAhead | None]


PYPROJECT = '[project]\nname = "demo"\nversion = "1.0"\nrequires-python = ">=3.10"\n'
UV = uv.find_uv({})


@pytest.fixture
def start() -> Iterator[Start]:
    """`start_ahead` with this test's uv; what it started is stopped after the test."""
    started: list[uv.UvAhead] = []

    def start_ahead(project: Path) -> uv.UvAhead | None:
        ahead = uv.start_ahead(UV, project)
        started.extend([ahead] if ahead else [])
        return ahead

    yield start_ahead
    for ahead in started:
        ahead.stop()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project without dependencies (uv locks it offline), not locked yet."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "pyproject.toml").write_text(PYPROJECT)
    return folder


def files(project: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(project.iterdir()) if p.is_file()}


def plain_lock(project: Path) -> None:
    subprocess.run([UV, "lock", "--offline"], cwd=project, check=True, capture_output=True)


def test_a_lock_made_ahead_elsewhere_is_the_lock_uv_makes_here(
    project: Path, tmp_path: Path, start: Start
) -> None:
    reference = tmp_path / "reference"
    shutil.copytree(project, reference)
    plain_lock(reference)
    ahead = start(project)
    assert files(project) == {"pyproject.toml": PYPROJECT.encode()}  # nothing written yet
    uv.run_lock(UV, project, regenerate=False, ahead=ahead)
    assert files(project) == files(reference)


def test_an_up_to_date_lock_is_known_ahead_and_nothing_is_written(
    project: Path, start: Start
) -> None:
    plain_lock(project)
    before = files(project)
    ahead = start(project)
    answered = ahead.answer(project) if ahead else None
    assert answered is not None
    assert answered == 0
    assert files(project) == before


def test_an_answer_for_inputs_the_plan_then_changed_is_not_used(
    project: Path, start: Start
) -> None:
    ahead = start(project)
    (project / "pyproject.toml").write_text(PYPROJECT.replace("1.0", "2.0"))
    assert ahead is not None
    assert ahead.answer(project) is None
    uv.run_lock(UV, project, regenerate=False, ahead=ahead)  # uv itself, on the final file
    assert 'version = "2.0"' in (project / "uv.lock").read_text()


def test_a_stale_lock_is_found_stale_and_left_as_it_is(project: Path, start: Start) -> None:
    plain_lock(project)
    (project / "pyproject.toml").write_text(PYPROJECT.replace("1.0", "2.0"))
    before = files(project)
    ahead = start(project)
    answered = ahead.answer(project) if ahead else None
    assert answered is not None
    assert answered != 0
    assert files(project) == before  # the check never writes: the real lock does


@pytest.mark.parametrize(
    "extra",
    [
        '\n[tool.uv.sources]\nlib = { path = "../lib" }\n',
        '\n[tool.uv.workspace]\nmembers = ["packages/*"]\n',
        '\n[[tool.uv.index]]\nname = "local"\nurl = "./wheels"\n',
        '\n[tool.uv]\nfind-links = ["./wheels"]\n',
    ],
    ids=["path source", "workspace", "relative index", "find-links"],
)
def test_a_project_that_needs_more_than_its_inputs_is_not_locked_ahead(
    project: Path, extra: str, start: Start
) -> None:
    (project / "pyproject.toml").write_text(PYPROJECT + extra)
    assert start(project) is None


def test_a_workspace_member_is_not_locked_ahead(project: Path, start: Start) -> None:
    member = project / "member"
    member.mkdir()
    (member / "pyproject.toml").write_text(PYPROJECT.replace("demo", "member"))
    assert start(member) is None


def test_an_answer_for_another_project_is_not_taken(
    project: Path, tmp_path: Path, start: Start
) -> None:
    other = tmp_path / "other"
    shutil.copytree(project, other)
    ahead = start(project)
    assert ahead is not None
    assert not ahead.take(UV, other)
    assert files(other) == {"pyproject.toml": PYPROJECT.encode()}
