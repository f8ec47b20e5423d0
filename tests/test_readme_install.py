"""The README's install commands, run as a user runs them: from a fresh clone.

The clone's wheel is installed each way the README shows (into a fresh Poetry with
`poetry self add`, into a pipx-installed Poetry with `pipx inject`, with pip, as a uv
tool, the last two without and with the `poetry` extra), and `detect` must then work. The
standalone script without the extra has no Poetry installed, plans a uv project and refuses
a Poetry project with the message naming the extra; with it, Poetry is there. Then every
command (`tests.support.every_command`) runs from each install, on the example as a uv
project (the standalone script) and as a Poetry project (where the install has Poetry),
against the test world's local indexes: none crashes, each exits as SPEC says. A test
without network checks that the README's install block holds exactly these commands, so
the two cannot drift apart.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import venv

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import tomlkit

from tests.support.every_command import run_every_command
from tests.support.example import torch_example
from tests.support.isolation import UV_OFFLINE
from tests.support.isolation import hermetic_env


if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence

    from tests.support.catalog import WorldServer


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
    "pip-install-poetry": f'pip install "{WHEEL}[poetry]"',
    "uv-tool-install-poetry": f'uv tool install "{WHEEL}[poetry]"',
}
# The standalone routes, and whether each brings Poetry.
STANDALONE = {
    "pip-install": False,
    "uv-tool-install": False,
    "pip-install-poetry": True,
    "uv-tool-install-poetry": True,
}
NO_POETRY = "Poetry is not installed beside poetry-cuda"
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


def run_script(
    script: Path, *args: str, cwd: Path, env: Mapping[str, str]
) -> subprocess.CompletedProcess[str]:
    """`script` run with `args` in `cwd`, its output captured, whatever its exit code."""
    return subprocess.run(
        [str(script), *args],
        cwd=cwd,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT,
        check=False,
    )


def run(
    command: str, *, cwd: Path, env: Mapping[str, str], programs: Mapping[str, Path]
) -> subprocess.CompletedProcess[str]:
    """`command` as the README writes it, its program taken from `programs`, `$PWD` the cwd."""
    program, *args = (word.replace("$PWD", str(cwd)) for word in shlex.split(command))
    completed = run_script(programs[program], *args, cwd=cwd, env=env)
    assert completed.returncode == 0, f"{command}\n{completed.stdout}\n{completed.stderr}"
    return completed


def distributions(python: Path, env: Mapping[str, str]) -> set[str]:
    """The names of the distributions installed in `python`'s environment."""
    listing = (
        "import importlib.metadata as m\n"
        "print('\\n'.join(sorted({d.metadata['Name'].lower() for d in m.distributions()})))"
    )
    completed = subprocess.run(
        [str(python), "-c", listing],
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return set(completed.stdout.split())


def example_project(clone: Path, folder: Path, backend: str) -> Path:
    """The clone's examples/torch_project in `folder`, as a Poetry or a uv project."""
    project = folder / f"{backend}_project"
    shutil.copytree(clone / "examples" / "torch_project", project)
    if backend == "uv":
        pyproject = project / "pyproject.toml"
        text = pyproject.read_text()
        assert "[tool.poetry]\npackage-mode = false\n" in text
        pyproject.write_text(
            text.replace("[tool.poetry]\npackage-mode = false\n", "[tool.uv]\npackage = false\n")
        )
    return project


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
def test_each_install_command_of_the_readme_works(
    clone: Path, route: str, tmp_path: Path, server: WorldServer
) -> None:
    env = hermetic_env(
        tmp_path / "home",
        PIPX_HOME=str(tmp_path / "pipx"),
        PIPX_BIN_DIR=str(tmp_path / "pipx-bin"),
        UV_TOOL_DIR=str(tmp_path / "uv-tools"),
        UV_TOOL_BIN_DIR=str(tmp_path / "uv-bin"),
        # The uv a standalone install runs for uv projects (neither install brings one).
        POETRY_CUDA_UV=str(Path(sys.executable).parent / "uv"),
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
    elif route.startswith("pip-install"):
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
    if route in STANDALONE:
        check_standalone(clone, route, detect, tmp_path, env)
    check_every_command(route, detect, tmp_path / "every", server, env)


def check_every_command(
    route: str, script: Path, folder: Path, server: WorldServer, env: Mapping[str, str]
) -> None:
    """Every command, from this install, on the example as a uv project (the standalone
    script) and as a Poetry project (where the install has Poetry)."""
    prefix: Sequence[str] = ("cuda",) if script.name == "poetry" else ()
    backends = ["uv"] if route in STANDALONE else []
    if STANDALONE.get(route, True):
        backends.append("poetry")

    def run(*args: str, cwd: Path) -> tuple[int, str]:
        completed = run_script(script, *prefix, *args, cwd=cwd, env=env)
        return completed.returncode, completed.stdout + completed.stderr

    for backend in backends:
        project = torch_example(folder / backend, server, "uv" if backend == "uv" else "poetry")
        run_every_command(run, project)


def check_standalone(
    clone: Path, route: str, script: Path, tmp_path: Path, env: Mapping[str, str]
) -> None:
    """Poetry is installed with the extra and only with it; a uv project plans either way, a
    Poetry project locks (here: its dry run) only with Poetry."""
    with_poetry = STANDALONE[route]
    if route.startswith("pip-install"):
        python = script.parent / "python"
    else:
        python = tmp_path / "uv-tools" / "poetry-cuda" / BIN / "python"
    installed = distributions(python, env)
    assert {"poetry-cuda", "poetry-core", "cleo"} <= installed, installed
    assert ("poetry" in installed) is with_poetry, installed

    uv_project = example_project(clone, tmp_path, "uv")
    planned = run_script(script, "plan", "--cuda", "cu124", cwd=uv_project, env=env)
    assert planned.returncode == 0, planned.stdout + planned.stderr
    assert "torch" in planned.stdout
    assert "cu124" in planned.stdout

    poetry_project = example_project(clone, tmp_path, "poetry")
    before = (poetry_project / "pyproject.toml").read_bytes()
    dry = run_script(script, "lock", "--dry-run", "--cuda", "cu124", cwd=poetry_project, env=env)
    if with_poetry:
        assert dry.returncode == 0, dry.stdout + dry.stderr
        assert "Backend: poetry" in dry.stdout
    else:
        assert dry.returncode == 2, dry.stdout + dry.stderr
        assert NO_POETRY in dry.stderr
        assert "`poetry-cuda[poetry]`" in dry.stderr
        assert "Traceback" not in dry.stderr
    assert (poetry_project / "pyproject.toml").read_bytes() == before
