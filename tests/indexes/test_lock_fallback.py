"""`lock` checks the chosen builds against the index pages before Poetry runs.

A copy of the test world (hard links, so nothing is built again) with one wheel taken away:
the example's torch 2.5.1+cu124 for Linux x86_64 and CPython 3.11. Without the check Poetry
locks a build that cannot install; with it, lock plans the next build and says so.
"""

from __future__ import annotations

import json
import os
import shutil

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import read_toml
from tests.support.catalog import World
from tests.support.catalog import WorldServer
from tests.support.example import torch_example
from tests.support.index import Fault


if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from tests.support.cli import Cli


pytestmark = pytest.mark.slow
GONE = "torch-2.5.1+cu124-cp311-cp311-linux_x86_64.whl"


@pytest.fixture
def thinner(world: World, tmp_path: Path) -> Iterator[WorldServer]:
    """The world without GONE on /whl/cu124/torch/."""
    root = tmp_path / "world"
    shutil.copytree(world.root, root, copy_function=os.link)
    page = root / "whl" / "cu124" / "torch"
    for name in (GONE, f"{GONE}.metadata"):
        (page / name).unlink(missing_ok=True)
    with WorldServer(World(root)) as running:
        yield running


def locked(project: Path) -> dict[str, tuple[str, str]]:
    return {
        p["name"]: (p["variant"], p["version"])
        for p in read_toml(project / "cuda.lock")["packages"]
    }


def test_a_build_the_index_lacks_falls_back_to_the_next(
    cli: Cli, tmp_path: Path, thinner: WorldServer
) -> None:
    project = torch_example(tmp_path, thinner)
    result = cli.run("lock", cwd=project)
    assert result.code == 0, result.stderr
    index = thinner.pytorch_url("cu124")
    assert (
        f"torch 2.5.1+cu124 is not on {index} (no wheel for linux-x86_64 and Python 3.11): "
        "falling back to 2.5.1+cu121"
    ) in result.stderr.replace("\n", " ")
    assert locked(project)["torch"] == ("cu121", "2.5.1+cu121")
    assert locked(project)["torchvision"] == ("cu121", "0.20.1+cu121")
    # One request per page the plan reads, before Poetry's own.
    assert thinner.request_count("/whl/cu124/torch/") >= 1
    # Locking again checks again and lands on the same build, changing nothing.
    before = (project / "cuda.lock").read_bytes()
    assert cli.run("lock", cwd=project).code == 0
    assert (project / "cuda.lock").read_bytes() == before


def test_a_fallback_is_recorded_and_checks_fresh_until_the_index_gains_the_build(
    cli: Cli, tmp_path: Path, world: World, thinner: WorldServer
) -> None:
    project = torch_example(tmp_path, thinner)
    assert cli.run("lock", cwd=project).code == 0
    recorded = read_toml(project / "cuda.lock")["unavailable"]
    assert recorded == [{"family": "torch", "version": "2.5.1", "variant": "cu124"}]
    # Offline, `--check` cannot ask the index: it honours what the lock found there.
    check = cli.run("lock", "--check", cwd=project)
    assert check.code == 0, check.stdout + check.stderr
    # `plan` shows what the lock wrote, and why, in the reader's language.
    plan = json.loads(cli.run("plan", "--json", cwd=project).stdout)
    torch = next(c for c in plan["packages"] if c["name"] == "torch")
    assert torch["variant"] == locked(project)["torch"][0]
    assert any("torch 2.5.1 cu124: not on the index" in w for w in plan["warnings"])
    chinese = cli.run("plan", cwd=project, env={"LANG": "zh_CN.UTF-8", "LC_ALL": ""})
    assert "torch 2.5.1 cu124：写入 cuda.lock 时索引上没有" in chinese.stdout
    # The index gains the wheel: a plain lock asks again and takes the build it lacked.
    page = thinner.root / "whl" / "cu124" / "torch"
    for name in (GONE, f"{GONE}.metadata"):
        source = world.root / "whl" / "cu124" / "torch" / name
        if source.exists():
            os.link(source, page / name)
    result = cli.run("lock", cwd=project)
    assert result.code == 0, result.stderr
    assert "falling back" not in result.stderr
    assert locked(project)["torch"] == ("cu124", "2.5.1+cu124")
    assert "unavailable" not in read_toml(project / "cuda.lock")
    assert cli.run("lock", "--check", cwd=project).code == 0


def test_the_check_reads_the_per_user_mirror_poetry_reads(
    cli: Cli, tmp_path: Path, thinner: WorldServer
) -> None:
    """The project names PyTorch's own index; this user's Poetry fetches from a mirror that
    lacks the build: the check reads the mirror's page, and the committed files keep the
    project's URLs."""
    project = torch_example(tmp_path, thinner)
    pyproject = project / "pyproject.toml"
    mirrors = f'\n[tool.poetry-cuda.mirrors]\npytorch = "{thinner.pytorch_mirror}"\n'
    pyproject.write_text(pyproject.read_text().replace(mirrors, "\n"))
    assert "[tool.poetry-cuda.mirrors]" not in pyproject.read_text()
    behind = {"POETRY_CUDA_MIRROR_PYTORCH": thinner.pytorch_mirror}
    result = cli.run("lock", cwd=project, env=behind)
    assert result.code == 0, result.stderr
    mirror = thinner.pytorch_url("cu124")
    assert f"torch 2.5.1+cu124 is not on {mirror} (" in result.stderr.replace("\n", " ")
    assert "download.pytorch.org" not in result.stderr
    assert locked(project)["torch"] == ("cu121", "2.5.1+cu121")
    urls = {p["url"] for p in read_toml(project / "cuda.lock")["packages"]}
    assert urls == {"https://download.pytorch.org/whl/cu121"}
    assert cli.run("lock", "--check", cwd=project, env=behind).code == 0


def test_an_unreadable_page_is_said_and_the_lock_goes_on(
    cli: Cli, tmp_path: Path, thinner: WorldServer
) -> None:
    """The check's own request fails; Poetry's, after it, does not: the lock is as before."""
    project = torch_example(tmp_path, thinner)
    thinner.inject("/whl/cu124/torchvision/", Fault.error(503, times=1))
    result = cli.run("lock", cwd=project)
    said = result.stderr.replace("\n", " ")
    assert "torchvision/ serves torchvision 0.20.1+cu124: HTTP 503" in said
    assert "locking as planned" in said
    # torch's own page still says 2.5.1+cu124 is missing there: that fallback happens too.
    assert result.code == 0, result.stderr
    assert locked(project)["torch"] == ("cu121", "2.5.1+cu121")


def test_an_unreachable_index_changes_nothing(cli: Cli, tmp_path: Path, world: World) -> None:
    with WorldServer(world) as server:
        project = torch_example(tmp_path, server)
        server.inject("/whl/cu124/torch/", Fault.error(503, times=1))
        result = cli.run("lock", cwd=project)
        assert result.code == 0, result.stderr
        assert "could not check that" in result.stderr
        assert "falling back" not in result.stderr
        assert locked(project)["torch"] == ("cu124", "2.5.1+cu124")
