"""The real `poetry-cuda`, `poetry` and `uv` executables in subprocesses, as a user runs them."""

from __future__ import annotations

import subprocess
import sys

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tests.support.isolation import hermetic_env


if TYPE_CHECKING:
    from collections.abc import Mapping


BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class Result:
    code: int
    stdout: str
    stderr: str


class Cli:
    """Runs the real `poetry-cuda` or `poetry` executable in a subprocess.

    Every run gets the hermetic environment of `home`, so a test sees none of the user's
    configuration; `env` adds a test's own variables.
    """

    def __init__(self, home: Path) -> None:
        self.env = hermetic_env(home, POETRY_VIRTUALENVS_IN_PROJECT="true")

    def run(
        self,
        *args: str,
        cwd: Path,
        program: str = "poetry-cuda",
        env: Mapping[str, str] | None = None,
        timeout: float = 300,
    ) -> Result:
        completed = subprocess.run(
            [str(BIN / program), *args],
            cwd=cwd,
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        result = Result(completed.returncode, completed.stdout, completed.stderr)
        assert "Traceback" not in result.stdout + result.stderr, result
        return result
