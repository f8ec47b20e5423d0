"""Per-user mirrors (`POETRY_CUDA_MIRROR_<FAMILY>`), end to end with real Poetry and the plugin.

Two users of one project, one behind a mirror of the PyTorch indexes (here a second server
over the same files): their pyproject.toml, poetry.lock and cuda.lock are the same bytes, the
mirror user's Poetry fetches every managed page and file from the mirror alone, both
environments get the same files, and a mirror serving other files fails the install.
"""

from __future__ import annotations

import os
import shutil
import zipfile

from typing import TYPE_CHECKING
from urllib.parse import unquote

import pytest

from tests.support.catalog import World
from tests.support.catalog import WorldServer
from tests.support.cli import Cli
from tests.support.example import snapshot
from tests.support.example import torch_example


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Result


pytestmark = pytest.mark.slow

VARIABLE = "POETRY_CUDA_MIRROR_PYTORCH"
TORCH_WHEEL = "torch-2.5.1+cu124-cp311-cp311-linux_x86_64.whl"
TORCH_RECORD = ".venv/lib/python3.11/site-packages/torch-2.5.1+cu124.dist-info/RECORD"


def _ok(result: Result) -> Result:
    assert result.code == 0, result.stdout + result.stderr
    return result


def _downloads(server: WorldServer, prefix: str) -> list[str]:
    """The wheels fetched under `prefix` (whole files or ranges of them)."""
    paths = (unquote(r.path) for r in server.requests)
    return [p for p in paths if p.startswith(prefix) and p.endswith(".whl")]


def _other_files(world: World, dest: Path) -> World:
    """The cu124 index of `world` with a torch wheel of the same name but other bytes."""
    index = dest / "whl" / "cu124"
    shutil.copytree(world.root / "whl" / "cu124", index, copy_function=os.link)
    wheel = index / "torch" / TORCH_WHEEL
    original = wheel.read_bytes()
    wheel.unlink()  # a hard link into the shared world: never written in place
    wheel.write_bytes(original)
    with zipfile.ZipFile(wheel, "a") as changed:
        changed.writestr("torch/injected.py", "print('not the locked build')\n")
    return World(dest)


def test_two_users_lock_and_install_the_same_files(
    tmp_path: Path, world: World, server: WorldServer
) -> None:
    alice, bob = Cli(tmp_path / "alice-home"), Cli(tmp_path / "bob-home")
    ours = torch_example(tmp_path / "alice", server)
    theirs = torch_example(tmp_path / "bob", server)
    assert snapshot(ours) == snapshot(theirs)
    with WorldServer(world) as mirror:
        behind = {VARIABLE: mirror.pytorch_mirror}
        _ok(alice.run("lock", cwd=ours))
        _ok(bob.run("lock", cwd=theirs, env=behind))
        assert snapshot(theirs) == snapshot(ours)
        assert mirror.request_count("/whl/cu124/") > 0
        assert mirror.request_count("/simple/") == 0  # PyPI is not the mirror's

        # Plain Poetry with the plugin: the same lock again, the same bytes.
        regenerated = _ok(bob.run("lock", "--regenerate", cwd=theirs, env=behind, program="poetry"))
        assert f"({VARIABLE})" in regenerated.stderr
        assert snapshot(theirs) == snapshot(ours)
        mirror.reset_counters()
        _ok(bob.run("cuda", "lock", "--regenerate", cwd=theirs, env=behind, program="poetry"))
        assert mirror.request_count("/whl/cu124/") > 0
        assert snapshot(theirs) == snapshot(ours)

        server.reset_counters()
        mirror.reset_counters()
        _ok(bob.run("install", cwd=theirs, env=behind, program="poetry"))
        assert server.request_count("/whl/") == 0  # the managed source only from the mirror
        assert f"/whl/cu124/torch/{TORCH_WHEEL}" in _downloads(mirror, "/whl/cu124/")
        _ok(alice.run("install", cwd=ours, program="poetry"))
        assert f"/whl/cu124/torch/{TORCH_WHEEL}" in _downloads(server, "/whl/cu124/")
        assert (theirs / TORCH_RECORD).read_bytes() == (ours / TORCH_RECORD).read_bytes()
        assert snapshot(theirs) == snapshot(ours)


