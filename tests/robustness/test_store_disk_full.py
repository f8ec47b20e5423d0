"""Issue 40, item 7: the shared wheel store when the disk fills up, and a wheel no installer
accepts.

A disk that fills while a wheel is downloaded or unpacked is said as such (exit 1, as for the
store's other wants of this machine: a read-only store, an index out of reach), with where
to free space, never as a bug of poetry-cuda nor as a broken wheel; a wheel whose ``.data``
folder holds a folder that is no installation scheme is refused by name and source before
the environment is touched (exit 2, a bad input). Nothing of either is kept.

The full disk is real: a 1 MiB tmpfs mounted for the test (root only; skipped elsewhere).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import subprocess
import sys
import threading
import venv

from http.server import SimpleHTTPRequestHandler
from http.server import ThreadingHTTPServer
from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import UnmetRequirementError
from poetry_cuda.wheelstore.fetch import Fetcher
from poetry_cuda.wheelstore.install import Wanted
from poetry_cuda.wheelstore.install import install
from poetry_cuda.wheelstore.install import interpreter
from poetry_cuda.wheelstore.locked import LockedWheel
from poetry_cuda.wheelstore.locked import Origin
from poetry_cuda.wheelstore.store import Store
from poetry_cuda.wheelstore.store import Wheel
from tests.support.store_worlds import featured_wheel


if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A folder on a file system of 1 MiB."""
    folder = tmp_path / "disk"
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def served(folder: Path) -> Iterator[str]:
    """The files of `folder` over HTTP on the loopback interface."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=folder))
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _locked(folder: Path, files: dict[str, tuple[bytes, int]], url: str) -> LockedWheel:
    path = featured_wheel(folder, "pkg", "1.0", files)
    wheel = Wheel(path.name, hashlib.sha256(path.read_bytes()).hexdigest())
    return LockedWheel("pkg", "1.0", wheel, Origin("url", f"{url}/{path.name}"), None)


def _assert_nothing_kept(store: Store) -> None:
    assert store.entries() == []
    assert not list((store.root / ".tmp").iterdir()), "a download or unpacking was left"


def _assert_says_disk_full(error: UnmetRequirementError, store: Store) -> None:
    assert error.exit_code == 1
    assert error.what.startswith("pkg-1.0-py3-none-any.whl: no space left to add it to the shared")
    assert str(store.root) in error.what
    assert "No space left on device" in error.what
    assert f"free space at {store.root}" in error.fix
    assert "bug" not in error.render()
    assert "not a readable wheel" not in error.render()


def test_item7_disk_full_while_downloading_a_wheel(tmp_path: Path, small_disk: Path) -> None:
    # 2 MiB that do not compress: the download itself does not fit.
    files = {"pkg/blob.bin": (os.urandom(2 * 1024 * 1024), 0o644)}
    with served(tmp_path / "index") as url:
        locked = _locked(tmp_path / "index", files, url)
        store = Store(small_disk / "store")
        with pytest.raises(UnmetRequirementError) as caught:
            store.ensure(locked.wheel, Fetcher().fetch(locked))
    _assert_says_disk_full(caught.value, store)
    _assert_nothing_kept(store)


def test_item7_disk_full_while_unpacking_a_wheel(tmp_path: Path, small_disk: Path) -> None:
    # 4 MiB of zeros: a download of a few KiB that unpacks to more than the disk holds.
    files = {"pkg/zeros.bin": (bytes(4 * 1024 * 1024), 0o644)}
    with served(tmp_path / "index") as url:
        locked = _locked(tmp_path / "index", files, url)
        assert (tmp_path / "index" / locked.wheel.filename).stat().st_size < 256 * 1024
        store = Store(small_disk / "store")
        with pytest.raises(UnmetRequirementError) as caught:
            store.ensure(locked.wheel, Fetcher().fetch(locked))
    _assert_says_disk_full(caught.value, store)
    _assert_nothing_kept(store)


def test_item7_a_wheel_with_a_bogus_data_folder_is_refused_by_name_and_source(
    tmp_path: Path,
) -> None:
    venv.create(tmp_path / "venv", with_pip=False)
    where = interpreter(tmp_path / "venv")
    [site] = where.site_packages
    before = sorted(path.name for path in site.iterdir())
    files = {
        "pkg/__init__.py": (b"X = 1\n", 0o644),
        "pkg-1.0.data/bogus/evil.txt": (b"where does this go?\n", 0o644),
    }
    path = featured_wheel(tmp_path / "wheels", "pkg", "1.0", files)
    store = Store(tmp_path / "store")
    entry = store.add_file(Wheel(path.name, hashlib.sha256(path.read_bytes()).hexdigest()), path)
    origin = "https://index.example/simple/"
    with pytest.raises(InputFileError) as caught:
        install(where, [Wanted(entry, None, origin)], installer=f"Python {sys.version_info[0]}")
    error = caught.value
    assert error.exit_code == 2
    assert error.what.startswith(
        f"pkg-1.0-py3-none-any.whl (from {origin}): not an installable wheel: "
        "pkg-1.0.data/bogus/evil.txt is not in a .data folder an installer knows"
    )
    assert "nothing of it was left installed" in error.why
    assert "report it to the publisher of pkg" in error.fix
    assert sorted(path.name for path in site.iterdir()) == before
