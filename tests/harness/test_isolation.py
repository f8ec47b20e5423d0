"""The child environment keeps the machine and nothing of the user's: no test passes by luck."""

from __future__ import annotations

import os

from typing import TYPE_CHECKING

from tests.support.isolation import hermetic_env


if TYPE_CHECKING:
    from pathlib import Path

    import pytest


LEAKS = {
    "HTTPS_PROXY": "http://proxy.example:3128",
    "http_proxy": "http://proxy.example:3128",
    "UV_INDEX_URL": "https://user:secret@mirror.example/simple",
    "POETRY_HTTP_BASIC_PRIVATE_PASSWORD": "secret",
    "PIP_INDEX_URL": "https://mirror.example/simple",
    "PYTHONPATH": "/elsewhere",
    "VIRTUAL_ENV": "/elsewhere/.venv",
    "CONDA_PREFIX": "/opt/conda",
    "CUDA_HOME": "/usr/local/cuda-10.2",
    "XDG_CONFIG_HOME": "/home/someone/.config",
}


def test_the_users_settings_do_not_reach_the_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in LEAKS.items():
        monkeypatch.setenv(key, value)
    env = hermetic_env(tmp_path)
    assert not (set(LEAKS) - {"XDG_CONFIG_HOME"}) & set(env)
    assert env["XDG_CONFIG_HOME"] == str(tmp_path / "config")
    assert "secret" not in repr(env)
    assert "proxy.example" not in repr(env)


def test_every_user_directory_is_under_the_home(tmp_path: Path) -> None:
    env = hermetic_env(tmp_path)
    for key in ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "POETRY_CACHE_DIR", "UV_CACHE_DIR"):
        assert env[key].startswith(str(tmp_path)), key
    assert env["PATH"] == os.environ["PATH"]


def test_the_callers_variables_come_last(tmp_path: Path) -> None:
    env = hermetic_env(tmp_path, UV_CACHE_DIR="/cold", POETRY_CUDA_TARGET="host.json")
    assert env["UV_CACHE_DIR"] == "/cold"
    assert env["POETRY_CUDA_TARGET"] == "host.json"
