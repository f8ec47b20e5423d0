"""A lock never installs two versions of one distribution on one target: `lock` refuses a
package manager's lock that does (nothing written), naming both versions and the pin that
keeps the one the resolution meant; `lock --check` and doctor report such a lock. The test
world: two versions of one distribution whose markers differ only in spelling, locked by
real Poetry."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

import pytest

from benchmarks.common import tool_env
from benchmarks.shared_store import lock_one_version
from poetry_cuda.errors import ResolutionError
from poetry_cuda.files import read_toml
from poetry_cuda.locking.duplicates import find
from poetry_cuda.locking.duplicates import here
from poetry_cuda.locking.duplicates import read_and_find
from poetry_cuda.locking.duplicates import refuse
from tests.support.example import snapshot
from tests.support.example import torch_example
from tests.support.index import IndexServer
from tests.support.store_worlds import wheel
from tests.support.store_worlds import write_index


if TYPE_CHECKING:
    from collections.abc import Iterator
    from collections.abc import Mapping
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli
    from tests.support.fake_nvml import FakeNvml


PIN = 'dup==1.5; sys_platform == "linux"'
SETTING = 'targets = ["hosts/*.json"]'


@pytest.fixture
def spelt_twice(tmp_path: Path) -> Iterator[str]:
    """An index where top[a,b] requires dup<2.0 under `sys_platform == "linux"` and
    dup>=1.5 under `platform_system == "Linux"`: Poetry locks 1.5 and 2.0 for Linux."""
    index = write_index(
        tmp_path / "spelt-twice",
        [
            *(wheel("dup", v, files={"dup/libdup.so": v * 100}) for v in ("1.0", "1.5", "2.0")),
            wheel(
                "top",
                "1.0",
                'dup<2.0; sys_platform == "linux" and extra == "a"',
                'dup>=1.5; platform_system == "Linux" and extra == "b"',
                extras=["a", "b"],
            ),
        ],
    )
    with IndexServer(index) as server:
        yield server.url("/simple/")


def with_top(project: Path, original: str, index: str, *extra: str) -> None:
    """The project as locked first, depending on top[a,b] (and `extra`) from `index` too."""
    pyproject = project / "pyproject.toml"
    listed = "".join(f"    '{item}',\n" for item in ("top[a,b]==1.0", *extra))
    text = original.replace('    "torchvision==0.20.1",\n', f'    "torchvision==0.20.1",\n{listed}')
    text += (
        f'\n[[tool.poetry.source]]\nname = "spelt"\nurl = "{index}"\npriority = "supplemental"\n'
    )
    pyproject.write_text(text)


@pytest.mark.slow
def test_lock_refuses_check_and_doctor_report_and_the_pin_fixes_it(
    cli: Cli, tmp_path: Path, server: WorldServer, fake_nvml: FakeNvml, spelt_twice: str
) -> None:
    project = torch_example(tmp_path, server, "poetry")
    gpu = fake_nvml.scenario()
    assert cli.run("lock", cwd=project, env=gpu).code == 0
    original = (project / "pyproject.toml").read_text()
    with_top(project, original, spelt_twice)
    before = snapshot(project)

    refused = cli.run("lock", cwd=project, env=gpu)
    assert refused.code == 4, refused.stdout + refused.stderr
    said = refused.stderr
    assert "installs dup twice on linux x86_64" in said
    assert '1.5 (markers sys_platform == "linux")' in said
    assert '2.0 (markers platform_system == "Linux")' in said
    assert "add 'dup==1.5; sys_platform == \"linux\"' to the project's dependencies" in said
    assert snapshot(project) == before  # nothing of the refused lock is left

    # The same lock, made by Poetry alone, is what --check and doctor report.
    project_lock = cli.run("lock", cwd=project, env=gpu, program="poetry")
    assert project_lock.code == 0, project_lock.stderr
    checked = cli.run("lock", "--check", cwd=project, env=gpu)
    assert checked.code == 1
    assert "installs dup twice on linux x86_64" in checked.stdout + checked.stderr
    report = json.loads(cli.run("doctor", "--json", cwd=project, env=gpu).stdout)
    [row] = [r for r in report["findings"] if r["check"] == "one-version"]
    assert row["status"] == "fail"
    assert row["subject"] == "dup"
    assert "dup==1.5" in row["fix"]

    # The pin the message names: one version on Linux, and the lock is accepted.
    with_top(project, original, spelt_twice, PIN)
    fixed = cli.run("lock", cwd=project, env=gpu)
    assert fixed.code == 0, fixed.stdout + fixed.stderr
    lock = read_toml(project / "poetry.lock")
    assert find(lock, "poetry", [("linux", "x86_64"), ("windows", "x86_64")]) == []
    assert cli.run("lock", "--check", cwd=project, env=gpu).code == 0


def installed_dup(project: Path) -> list[str]:
    """The versions of dup installed in the project's environment."""
    found = project.glob(".venv/lib/python3*/site-packages/dup-*.dist-info")
    return sorted(path.name.removesuffix(".dist-info").split("-")[1] for path in found)


