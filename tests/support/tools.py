"""Real uv and Poetry in subprocesses, isolated from the user's configuration, caches and network.

Every run gets the hermetic environment of tests.support.isolation under one temporary home, and
no Python downloads (uv uses the interpreter running the tests). Projects must point both tools
at loopback indexes only.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig

from typing import TYPE_CHECKING

import uv

from tests.support.isolation import UV_OFFLINE
from tests.support.isolation import hermetic_env


if TYPE_CHECKING:
    from pathlib import Path


class ToolError(AssertionError):
    """A tool exited non-zero; the message carries its output."""


class Tools:
    """uv and Poetry bound to one isolated home directory."""

    def __init__(self, home: Path) -> None:
        self.home = home
        scripts = sysconfig.get_path("scripts")
        poetry = shutil.which("poetry", path=scripts)
        if poetry is None:
            raise RuntimeError(f"poetry is not installed in {scripts}")
        self.poetry_bin = poetry
        self.uv_bin = uv.find_uv_bin()
        self.env = hermetic_env(
            home,
            POETRY_VIRTUALENVS_IN_PROJECT="true",
            POETRY_VIRTUALENVS_USE_POETRY_PYTHON="true",
            POETRY_NO_INTERACTION="1",
            **UV_OFFLINE,
            UV_NO_PROGRESS="1",
        )

    def uv(self, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return self._run([self.uv_bin, *args], cwd)

    def poetry(self, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        """Run Poetry without plugins, so the harness does not depend on this project's plugin."""
        return self._run([self.poetry_bin, "--no-plugins", *args], cwd)

    def python(self, venv: Path, code: str) -> str:
        """Run `code` with the interpreter of `venv`; return its stripped stdout."""
        interpreter = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
        return self._run([str(interpreter), "-c", code], venv.parent).stdout.strip()

    def _run(self, command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
        completed = subprocess.run(
            command,
            cwd=cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if completed.returncode != 0:
            raise ToolError(
                f"{' '.join(command)} exited {completed.returncode}\n"
                f"--- stdout\n{completed.stdout}\n--- stderr\n{completed.stderr}"
            )
        return completed
