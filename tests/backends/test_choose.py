"""`backend = "auto"`: which package manager a project's own files point to, and why."""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.backends.choice import choose
from poetry_cuda.backends.choice import choose_for_lock
from poetry_cuda.backends.choice import choose_with_reason
from poetry_cuda.backends.registry import installed_managers
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
    assert choose_for_lock("uv", tmp_path, UV_BUILD, inside_poetry="poetry cuda lock")[0] == "uv"
    assert choose_for_lock("auto", tmp_path, UV_BUILD, inside_poetry=None)[0] == "uv"


NAMES_NONE = "nothing in the project names a package manager"


@pytest.mark.parametrize(
    ("installed", "expected"),
    [
        (["uv"], ("uv", f"{NAMES_NONE}, and only uv is installed")),
        (["poetry"], ("poetry", f"{NAMES_NONE}, and only poetry is installed")),
        (
            ["poetry", "uv"],
            (
                "poetry",
                (
                    f"{NAMES_NONE}; poetry and uv are both installed and poetry comes first: "
                    'backend = "uv" in [tool.poetry-cuda] chooses uv'
                ),
            ),
        ),
        ([], ("poetry", f"{NAMES_NONE}, and neither poetry nor uv is installed")),
    ],
)
def test_item_3_a_plain_pep621_project_goes_to_the_manager_installed(
    installed: list[str], expected: tuple[str, str], tmp_path: Path
) -> None:
    # `uv init --bare` writes [project] alone: no lock, no table of either manager.
    plain = {"project": {"name": "plain", "version": "0.1.0", "dependencies": []}}
    name, reason = choose_with_reason("auto", tmp_path, plain, lambda: installed)
    assert (name, str(reason)) == expected
    # a sign in the project still outranks what is installed
    assert choose_with_reason("auto", tmp_path, {**plain, **TOOL_POETRY}, lambda: installed)[0] == (
        "poetry"
    )


def test_the_registry_knows_what_is_installed_here() -> None:
    # The test environment has Poetry and uv, in the registry's order.
    assert installed_managers() == ["poetry", "uv"]
