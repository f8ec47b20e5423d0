"""tools/dev.py, run as a newcomer runs it: with an interpreter too old for the project, and
again with a good one after an old one has left its `.venv` behind."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from pathlib import Path

import pytest

from tests.support.isolation import hermetic_env


ROOT = Path(__file__).resolve().parents[2]
# A Python 3.9: pyenv's, or one on PATH.
PYENV = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
OLD = sorted(PYENV.glob("3.9.*/bin/python")) or [
    Path(found) for found in filter(None, [shutil.which("python3.9")])
]
needs_old = pytest.mark.skipif(not OLD, reason="no Python 3.9 on this machine")


def checkout(folder: Path) -> Path:
    """A checkout's `tools/dev.py` and pyproject.toml in `folder` (dev.py works on its
    parent folder, never on this one)."""
    (folder / "tools").mkdir(parents=True)
    shutil.copy(ROOT / "tools" / "dev.py", folder / "tools" / "dev.py")
    shutil.copy(ROOT / "pyproject.toml", folder / "pyproject.toml")
    return folder


def dev(python: Path | str, tree: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # Offline: no index and no wheels, so a run that gets as far as pip stops there.
    env = hermetic_env(tree.parent / "home", PIP_NO_INDEX="1", PIP_FIND_LINKS=str(tree))
    return subprocess.run(
        [str(python), str(tree / "tools" / "dev.py"), *args],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


def pyvenv_version(tree: Path) -> str:
    lines = (tree / ".venv" / "pyvenv.cfg").read_text().splitlines()
    return next(line.split("=", 1)[1].strip() for line in lines if line.startswith("version"))


@needs_old
@pytest.mark.parametrize("job", ["demo", "test", "bench"])
def test_item_7_an_old_python_is_refused_before_anything_is_made(tmp_path: Path, job: str) -> None:
    tree = checkout(tmp_path / "poetry-cuda")
    result = dev(OLD[0], tree, job)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith("tools/dev.py needs Python >= 3.10; this is Python 3.9."), (
        result.stderr
    )
    assert f"`python3.12 tools/dev.py {job}`" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tree / ".venv").exists()


@needs_old
@pytest.mark.slow
def test_item_7_a_venv_of_an_old_python_is_made_again(tmp_path: Path) -> None:
    # What an earlier run with Python 3.9 left: its .venv, without the project.
    tree = checkout(tmp_path / "poetry-cuda")
    subprocess.run([str(OLD[0]), "-m", "venv", "--without-pip", str(tree / ".venv")], check=True)
    assert pyvenv_version(tree).startswith("3.9.")
    result = dev(sys.executable, tree, "demo")
    said = result.stdout + result.stderr
    assert "Recreating .venv: it was made by Python 3.9, and the project needs Python >= 3.10" in (
        said
    )
    here = ".".join(map(str, sys.version_info[:2]))
    assert pyvenv_version(tree).startswith(f"{here}."), said
