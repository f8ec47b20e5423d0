"""The duplicate-distribution finder: what a lock installs more than once on one target."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import parse_toml
from poetry_cuda.files import read_toml
from poetry_cuda.locking.duplicates import Edge
from poetry_cuda.locking.duplicates import Locked
from poetry_cuda.locking.duplicates import duplicates
from poetry_cuda.locking.duplicates import environment
from poetry_cuda.locking.duplicates import from_poetry_lock
from poetry_cuda.locking.duplicates import from_uv_lock
from poetry_cuda.locking.duplicates import holds
from poetry_cuda.locking.duplicates import installed
from poetry_cuda.locking.duplicates import intended
from poetry_cuda.locking.duplicates import pythons
from tests.support.index import IndexServer
from tests.support.store_worlds import poetry_project
from tests.support.store_worlds import wheel
from tests.support.store_worlds import write_index
from tests.support.tools import Tools


if TYPE_CHECKING:
    from pathlib import Path


LINUX = environment("linux", "x86_64", "3.11")
WINDOWS = environment("windows", "x86_64", "3.11")
MACOS = environment("macos", "aarch64", "3.11")

# Two versions of one distribution whose markers differ only in spelling, as Poetry locks
# nvidia-cublas for torch 2.15.0 and cuda-toolkit 13.2.2.
SPELT_TWICE = [
    Locked("nvidia-cublas", "13.4.1.3", 'sys_platform == "linux"'),
    Locked("nvidia-cublas", "13.10.0.20", 'platform_system == "Linux"'),
    Locked(
        "torch",
        "2.15.0",
        "",
        edges=(
            Edge("nvidia-cublas", "13.10.0.20", 'platform_system == "Linux"'),
            Edge("cuda-toolkit", "13.2.2", 'platform_system == "Linux"'),
        ),
    ),
    Locked(
        "cuda-toolkit",
        "13.2.2",
        'platform_system == "Linux"',
        edges=(Edge("nvidia-cublas", "13.4.1.3.*", 'sys_platform == "linux"'),),
    ),
]


def _found(locked: list[Locked], where: object) -> list[tuple[str, list[str]]]:
    return [(d.name, [v.version for v in d.versions]) for d in duplicates(locked, where)]  # type: ignore[arg-type]


def test_markers_spelt_two_ways_install_both_versions_on_linux_only() -> None:
    assert _found(SPELT_TWICE, LINUX) == [("nvidia-cublas", ["13.4.1.3", "13.10.0.20"])]
    assert _found(SPELT_TWICE, WINDOWS) == []
    assert _found(SPELT_TWICE, MACOS) == []


def test_the_message_names_both_versions_and_their_markers() -> None:
    [found] = duplicates(SPELT_TWICE, LINUX)
    assert found.describe() == (
        'nvidia-cublas: 13.4.1.3 (markers sys_platform == "linux") and 13.10.0.20 '
        '(markers platform_system == "Linux")'
    )


def test_requirements_that_conflict_on_the_target_leave_no_version_to_pin() -> None:
    [found] = duplicates(SPELT_TWICE, LINUX)
    decision = intended(found, SPELT_TWICE, LINUX)
    assert decision.version is None
    assert "admit none of them" in decision.why
    assert "13.4.1.3.* (by cuda-toolkit 13.2.2" in decision.why
    assert "13.10.0.20 (by torch 2.15.0" in decision.why


def test_the_version_every_requirement_admits_is_the_one_to_pin() -> None:
    locked = [
        Locked("dup", "1.5", 'sys_platform == "linux"'),
        Locked("dup", "2.0", 'platform_system == "Linux"'),
        Locked("a", "1", "", edges=(Edge("dup", "<2.0", 'sys_platform == "linux"'),)),
        Locked("b", "1", "", edges=(Edge("dup", ">=1.5", 'platform_system == "Linux"'),)),
        Locked("c", "1", "", edges=(Edge("dup", ">=9", 'sys_platform == "win32"'),)),
    ]
    [found] = duplicates(locked, LINUX)
    decision = intended(found, locked, LINUX)
    assert decision.version == locked[0]
    assert decision.why == (
        "only 1.5 meets every requirement on dup that applies here: <2.0 (by a 1), >=1.5 (by b 1)"
    )


def test_no_requirement_in_the_lock_decides_nothing() -> None:
    [found] = duplicates(SPELT_TWICE[:2], LINUX)
    decision = intended(found, SPELT_TWICE[:2], LINUX)
    assert decision.version is None
    assert "no requirement" in decision.why


def test_versions_for_different_platforms_are_no_duplicate() -> None:
    locked = [
        Locked("triton", "3.5.1", 'platform_machine == "x86_64" and sys_platform == "linux"'),
        Locked("triton", "3.4.0", 'platform_machine == "aarch64" and sys_platform == "linux"'),
    ]
    assert _found(locked, LINUX) == []
    assert _found(locked, environment("linux", "aarch64", "3.11")) == []


def test_python_versions_and_extras_take_part() -> None:
    locked = [
        Locked("dup", "1", 'python_version >= "3.12"'),
        Locked("dup", "2", 'sys_platform == "linux"'),
        Locked("dup", "3", 'extra == "cu124"'),
    ]
    assert _found(locked, LINUX) == []
    assert _found(locked, environment("linux", "x86_64", "3.12")) == [("dup", ["1", "2"])]
    with_extra = environment("linux", "x86_64", "3.11", extras=["CU124"])
    assert _found(locked, with_extra) == [("dup", ["2", "3"])]


def test_one_version_locked_twice_is_no_duplicate() -> None:
    locked = [Locked("dup", "1", 'sys_platform == "linux"'), Locked("dup", "1", "")]
    assert _found(locked, LINUX) == []


def test_the_target_environments() -> None:
    assert WINDOWS.values["platform_machine"] == "AMD64"
    assert WINDOWS.values["sys_platform"] == "win32"
    assert MACOS.values["platform_machine"] == "arm64"
    assert MACOS.values["platform_system"] == "Darwin"
    assert LINUX.values["os_name"] == "posix"
    assert LINUX.python == "3.11"


def test_pythons_a_lock_admits() -> None:
    assert pythons(">=3.10,<3.12") == ["3.10", "3.11"]
    assert pythons("^3.12") == ["3.12", "3.13", "3.14"]
    assert pythons("not a constraint") == ["3.9", "3.10", "3.11", "3.12", "3.13", "3.14"]


def test_a_marker_that_cannot_be_read_counts_as_holding() -> None:
    assert holds('sys_platform ~= "linux', LINUX)
    assert holds("", LINUX)
    assert not holds('sys_platform == "win32"', LINUX)


def test_poetry_lock_2_1_markers_per_group() -> None:
    document = parse_toml(
        """
