"""The standalone script installed without Poetry (no `poetry` extra): uv projects plan,
lock, sync and run every other command as ever; a Poetry project gets one message naming the
extra, and nothing is written.

Poetry is made unimportable in the child process by a `sitecustomize` on PYTHONPATH
(`tests.support.without_poetry`) that refuses every module only Poetry's dependencies bring
(virtualenv, dulwich, requests, ...) and every `poetry.*` module but poetry-core's
`poetry.core`, which stays installed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.support.every_command import run_every_command
from tests.support.example import torch_example
from tests.support.isolation import UV_OFFLINE
from tests.support.without_poetry import blocker


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli


pytestmark = pytest.mark.slow


MESSAGE = "and Poetry is not installed beside poetry-cuda"


def every_file(project: Path) -> dict[str, bytes]:
    return {
        p.relative_to(project).as_posix(): p.read_bytes() for p in project.rglob("*") if p.is_file()
    }


@pytest.fixture
def no_poetry(tmp_path: Path) -> dict[str, str]:
    """The child's environment in which `import poetry.factory` (and `import virtualenv`) fails."""
    return blocker(tmp_path / "no-poetry")


def test_the_blocker_hides_poetry_but_not_poetry_core(
    cli: Cli, tmp_path: Path, no_poetry: dict[str, str]
) -> None:
    probe = (
        "import importlib, cleo, tomlkit, packaging, poetry.core.constraints.version\n"
        "for name in ('poetry.factory', 'virtualenv', 'dulwich', 'requests'):\n"
        "    try:\n        importlib.import_module(name)\n"
        "    except ModuleNotFoundError:\n        print('no', name)\n"
    )
    result = cli.run("-c", probe, cwd=tmp_path, program="python", env=no_poetry)
    assert result.code == 0, result.stderr
    assert result.stdout.split("\n") == [
        "no poetry.factory",
        "no virtualenv",
        "no dulwich",
        "no requests",
        "",
    ]


def test_a_uv_project_plans_and_locks_without_poetry(
    cli: Cli, tmp_path: Path, server: WorldServer, no_poetry: dict[str, str]
) -> None:
    project = torch_example(tmp_path, server, "uv")
    env = {**no_poetry, **UV_OFFLINE}
    planned = cli.run("plan", "--cuda", "cu124", cwd=project, env=env)
    assert planned.code == 0, planned.stderr
    assert "cu124" in planned.stdout
    locked = cli.run("lock", "--cuda", "cu124", cwd=project, env=env)
    assert locked.code == 0, locked.stderr
    assert "Backend: uv" in locked.stdout
    assert "Wrote cuda.lock" in locked.stdout
    assert "+cu124" in (project / "uv.lock").read_text()
    fresh = cli.run("lock", "--check", "--cuda", "cu124", cwd=project, env=env)
    assert fresh.code == 0, fresh.stderr


@pytest.mark.parametrize("mode", [(), ("--dry-run",), ("--check",), ("--regenerate",)])
def test_a_poetry_project_is_one_message_and_changes_nothing(
    cli: Cli,
    tmp_path: Path,
    server: WorldServer,
    no_poetry: dict[str, str],
    mode: tuple[str, ...],
) -> None:
    project = torch_example(tmp_path, server)
    before = every_file(project)
    result = cli.run("lock", "--cuda", "cu124", *mode, cwd=project, env=no_poetry)
    assert result.code == 2, result.stdout + result.stderr
    first = result.stderr.splitlines()[0]
    assert first == f"this is a Poetry project (pyproject.toml has [tool.poetry]), {MESSAGE}"
    assert "installed without its `poetry` extra" in result.stderr
    assert "`poetry-cuda[poetry]`" in result.stderr
    assert "`poetry self add`" in result.stderr
    assert 'set backend = "uv"' in result.stderr
    assert result.stderr.count(MESSAGE) == 1
    assert every_file(project) == before


def test_sync_of_a_poetry_lock_is_the_same_message(
    cli: Cli, locked_example: Path, no_poetry: dict[str, str]
) -> None:
    # Locked with Poetry there; installed here, where it is not: nothing is installed.
    before = every_file(locked_example)
    result = cli.run("sync", cwd=locked_example, env=no_poetry)
    assert result.code == 2, result.stdout + result.stderr
    assert f'(cuda.lock records backend "poetry"), {MESSAGE}' in result.stderr
    assert every_file(locked_example) == before


def test_item_1_every_command_runs_on_a_locked_uv_project_without_poetry(
    cli: Cli, tmp_path: Path, server: WorldServer, no_poetry: dict[str, str]
) -> None:
    # The base install (no `poetry` extra) crashed on `sync` of any uv project: the shared
    # store's installer module imported pypa/installer, which only Poetry brought.
    project = torch_example(tmp_path, server, "uv")
    env = {**no_poetry, **UV_OFFLINE}
    assert cli.run("lock", cwd=project, env=env).code == 0

    def run(*args: str, cwd: Path) -> tuple[int, str]:
        result = cli.run(*args, cwd=cwd, env=env)
        return result.code, result.stdout + result.stderr

    run_every_command(run, project)
    synced = cli.run("sync", cwd=project, env=env)  # the crash the issue met, installing
    assert synced.code == 0, synced.stdout + synced.stderr
