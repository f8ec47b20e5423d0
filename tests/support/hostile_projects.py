"""The example torch project as a Poetry or a uv project on the test indexes, for the security tests.

Written here rather than imported from the lock tests, so that these tests pin down exactly the
configuration they attack: the PyPI stand-in as the project's only ordinary index, and the pytorch
mirror on 127.0.0.1.
"""

from __future__ import annotations

import shutil

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Literal

from tests.support.isolation import UV_OFFLINE


if TYPE_CHECKING:
    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli
    from tests.support.cli import Result


Backend = Literal["poetry", "uv"]
BACKENDS: tuple[Backend, ...] = ("poetry", "uv")
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "torch_project"
# uv uses the interpreter running the tests and never downloads one.
UV = {**UV_OFFLINE, "UV_HTTP_RETRIES": "0"}
PYPI = "local-pypi"


def torch_project(directory: Path, server: WorldServer, backend: Backend) -> Path:
    project = directory / "torch_project"
    shutil.copytree(EXAMPLE, project)
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text().replace('">=3.10,<3.14"', '">=3.11,<3.12"')
    text += f'\n[tool.poetry-cuda.mirrors]\npytorch = "{server.pytorch_mirror}"\n'
    if backend == "poetry":
        text += (
            f'\n[[tool.poetry.source]]\nname = "{PYPI}"\nurl = "{server.pypi_url}"\n'
            'priority = "primary"\n'
        )
    else:
        text = text.replace("[tool.poetry]\npackage-mode = false\n", "[tool.uv]\npackage = false\n")
        text += f'\n[[tool.uv.index]]\nname = "{PYPI}"\nurl = "{server.pypi_url}"\ndefault = true\n'
    pyproject.write_text(text)
    return project


def lock_files(backend: Backend) -> tuple[str, ...]:
    return ("pyproject.toml", "poetry.lock" if backend == "poetry" else "uv.lock", "cuda.lock")


def snapshot(project: Path, backend: Backend) -> dict[str, bytes | None]:
    return {
        name: (project / name).read_bytes() if (project / name).exists() else None
        for name in lock_files(backend)
    }


def lock(cli: Cli, project: Path, *args: str) -> Result:
    """`poetry-cuda lock`, with uv kept to the local interpreter (harmless for Poetry)."""
    return cli.run("lock", *args, cwd=project, env=UV)


def install(cli: Cli, project: Path, backend: Backend) -> Result:
    """What a teammate without poetry-cuda runs: plain `poetry install` or `uv sync`."""
    if backend == "poetry":
        return cli.run("--no-plugins", "install", cwd=project, program="poetry")
    return cli.run("sync", cwd=project, program="uv", env=UV)