def test_a_mirror_serving_other_files_fails_the_install(
    tmp_path: Path, world: World, locked_example: Path, cli: Cli
) -> None:
    other = _other_files(world, tmp_path / "other-world")
    with WorldServer(other) as mirror:
        result = cli.run(
            "install", cwd=locked_example, env={VARIABLE: mirror.pytorch_mirror}, program="poetry"
        )
        assert mirror.request_count("/whl/cu124/torch/") > 0
    assert result.code != 0
    assert "did not match any known checksums in your lock file" in result.stdout
    assert not (locked_example / TORCH_RECORD).exists()


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("ftp://mirror.example/whl/{variant}", "is not an https URL"),
        ("https://user:s3cret@mirror.example/whl/{variant}", "holds credentials"),
    ],
)
def test_a_malformed_variable_is_one_clear_message(
    cli: Cli, locked_example: Path, value: str, said: str
) -> None:
    before = snapshot(locked_example)
    for program, command in (("poetry-cuda", "lock"), ("poetry", "lock"), ("poetry", "install")):
        result = cli.run(command, cwd=locked_example, env={VARIABLE: value}, program=program)
        assert result.code == 2, (program, command, result)
        assert f"{VARIABLE}: " in result.stderr and said in result.stderr
        assert "s3cret" not in result.stdout + result.stderr
        assert snapshot(locked_example) == before


def test_an_unknown_family_is_named(cli: Cli, locked_example: Path) -> None:
    result = cli.run(
        "install", cwd=locked_example, env={"POETRY_CUDA_MIRROR_TORCH": "https://m.example"},
        program="poetry",
    )  # fmt: skip
    assert result.code == 2, result
    assert "POETRY_CUDA_MIRROR_TORCH" in result.stderr and VARIABLE in result.stderr


def test_uv_projects_refuse_a_per_user_mirror(
    cli: Cli, tmp_path: Path, world: World, server: WorldServer
) -> None:
    project = torch_example(tmp_path, server, "uv")
    names = ("pyproject.toml", "uv.lock", "cuda.lock")
    before = snapshot(project, names)
    with WorldServer(world) as mirror:
        result = cli.run("lock", cwd=project, env={VARIABLE: mirror.pytorch_mirror})
        assert mirror.request_count() == 0
    assert result.code == 2, result
    assert "uv.lock" in result.stderr and "[tool.poetry-cuda.mirrors]" in result.stderr
    assert snapshot(project, names) == before


def test_item2_poetry_add_behind_a_per_user_mirror_installs_the_locked_variant(
    tmp_path: Path, world: World, server: WorldServer
) -> None:
    alice, bob = Cli(tmp_path / "alice-home"), Cli(tmp_path / "bob-home")
    ours = torch_example(tmp_path / "alice", server)
    theirs = torch_example(tmp_path / "bob", server)
    _ok(alice.run("lock", cwd=ours))
    _ok(bob.run("lock", cwd=theirs))
    with WorldServer(world) as mirror:
        behind = {VARIABLE: mirror.pytorch_mirror}
        server.reset_counters()
        added = _ok(bob.run("add", "torchaudio==2.5.1", cwd=theirs, env=behind, program="poetry"))
        # Installed from the CUDA index at once (its mirror), as without the variable.
        assert "torchaudio (2.5.1+cu124)" in added.stdout, added.stdout
        assert "torchaudio (2.5.1)" not in added.stdout
        assert server.request_count("/whl/") == 0  # the managed source only from the mirror
        assert mirror.request_count("/whl/cu124/torchaudio/") > 0
    _ok(alice.run("add", "torchaudio==2.5.1", cwd=ours, program="poetry"))
    assert snapshot(theirs) == snapshot(ours)  # the variable changed no committed byte
    doctor = bob.run("doctor", "--json", cwd=theirs)
    assert doctor.code == 0, doctor.stdout
