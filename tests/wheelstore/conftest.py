"""A small index of wheels with every part an installer handles, and Poetry projects on it.

alpha (1.0 and 1.1) is pure Python with a console and a GUI entry point, a ``#!python``
script and a plain one in ``.data/scripts``, a data file, a header and an executable file
in its package; beta is a platform wheel (Root-Is-Purelib false) with an executable shared
library; gamma is a dependency given by URL (``/files/``), for which Poetry writes
direct_url.json.
"""

from __future__ import annotations

import os
import sys

from dataclasses import dataclass
from importlib.metadata import version
from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import read_toml
from poetry_cuda.wheelstore.fetch import Fetcher
from poetry_cuda.wheelstore.sync import sync_shared
from tests.support.index import IndexServer
from tests.support.store_worlds import featured_wheel
from tests.support.store_worlds import poetry_project
from tests.support.tools import Tools


if TYPE_CHECKING:
    from collections.abc import Iterator
    from collections.abc import Sequence
    from pathlib import Path

    from poetry_cuda.wheelstore.link import Linker
    from poetry_cuda.wheelstore.store import Store
    from poetry_cuda.wheelstore.sync import Report


INSTALLER = f"Poetry {version('poetry')}"
PLATFORM = "cp311-cp311-manylinux_2_17_x86_64"
NOTHING_TO_DO = "No dependencies to install or update"


def _alpha(folder: Path, release: str) -> None:
    featured_wheel(
        folder,
        "alpha",
        release,
        {
            "alpha/__init__.py": (f"VERSION = {release!r}\n".encode(), 0o644),
            "alpha/cli.py": (b"def main():\n    print('alpha')\n", 0o644),
            "alpha/bin/tool": (b"#!/bin/sh\necho tool\n", 0o755),
            f"alpha-{release}.data/scripts/alpha-script": (b"#!python\nprint(1)\n", 0o755),
            f"alpha-{release}.data/scripts/plain.sh": (b"#!/bin/sh\necho hi\n", 0o755),
            f"alpha-{release}.data/data/share/alpha.txt": (b"data\n", 0o644),
            f"alpha-{release}.data/headers/alpha.h": (b"int alpha;\n", 0o644),
        },
        entry_points=(
            "[console_scripts]\nalpha-cli = alpha.cli:main\n"
            "[gui_scripts]\nalpha-gui = alpha.cli:main\n"
        ),
    )


@pytest.fixture(scope="session")
def featured_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("featured-index")
    for release in ("1.0", "1.1"):
        _alpha(root / "simple" / "alpha", release)
    featured_wheel(
        root / "simple" / "beta",
        "beta",
        "2.0",
        {
            "beta/__init__.py": (b"", 0o644),
            "beta/_native.so": (bytes(range(256)) * 64, 0o755),
        },
        tag=PLATFORM,
        purelib=False,
    )
    featured_wheel(root / "files", "gamma", "3.0", {"gamma/__init__.py": (b"G = 3\n", 0o644)})
    return root


@dataclass
class World:
    """The featured index served, real Poetry in an isolated home, and a store."""

    server: IndexServer
    tools: Tools
    base: Path

    @property
    def index(self) -> str:
        return self.server.url("/simple/")

    def dependencies(self, alpha: str = "1.0", *, beta: bool = True) -> list[str]:
        gamma = self.server.url("/files/gamma-3.0-py3-none-any.whl")
        return [f"alpha=={alpha}", *(["beta==2.0"] if beta else []), f"gamma @ {gamma}"]

    def project(self, name: str, dependencies: Sequence[str] | None = None) -> Path:
        """A project locked by Poetry, with Poetry's (empty) environment made."""
        folder = poetry_project(self.base / name, self.index, dependencies or self.dependencies())
        self.tools.poetry("lock", cwd=folder)
        self.environment(folder)
        return folder

    def environment(self, project: Path) -> Path:
        self.tools.poetry("env", "use", sys.executable, cwd=project)
        return project / ".venv"

    def sync(
        self,
        project: Path,
        store: Store,
        *,
        linker: Linker | None = None,
        fetcher: Fetcher | None = None,
    ) -> Report:
        return sync_shared(
            project,
            project / ".venv",
            read_toml(project / "poetry.lock"),
            store=store,
            fetcher=fetcher or Fetcher(),
            installer=INSTALLER,
            linker=linker,
        )


@pytest.fixture
def featured(featured_index: Path, tmp_path: Path) -> Iterator[World]:
    if sys.platform != "linux" or os.uname().machine != "x86_64":
        pytest.skip("the featured index's platform wheel is for Linux x86_64")
    with IndexServer(featured_index) as server:
        yield World(server, Tools(tmp_path / "home"), tmp_path)
