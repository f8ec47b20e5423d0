"""RECORD: reading and writing it, and finding the installed files that differ from it."""

from __future__ import annotations

import hashlib
import os

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import read_toml
from poetry_cuda.locking.duplicates import duplicates
from poetry_cuda.locking.duplicates import environment
from poetry_cuda.locking.duplicates import from_poetry_lock
from poetry_cuda.wheelstore.record import Row
from poetry_cuda.wheelstore.record import parse
from poetry_cuda.wheelstore.record import record_hash
from poetry_cuda.wheelstore.record import render
from poetry_cuda.wheelstore.verify import UNREADABLE
from poetry_cuda.wheelstore.verify import Seen
from poetry_cuda.wheelstore.verify import check_distribution
from poetry_cuda.wheelstore.verify import check_installed
from poetry_cuda.wheelstore.verify import judge
from poetry_cuda.wheelstore.verify import suspects
from tests.support.index import IndexServer
from tests.support.store_worlds import poetry_project
from tests.support.store_worlds import wheel
from tests.support.store_worlds import write_index
from tests.support.tools import Tools


if TYPE_CHECKING:
    from pathlib import Path


def _hash(data: bytes) -> str:
    return record_hash(hashlib.sha256(data).digest())


def test_record_rows_round_trip_as_installers_write_them() -> None:
    text = 'a/b.py,sha256=abc,12\n"c,d.py",sha256=def,3\nx.dist-info/RECORD,,\n'
    rows = parse(text)
    assert rows == [
        Row("a/b.py", "sha256=abc", 12),
        Row("c,d.py", "sha256=def", 3),
        Row("x.dist-info/RECORD", "", None),
    ]
    assert render(rows).decode() == text


@pytest.mark.parametrize("text", ["a,b\n", "a,sha256=x,twelve\n", ",,\n"])
def test_a_record_that_is_not_path_hash_size_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="row 1"):
        parse(text)


ROWS = [
    Row("m.py", _hash(b"abc"), 3),
    Row("lib.so", _hash(b"xyz!"), 4),
    Row("d/RECORD"),
    Row("__pycache__/m.cpython-311.pyc", _hash(b"\x00"), 1),
]


def test_the_fast_pass_reads_only_files_changed_after_the_install() -> None:
    seen = {
        "m.py": Seen(3, 100, regular=True),
        "lib.so": Seen(4, 300, regular=True),  # changed after RECORD (at 200)
    }
    assert suspects(ROWS, seen, 200) == ["lib.so"]


def test_judging_names_what_is_wrong_with_each_file() -> None:
    seen = {"m.py": None, "lib.so": Seen(5, 1, regular=True), "__pycache__/m.cpython-311.pyc": None}
    assert [str(d.describe()) for d in judge(ROWS, seen, {})] == [  # bytecode is a cache
        "m.py: missing",
        "lib.so: 5 bytes, recorded 4",
    ]
    seen = {"m.py": Seen(3, 1, regular=False), "lib.so": Seen(4, 1, regular=True)}
    found = judge(ROWS, seen, {"lib.so": _hash(b"xyz?")})
    assert [str(d.describe()) for d in found] == [
        "m.py: not a regular file",
        "lib.so: other contents than the wheel's (sha256 differs)",
    ]
    unreadable = judge(ROWS, {"lib.so": Seen(4, 1, regular=True)}, {"lib.so": UNREADABLE})
    assert [str(d.describe()) for d in unreadable] == ["lib.so: cannot be read"]
    assert judge(ROWS, {"lib.so": Seen(4, 1, regular=True)}, {"lib.so": _hash(b"xyz!")}) == []


def _installed(site: Path) -> Path:
    """A distribution as an installer leaves it: files first, RECORD last."""
    files = {"pkg/__init__.py": b"x = 1\n", "pkg/lib.so": b"\x7fELF" + bytes(1000)}
    for path, data in files.items():
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_bytes(data)
    dist_info = site / "pkg-1.0.dist-info"
    dist_info.mkdir()
    rows = [Row(p, _hash(d), len(d)) for p, d in files.items()]
    rows += [Row("pkg-1.0.dist-info/RECORD"), Row("../../../bin/outside-the-site", _hash(b""), 0)]
    (dist_info / "RECORD").write_bytes(render(rows))
    later = (dist_info / "RECORD").stat().st_mtime_ns
    for path in files:  # files are older than their RECORD, as installed
        os.utime(site / path, ns=(later - 10**9, later - 10**9))
    return dist_info


