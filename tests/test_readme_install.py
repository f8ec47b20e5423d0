"""The README's install commands, run as a user runs them: from a fresh clone.

The clone's wheel is installed each way the README shows (into a fresh Poetry with
`poetry self add`, into a pipx-installed Poetry with `pipx inject`, with pip, as a uv
tool), and `detect` must then work. A test without network checks that the README's
install block holds exactly these commands, so the two cannot drift apart.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import venv

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import tomlkit

from tests.support.isolation import UV_OFFLINE
from tests.support.isolation import hermetic_env


if TYPE_CHECKING:
    from collections.abc import Mapping


ROOT = Path(__file__).resolve().parents[1]
VERSION = str(tomlkit.parse((ROOT / "pyproject.toml").read_text())["project"]["version"])
WHEEL_NAME = f"poetry_cuda-{VERSION}-py3-none-any.whl"
WHEEL = f"./dist/{WHEEL_NAME}"
BUILD = "python3 -m pip wheel --no-deps -w dist ."
# Each way to install, as the README shows it.
ROUTES = {
    # Poetry resolves a relative path from its own folder: the README gives the full one.
    "poetry-self-add": f'poetry self add "$PWD/dist/{WHEEL_NAME}"',
    "pipx-inject": f"pipx inject poetry {WHEEL}",
    "pip-install": f"pip install {WHEEL}",
    "uv-tool-install": f"uv tool install {WHEEL}",
}
BIN = "Scripts" if sys.platform == "win32" else "bin"
INSTALL_TIMEOUT = 900


def install_commands(readme: str) -> list[str]:
    """The commands of the first console block under `## Install`, without their comments."""
    section = readme.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```console\n(.*?)```", section, re.DOTALL)
    assert block is not None, "no console block under ## Install"
    lines = (line.split("  #", 1)[0].strip() for line in block.group(1).splitlines())
    return [line for line in lines if line]


def test_the_readme_shows_the_tested_install_commands() -> None:
    assert install_commands((ROOT / "README.md").read_text(encoding="utf-8")) == [
        BUILD,
        *ROUTES.values(),
    ]


def run(
    command: str, *, cwd: Path, env: Mapping[str, str], programs: Mapping[str, Path]
) -> subprocess.CompletedProcess[str]:
    """`command` as the README writes it, its program taken from `programs`, `$PWD` the cwd."""
    program, *args = (word.replace("$PWD", str(cwd)) for word in shlex.split(command))
    completed = subprocess.run(
        [str(programs[program]), *args],
        cwd=cwd,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT,
        check=False,
    )
    assert completed.returncode == 0, f"{command}\n{completed.stdout}\n{completed.stderr}"
    return completed


def fresh_venv(folder: Path) -> Path:
    """A new virtual environment with pip; its scripts folder."""
    venv.create(folder, with_pip=True)
    return folder / BIN


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh clone of this checkout's commit, with the wheel built as the README says."""
    folder = tmp_path_factory.mktemp("readme") / "poetry-cuda"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(folder)], check=True)
    home = tmp_path_factory.mktemp("build-home")
    run(BUILD, cwd=folder, env=hermetic_env(home), programs={"python3": Path(sys.executable)})
    assert (folder / WHEEL).is_file()
    return folder


@pytest.mark.network
@pytest.mark.slow
@pytest.mark.timeout(3 * INSTALL_TIMEOUT)
@pytest.mark.parametrize("route", sorted(ROUTES))
def test_each_install_command_of_the_readme_works(clone: Path, route: str, tmp_path: Path) -> None:
    env = hermetic_env(
        tmp_path / "home",
        PIPX_HOME=str(tmp_path / "pipx"),
        PIPX_BIN_DIR=str(tmp_path / "pipx-bin"),
        UV_TOOL_DIR=str(tmp_path / "uv-tools"),
        UV_TOOL_BIN_DIR=str(tmp_path / "uv-bin"),
        **UV_OFFLINE,
    )
    scripts = fresh_venv(tmp_path / "venv")
    if route == "poetry-self-add":
        run("pip install poetry", cwd=tmp_path, env=env, programs={"pip": scripts / "pip"})
        detect = scripts / "poetry"
    elif route == "pipx-inject":
        pipx = {"pipx": scripts / "pipx"}
        run("pip install pipx", cwd=tmp_path, env=env, programs={"pip": scripts / "pip"})
        run("pipx install poetry", cwd=tmp_path, env=env, programs=pipx)
        detect = tmp_path / "pipx-bin" / "poetry"
    elif route == "pip-install":
        detect = scripts / "poetry-cuda"
    else:
        detect = tmp_path / "uv-bin" / "poetry-cuda"
    programs = {
        "poetry": scripts / "poetry",
        "pipx": scripts / "pipx",
        "pip": scripts / "pip",
        "uv": Path(sys.executable).parent / "uv",
    }
    run(ROUTES[route], cwd=clone, env=env, programs=programs)

    args = "cuda detect" if detect.name == "poetry" else "detect"
    result = run(f"detect {args}", cwd=tmp_path, env=env, programs={"detect": detect})
    assert result.stdout.startswith("Host: this machine"), result.stdout
    assert "NVIDIA driver:" in result.stdout
