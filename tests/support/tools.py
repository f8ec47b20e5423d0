"""Real uv and Poetry in subprocesses, isolated from the user's configuration, caches and network.

Every run gets HOME, XDG directories, Poetry's config/cache/data directories and uv's cache under
one temporary home, no proxy settings, no keyring, and no Python downloads (uv uses the interpreter
running the tests). Projects must point both tools at loopback indexes only.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig

from typing import TYPE_CHECKING

import uv


if TYPE_CHECKING:
    from pathlib import Path


_INHERITED_PREFIXES = ("POETRY_", "UV_", "PIP_", "VIRTUAL_ENV", "CONDA", "PYTHON")
_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")


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
        self.env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(_INHERITED_PREFIXES) and key.lower() not in _PROXY_VARIABLES
        }
        self.env.update(
            {
                "HOME": str(home),
                "XDG_CONFIG_HOME": str(home / "config"),
                "XDG_CACHE_HOME": str(home / "cache"),
                "XDG_DATA_HOME": str(home / "data"),
                "NO_PROXY": "127.0.0.1,localhost",
                "NO_COLOR": "1",
                "POETRY_CONFIG_DIR": str(home / "poetry-config"),
                "POETRY_CACHE_DIR": str(home / "poetry-cache"),
                "POETRY_DATA_DIR": str(home / "poetry-data"),
                "POETRY_VIRTUALENVS_IN_PROJECT": "true",
                "POETRY_VIRTUALENVS_USE_POETRY_PYTHON": "true",
                "POETRY_NO_INTERACTION": "1",
                "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
                "UV_CACHE_DIR": str(home / "uv-cache"),
                "UV_PYTHON": sys.executable,
                "UV_PYTHON_DOWNLOADS": "never",
                "UV_NO_PROGRESS": "1",
            }
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
