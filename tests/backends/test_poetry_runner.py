"""The Poetry backend where Poetry is not installed (poetry-cuda without its `poetry` extra)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

from pathlib import Path

import pytest

from poetry_cuda.backends.poetry import runner as poetry
from poetry_cuda.errors import UsageError
from tests.support.isolation import hermetic_env


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
def test_the_environment_is_found_without_poetry_from_its_settings(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    venvs = tmp_path / "home" / ".cache" / "pypoetry" / "virtualenvs"
    found = venvs / f"{poetry._env_name('demo', tmp_path)}-py3.11"
    found.mkdir(parents=True)
    assert poetry.environment(tmp_path, {"HOME": str(tmp_path / "home")}) == found


# Each case: the environment, then the files (config.toml in the config folder, the
# project's poetry.toml) that set where Poetry keeps its virtual environments.
SETTINGS = [
    ({}, {}),
    ({"XDG_CACHE_HOME": "{root}/xdg-cache"}, {}),
    ({"POETRY_CACHE_DIR": "{root}/cache"}, {}),
    ({"POETRY_VIRTUALENVS_PATH": "{root}/envs"}, {}),
    ({}, {"config.toml": 'cache-dir = "{root}/configured"'}),
    ({}, {"config.toml": '[virtualenvs]\npath = "{{cache-dir}}/mine"'}),
    ({"POETRY_CACHE_DIR": "{root}/cache"}, {"config.toml": '[virtualenvs]\npath = "{root}/v"'}),
    ({}, {"poetry.toml": '[virtualenvs]\npath = "{root}/local"'}),
    ({"XDG_CONFIG_HOME": "{root}/xdg-config"}, {"config.toml": 'cache-dir = "{root}/x"'}),
]


# Poetry's own answer: its global Config with the project's poetry.toml merged in.
POETRYS_OWN = """
import sys
from pathlib import Path
from poetry.config.config import Config
from poetry.toml.file import TOMLFile
config = Config.create()
local = TOMLFile(Path(sys.argv[1]) / "poetry.toml")
if local.exists():
    config.merge(local.read())
print(config.virtualenvs_path)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="the platform folders differ on Windows")
@pytest.mark.parametrize(("variables", "files"), SETTINGS)
def test_the_virtualenvs_folder_is_poetrys_own(
    variables: dict[str, str], files: dict[str, str], tmp_path: Path
) -> None:
    """Poetry's Config, in a process of its own, is the reference."""
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    env = {key: value.format(root=tmp_path) for key, value in variables.items()}
    config_dir = Path(env.get("XDG_CONFIG_HOME", home / ".config")) / "pypoetry"
    for name, text in files.items():
        folder = config_dir if name == "config.toml" else project
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text.format(root=tmp_path) + "\n")
    environ = hermetic_env(home, **env)
    for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "POETRY_CONFIG_DIR", "POETRY_CACHE_DIR"):
        if name not in env:
            environ.pop(name, None)
    reference = subprocess.run(
        [sys.executable, "-c", POETRYS_OWN, str(project)],
        env=environ,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    settings = poetry._poetry_settings(project, environ)
    assert poetry._virtualenvs(settings, environ) == Path(reference)