[[package]]
name = "Dup"
version = "1"
groups = ["main", "dev"]
markers = {main = 'sys_platform == "linux"', dev = 'platform_system == "Linux"'}
files = []

[[package]]
name = "dup"
version = "2"
groups = ["dev"]
markers = 'platform_system == "Linux"'
files = []
[package.source]
type = "legacy"
url = "https://download.pytorch.org/whl/cu124"
reference = "pytorch-cu124"

[[package]]
name = "other"
version = "3"
groups = ["main"]
files = []
[package.dependencies]
dup = [{version = ">=1", markers = 'sys_platform == "linux"'}, {version = "<2"}]
"""
    )
    locked = from_poetry_lock(document)
    assert [(v.name, v.version, v.marker, v.source) for v in locked] == [
        ("dup", "1", '(sys_platform == "linux") or (platform_system == "Linux")', "PyPI"),
        ("dup", "2", 'platform_system == "Linux"', "pytorch-cu124"),
        ("other", "3", "", "PyPI"),
    ]
    assert locked[2].edges == (
        Edge("dup", ">=1", 'sys_platform == "linux"'),
        Edge("dup", "<2", ""),
    )
    assert _found(locked, LINUX) == [("dup", ["1", "2"])]


def test_older_poetry_locks_install_what_their_edges_reach() -> None:
    document = parse_toml(
        """
