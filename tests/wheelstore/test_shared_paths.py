"""A path several wheels hold (``nvidia/__init__.py`` in every nvidia-* wheel): the wheel
linked last places it, and a later install keeps every distribution as it is."""

from __future__ import annotations

import sys

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import read_toml
from poetry_cuda.wheelstore.fetch import Fetcher
from poetry_cuda.wheelstore.store import Store
from poetry_cuda.wheelstore.sync import sync_shared
from tests.support.index import IndexServer
from tests.support.store_worlds import poetry_project
from tests.support.store_worlds import wheel
from tests.support.store_worlds import write_index
from tests.support.tools import Tools
from tests.wheelstore.conftest import INSTALLER


if TYPE_CHECKING:
    from pathlib import Path

    from poetry_cuda.wheelstore.sync import Report


@pytest.mark.slow
def test_a_second_install_keeps_wheels_that_share_a_path(tmp_path: Path) -> None:
    shared = "# a namespace both wheels hold\n"
    index = write_index(
        tmp_path / "index",
        [
            wheel("nsa", "1.0", files={"ns/__init__.py": shared, "ns/a.py": "A = 1\n"}),
            wheel("nsb", "1.0", files={"ns/__init__.py": shared, "ns/b.py": "B = 1\n"}),
        ],
    )
    tools = Tools(tmp_path / "home")
    store = Store(tmp_path / "store")
    with IndexServer(index) as server:
        project = poetry_project(tmp_path / "project", server.url("/simple/"), ["nsa", "nsb"])
        tools.poetry("lock", cwd=project)
        tools.poetry("env", "use", sys.executable, cwd=project)

        def sync() -> Report:
            return sync_shared(
                project,
                project / ".venv",
                read_toml(project / "poetry.lock"),
                store=store,
                fetcher=Fetcher(),
                installer=INSTALLER,
            )

        first = sync()
        assert sorted(first.installed.installed) == ["nsa 1.0", "nsb 1.0"]
        again = sync()
    assert again.installed.installed == ()
    assert again.installed.removed == ()
    assert sorted(again.installed.kept) == ["nsa 1.0", "nsb 1.0"]
