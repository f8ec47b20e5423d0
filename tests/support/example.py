"""The example torch project, pointed at the test world's indexes, and readers for its files.

The security tests attack exactly this configuration: the PyPI stand-in as the project's only
ordinary index, and the pytorch mirror on 127.0.0.1.
"""

from __future__ import annotations

import shutil

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Literal

from poetry_cuda.files import read_toml


if TYPE_CHECKING:
    from tests.support.catalog import WorldServer


ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
FILES = ("pyproject.toml", "poetry.lock", "cuda.lock")
PYPI = "local-pypi"
Backend = Literal["poetry", "uv"]


def configure(project: Path, server: WorldServer, mirror: str | None = None) -> None:
    """PyPI is the local stand-in (a primary source) and the pytorch mirror the local one."""
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text().replace('">=3.10,<3.14"', '">=3.11,<3.12"')
    text += (
        f'\n[tool.poetry-cuda.mirrors]\npytorch = "{mirror or server.pytorch_mirror}"\n'
        f'\n[[tool.poetry.source]]\nname = "{PYPI}"\nurl = "{server.pypi_url}"\n'
        'priority = "primary"\n'
    )
    pyproject.write_text(text)


def configure_uv(project: Path, server: WorldServer, mirror: str | None = None) -> None:
    """The example as a uv project whose default index is the PyPI stand-in."""
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text().replace('">=3.10,<3.14"', '">=3.11,<3.12"')
    text = text.replace("[tool.poetry]\npackage-mode = false\n", "[tool.uv]\npackage = false\n")
    text += (
        f'\n[tool.poetry-cuda.mirrors]\npytorch = "{mirror or server.pytorch_mirror}"\n'
        f'\n[[tool.uv.index]]\nname = "{PYPI}"\nurl = "{server.pypi_url}"\ndefault = true\n'
    )
    pyproject.write_text(text)


def torch_example(directory: Path, server: WorldServer, backend: Backend = "poetry") -> Path:
    """A copy of examples/torch_project in `directory`, a `backend` project configured for `server`."""
    project = directory / "torch_project"
    shutil.copytree(EXAMPLES / "torch_project", project)
    (configure if backend == "poetry" else configure_uv)(project, server)
    return project


def snapshot(project: Path, names: tuple[str, ...] = FILES) -> dict[str, bytes | None]:
    """Each of `names`' bytes, None where it is no file (missing, or a folder in its place)."""
    return {n: (project / n).read_bytes() if (project / n).is_file() else None for n in names}


def torch_entries(project: Path) -> list[tuple[str, str | None, str | None]]:
    """(version, source reference, markers) of each torch entry in poetry.lock."""
    lock = read_toml(project / "poetry.lock")
    return sorted(
        (str(p["version"]), (p.get("source") or {}).get("reference"), str(p.get("markers")))
        for p in lock["package"]
        if p["name"] == "torch"
    )
