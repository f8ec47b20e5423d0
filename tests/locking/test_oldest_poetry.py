"""The oldest Poetry the plugin supports (2.0.0, the floor in pyproject.toml), end to end.

The plugin is installed with Poetry 2.0.0 into a fresh virtual environment (Poetry comes
from the real PyPI, hence `network`); it then locks the example against the local
indexes, and that Poetry without the plugin installs the CUDA build.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import read_toml
from tests.support.example import EXAMPLES
from tests.support.example import ROOT
from tests.support.example import configure


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli


pytestmark = [pytest.mark.slow, pytest.mark.network]
OLDEST = "2.0.0"


def run(*args: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def oldest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment with Poetry 2.0.0 and this plugin."""
    venv = tmp_path_factory.mktemp("poetry-oldest") / "venv"
    run(sys.executable, "-m", "venv", venv)
    pip = venv / "bin" / "pip"
    run(pip, "install", "--quiet", f"poetry=={OLDEST}")
    # The plugin itself, against the Poetry just installed (pip keeps it: it satisfies >=2.0).
    run(pip, "install", "--quiet", ROOT)
    assert f"version {OLDEST}" in run(venv / "bin" / "poetry", "--version")
    return venv / "bin"


def test_lock_and_install_with_the_oldest_poetry(
    oldest: Path, cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    project = tmp_path / "torch_project"
    shutil.copytree(EXAMPLES / "torch_project", project)
    configure(project, server)

    plan = run(oldest / "poetry", "cuda", "plan", env=cli.env, cwd=project)
    assert "cu124" in plan
    run(oldest / "poetry", "cuda", "lock", env=cli.env, cwd=project)
    locked = read_toml(project / "poetry.lock")
    versions = {str(p["version"]) for p in locked["package"] if p["name"] == "torch"}
    assert versions == {"2.5.1+cu124", "2.5.1"}
    assert read_toml(project / "cuda.lock")["packages"][0]["version"] == "2.5.1+cu124"

    run(oldest / "poetry", "--no-plugins", "install", env=cli.env, cwd=project)
    python = project / ".venv" / "bin" / "python"
    assert run(python, "-c", "import torch; print(torch.__version__)").strip() == "2.5.1+cu124"
