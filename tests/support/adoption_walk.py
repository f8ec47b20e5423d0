"""The walk every adoption pattern's test takes through the commands, as a user would.

`lock --dry-run` writes nothing; `lock` takes the project as found, or (where an entry must
change) exits 2 naming `lock --adopt` and writes nothing, then `--adopt` takes it over; a
second `lock` changes no byte; `lock --check` finds it fresh; `sync --dry-run` installs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from tests.support.cli import Cli
    from tests.support.cli import Result


LOCKS = ("pyproject.toml", "poetry.lock", "uv.lock", "cuda.lock")
# The target the patterns are locked for: an RTX 4090 on a driver that runs CUDA 13.
GPU_HOST = {
    "schema": 1,
    "os": "linux",
    "machine": "x86_64",
    "driver": {"version": "580.65.06"},
    "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}],
}


def files(project: Path) -> dict[str, bytes | None]:
    """The bytes of every file `lock` may write, None for one that does not exist."""
    return {n: (project / n).read_bytes() if (project / n).exists() else None for n in LOCKS}


def walk(
    cli: Cli,
    project: Path,
    *args: str,
    adopt: bool = False,
    env: Mapping[str, str] | None = None,
) -> Result:
    """Walk `project` through the commands; return the `lock` (or `lock --adopt`) that wrote
    it. `adopt`: an entry must change, so the plain `lock` refuses and names `--adopt`."""
    before = files(project)
    dry = cli.run("lock", "--dry-run", *args, cwd=project, env=env)
    assert dry.code == 0, dry.stdout + dry.stderr
    assert files(project) == before

    first = cli.run("lock", *args, cwd=project, env=env)
    if adopt:
        assert first.code == 2, first.stdout + first.stderr
        assert "lock --adopt" in first.stderr, first.stderr
        assert files(project) == before  # a refusal writes nothing
        first = cli.run("lock", "--adopt", *args, cwd=project, env=env)
    assert first.code == 0, first.stdout + first.stderr

    after = files(project)
    again = cli.run("lock", *args, cwd=project, env=env)
    assert again.code == 0, again.stdout + again.stderr
    assert files(project) == after, again.stdout

    check = cli.run("lock", "--check", *args, cwd=project, env=env)
    assert check.code == 0, check.stdout + check.stderr
    synced = cli.run("sync", "--dry-run", cwd=project, env=env)
    assert synced.code == 0, synced.stdout + synced.stderr
    assert files(project) == after
    return first
