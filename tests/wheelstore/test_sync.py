"""The shared install end to end: runs at once, a store entry changed after linking, a store
that is read-only, and pruning what no project uses."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from poetry_cuda.wheelstore import usage
from poetry_cuda.wheelstore.store import Store
from poetry_cuda.wheelstore.verify import check_installed
from tests.support.store_worlds import venv_files
from tests.wheelstore.conftest import INSTALLER
from tests.wheelstore.conftest import NOTHING_TO_DO


if TYPE_CHECKING:
    from collections.abc import Iterator

    from poetry_cuda.wheelstore.sync import Report
    from tests.wheelstore.conftest import World


pytestmark = pytest.mark.slow
NOBODY = 65534


def _site(project: Path) -> Path:
    [site] = (project / ".venv" / "lib").glob("python3*/site-packages")
    return site


def test_two_syncs_at_once_share_the_store_and_fetch_each_wheel_once(featured: World) -> None:
    projects = [featured.project("first"), featured.project("second")]
    store = Store(featured.base / "store")
    featured.server.reset_counters()
    reports: list[Report] = []
    errors: list[BaseException] = []

    def run(project: Path) -> None:
        try:
            reports.append(featured.sync(project, store))
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(p,)) for p in projects]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    wheels = [r.path for r in featured.server.requests if r.path.endswith(".whl")]
    assert sorted(wheels) == sorted(set(wheels))
    assert len(wheels) == 3
    assert len(store.entries()) == 3
    first, second = (venv_files(p / ".venv") for p in projects)
    assert first.keys() == second.keys()  # the scripts' hashes differ: they name their venv
    for project in projects:
        assert NOTHING_TO_DO in featured.tools.poetry("install", cwd=project).stdout


def test_a_store_entry_changed_after_linking_is_named_and_replaced(featured: World) -> None:
    project = featured.project("demo")
    store = Store(featured.base / "store")
    featured.sync(project, store)
    [entry] = [e for e in store.entries() if e.name == "beta"]
    library = entry.tree / "beta" / "_native.so"
    library.write_bytes(b"\x00" * library.stat().st_size)  # in place: every link sees it

    found = check_installed(_site(project), root=project / ".venv", wanted=lambda n: n == "beta")
    [damaged] = found.damaged
    assert [str(d.describe()) for d in damaged.damage] == [
        "beta/_native.so: other contents than the wheel's (sha256 differs)"
    ]
    assert store.check(entry) != []

    report = featured.sync(project, store)

    assert report.fetched == ("beta-2.0-cp311-cp311-manylinux_2_17_x86_64.whl",)
    assert report.installed.installed == ("beta 2.0",)
    assert check_installed(_site(project), root=project / ".venv").damaged == []


def test_prune_removes_what_no_project_uses_any_more(featured: World) -> None:
    kept, gone = (
        featured.project("kept"),
        featured.project("gone", featured.dependencies("1.1", beta=False)),
    )
    store = Store(featured.base / "store")
    featured.sync(kept, store)
    featured.sync(gone, store)
    assert len(store.entries()) == 4
    assert {u.project for u in usage.uses(store.root)} == {kept, gone}

    shutil.rmtree(gone)
    removed = store.prune(lambda: usage.in_use(store.root))

    assert [e.filename for e in removed] == ["alpha-1.1-py3-none-any.whl"]
    assert sorted(e.name for e in store.entries()) == ["alpha", "beta", "gamma"]
    assert NOTHING_TO_DO in featured.tools.poetry("install", cwd=kept).stdout


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder every user can enter (the test's own temporary folder is root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="poetry-cuda-read-only-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _environment_for_nobody(featured: World, project: Path) -> None:
    """Poetry's environment for `project`, from a Python 3.11 the other user can run (the
    suite's own may lie in root's home), owned by that user; skips where there is none."""
    for candidate in (sys.executable, "/usr/bin/python3.11", "/usr/local/bin/python3.11"):
        if not Path(candidate).exists():
            continue
        featured.tools.poetry("env", "use", candidate, cwd=project)
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(project)], check=True)
        try:
            subprocess.run(
                [str(project / ".venv" / "bin" / "python"), "-c", "pass"],
                user=NOBODY,
                capture_output=True,
                check=True,
            )
        except (OSError, subprocess.CalledProcessError):
            pass
        else:
            return
        shutil.rmtree(project / ".venv")
    pytest.skip("no Python 3.11 here whose environment another user can run")


_AS_NOBODY = """
import json, sys
from pathlib import Path
from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.files import read_toml
from poetry_cuda.wheelstore.fetch import Fetcher
from poetry_cuda.wheelstore.store import Store
from poetry_cuda.wheelstore.sync import sync_shared
project, store, installer = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
try:
    report = sync_shared(project, project / ".venv", read_toml(project / "poetry.lock"),
                         store=Store(store), fetcher=Fetcher(), installer=installer)
except PoetryCudaError as error:
    print(json.dumps({"error": error.what}))
else:
    print(json.dumps({"notes": report.notes, "mode": report.installed.mode}))
"""


def test_a_store_another_user_made_serves_what_it_holds(featured: World, open_folder: Path) -> None:
    """A store someone else provisioned: read-only to this user. Its wheels are used (copied,
    since the kernel lets no one hard-link another user's files it may not write), and one
    it lacks is refused with a message."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("needs root, to run the sync as another user")
    store = Store(open_folder / "store")
    provisioner = featured.project("provisioner")
    featured.sync(provisioner, store)
    user = open_folder / "user"
    shutil.copytree(provisioner, user, ignore=shutil.ignore_patterns(".venv"))
    _environment_for_nobody(featured, user)

    def as_nobody(project: Path) -> dict[str, object]:
        done = subprocess.run(
            [sys.executable, "-c", _AS_NOBODY, str(project), str(store.root), INSTALLER],
            user=NOBODY,
            group=NOBODY,
            env={**featured.tools.env, "HOME": str(open_folder)},
            capture_output=True,
            text=True,
            check=True,
        )
        result: dict[str, object] = json.loads(done.stdout)
        return result

    assert as_nobody(user) == {
        "notes": [
            (
                f"the store at {store.root} is read-only: it serves the wheels it holds, and this "
                "environment's use of them is not recorded"
            ),
            (
                "files were copied, not linked: hard links to the store are refused here "
                "(Operation not permitted)"
            ),
        ],
        "mode": "copy",
    }
    assert NOTHING_TO_DO in featured.tools.poetry("install", cwd=user).stdout

    (user / "pyproject.toml").write_text(
        (user / "pyproject.toml").read_text().replace("alpha==1.0", "alpha==1.1")
    )
    featured.tools.poetry("lock", cwd=user)
    subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(user)], check=True)
    assert as_nobody(user) == {
        "error": f"alpha-1.1-py3-none-any.whl: not in the shared store at {store.root}, "
        "which is read-only"
    }
