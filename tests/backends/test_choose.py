"""`backend = "auto"`: which package manager a project's own files point to, and why."""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.backends.base import choose
from poetry_cuda.backends.base import choose_for_lock
from poetry_cuda.backends.base import choose_with_reason
from poetry_cuda.errors import UsageError


if TYPE_CHECKING:
    from pathlib import Path


UV_BUILD = {"build-system": {"requires": ["uv_build"], "build-backend": "uv_build"}}
POETRY_BUILD = {"build-system": {"build-backend": "poetry.core.masonry.api"}}
GROUPS = {"dependency-groups": {"dev": ["pytest"]}}
TOOL_UV = {"tool": {"uv": {"package": False}}}
TOOL_POETRY = {"tool": {"poetry": {"package-mode": False}}}


@pytest.mark.parametrize(
    ("files", "pyproject", "expected"),
    [
        ((), {}, ("poetry", "no uv.lock, [tool.uv] or other sign of uv")),
        (("uv.lock",), {}, ("uv", "uv.lock exists")),
        ((), TOOL_UV, ("uv", "pyproject.toml has [tool.uv]")),
        (("poetry.lock",), {}, ("poetry", "poetry.lock exists")),
        ((), TOOL_POETRY, ("poetry", "pyproject.toml has [tool.poetry]")),
        ((), UV_BUILD, ("uv", "the build backend is uv_build")),
        ((), POETRY_BUILD, ("poetry", "the build backend is poetry.core.masonry.api")),
        ((), GROUPS, ("uv", "pyproject.toml has [dependency-groups]")),
        # what uv itself writes outranks everything
        (("uv.lock", "poetry.lock"), TOOL_POETRY, ("uv", "uv.lock exists")),
        ((), {**TOOL_UV, **POETRY_BUILD}, ("uv", "pyproject.toml has [tool.uv]")),
        # Poetry's lock or table outranks what only suggests uv
        (("poetry.lock",), {**UV_BUILD, **GROUPS}, ("poetry", "poetry.lock exists")),
        ((), {**TOOL_POETRY, **GROUPS}, ("poetry", "pyproject.toml has [tool.poetry]")),
        ((), {**TOOL_POETRY, **UV_BUILD}, ("poetry", "pyproject.toml has [tool.poetry]")),
        # a build backend outranks PEP 735 groups, which Poetry reads too
        (
            (),
            {**POETRY_BUILD, **GROUPS},
            ("poetry", "the build backend is poetry.core.masonry.api"),
        ),
        ((), {**UV_BUILD, **GROUPS}, ("uv", "the build backend is uv_build")),
    ],
)
def test_auto_follows_the_strongest_sign(
    files: tuple[str, ...], pyproject: dict[str, Any], expected: tuple[str, str], tmp_path: Path
) -> None:
    for name in files:
        (tmp_path / name).write_text("")
    name, reason = choose_with_reason("auto", tmp_path, pyproject)
    assert (name, str(reason)) == expected
    assert choose("auto", tmp_path, pyproject) == expected[0]


@pytest.mark.parametrize("setting", ["poetry", "uv"])
def test_a_set_backend_wins_and_says_so(setting: str, tmp_path: Path) -> None:
    (tmp_path / "uv.lock").write_text("")
    name, reason = choose_with_reason(setting, tmp_path, TOOL_POETRY)
    assert (name, str(reason)) == (setting, f'backend = "{setting}" in [tool.poetry-cuda]')


def test_inside_poetry_auto_never_guesses_uv_and_says_why(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"found a uv project \(the build backend is uv_build\)"):
        choose_for_lock("auto", tmp_path, UV_BUILD, inside_poetry="poetry cuda lock")
    assert choose_for_lock("uv", tmp_path, UV_BUILD, inside_poetry="poetry cuda lock") == "uv"
    assert choose_for_lock("auto", tmp_path, UV_BUILD, inside_poetry=None) == "uv"
