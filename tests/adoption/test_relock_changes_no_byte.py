"""Issue 41 pattern 13: a second `lock` of an unchanged project changes no byte. Poetry's
resolution, run again, rewrites an equivalent poetry.lock in its own words (reordered
markers, `python_version <= "3.12"` for `< "3.13"`); where cuda.lock, the managed
configuration and the package manager's lock are fresh (the check `lock --check` makes),
`lock` runs no resolution, asks no index and writes nothing."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

import pytest

from tests.support.adoption_walk import GPU_HOST
from tests.support.adoption_walk import files
from tests.support.adoption_walk import walk
from tests.support.example import torch_example


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli


pytestmark = pytest.mark.slow
# A marker of poetry.lock (TOML-escaped) as another Poetry run may word it: the same
# environments, other words.
LINUX = r"platform_system == \"Linux\" and platform_machine == \"x86_64\""
REWORDED = r"platform_machine == \"x86_64\" and platform_system == \"Linux\""


@pytest.mark.parametrize("backend", ["poetry", "uv"])
def test_relock_changes_no_byte(
    cli: Cli, tmp_path: Path, server: WorldServer, backend: str
) -> None:
    project = torch_example(tmp_path, server, "poetry" if backend == "poetry" else "uv")
    (project / "gpu.json").write_text(json.dumps(GPU_HOST))
    walk(cli, project, "--target", "gpu.json")

    if backend == "poetry":
        # poetry.lock as an earlier Poetry run wrote it: equivalent, and fresh by Poetry's
        # own check (its content-hash covers pyproject.toml, not the lock's wording).
        lock = project / "poetry.lock"
        text = lock.read_text()
        assert LINUX in text
        lock.write_text(text.replace(LINUX, REWORDED))
    before = files(project)
    server.reset_counters()
    again = cli.run("lock", "--target", "gpu.json", cwd=project)
    assert again.code == 0, again.stdout + again.stderr
    assert files(project) == before
    assert server.request_count() == 0  # no resolution, no index asked
    assert cli.run("lock", "--check", "--target", "gpu.json", cwd=project).code == 0

    # A project that is not fresh still locks: a new dependency is resolved and locked.
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace('"torch==2.5.1",', '"filelock", "torch==2.5.1",')
    )
    changed = cli.run("lock", "--target", "gpu.json", cwd=project)
    assert changed.code == 0, changed.stdout + changed.stderr
    lockfile = "poetry.lock" if backend == "poetry" else "uv.lock"
    assert files(project)[lockfile] != before[lockfile]
