"""`sync` installs only locks that still fit pyproject.toml, and doctor agrees.

A clone (or a merge) can bring a pyproject.toml whose package manager's lock no longer fits
it, while cuda.lock, which seals only the CUDA-relevant parts, still does. `sync` refuses that
lock as it refuses a stale cuda.lock, exit 2 before anything runs, by the manager's own check
(`uv lock --check`, Poetry's content hash), where the manager's install would fail (exit 4)
or install what was locked for another pyproject.toml; doctor reports the stale uv.lock that
sync refuses, offline.
"""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.doctor.installed import read_environment
from tests.support.example import torch_example


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli
    from tests.support.example import Backend


pytestmark = pytest.mark.slow

LOCKFILES = {"poetry": "poetry.lock", "uv": "uv.lock"}


def add_numpy(project: Path) -> None:
    """A dependency that is no CUDA decision: cuda.lock stays fresh, the manager's lock not."""
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text()
    pyproject.write_text(text.replace('"torchvision==0.20.1",', '"torchvision==0.20.1", "numpy",'))


def installed(project: Path) -> bool:
    """Whether torch is installed in the project's environment."""
    return read_environment(project / ".venv", ()).get("torch") is not None


def doctor_rows(cli: Cli, project: Path) -> list[dict[str, str]]:
    report = cli.run("doctor", "--json", cwd=project)
    return [
        dict(row)
        for row in json.loads(report.stdout)["findings"]
        if row["area"] == "locks" and row["check"] == "fresh"
    ]


@pytest.mark.parametrize("backend", ["poetry", "uv"])
def test_a_stale_package_managers_lock_is_refused_before_anything_runs(
    cli: Cli, tmp_path: Path, server: WorldServer, backend: Backend
) -> None:
    project = torch_example(tmp_path, server, backend)
    assert cli.run("lock", cwd=project).code == 0
    lockfile = LOCKFILES[backend]
    add_numpy(project)
    for program, args in (
        ("poetry-cuda", ("sync",)),
        ("poetry-cuda", ("sync", "--dry-run")),
        ("poetry", ("cuda", "sync")),
    ):
        result = cli.run(*args, cwd=project, program=program)
        assert result.code == 2, result.stdout + result.stderr
        assert f"{lockfile} is stale: it no longer fits pyproject.toml" in result.stderr
        assert "Fix: run `poetry cuda lock`" in result.stderr
        assert "Running:" not in result.stdout and "Would run:" not in result.stdout
    assert not installed(project)

    # `lock` puts both locks in step again; then sync goes ahead.
    assert cli.run("lock", cwd=project).code == 0
    assert cli.run("sync", "--dry-run", cwd=project).code == 0


def test_doctor_reports_the_stale_uv_lock_that_sync_refuses(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    project = torch_example(tmp_path, server, "uv")
    assert cli.run("lock", cwd=project).code == 0
    assert [r["status"] for r in doctor_rows(cli, project)] == ["ok"]  # cuda.lock only
    add_numpy(project)
    asked = server.request_count("/")
    rows = doctor_rows(cli, project)
    assert server.request_count("/") == asked  # doctor stays offline
    cuda_lock, uv_lock = rows
    assert cuda_lock["status"] == "ok"  # cuda.lock seals only the CUDA-relevant parts
    assert uv_lock["status"] == "fail"
    assert uv_lock["message"].startswith("uv.lock is stale: it no longer fits pyproject.toml")
    assert "lock" in uv_lock["fix"]
    assert cli.run("sync", "--dry-run", cwd=project).code == 2  # the two agree


def test_a_missing_package_managers_lock_is_refused(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    project = torch_example(tmp_path, server, "uv")
    assert cli.run("lock", cwd=project).code == 0
    (project / "uv.lock").unlink()
    result = cli.run("sync", cwd=project)
    assert result.code == 2, result.stdout + result.stderr
    assert "uv.lock does not exist" in result.stderr and "Fix:" in result.stderr
    assert not installed(project)
