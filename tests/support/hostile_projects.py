"""Lock, snapshot and install the example torch project as a Poetry or a uv project, for the
security tests (the project itself is tests.support.example.torch_example)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.support import example
from tests.support.isolation import UV_OFFLINE


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Cli
    from tests.support.cli import Result
    from tests.support.example import Backend


BACKENDS: tuple[Backend, ...] = ("poetry", "uv")
# uv uses the interpreter running the tests and never downloads one.
UV = {**UV_OFFLINE, "UV_HTTP_RETRIES": "0"}


def lock_files(backend: Backend) -> tuple[str, ...]:
    return ("pyproject.toml", "poetry.lock" if backend == "poetry" else "uv.lock", "cuda.lock")


def snapshot(project: Path, backend: Backend) -> dict[str, bytes | None]:
    return example.snapshot(project, lock_files(backend))


def lock(cli: Cli, project: Path, *args: str) -> Result:
    """`poetry-cuda lock`, with uv kept to the local interpreter (harmless for Poetry)."""
    return cli.run("lock", *args, cwd=project, env=UV)


def install(cli: Cli, project: Path, backend: Backend) -> Result:
    """What a teammate without poetry-cuda runs: plain `poetry install` or `uv sync`."""
    if backend == "poetry":
        return cli.run("--no-plugins", "install", cwd=project, program="poetry")
    return cli.run("sync", cwd=project, program="uv", env=UV)