def test_a_sound_distribution_passes_both_passes(tmp_path: Path) -> None:
    site = tmp_path / "venv" / "lib" / "site-packages"
    dist_info = _installed(site)
    fast = check_distribution(dist_info, root=tmp_path / "venv")
    deep = check_distribution(dist_info, root=tmp_path / "venv", deep=True)
    assert (fast.sound, fast.files, fast.hashed) == (True, 2, 0)
    assert (deep.sound, deep.hashed) == (True, 2)
    assert (fast.name, fast.version) == ("pkg", "1.0")


def test_a_file_changed_in_place_is_found_by_its_time(tmp_path: Path) -> None:
    site = tmp_path / "venv" / "lib" / "site-packages"
    dist_info = _installed(site)
    library = site / "pkg" / "lib.so"
    library.write_bytes(b"\x7fELF" + bytes(999) + b"!")  # same size, written now
    checked = check_distribution(dist_info, root=tmp_path / "venv")
    assert [str(d.describe()) for d in checked.damage] == [
        "pkg/lib.so: other contents than the wheel's (sha256 differs)"
    ]
    assert checked.hashed == 1


def test_a_file_touched_but_unchanged_is_sound(tmp_path: Path) -> None:
    site = tmp_path / "venv" / "lib" / "site-packages"
    dist_info = _installed(site)
    (site / "pkg" / "lib.so").touch()
    assert check_distribution(dist_info, root=tmp_path / "venv").sound


def test_only_the_deep_pass_finds_a_change_that_kept_size_and_time(tmp_path: Path) -> None:
    site = tmp_path / "venv" / "lib" / "site-packages"
    dist_info = _installed(site)
    library = site / "pkg" / "lib.so"
    before = library.stat()
    library.write_bytes(b"\x7fELF" + bytes(999) + b"!")
    os.utime(library, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert check_distribution(dist_info, root=tmp_path / "venv").sound
    deep = check_distribution(dist_info, root=tmp_path / "venv", deep=True)
    assert [d.path for d in deep.damage] == ["pkg/lib.so"]


def test_a_missing_record_is_reported(tmp_path: Path) -> None:
    dist_info = _installed(tmp_path / "site")
    (dist_info / "RECORD").unlink()
    checked = check_distribution(dist_info, root=tmp_path)
    assert [str(d.describe()) for d in checked.damage] == ["pkg-1.0.dist-info/RECORD: missing"]


def test_the_installed_distributions_a_filter_chooses(tmp_path: Path) -> None:
    site = tmp_path / "venv" / "lib" / "site-packages"
    _installed(site)
    (site / "other-2.0.dist-info").mkdir()
    (site / "other-2.0.dist-info" / "RECORD").write_text("")
    found = check_installed(site, root=tmp_path / "venv", wanted=lambda name: name == "pkg")
    assert [c.name for c in found.checked] == ["pkg"]
    assert found.twice == ()
    assert found.damaged == []


@pytest.mark.slow
def test_doctor_finds_what_poetrys_two_versions_left(tmp_path: Path) -> None:
    """The corrupted-library case: Poetry's lock installs two versions of one distribution
    into the same files; the check names the damaged file and the two dist-infos."""
    contents = {v: {"dup/libdup.so.1": v.encode() * (2000 + int(v[0]))} for v in ("1.5", "2.0")}
    index = write_index(
        tmp_path / "index",
        [
            *(wheel("dup", v, files=files) for v, files in contents.items()),
            wheel(
                "top",
                "1.0",
                'dup<2.0; sys_platform == "linux" and extra == "a"',
                'dup>=1.5; platform_system == "Linux" and extra == "b"',
                extras=["a", "b"],
            ),
        ],
    )
    tools = Tools(tmp_path / "home")
    with IndexServer(index) as server:
        project = poetry_project(tmp_path / "p", server.url("/simple/"), ["top[a,b]==1.0"])
        tools.poetry("lock", cwd=project)
        assert duplicates(
            from_poetry_lock(read_toml(project / "poetry.lock")),
            environment("linux", "x86_64", "3.11"),
        )
        tools.poetry("install", cwd=project)
    [site] = (project / ".venv" / "lib").glob("python3*/site-packages")
    found = check_installed(site, root=project / ".venv", wanted=lambda name: name == "dup")
    assert [(name, sorted(p.name for p in folders)) for name, folders in found.twice] == [
        ("dup", ["dup-1.5.dist-info", "dup-2.0.dist-info"])
    ]
    [damaged] = found.damaged
    assert [d.path for d in damaged.damage] == ["dup/libdup.so.1"]
