"""The store of unpacked wheels: entries made whole or not at all, checked at every use,
refused when they are not the locked wheel, shared by runs that take turns."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
import threading
import venv
import zipfile

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import UnmetRequirementError
from poetry_cuda.wheelstore.install import Wanted
from poetry_cuda.wheelstore.install import install
from poetry_cuda.wheelstore.install import interpreter
from poetry_cuda.wheelstore.store import MARKER
from poetry_cuda.wheelstore.store import Store
from poetry_cuda.wheelstore.store import Wheel
from poetry_cuda.wheelstore.store import default_root
from tests.support.store_worlds import featured_wheel


if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


FILES = {
    "pkg/__init__.py": (b"X = 1\n", 0o644),
    "pkg/lib/libpkg.so.1": (bytes(range(256)) * 40, 0o755),
}


def _wheel(folder: Path, files: dict[str, tuple[bytes, int]] = FILES) -> tuple[Wheel, Path]:
    path = featured_wheel(folder, "pkg", "1.0", files)
    return Wheel(path.name, hashlib.sha256(path.read_bytes()).hexdigest()), path


def _fetch(source: Path, calls: list[int] | None = None) -> Callable[[Path], str]:
    def fetch(destination: Path) -> str:
        if calls is not None:
            calls.append(1)
        data = source.read_bytes()
        destination.write_bytes(data)
        return hashlib.sha256(data).hexdigest()

    return fetch


def test_an_entry_holds_the_wheels_files_with_their_modes(tmp_path: Path) -> None:
    wheel, path = _wheel(tmp_path / "wheels")
    store = Store(tmp_path / "store")
    entry = store.ensure(wheel, _fetch(path))
    assert entry.path == tmp_path / "store" / wheel.sha256
    assert (entry.name, entry.version) == ("pkg", "1.0")
    assert (entry.tree / "pkg" / "lib" / "libpkg.so.1").read_bytes() == FILES[
        "pkg/lib/libpkg.so.1"
    ][0]
    assert os.access(entry.tree / "pkg" / "lib" / "libpkg.so.1", os.X_OK)
    assert not os.access(entry.tree / "pkg" / "__init__.py", os.X_OK)
    assert entry.files["pkg/lib/libpkg.so.1"].executable
    assert store.entry(wheel) == entry
    assert store.entries() == [entry]
    assert not list((tmp_path / "store" / ".tmp").iterdir())


def test_a_download_that_is_not_the_locked_wheel_is_refused_and_nothing_kept(
    tmp_path: Path,
) -> None:
    wheel, path = _wheel(tmp_path / "wheels")
    store = Store(tmp_path / "store")
    locked = Wheel(wheel.filename, "0" * 64)
    with pytest.raises(
        UnmetRequirementError, match=f"sha256 is {wheel.sha256}, the lock records 0000"
    ):
        store.ensure(locked, _fetch(path))
    assert store.entries() == []
    assert not list((tmp_path / "store" / ".tmp").iterdir())


def test_a_stored_file_changed_after_unpacking_is_found_and_replaced(tmp_path: Path) -> None:
    wheel, path = _wheel(tmp_path / "wheels")
    store = Store(tmp_path / "store")
    entry = store.ensure(wheel, _fetch(path))
    library = entry.tree / "pkg" / "lib" / "libpkg.so.1"
    library.write_bytes(b"patched" + library.read_bytes()[7:])
    assert store.check(entry) == [
        (
            f"{entry.path}: not a store entry as poetry-cuda makes them (pkg/lib/libpkg.so.1 "
            "changed after it was unpacked)"
        )
    ]
    assert store.entry(wheel) is None
    calls: list[int] = []
    fresh = store.ensure(wheel, _fetch(path, calls))
    assert calls == [1]
    assert (fresh.tree / "pkg" / "lib" / "libpkg.so.1").read_bytes() == FILES[
        "pkg/lib/libpkg.so.1"
    ][0]


def test_a_stored_file_rewritten_with_size_and_time_kept_is_found_and_fetched_again(
    tmp_path: Path,
) -> None:
    wheel, path = _wheel(tmp_path / "wheels")
    store = Store(tmp_path / "store")
    entry = store.ensure(wheel, _fetch(path))
    library = entry.tree / "pkg" / "lib" / "libpkg.so.1"
    before = library.stat()
    library.write_bytes(b"patched" + library.read_bytes()[7:])
    os.utime(library, ns=(before.st_atime_ns, before.st_mtime_ns))
    # The inode's change time tells, without --deep; the bytes confirm it.
    assert store.check(entry) == [
        (
            f"{entry.path}: not a store entry as poetry-cuda makes them (pkg/lib/libpkg.so.1 "
            "was written after it was unpacked)"
        )
    ]
    assert store.entry(wheel) is None
    calls: list[int] = []
    fresh = store.ensure(wheel, _fetch(path, calls))
    assert calls == [1]
    assert (fresh.tree / "pkg" / "lib" / "libpkg.so.1").read_bytes() == FILES[
        "pkg/lib/libpkg.so.1"
    ][0]


def test_a_chmod_or_a_link_keeps_the_entry_and_is_sealed_once_read(tmp_path: Path) -> None:
    wheel, path = _wheel(tmp_path / "wheels")
    store = Store(tmp_path / "store")
    entry = store.ensure(wheel, _fetch(path))
    library = entry.tree / "pkg" / "lib" / "libpkg.so.1"
    library.chmod(0o700)
    os.link(library, tmp_path / "elsewhere.so")
    found = store.entry(wheel)  # read whole: the same bytes
    assert found is not None
    assert found.files["pkg/lib/libpkg.so.1"].ctime_ns == library.stat().st_ctime_ns
    assert store.entry(wheel) == found  # sealed in its marker: nothing read again
    assert store.check(found) == []


def test_an_entry_of_the_layout_before_inode_times_is_read_whole_once_and_sealed(
    tmp_path: Path,
) -> None:
    wheel, path = _wheel(tmp_path / "wheels")
    store = Store(tmp_path / "store")
    entry = store.ensure(wheel, _fetch(path))
    marker = json.loads((entry.path / MARKER).read_text())
    marker["layout"] = 1
    marker["files"] = {p: f[:4] for p, f in marker["files"].items()}
    (entry.path / MARKER).write_text(json.dumps(marker))
    calls: list[int] = []
    assert store.ensure(wheel, _fetch(path, calls)) == entry  # not fetched again
    assert calls == []
    assert json.loads((entry.path / MARKER).read_text())["layout"] == 2


def test_store_verify_checks_files_against_the_marker_and_the_wheels_record(
    tmp_path: Path,
) -> None:
    # Issue 40, item 9: a store provisioned by another user is trusted as it is; --verify
    # reads it whole, against the marker and against the wheel's own RECORD (a file changed
    # with its marker alike still differs from RECORD).
    wheel, path = _wheel(tmp_path / "wheels")
    store = Store(tmp_path / "store")
    entry = store.ensure(wheel, _fetch(path))
    assert store.verify() == []
    library = entry.tree / "pkg" / "lib" / "libpkg.so.1"
    library.write_bytes(b"forged")
    info = library.stat()
    marker = json.loads((entry.path / MARKER).read_text())
    forged = hashlib.sha256(b"forged").digest()
    marker["files"]["pkg/lib/libpkg.so.1"] = [
        6,
        "sha256=" + base64.urlsafe_b64encode(forged).rstrip(b"=").decode(),
        1,
        info.st_mtime_ns,
        info.st_ctime_ns,
        info.st_ino,
    ]
    marker["size"] = sum(f[0] for f in marker["files"].values())
    (entry.path / MARKER).write_text(json.dumps(marker))
    assert store.entry(wheel) is not None  # the marker agrees: every use trusts it
    [damaged] = store.verify()
    assert damaged.name == wheel.filename
    assert tuple(map(str, damaged.problems)) == (
        "pkg/lib/libpkg.so.1: another sha256 than the wheel's RECORD lists",
    )


@pytest.mark.parametrize(
    "damage",
    ["added file", "marker names another wheel", "marker not JSON", "files folder a link"],
)
def test_a_damaged_entry_is_not_used(tmp_path: Path, damage: str) -> None:
    wheel, path = _wheel(tmp_path / "wheels")
    store = Store(tmp_path / "store")
    entry = store.ensure(wheel, _fetch(path))
    marker = entry.path / MARKER
    if damage == "added file":
        (entry.tree / "pkg" / "evil.py").write_text("import os\n")
    elif damage == "marker names another wheel":
        document = json.loads(marker.read_text())
        document["sha256"] = "1" * 64
        marker.write_text(json.dumps(document))
    elif damage == "marker not JSON":
        marker.write_text("{")
    else:
        elsewhere = tmp_path / "elsewhere"
        (entry.tree).rename(elsewhere)
        (entry.tree).symlink_to(elsewhere)
    assert store.entry(wheel) is None
    assert store.entries() == []
    assert store.prune(set) == []
    assert not entry.path.exists()


def test_a_link_on_the_way_into_the_store_is_not_followed(tmp_path: Path) -> None:
    wheel, path = _wheel(tmp_path / "wheels")
    elsewhere = Store(tmp_path / "elsewhere")
    elsewhere.ensure(wheel, _fetch(path))
    store = Store(tmp_path / "store")
    store.root.mkdir()
    (store.root / wheel.sha256).symlink_to(elsewhere.root / wheel.sha256)
    assert store.entry(wheel) is None
    entry = store.ensure(wheel, _fetch(path))
    assert not entry.path.is_symlink()
    assert elsewhere.entry(wheel) is not None  # what the link pointed at is left alone


@pytest.mark.parametrize(
    ("member", "problem"),
    [
        ("../escape.py", "an absolute path or one with '..'"),
        ("/etc/passwd", "an absolute path or one with '..'"),
        ("pkg\\win.py", "an absolute path or one with '..'"),
        ("pkg/__init__.py/below", "a member below a file"),
    ],
)
def test_members_outside_the_entry_are_refused(tmp_path: Path, member: str, problem: str) -> None:
    wheel, path = _wheel(tmp_path / "wheels")
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(member, b"x")
    locked = Wheel(wheel.filename, hashlib.sha256(path.read_bytes()).hexdigest())
    store = Store(tmp_path / "store")
    with pytest.raises(InputFileError, match="refused to unpack") as refused:
        store.ensure(locked, _fetch(path))
    assert problem in refused.value.what
    assert store.entries() == []
    assert not (tmp_path / "escape.py").exists()
    assert not list((tmp_path / "store" / ".tmp").iterdir())


def test_a_member_named_twice_is_refused(tmp_path: Path) -> None:
    wheel, path = _wheel(tmp_path / "wheels")
    with zipfile.ZipFile(path, "a") as archive, pytest.warns(UserWarning, match="Duplicate"):
        archive.writestr("pkg/__init__.py", b"Y = 2\n")
    locked = Wheel(wheel.filename, hashlib.sha256(path.read_bytes()).hexdigest())
    with pytest.raises(InputFileError, match="a member named twice"):
        Store(tmp_path / "store").ensure(locked, _fetch(path))


def test_runs_that_need_one_wheel_take_turns_and_fetch_it_once(tmp_path: Path) -> None:
    wheel, path = _wheel(tmp_path / "wheels")
    calls: list[int] = []
    results = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            results.append(Store(tmp_path / "store").ensure(wheel, _fetch(path, calls)))
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert calls == [1]
    assert len({entry.path for entry in results}) == 1


def test_prune_keeps_what_is_in_use_when_it_holds_the_lock(tmp_path: Path) -> None:
    first, first_path = _wheel(tmp_path / "one")
    second, second_path = _wheel(tmp_path / "two", {"pkg/__init__.py": (b"Y = 2\n", 0o644)})
    store = Store(tmp_path / "store")
    store.ensure(first, _fetch(first_path))
    kept = store.ensure(second, _fetch(second_path))
    (store.root / ".tmp" / f"{first.sha256}.dead.download").write_bytes(b"left by a crash")
    asked = iter([set(), {second.sha256}, {second.sha256}])  # the second taken up meanwhile

    removed = store.prune(lambda: next(asked, {second.sha256}))

    assert [entry.sha256 for entry in removed] == [first.sha256]
    assert store.entries() == [kept]
    assert not list((store.root / ".tmp").iterdir())


def test_the_store_lives_beside_the_redist_store_or_in_poetry_cuda_store(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert default_root({}, "posix", home) == home / ".cache" / "poetry-cuda" / "wheels"
    xdg = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    assert default_root(xdg, "posix", home) == tmp_path / "xdg" / "poetry-cuda" / "wheels"
    chosen = default_root({"POETRY_CUDA_STORE": str(tmp_path / "shared")}, "posix", home)
    assert chosen == tmp_path / "shared" / ".wheels"
    with pytest.raises(ConfigError, match="not an absolute path"):
        default_root({"POETRY_CUDA_STORE": "relative"}, "posix", home)


def test_wheels_that_share_a_file_install_side_by_side(tmp_path: Path) -> None:
    """The nvidia-* wheels each hold nvidia/__init__.py; linked at once, each writes over
    the other's, as Poetry's installer does, and both are installed."""
    venv.create(tmp_path / "venv", with_pip=False)
    store = Store(tmp_path / "store")
    wanted = []
    for number in range(12):
        path = featured_wheel(
            tmp_path / "wheels",
            f"nvidia-lib{number}",
            "1.0",
            {
                "nvidia/__init__.py": (b"", 0o644),
                f"nvidia/lib{number}/lib/liblib{number}.so.1": (bytes([number]) * 512, 0o755),
            },
        )
        wheel = Wheel(path.name, hashlib.sha256(path.read_bytes()).hexdigest())
        wanted.append(Wanted(store.add_file(wheel, path)))
    where = interpreter(tmp_path / "venv")
    done = install(where, wanted, installer=f"Python {sys.version_info[0]}")
    assert len(done.installed) == 12
    [site] = where.site_packages
    assert (site / "nvidia" / "__init__.py").read_bytes() == b""
    assert len(list(site.glob("nvidia_lib*.dist-info/RECORD"))) == 12
    assert not list(site.glob("nvidia/*.tmp"))


def test_site_packages_linked_outside_the_venv_loses_the_old_versions_files(
    tmp_path: Path,
) -> None:
    # Issue 40, item 9: with site-packages a link to a folder outside the environment,
    # replacing a version left the old one's files importable.
    venv.create(tmp_path / "venv", with_pip=False)
    [site] = (tmp_path / "venv" / "lib").glob("python3*/site-packages")
    outside = tmp_path / "outside-site"
    site.rename(outside)
    site.symlink_to(outside, target_is_directory=True)
    store = Store(tmp_path / "store")
    where = interpreter(tmp_path / "venv")
    for version, module in (("1.0", "old"), ("2.0", "new")):
        path = featured_wheel(
            tmp_path / "wheels",
            "pkg",
            version,
            {"pkg/__init__.py": (b"", 0o644), f"pkg/{module}.py": (b"X = 1\n", 0o644)},
        )
        wheel = Wheel(path.name, hashlib.sha256(path.read_bytes()).hexdigest())
        done = install(
            where, [Wanted(store.add_file(wheel, path))], installer=f"Python {sys.version_info[0]}"
        )
        assert done.installed == (f"pkg {version}",)
    assert (outside / "pkg" / "new.py").is_file()
    assert not (outside / "pkg" / "old.py").exists()
    assert [p.name for p in outside.glob("pkg-*.dist-info")] == ["pkg-2.0.dist-info"]
