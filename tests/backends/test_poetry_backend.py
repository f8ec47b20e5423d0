"""The Poetry backend where Poetry is not installed (poetry-cuda without its `poetry` extra)."""

from __future__ import annotations

import importlib.util

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.backends import poetry
from poetry_cuda.errors import UsageError


if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def without_poetry(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, package: str | None = None) -> object:
        return None if name == "poetry.factory" else real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


def test_poetry_is_found_where_it_is_installed() -> None:
    poetry.require_poetry()  # the test environment has Poetry


@pytest.mark.usefixtures("without_poetry")
def test_without_poetry_is_one_usage_error_naming_the_extra() -> None:
    with pytest.raises(UsageError) as raised:
        poetry.require_poetry("pyproject.toml has [tool.poetry]")
    error = raised.value
    assert error.exit_code == 2
    assert error.what == (
        "this is a Poetry project (pyproject.toml has [tool.poetry]), and Poetry is not "
        "installed beside poetry-cuda"
    )
    assert "installed without its `poetry` extra" in error.why
    assert "`poetry-cuda[poetry]`" in error.fix
    assert 'backend = "uv"' in error.fix


@pytest.mark.usefixtures("without_poetry")
def test_the_environment_is_found_without_poetry_where_the_rules_need_no_setting(
    tmp_path: Path,
) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    cache = {"POETRY_CACHE_DIR": str(tmp_path / "cache")}
    assert poetry.environment(tmp_path, cache) is None
    (tmp_path / ".venv").mkdir()
    assert poetry.environment(tmp_path, {}) == tmp_path / ".venv"


@pytest.mark.usefixtures("without_poetry")
def test_poetrys_own_settings_need_poetry(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    with pytest.raises(UsageError, match="Poetry is not installed beside poetry-cuda"):
        poetry.environment(tmp_path, {})
