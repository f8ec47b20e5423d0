"""`poetry run` in a managed project gets the project's environment through the plugin."""

from __future__ import annotations

import subprocess
import sys

from typing import TYPE_CHECKING

import pytest

from tests.support.cuda_trees import add_wheel_library
from tests.support.cuda_trees import site_packages
from tests.support.projects import TORCH
from tests.support.projects import make_project


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Cli


pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="fake trees are Linux ones")

SHOW = ("run", "sh", "-c", 'echo "$LD_LIBRARY_PATH"')


@pytest.mark.parametrize("opt_out", [False, True])
def test_poetry_run_gets_the_wheel_libraries_unless_opted_out(
    cli: Cli, tmp_path: Path, opt_out: bool
) -> None:
    settings = "poetry-run-environment = false" if opt_out else ""
    project = make_project(tmp_path / "torch-app", settings=settings, **TORCH)  # type: ignore[arg-type]
    venv = project / ".venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    add_wheel_library(venv, "cuda_runtime", "libcudart.so.12", 12)
    wheel_lib = str(site_packages(venv) / "nvidia" / "cuda_runtime" / "lib")

    result = cli.run(*SHOW, cwd=project, program="poetry", env={"LD_LIBRARY_PATH": "/x"})
    assert result.code == 0, result
    if opt_out:
        assert result.stdout.strip() == "/x"
    else:
        assert result.stdout.strip().split(":")[0] == wheel_lib
        assert result.stdout.strip().endswith(":/x")


def test_poetry_run_outside_a_managed_project_is_untouched(cli: Cli, tmp_path: Path) -> None:
    project = make_project(tmp_path / "plain", **TORCH)  # type: ignore[arg-type]
    (project / "cuda.lock").unlink()
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(project / ".venv")],
        check=True,
        timeout=120,
    )
    result = cli.run(*SHOW, cwd=project, program="poetry", env={"LD_LIBRARY_PATH": "/x"})
    assert result.code == 0, result
    assert result.stdout.strip() == "/x"