def locked_twice(cli: Cli, project: Path, env: Mapping[str, str], index: str, install: str) -> str:
    """The example locked, with `install` set, then top[a,b] added and locked by Poetry
    alone: dup 1.5 and 2.0 on Linux. Returns pyproject.toml as before top was added."""
    assert cli.run("lock", cwd=project, env=env).code == 0
    original = (project / "pyproject.toml").read_text()
    setting = original.replace(SETTING, f'{SETTING}\ninstall = "{install}"', 1)
    with_top(project, setting, index)
    made = cli.run("lock", cwd=project, env=env, program="poetry")
    assert made.code == 0, made.stderr
    return setting


def assert_refused_here(said: str) -> None:
    """The refusal of an install: both versions, and the pin that keeps one."""
    assert "installs dup twice on linux x86_64" in said
    assert '1.5 (markers sys_platform == "linux")' in said
    assert '2.0 (markers platform_system == "Linux")' in said
    assert "add 'dup==1.5; sys_platform == \"linux\"' to the project's dependencies" in said


@pytest.mark.slow
@pytest.mark.parametrize("install", ["copy", "shared"])
def test_the_plugins_poetry_install_refuses_two_versions_with_the_pin(
    cli: Cli,
    tmp_path: Path,
    server: WorldServer,
    fake_nvml: FakeNvml,
    spelt_twice: str,
    install: str,
) -> None:
    project = torch_example(tmp_path, server, "poetry")
    gpu = {**fake_nvml.scenario(), "POETRY_CUDA_STORE": str(tmp_path / "store")}
    setting = locked_twice(cli, project, gpu, spelt_twice, install)

    refused = cli.run("install", cwd=project, env=gpu, program="poetry")
    said = refused.stdout + refused.stderr
    assert refused.code == 2, said
    assert_refused_here(said)
    assert "Installing" not in said
    assert installed_dup(project) == []  # nothing installed, neither version

    # The pin the message names: one version here, which the install installs.
    with_top(project, setting, spelt_twice, PIN)
    assert cli.run("lock", cwd=project, env=gpu).code == 0
    done = cli.run("install", cwd=project, env=gpu, program="poetry")
    assert done.code == 0, done.stdout + done.stderr
    assert installed_dup(project) == ["1.5"]


@pytest.mark.slow
@pytest.mark.parametrize("install", ["copy", "shared"])
def test_sync_refuses_two_versions_with_the_pin_before_installing(
    cli: Cli,
    tmp_path: Path,
    server: WorldServer,
    fake_nvml: FakeNvml,
    spelt_twice: str,
    install: str,
) -> None:
    project = torch_example(tmp_path, server, "poetry")
    gpu = {**fake_nvml.scenario(), "POETRY_CUDA_STORE": str(tmp_path / "store")}
    locked_twice(cli, project, gpu, spelt_twice, install)

    refused = cli.run("sync", cwd=project, env=gpu)
    said = refused.stdout + refused.stderr
    assert refused.code == 2, said
    assert_refused_here(said)
    assert "Running:" not in said
    assert installed_dup(project) == []


@pytest.mark.slow
def test_lock_check_checks_this_machine_as_well_as_the_targets(
    cli: Cli, tmp_path: Path, server: WorldServer, fake_nvml: FakeNvml, spelt_twice: str
) -> None:
    # Locked for a Windows workstation only; this Linux machine installs dup twice from the
    # same lock.
    project = torch_example(tmp_path, server, "poetry")
    linux = (project / "hosts" / "workstation-rtx4090.json").read_text()
    windows = linux.replace('"os": "linux"', '"os": "windows"')
    (project / "hosts" / "workstation-windows.json").write_text(windows)
    only = 'targets = ["hosts/workstation-windows.json"]'
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(SETTING, only))
    gpu = fake_nvml.scenario()
    assert cli.run("lock", cwd=project, env=gpu).code == 0
    original = pyproject.read_text()
    with_top(project, original, spelt_twice)
    assert cli.run("lock", cwd=project, env=gpu, program="poetry").code == 0
    lock = read_toml(project / "poetry.lock")
    assert find(lock, "poetry", [("windows", "x86_64")]) == []  # fresh for the lock's target

    checked = cli.run("lock", "--check", cwd=project, env=gpu)
    said = checked.stdout + checked.stderr
    assert checked.code == 1, said
    assert "installs dup twice on linux x86_64" in said
    assert '1.5 (markers sys_platform == "linux")' in said
    assert '2.0 (markers platform_system == "Linux")' in said
    assert "dup==1.5" in said

    # `lock` refuses it for this machine too, and the pin makes both fresh.
    refused = cli.run("lock", cwd=project, env=gpu)
    assert refused.code == 4, refused.stdout + refused.stderr
    assert "installs dup twice on linux x86_64" in refused.stderr
    with_top(project, original, spelt_twice, PIN)
    assert cli.run("lock", cwd=project, env=gpu).code == 0
    assert cli.run("lock", "--check", cwd=project, env=gpu).code == 0


