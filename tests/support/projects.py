"""Tiny uv and Poetry projects that take torch from a CUDA index and everything else from the
PyPI stand-in, and readers for the locks they produce."""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import tomlkit


if TYPE_CHECKING:
    from pathlib import Path


CUDA_PLATFORMS = "sys_platform == 'linux' or sys_platform == 'win32'"


def write_uv_project(
    directory: Path,
    *,
    pypi: str,
    cuda_index: str,
    requires_python: str = ">=3.11,<3.12",
    dependencies: tuple[str, ...] = ("torch==2.5.1",),
) -> Path:
    """The documented uv setup: an explicit `pytorch-cu124` index pinned by `tool.uv.sources`."""
    directory.mkdir(parents=True)
    document = {
        "project": {
            "name": "demo",
            "version": "0.1.0",
            "requires-python": requires_python,
            "dependencies": list(dependencies),
        },
        "tool": {
            "uv": {
                "index": [
                    {"name": "pypi-stand-in", "url": pypi, "default": True},
                    {"name": "pytorch-cu124", "url": cuda_index, "explicit": True},
                ],
                "sources": {"torch": [{"index": "pytorch-cu124", "marker": CUDA_PLATFORMS}]},
            }
        },
    }
    (directory / "pyproject.toml").write_text(tomlkit.dumps(document))
    return directory


def write_poetry_project(
    directory: Path, *, pypi: str, cuda_index: str, python: str = ">=3.11,<3.12"
) -> Path:
    """A Poetry project: the PyPI stand-in as primary source (so PyPI itself is never used) and
    torch from an explicit `pytorch-cu124` source."""
    directory.mkdir(parents=True)
    document = {
        "tool": {
            "poetry": {
                "package-mode": False,
                "dependencies": {
                    "python": python,
                    "torch": {"version": "2.5.1", "source": "pytorch-cu124"},
                },
                "source": [
                    {"name": "pypi-stand-in", "url": pypi, "priority": "primary"},
                    {"name": "pytorch-cu124", "url": cuda_index, "priority": "explicit"},
                ],
            }
        }
    }
    (directory / "pyproject.toml").write_text(tomlkit.dumps(document))
    return directory


def locked_packages(lock: Path, name: str) -> list[dict[str, Any]]:
    """The `[[package]]` entries of a uv.lock or poetry.lock for one name."""
    document = tomlkit.parse(lock.read_text()).unwrap()
    return [package for package in document["package"] if package["name"] == name]


def registries(uv_lock: Path) -> set[str]:
    """Every index URL a uv.lock refers to."""
    document = tomlkit.parse(uv_lock.read_text()).unwrap()
    return {
        package["source"]["registry"]
        for package in document["package"]
        if "registry" in package["source"]
    }
