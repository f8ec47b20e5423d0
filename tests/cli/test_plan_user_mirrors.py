"""`plan` with a per-user mirror (`POETRY_CUDA_MIRROR_PYTORCH`): it says so, and
`--check-index` asks the mirror the lock would read, not the committed index."""

from __future__ import annotations

import json
import shutil

from typing import TYPE_CHECKING

from tests.support.example import EXAMPLES


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli


TARGET = ("--target", "hosts/workstation-rtx4090.json")
UPSTREAM = "https://download.pytorch.org/whl/cu124"


def example(tmp_path: Path, *, uv: bool = False) -> Path:
    project = tmp_path / "torch_project"
    shutil.copytree(EXAMPLES / "torch_project", project)
    if uv:
        pyproject = project / "pyproject.toml"
        text = pyproject.read_text()
        pyproject.write_text(
            text.replace("[tool.poetry]\npackage-mode = false\n", "[tool.uv]\npackage = false\n")
        )
    return project


def test_check_index_asks_the_per_user_mirror(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    project = example(tmp_path)
    env = {"POETRY_CUDA_MIRROR_PYTORCH": server.pytorch_mirror}
    mirror = server.pytorch_mirror.format(variant="cu124")
    result = cli.run("plan", *TARGET, "--check-index", cwd=project, env=env)
    assert result.code == 0, result.stdout + result.stderr
    assert f"torch 2.5.1+cu124: served by {mirror}/torch/" in result.stdout
    assert "download.pytorch.org/whl/cu124/torch/" not in result.stdout
    line = (
        "Per-user mirror (POETRY_CUDA_MIRROR_PYTORCH): this machine fetches pytorch-cu124 "
        f"from {mirror}; the lock records {UPSTREAM}"
    )
    assert line in result.stdout.splitlines()
    # The plan itself keeps the committed URL: the team's lock records it.
    as_json = cli.run("plan", *TARGET, "--check-index", "--json", cwd=project, env=env)
    document = json.loads(as_json.stdout)
    assert document["packages"][0]["source"]["url"] == UPSTREAM
    torch = next(r for r in document["index_check"] if r["package"] == "torch")
    assert torch["serves"] is True


def test_plan_says_the_mirror_in_chinese(cli: Cli, tmp_path: Path, server: WorldServer) -> None:
    env = {"POETRY_CUDA_MIRROR_PYTORCH": server.pytorch_mirror, "LANG": "zh_CN.UTF-8"}
    result = cli.run("plan", *TARGET, cwd=example(tmp_path), env=env)
    assert result.code == 0, result.stderr
    assert "个人镜像（POETRY_CUDA_MIRROR_PYTORCH）：本机从 " in result.stdout


def test_without_the_variable_plan_names_no_per_user_mirror(cli: Cli, tmp_path: Path) -> None:
    result = cli.run("plan", *TARGET, cwd=example(tmp_path))
    assert result.code == 0, result.stderr
    assert "Per-user mirror" not in result.stdout


def test_a_uv_project_is_told_that_lock_refuses_the_variable(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    env = {"POETRY_CUDA_MIRROR_PYTORCH": server.pytorch_mirror}
    result = cli.run("plan", *TARGET, cwd=example(tmp_path, uv=True), env=env)
    assert result.code == 0, result.stderr
    assert (
        "POETRY_CUDA_MIRROR_PYTORCH: a per-user mirror works with Poetry projects only"
        in result.stdout
    )