@pytest.mark.slow
def test_the_shared_store_benchmark_locks_with_the_pins_lock_prescribes(
    tmp_path: Path, spelt_twice: str
) -> None:
    # Poetry's own lock installs dup twice here, as it does nvidia-cublas for the real torch
    # stack from PyPI: the benchmark pins the version `lock` names, and locks again.
    project = tmp_path / "project"
    env = tool_env(tmp_path / "home")
    pins = lock_one_version(project, spelt_twice, ["top[a,b]==1.0"], env)
    assert pins == [PIN]
    lock = read_toml(project / "poetry.lock")
    assert find(lock, "poetry", here()) == []
    assert [p["version"] for p in lock["package"] if p["name"] == "dup"] == ["1.5"]
    assert read_toml(project / "pyproject.toml")["project"]["dependencies"] == [
        "top[a,b]==1.0",
        PIN,
    ]


def package(
    name: str, version: str, markers: str | None = None, **more: object
) -> dict[str, object]:
    found: dict[str, object] = {"name": name, "version": version, "groups": ["main"], **more}
    if markers is not None:
        found["markers"] = markers
    return found


SPELT = {
    "metadata": {"lock-version": "2.1", "python-versions": ">=3.11,<3.12"},
    "package": [
        package("dup", "1.5", 'sys_platform == "linux"'),
        package("dup", "2.0", 'platform_system == "Linux"'),
        package(
            "top",
            "1.0",
            dependencies={
                "dup": [
                    {"version": "<2.0", "markers": 'sys_platform == "linux"'},
                    {"version": ">=1.5", "markers": 'platform_system == "Linux"'},
                ]
            },
        ),
    ],
}


def test_found_on_linux_only_with_the_version_to_pin() -> None:
    found = find(
        SPELT, "poetry", [("linux", "x86_64"), ("windows", "x86_64"), ("macos", "aarch64")]
    )
    [(system, one)] = found
    assert system == "linux"
    assert one.platform == "linux x86_64, Python 3.11"
    assert one.describe("poetry.lock") == (
        "poetry.lock installs dup twice on linux x86_64, Python 3.11: 1.5 (markers sys_platform == "
        '"linux") and 2.0 (markers platform_system == "Linux")'
    )
    assert one.pin(system).startswith("add 'dup==1.5; sys_platform == \"linux\"'")


def test_an_extra_takes_part_one_at_a_time() -> None:
    document = {
        **SPELT,
        "package": [
            package("dup", "1.5", 'sys_platform == "linux" and extra == "cu"'),
            package("dup", "2.0", 'platform_system == "Linux" and extra == "cu"'),
            package("dup", "3.0", 'extra == "cpu"'),
        ],
    }
    found = find(document, "poetry", [("linux", "x86_64")])
    assert [(f.platform, [v.version for v in f.duplicate.versions]) for _, f in found] == [
        ("linux x86_64, Python 3.11 with extra cu", ["1.5", "2.0"])
    ]
    assert "require one version of dup yourself" in found[0][1].pin("linux")


def test_refused_with_both_versions_and_uv_locks_are_left_to_uv(tmp_path: Path) -> None:
    (tmp_path / "poetry.lock").write_text(
        '[[package]]\nname = "dup"\nversion = "1.5"\ngroups = ["main"]\n'
        "markers = 'sys_platform == \"linux\"'\n\n"
        '[[package]]\nname = "dup"\nversion = "2.0"\ngroups = ["main"]\n'
        "markers = 'platform_system == \"Linux\"'\n\n"
        '[metadata]\nlock-version = "2.1"\npython-versions = ">=3.11"\n'
    )
    with pytest.raises(ResolutionError) as raised:
        refuse(tmp_path, "poetry.lock", [("linux", "x86_64")])
    assert raised.value.exit_code == 4
    assert "1.5" in raised.value.what
    assert "2.0" in raised.value.what
    refuse(tmp_path, "poetry.lock", [("windows", "x86_64")])  # nothing twice there
    (tmp_path / "uv.lock").write_text((tmp_path / "poetry.lock").read_text())
    assert read_and_find(tmp_path, "uv.lock", [("linux", "x86_64")]) == []
