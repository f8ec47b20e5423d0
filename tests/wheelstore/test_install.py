"""A shared install is Poetry's install: the same files, byte for byte, and `poetry install`
afterwards finds nothing to do."""

from __future__ import annotations

import shutil
import tempfile

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import UnmetRequirementError
from poetry_cuda.wheelstore.link import Linker
from poetry_cuda.wheelstore.store import Store
from tests.support.store_worlds import venv_files
from tests.wheelstore.conftest import NOTHING_TO_DO


if TYPE_CHECKING:
    from tests.wheelstore.conftest import World


pytestmark = pytest.mark.slow


def _site(project: Path) -> Path:
    [site] = (project / ".venv" / "lib").glob("python3*/site-packages")
    return site


def test_a_shared_install_is_poetrys_install_byte_for_byte(featured: World) -> None:
    project = featured.project("demo")
    featured.tools.poetry("install", cwd=project)
    poetrys = venv_files(project / ".venv")
    shutil.rmtree(project / ".venv")
    featured.environment(project)
    store = Store(featured.base / "store")

    report = featured.sync(project, store)

    assert venv_files(project / ".venv") == poetrys
    assert sorted(report.installed.installed) == ["alpha 1.0", "beta 2.0", "gamma 3.0"]
    assert report.installed.mode == "hardlink"
    assert report.notes == ()
    # Linked, not copied: the module is the stored file itself.
    [entry] = [e for e in store.entries() if e.name == "alpha"]
    assert (_site(project) / "alpha" / "cli.py").samefile(entry.tree / "alpha" / "cli.py")
    # What only the installer writes is the environment's own: the rewritten script.
    assert (project / ".venv" / "bin" / "alpha-script").stat().st_nlink == 1
    later = featured.tools.poetry("install", cwd=project)
    assert NOTHING_TO_DO in later.stdout


def test_a_copy_poetry_made_is_replaced_by_links_then_kept(featured: World) -> None:
    project = featured.project("demo")
    featured.tools.poetry("install", cwd=project)
    poetrys = venv_files(project / ".venv")
    store = Store(featured.base / "store")

    first = featured.sync(project, store)
    again = featured.sync(project, store)

    assert sorted(first.installed.installed) == ["alpha 1.0", "beta 2.0", "gamma 3.0"]
    assert sorted(first.installed.removed) == ["alpha 1.0", "beta 2.0", "gamma 3.0"]
    assert again.installed.installed == ()
    assert sorted(again.installed.kept) == ["alpha 1.0", "beta 2.0", "gamma 3.0"]
    assert venv_files(project / ".venv") == poetrys


def test_a_new_lock_replaces_versions_and_removes_what_it_no_longer_lists(
    featured: World,
) -> None:
    project = featured.project("demo")
    store = Store(featured.base / "store")
    featured.sync(project, store)
    featured.tools.poetry("run", "pip", "--version", cwd=project)  # the seed stays
    (project / "pyproject.toml").write_text(
        (project / "pyproject.toml")
        .read_text()
        .replace('"alpha==1.0",\n    "beta==2.0",', '"alpha==1.1",')
    )
    featured.tools.poetry("lock", cwd=project)

    report = featured.sync(project, store)

    site = _site(project)
    assert report.installed.installed == ("alpha 1.1",)
    assert sorted(report.installed.removed) == ["alpha 1.0", "beta 2.0"]
    assert not (site / "beta").exists()
    assert not list(site.glob("beta-*.dist-info"))
    assert (site / "alpha" / "__init__.py").read_text() == "VERSION = '1.1'\n"
    assert list(site.glob("pip-*.dist-info"))
    later = featured.tools.poetry("install", cwd=project)
    assert NOTHING_TO_DO in later.stdout


def test_the_second_project_comes_from_the_store_without_a_download(featured: World) -> None:
    first, second = featured.project("first"), featured.project("second")
    store = Store(featured.base / "store")
    featured.sync(first, store)
    featured.server.reset_counters()

    report = featured.sync(second, store)

    assert report.fetched == ()
    assert featured.server.request_count("/simple/") == 0
    assert featured.server.request_count("/files/") == 0
    assert venv_files(second / ".venv").keys() == venv_files(first / ".venv").keys()


def test_across_filesystems_files_are_copied_and_that_is_said(featured: World) -> None:
    shared = Path("/dev/shm")
    if not shared.is_dir() or shared.stat().st_dev == featured.base.stat().st_dev:
        pytest.skip("no second filesystem at /dev/shm")
    project = featured.project("demo")
    featured.tools.poetry("install", cwd=project)
    poetrys = venv_files(project / ".venv")
    shutil.rmtree(project / ".venv")
    featured.environment(project)
    with tempfile.TemporaryDirectory(dir=shared, prefix="poetry-cuda-test-") as elsewhere:
        report = featured.sync(project, Store(Path(elsewhere) / "store"))
    assert report.installed.mode == "copy"
    assert report.notes == (
        "files were copied, not linked: the store is on another filesystem than the environment",
    )
    assert venv_files(project / ".venv") == poetrys
    assert (_site(project) / "alpha" / "cli.py").stat().st_nlink == 1
    assert NOTHING_TO_DO in featured.tools.poetry("install", cwd=project).stdout


def test_a_half_installed_wheel_is_removed_again(featured: World, tmp_path: Path) -> None:
    project = featured.project("demo")
    store = Store(featured.base / "store")
    site = _site(project)
    blocker = project / ".venv" / "share"
    blocker.write_text("a file where the wheel's data folder goes")

    with pytest.raises(UnmetRequirementError, match="cannot install into"):
        featured.sync(project, store, linker=Linker("hardlink"))

    assert not (site / "alpha").exists()
    assert not (site / "alpha-1.0.dist-info").exists()
    blocker.unlink()
    featured.sync(project, store)
    assert (site / "alpha-1.0.dist-info" / "RECORD").is_file()
