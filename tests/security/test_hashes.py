"""Locked CUDA packages carry sha256 hashes, and plain `poetry install` / `uv sync` refuse a wheel
whose bytes changed on the index after locking, installing nothing of it."""

from __future__ import annotations

import hashlib
import re
import subprocess
import urllib.request

from typing import TYPE_CHECKING
from urllib.parse import quote

import pytest

from poetry_cuda.files import read_toml
from tests.support.catalog import WorldServer
from tests.support.cli import Cli
from tests.support.example import torch_example
from tests.support.hostile import copy_world
from tests.support.hostile import tamper
from tests.support.hostile import tamper_in_place
from tests.support.hostile import torch_wheel
from tests.support.hostile_projects import BACKENDS
from tests.support.hostile_projects import install
from tests.support.hostile_projects import lock


if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from tests.support.catalog import World
    from tests.support.example import Backend


pytestmark = pytest.mark.slow
SHA256 = "sha256:"
# The tampered file's own hash (a compromised index), or the old one (a stale mirror).
LISTINGS = ["new hash", "stale hash"]


@pytest.fixture
def own_world(world: World, tmp_path: Path) -> World:
    return copy_world(world, tmp_path / "world")


@pytest.fixture
def own_server(own_world: World) -> Iterator[WorldServer]:
    with WorldServer(own_world) as running:
        yield running


def _site_packages(project: Path) -> Path:
    [site] = (project / ".venv" / "lib").glob("python3*/site-packages")
    return site


def _assert_no_torch_and_no_half_install(project: Path) -> None:
    """torch is absent, and every distribution that is installed is installed completely."""
    python = project / ".venv" / "bin" / "python"
    if not python.exists():
        return  # the installer stopped before creating the environment: nothing to check
    site = _site_packages(project)
    assert not (site / "torch").exists()
    assert not list(site.glob("torch-*.dist-info"))
    for record in site.glob("*.dist-info/RECORD"):
        if (record.parent / "INSTALLER").read_text().strip() == "pip":
            continue  # seeded into the venv by virtualenv, not installed from the lock
        for line in record.read_text().splitlines():
            path = line.rsplit(",", 2)[0]
            if path and not path.startswith(".."):
                assert (site / path).exists(), f"{record.parent.name}: {path} is missing"
    probe = subprocess.run(
        [str(python), "-c", "import torch"], capture_output=True, text=True, check=False
    )
    assert probe.returncode != 0


def test_poetry_lock_entries_from_managed_sources_carry_sha256(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    project = torch_example(tmp_path, server, "poetry")
    assert lock(cli, project).code == 0
    managed = set(read_toml(project / "cuda.lock")["managed-sources"])
    entries = [
        p
        for p in read_toml(project / "poetry.lock")["package"]
        if (p.get("source") or {}).get("reference") in managed
    ]
    assert {p["name"] for p in entries} == {"torch", "torchvision"}
    for entry in entries:
        assert entry["files"], entry["name"]
        for file in entry["files"]:
            assert file["hash"].startswith(SHA256) and len(file["hash"]) == len(SHA256) + 64


def test_uv_lock_entries_from_managed_indexes_carry_sha256(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    project = torch_example(tmp_path, server, "uv")
    assert lock(cli, project).code == 0
    indexes = read_toml(project / "pyproject.toml")["tool"]["uv"]["index"]
    urls = {i["url"] for i in indexes if i.get("explicit")}
    entries = [
        p for p in read_toml(project / "uv.lock")["package"] if p["source"].get("registry") in urls
    ]
    assert {p["name"] for p in entries} == {"torch", "torchvision"}
    for entry in entries:
        artifacts = [*entry.get("wheels", []), *([entry["sdist"]] if "sdist" in entry else [])]
        assert artifacts, entry["name"]
        for artifact in artifacts:
            assert artifact["hash"].startswith(SHA256) and len(artifact["hash"]) == len(SHA256) + 64


def _tamper(server: WorldServer, world: World, listing: str) -> None:
    """Change the wheel this machine installs; the index lists its new or (stale) its old hash."""
    wheel = torch_wheel(world)
    old = hashlib.sha256(wheel.read_bytes()).hexdigest()
    (tamper if listing == "new hash" else tamper_in_place)(wheel)
    new = hashlib.sha256(wheel.read_bytes()).hexdigest()
    with urllib.request.urlopen(server.url("/whl/cu124/torch/"), timeout=10) as response:
        page = response.read().decode()
    listed = re.search(rf"{re.escape(quote(wheel.name))}#sha256=([0-9a-f]+)", page)
    assert listed is not None, page
    assert listed.group(1) == (new if listing == "new hash" else old)


@pytest.mark.parametrize("listing", LISTINGS)
def test_plain_poetry_install_refuses_a_tampered_wheel(
    cli: Cli, tmp_path: Path, own_server: WorldServer, own_world: World, listing: str
) -> None:
    project = torch_example(tmp_path, own_server, "poetry")
    assert lock(cli, project).code == 0
    _tamper(own_server, own_world, listing)
    teammate = Cli(tmp_path / "teammate")  # a clean cache: nothing downloaded at lock time
    result = install(teammate, project, "poetry")
    assert result.code != 0, result.stdout
    if listing == "new hash":  # refused before downloading: no listed file has a locked hash
        assert "torch (2.5.1+cu124) did not match any known checksums" in result.stdout
    else:  # downloaded, hashed, refused
        assert "not found in known hashes" in result.stdout
        assert "Cannot install torch." in result.stdout
    _assert_no_torch_and_no_half_install(project)


@pytest.mark.parametrize("listing", LISTINGS)
def test_plain_uv_sync_refuses_a_tampered_wheel(
    cli: Cli, tmp_path: Path, own_server: WorldServer, own_world: World, listing: str
) -> None:
    project = torch_example(tmp_path, own_server, "uv")
    assert lock(cli, project).code == 0
    _tamper(own_server, own_world, listing)
    teammate = Cli(tmp_path / "teammate")
    sync = install(teammate, project, "uv")
    assert sync.code != 0, sync.stdout
    assert "hash mismatch" in sync.stderr.lower(), sync.stderr
    assert "torch" in sync.stderr
    _assert_no_torch_and_no_half_install(project)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_untampered_wheel_installs(
    cli: Cli, tmp_path: Path, own_server: WorldServer, backend: Backend
) -> None:
    """The control: the same steps without tampering install torch."""
    project = torch_example(tmp_path, own_server, backend)
    assert lock(cli, project).code == 0
    done = install(Cli(tmp_path / "teammate"), project, backend)
    assert done.code == 0, done.stderr
    assert (_site_packages(project) / "torch" / "__init__.py").is_file()