[[package]]
name = "top"
version = "1"
files = []
[package.dependencies]
dup = [
    {version = "1", markers = 'sys_platform == "linux"'},
    {version = "2", markers = 'platform_system == "Linux"'},
]

[[package]]
name = "dup"
version = "1"
files = []

[[package]]
name = "dup"
version = "2"
files = []
"""
    )
    locked = from_poetry_lock(document)
    assert all(v.marker is None for v in locked)
    assert _found(locked, LINUX) == [("dup", ["1", "2"])]
    assert [v.name for v in installed(locked, WINDOWS)] == ["top"]


def test_uv_lock_edges_name_the_version() -> None:
    document = parse_toml(
        """
version = 1
requires-python = ">=3.11"

[[package]]
name = "demo"
version = "0.1.0"
source = { virtual = "." }
dependencies = [
    { name = "dup", version = "1", source = { registry = "https://pypi.org/simple" }, marker = "sys_platform == 'linux'" },
    { name = "top" },
]

[package.optional-dependencies]
cu124 = [{ name = "dup", version = "3", source = { registry = "https://pypi.org/simple" } }]

[[package]]
name = "top"
version = "1"
source = { registry = "https://pypi.org/simple" }
dependencies = [
    { name = "dup", version = "2", source = { registry = "https://pypi.org/simple" }, marker = "platform_system == 'Linux'" },
]

[[package]]
name = "dup"
version = "1"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "dup"
version = "2"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "dup"
version = "3"
source = { registry = "https://pypi.org/simple" }
"""
    )
    locked = from_uv_lock(document)
    assert [v.root for v in locked] == [True, False, False, False, False]
    assert _found(locked, LINUX) == [("dup", ["1", "2"])]
    assert _found(locked, WINDOWS) == []
    with_extra = environment("windows", "x86_64", "3.11", extras=["cu124"])
    assert [v.version for v in installed(locked, with_extra) if v.name == "dup"] == ["3"]


@pytest.mark.slow
def test_real_poetry_locks_and_installs_both_versions(tmp_path: Path) -> None:
    """The reproduction: the markers differ only in spelling, Poetry's lock holds both
    versions for Linux, and `poetry install` writes both into the same file."""
    files = {v: {"dup/libdup.so": v * 1000} for v in ("1.0", "1.5", "2.0")}
    index = write_index(
        tmp_path / "index",
        [
            *(wheel("dup", version, files=content) for version, content in files.items()),
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
        project = poetry_project(
            tmp_path / "project",
            server.url("/simple/"),
            ["top[a,b]==1.0"],
            requires_python=">=3.10",
        )
        tools.poetry("lock", cwd=project)
        locked = from_poetry_lock(read_toml(project / "poetry.lock"))
        [found] = duplicates(locked, LINUX)
        assert [(v.version, v.marker) for v in found.versions] == [
            ("1.5", 'sys_platform == "linux"'),
            ("2.0", 'platform_system == "Linux"'),
        ]
        assert duplicates(locked, WINDOWS) == []
        decision = intended(found, locked, LINUX)
        assert decision.version is not None
        assert decision.version.version == "1.5"
        tools.poetry("install", cwd=project)
    [site] = (project / ".venv" / "lib").glob("python3*/site-packages")
    assert sorted(p.name for p in site.glob("dup-*.dist-info")) == [
        "dup-1.5.dist-info",
        "dup-2.0.dist-info",
    ]
    # One file, two owners: whichever wheel wrote it last, the other's RECORD is wrong.
    assert (site / "dup" / "libdup.so").read_text() in (
        files["1.5"]["dup/libdup.so"],
        files["2.0"]["dup/libdup.so"],
    )
