"""The package managers by name: the one place that loads a backend's package.

A command loads only the manager its project uses (a Poetry project never loads uv's), and
the code below the interface receives it, or this loader, as an argument (`lock.lock`,
`doctor.gather`, `project_environment`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.backends.base import unknown


if TYPE_CHECKING:
    from collections.abc import Callable

    from poetry_cuda.backends.base import PackageManager


def _poetry() -> PackageManager:
    from poetry_cuda.backends.poetry.manager import PoetryManager

    return PoetryManager()


def _uv() -> PackageManager:
    from poetry_cuda.backends.uv.manager import UvManager

    return UvManager()


MANAGERS: dict[str, Callable[[], PackageManager]] = {"poetry": _poetry, "uv": _uv}


def package_manager(name: str) -> PackageManager:
    """The package manager `name` (a cuda.lock may name one this release does not have)."""
    load = MANAGERS.get(name)
    if load is None:
        raise unknown(name)
    return load()
