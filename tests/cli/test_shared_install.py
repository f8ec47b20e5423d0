"""install = "shared": `sync` and the plugin's `poetry install` link the locked wheels into
Poetry's own environment from the per-user store, say so, and `store` lists and prunes it;
real Poetry, the local test world."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.support.cli import BIN
from tests.support.example import torch_example


if TYPE_CHECKING:
    from collections.abc import Iterator

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli
    from tests.support.fake_nvml import FakeNvml


pytestmark = pytest.mark.slow
NOTHING_TO_DO = "No dependencies to install or update"
SETTING = 'targets = ["hosts/*.json"]'


def shared(project: Path, value: str = "shared") -> None:
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text().replace('\ninstall = "shared"', "")
    pyproject.write_text(text.replace(SETTING, f'{SETTING}\ninstall = "{value}"', 1))


def torch_library(project: Path) -> Path:
    [site] = (project / ".venv" / "lib").glob("python3*/site-packages")
    return site / "torch" / "version.py"


@pytest.fixture
def locked(cli: Cli, tmp_path: Path, server: WorldServer, fake_nvml: FakeNvml) -> Path:
    project = torch_example(tmp_path, server, "poetry")
    made = cli.run("lock", cwd=project, env=fake_nvml.scenario())
    assert made.code == 0, made.stderr
    shared(project)
    return project


def test_sync_links_from_the_store_and_poetry_install_finds_nothing_to_do(
    cli: Cli, locked: Path, tmp_path: Path, fake_nvml: FakeNvml
) -> None:
    env = {**fake_nvml.scenario(), "POETRY_CUDA_STORE": str(tmp_path / "store")}
    check = cli.run("lock", "--check", cwd=locked, env=env)
    assert check.code == 0, check.stdout + check.stderr  # the setting leaves the lock fresh

    dry = cli.run("sync", "--dry-run", cwd=locked, env=env)
    assert dry.code == 0, dry.stderr
    assert f"Would link the locked wheels from the store at {tmp_path / 'store'}" in dry.stdout
    assert not (tmp_path / "store" / ".wheels").exists()

    synced = cli.run("sync", cwd=locked, env=env)
    assert synced.code == 0, synced.stdout + synced.stderr
    root = tmp_path / "store" / ".wheels"
    assert f"from the store at {root} into {locked / '.venv'}" in synced.stdout
    assert synced.stdout.count("Linked ") == 1, (
        synced.stdout
    )  # Poetry's install after it: no second
    assert "Fetched into the store:" in synced.stdout
    assert torch_library(locked).stat().st_nlink >= 2  # the store's file, not a copy
    # Hard links share one file with every project: the sync says so, and how to opt out.
    assert "these files are hard links" in synced.stdout
    assert 'install = "copy" in [tool.poetry-cuda] gives this project private copies' in (
        synced.stdout
    )
    assert synced.stdout.index("Linked ") < synced.stdout.index("Running: poetry install")
    again = cli.run("install", cwd=locked, env=env, program="poetry")
    assert again.code == 0, again.stderr
    assert NOTHING_TO_DO in again.stdout
    assert "poetry-cuda: Linked 0 files of 0 distributions" in again.stdout, (
        synced.stdout + again.stdout
    )

    # A second project with the same lock: nothing fetched, the same files.
    second = locked.parent / "second"
    shutil.copytree(locked, second, ignore=shutil.ignore_patterns(".venv"))
    other = cli.run("sync", cwd=second, env=env)
    assert other.code == 0, other.stdout + other.stderr
    assert "Fetched into the store:" not in other.stdout
    assert torch_library(locked).samefile(torch_library(second))

    listed = cli.run("store", "--json", cwd=locked, env=env)
    assert listed.code == 0, listed.stderr
    wheels = json.loads(listed.stdout)["wheels"]
    torch = [w for w in wheels if w["name"] == "torch"]
    assert len(torch) == 1
    assert sorted(torch[0]["projects"]) == sorted([str(locked), str(second)])

    shutil.rmtree(second)  # a project that no longer exists uses nothing
    pruned = cli.run("store", "--prune", cwd=locked, env=env)
    assert pruned.code == 0, pruned.stderr
    assert "Removed" not in pruned.stdout  # the live project still uses every wheel
    assert torch_library(locked).is_file()
    shutil.rmtree(locked / ".venv")
    (locked / "poetry.lock").unlink()
    pruned = cli.run("store", "--prune", "--json", cwd=locked, env=env)
    assert pruned.code == 0, pruned.stderr
    report = json.loads(pruned.stdout)
    assert report["wheels"] == []
    assert "torch" in {w["name"] for w in report["removed_wheels"]}


def test_a_bad_install_setting_is_exit_2_naming_the_choices(
    cli: Cli, locked: Path, fake_nvml: FakeNvml
) -> None:
    shared(locked, "hardlink")
    done = cli.run("sync", cwd=locked, env=fake_nvml.scenario())
    assert done.code == 2
    assert "install" in done.stderr
    assert "copy, shared" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.fixture
def other_filesystem(tmp_path: Path) -> Iterator[Path]:
    shm = Path("/dev/shm")
    if not shm.is_dir() or shm.stat().st_dev == tmp_path.stat().st_dev:
        pytest.skip("no second filesystem here")
    folder = Path(tempfile.mkdtemp(prefix="poetry-cuda-store-", dir=shm))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_a_store_on_another_filesystem_is_copied_from_and_says_so(
    cli: Cli, locked: Path, fake_nvml: FakeNvml, other_filesystem: Path
) -> None:
    env = {**fake_nvml.scenario(), "POETRY_CUDA_STORE": str(other_filesystem)}
    synced = cli.run("sync", cwd=locked, env=env)
    assert synced.code == 0, synced.stdout + synced.stderr
    assert "Copied " in synced.stdout
    assert "the store is on another filesystem than the environment" in synced.stdout
    assert torch_library(locked).stat().st_nlink == 1


def test_the_plugins_poetry_install_links_from_the_store(
    cli: Cli, locked: Path, tmp_path: Path, fake_nvml: FakeNvml
) -> None:
    env = {**fake_nvml.scenario(), "POETRY_CUDA_STORE": str(tmp_path / "store")}
    done = cli.run("install", cwd=locked, env=env, program="poetry")
    assert done.code == 0, done.stdout + done.stderr
    said = done.stdout + done.stderr
    assert f"from the store at {tmp_path / 'store' / '.wheels'}" in said
    assert torch_library(locked).stat().st_nlink >= 2
    assert NOTHING_TO_DO in done.stdout  # Poetry's installer finds it all in place


def record_findings(cli: Cli, project: Path, env: dict[str, str]) -> list[dict[str, str]]:
    done = cli.run("doctor", "--json", cwd=project, env=env)
    rows = json.loads(done.stdout)["findings"]
    return [r for r in rows if r["check"] in ("record", "store-entry")]


def test_doctor_names_a_library_changed_in_place_and_sync_repairs_it(
    cli: Cli, locked: Path, tmp_path: Path, fake_nvml: FakeNvml
) -> None:
    env = {**fake_nvml.scenario(), "POETRY_CUDA_STORE": str(tmp_path / "store")}
    assert cli.run("sync", cwd=locked, env=env).code == 0
    [sound] = record_findings(cli, locked, env)
    assert sound["status"] == "ok"

    library = torch_library(locked)
    with library.open("r+b") as handle:  # in place: the store's file is this very file
        handle.write(b"#")
    found = record_findings(cli, locked, env)
    assert {(f["check"], f["status"]) for f in found} == {
        ("record", "fail"),
        ("store-entry", "fail"),
    }
    [record] = [f for f in found if f["check"] == "record"]
    assert "torch/version.py" in record["message"]
    assert "poetry cuda sync" in record["fix"]
    assert cli.run("doctor", cwd=locked, env=env).code == 1

    repaired = cli.run("sync", cwd=locked, env=env)
    assert repaired.code == 0, repaired.stdout + repaired.stderr
    assert "Fetched into the store: 1 wheels" in repaired.stdout
    [sound] = record_findings(cli, locked, env)
    assert sound["status"] == "ok"


def test_a_stored_file_rewritten_with_size_and_time_kept_is_found_and_sync_repairs_it(
    cli: Cli, locked: Path, tmp_path: Path, fake_nvml: FakeNvml
) -> None:
    # Issue 40, item 2: an edit through an environment's hard link that keeps the file's size
    # and modification time is the store's file too; doctor (not only --deep) names it, the
    # next sync of any project fetches the wheel again before linking it, and the edited
    # environment is linked anew.
    env = {**fake_nvml.scenario(), "POETRY_CUDA_STORE": str(tmp_path / "store")}
    assert cli.run("sync", cwd=locked, env=env).code == 0
    library = torch_library(locked)
    original = library.read_bytes()
    before = library.stat()
    with library.open("r+b") as handle:
        handle.write(b"#")
    os.utime(library, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert library.stat().st_size == before.st_size

    found = record_findings(cli, locked, env)
    assert ("store-entry", "fail") in {(f["check"], f["status"]) for f in found}, found
    verified = cli.run("store", "--verify", cwd=locked, env=env)
    assert verified.code == 1, verified.stdout + verified.stderr
    assert "Damaged " in verified.stdout
    assert "torch/version.py was written after it was unpacked" in verified.stdout
    [damaged] = json.loads(cli.run("store", "--verify", "--json", cwd=locked, env=env).stdout)[
        "damaged"
    ]
    assert damaged["store"] == "wheels"
    [entry] = [f for f in found if f["check"] == "store-entry"]
    assert "torch/version.py was written after it was unpacked" in entry["message"]

    # A new project gets the wheel's own bytes: the entry is fetched again first.
    third = locked.parent / "third"
    shutil.copytree(locked, third, ignore=shutil.ignore_patterns(".venv"))
    other = cli.run("sync", cwd=third, env=env)
    assert other.code == 0, other.stdout + other.stderr
    assert "Fetched into the store: 1 wheels" in other.stdout
    assert torch_library(third).read_bytes() == original

    # The edited environment is linked anew from the new entry.
    repaired = cli.run("sync", cwd=locked, env=env)
    assert repaired.code == 0, repaired.stdout + repaired.stderr
    assert library.read_bytes() == original
    assert library.samefile(torch_library(third))
    [sound] = record_findings(cli, locked, env)
    assert sound["status"] == "ok"
    verified = cli.run("store", "--verify", "--json", cwd=locked, env=env)
    assert verified.code == 0, verified.stdout + verified.stderr
    assert json.loads(verified.stdout)["damaged"] == []
    pruned = cli.run("store", "--prune", "--json", cwd=locked, env=env)
    assert pruned.code == 0, pruned.stderr
    assert json.loads(pruned.stdout)["removed_wheels"] == []


def test_a_store_variable_naming_a_file_is_a_config_error(
    cli: Cli, locked: Path, tmp_path: Path, fake_nvml: FakeNvml
) -> None:
    # Issue 40, item 9: sync said "read-only" and `store` "empty" (exit 0).
    regular = tmp_path / "a-file"
    regular.write_text("not a store\n")
    env = {**fake_nvml.scenario(), "POETRY_CUDA_STORE": str(regular)}
    for args in (("sync",), ("store",), ("store", "--json")):
        done = cli.run(*args, cwd=locked, env=env)
        assert done.code == 2, (args, done.stdout, done.stderr)
        assert f"POETRY_CUDA_STORE={str(regular)!r} is not a folder" in done.stderr
        assert "Fix: set POETRY_CUDA_STORE to a folder" in done.stderr
    assert regular.read_text() == "not a store\n"


def test_a_damaged_cuda_lock_is_put_right_as_its_fix_says(
    cli: Cli, locked: Path, fake_nvml: FakeNvml
) -> None:
    # Issue 40, item 8: `lock` reads the cuda.lock it replaces, so the fix says to remove a
    # damaged one first; doing so writes the same project again.
    import tomlkit

    pyproject = (locked / "pyproject.toml").read_text()
    document = tomlkit.parse((locked / "cuda.lock").read_text())
    document["packages"][0]["variant"] = "v" * 60_000
    (locked / "cuda.lock").write_text(tomlkit.dumps(document))
    refused = cli.run("lock", cwd=locked, env=fake_nvml.scenario())
    assert refused.code == 2, refused.stderr
    assert "remove it and run `poetry cuda lock`" in refused.stderr
    (locked / "cuda.lock").unlink()
    again = cli.run("lock", cwd=locked, env=fake_nvml.scenario())
    assert again.code == 0, again.stderr
    assert (locked / "pyproject.toml").read_text() == pyproject


def test_two_syncs_at_once_fetch_each_wheel_once(
    cli: Cli, locked: Path, tmp_path: Path, server: WorldServer, fake_nvml: FakeNvml
) -> None:
    second = locked.parent / "second"
    shutil.copytree(locked, second, ignore=shutil.ignore_patterns(".venv"))
    env = {**cli.env, **fake_nvml.scenario(), "POETRY_CUDA_STORE": str(tmp_path / "store")}
    server.reset_counters()
    runs = [
        subprocess.Popen(
            [str(BIN / "poetry-cuda"), "sync"],
            cwd=project,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for project in (locked, second)
    ]
    said = [run.communicate(timeout=600) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], said
    wheels = [r.path for r in server.requests if r.path.endswith(".whl")]
    assert wheels
    assert sorted(wheels) == sorted(set(wheels))  # each wheel downloaded once, for both
    assert torch_library(locked).samefile(torch_library(second))
