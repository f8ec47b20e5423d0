from __future__ import annotations

import os
import subprocess
import sys

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from hypothesis import settings

from tests.support.catalog import World
from tests.support.catalog import WorldServer
from tests.support.catalog import build_world
from tests.support.example import torch_example
from tests.support.fake_nvml import FakeNvml
from tests.support.fake_nvml import FakeNvmlUnavailableError


if TYPE_CHECKING:
    from collections.abc import Iterator
    from collections.abc import Mapping


# CI replays the same examples every run: a property that fails there fails for everyone,
# reproducibly, instead of on one run in many. Local runs keep exploring new examples.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


@dataclass(frozen=True)
class Result:
    code: int
    stdout: str
    stderr: str


class Cli:
    """Runs the real `poetry-cuda` or `poetry` executable in a subprocess."""

    def __init__(self, home: Path) -> None:
        self.env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("POETRY_", "UV_", "VIRTUAL_ENV"))
        }
        self.env.update(
            {
                "POETRY_CONFIG_DIR": str(home / "poetry-config"),
                "POETRY_CACHE_DIR": str(home / "poetry-cache"),
                "POETRY_DATA_DIR": str(home / "poetry-data"),
                "POETRY_VIRTUALENVS_IN_PROJECT": "true",
                "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
                "UV_CACHE_DIR": str(home / "uv-cache"),
                "NO_COLOR": "1",
            }
        )

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


@pytest.fixture(scope="session")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    """The standard indexes (PyPI, PyTorch and Paddle stand-ins), built once per session."""
    return build_world(tmp_path_factory.mktemp("world"))


@pytest.fixture
def server(world: World) -> Iterator[WorldServer]:
    """A fresh server over the world, with clean counters and no faults."""
    with WorldServer(world) as running:
        yield running


@pytest.fixture
def cli(tmp_path_factory: pytest.TempPathFactory) -> Cli:
    return Cli(tmp_path_factory.mktemp("home"))


@pytest.fixture(scope="session")
def fake_nvml(tmp_path_factory: pytest.TempPathFactory) -> FakeNvml:
    """The fake libnvidia-ml.so.1, compiled once per session (skips without gcc)."""
    try:
        return FakeNvml.build(tmp_path_factory.mktemp("fake-nvml"))
    except FakeNvmlUnavailableError as error:
        pytest.skip(str(error))


@pytest.fixture
def locked_example(cli: Cli, tmp_path: Path, server: WorldServer) -> Path:
    """examples/torch_project, configured for the test world and locked by poetry-cuda."""
    project = torch_example(tmp_path, server)
    result = cli.run("lock", cwd=project)
    assert result.code == 0, result.stderr
    return project
