"""The project a command is about: the nearest folder at or above it with a pyproject.toml."""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.errors import ConfigError


if TYPE_CHECKING:
    from pathlib import Path


def nearest_project(start: Path) -> Path | None:
    """The nearest folder at or above `start` that holds a pyproject.toml, if any."""
    for folder in (start, *start.parents):
        if (folder / "pyproject.toml").is_file():
            return folder
    return None


def find_project(start: Path) -> Path:
    """`nearest_project`, for commands that need one: ConfigError (exit 2) when there is none."""
    project = nearest_project(start)
    if project is None:
        raise ConfigError(
            f"no pyproject.toml in {start} or any folder above it",
            why="poetry-cuda plans for a Python project",
            fix="run the command inside a project, or pass --directory / --project",
        )
    return project
