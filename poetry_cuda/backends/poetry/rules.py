"""What Poetry 2 cannot lock, refused before anything is written.

Pure checks of the settings and pyproject.toml, apart from the editing of `editor`,
so that `plan` can refuse a flat mirror without loading the TOML editor.
"""

from __future__ import annotations

import json

from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.errors import ConfigError
from poetry_cuda.request.settings import known_names
from poetry_cuda.request.settings import parse_settings


if TYPE_CHECKING:
    from collections.abc import Mapping

    from poetry_cuda.request.settings import Settings


OLD_PRIORITIES = {
    "secondary": 'priority = "supplemental" (or "explicit" for a source that only pinned '
    "packages use)",
    "default": 'priority = "primary" (a project with a primary source no longer searches PyPI '
    "unless it lists PyPI as a source too)",
}


def check_mirrors(settings: Settings) -> None:
    """Refuse a flat mirror before anything is written: Poetry reads PEP 503 sources only."""
    for family, mirror in settings.mirrors.items():
        if mirror.layout != "flat":
            continue
        simple = " or ".join(f'{family} = "{name}"' for name in known_names(family, "simple"))
        instead = f"a simple mirror ({simple})" if simple else "a simple (PEP 503) mirror"
        raise ConfigError(
            f"{mirror.said} is a flat listing of wheels, which Poetry cannot use",
            why="Poetry 2 reads only PEP 503 (simple) sources and has no find-links source; "
            'uv reads a flat listing as an index with format = "flat"',
            fix=f'use {instead}, or lock this project with uv: set backend = "uv" in '
            "[tool.poetry-cuda] and run `poetry-cuda lock`",
        )


def check_sources(pyproject: Mapping[str, Any]) -> None:
    """Refuse what Poetry 2 cannot lock: Poetry 1.x source settings, and a flat mirror."""
    check_mirrors(parse_settings(dict(pyproject)))
    tool = pyproject.get("tool")
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    found = poetry.get("source") if isinstance(poetry, dict) else None
    for index, entry in enumerate(found if isinstance(found, list) else []):
        if not isinstance(entry, dict):
            continue
        priority = entry.get("priority")
        if isinstance(priority, str) and priority in OLD_PRIORITIES:
            old, setting = priority, f"priority = {priority!r}"
        else:
            old = next((key for key in OLD_PRIORITIES if key in entry), "")
            setting = f"{old} = {json.dumps(entry.get(old), default=str)}"
        if old:
            name = entry.get("name", f"#{index + 1}")
            raise ConfigError(
                f"[[tool.poetry.source]] {name!r}: {setting} is a Poetry 1.x setting",
                why="Poetry 2 removed the `secondary` and `default` sources and cannot lock a "
                "pyproject.toml that still has one",
                fix=f"write {OLD_PRIORITIES[old]} in that source instead",
            )
