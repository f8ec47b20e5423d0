"""The repository that serves a managed source from a per-user mirror, inside real Poetry."""

from __future__ import annotations

import warnings

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.request.user_mirrors import Redirect


# Poetry's dependency pbs_installer reads its data with a deprecated importlib call on import.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from poetry.factory import Factory
    from poetry.repositories.repository_pool import Priority
    from poetry.utils.authenticator import Authenticator

    from poetry_cuda.backends.poetry.mirror import MirroredRepository
    from poetry_cuda.backends.poetry.mirror import redirect_pool


if TYPE_CHECKING:
    from pathlib import Path

    from poetry.poetry import Poetry


UPSTREAM = "https://download.pytorch.org/whl/cu124"
MIRROR = "https://mirror.example/pytorch-wheels/cu124/"
REDIRECT = Redirect(
    "pytorch-cu124", "POETRY_CUDA_MIRROR_PYTORCH", UPSTREAM, MIRROR, "pytorch-cu124-mirror-0"
)


@pytest.fixture
def poetry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Poetry:
    monkeypatch.setenv("POETRY_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("POETRY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("POETRY_HTTP_BASIC_PYTORCH_CU124_USERNAME", "someone")
    monkeypatch.setenv("POETRY_HTTP_BASIC_PYTORCH_CU124_PASSWORD", "token")
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "app"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n\n'
        "[tool.poetry]\npackage-mode = false\n\n"
        f'[[tool.poetry.source]]\nname = "pytorch-cu124"\nurl = "{UPSTREAM}"\n'
        'priority = "explicit"\n'
    )
    return Factory().create_poetry(tmp_path)


def test_the_source_keeps_its_name_priority_and_recorded_url(poetry: Poetry) -> None:
    assert redirect_pool(poetry, [REDIRECT]) == [REDIRECT]
    repository = poetry.pool.repository("pytorch-cu124")
    assert isinstance(repository, MirroredRepository)
    assert poetry.pool.get_priority("pytorch-cu124") == Priority.EXPLICIT
    assert repository.url == UPSTREAM
    assert "pytorch-cu124-mirror-0" in str(repository._cache_dir)


def test_a_second_redirect_changes_nothing(poetry: Poetry) -> None:
    redirect_pool(poetry, [REDIRECT])
    first = poetry.pool.repository("pytorch-cu124")
    assert redirect_pool(poetry, [REDIRECT]) == []
    assert poetry.pool.repository("pytorch-cu124") is first


def test_a_source_not_in_the_pool_is_left_alone(poetry: Poetry) -> None:
    other = Redirect("pytorch-cu121", REDIRECT.variable, UPSTREAM, MIRROR, "x")
    assert redirect_pool(poetry, [other]) == []
    assert not poetry.pool.has_repository("pytorch-cu121")


def test_the_sources_credentials_go_to_the_mirror(poetry: Poetry) -> None:
    redirect_pool(poetry, [REDIRECT])
    repository = poetry.pool.repository("pytorch-cu124")
    assert isinstance(repository, MirroredRepository)
    page = repository.session.get_credentials_for_url(f"{MIRROR}torch/")
    # The installer's own authenticator, which downloads the files.
    installer = Authenticator(poetry.config)
    wheel = installer.get_credentials_for_url(f"{MIRROR}torch/torch-2.5.1+cu124-cp311.whl")
    assert (page.username, page.password) == ("someone", "token")
    assert (wheel.username, wheel.password) == ("someone", "token")
    # Never sent to a host that is not the mirror.
    assert installer.get_credentials_for_url("https://elsewhere.example/t.whl").username is None
