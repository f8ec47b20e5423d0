"""`lock` with `toolkit = "redist"` and NVIDIA's archives out of reach: exit 4, as for an
index out of reach, naming the cuda-redist mirror setting; no file changes."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

from tests.support.example import snapshot
from tests.support.example import torch_example
from tests.support.index import refused_url


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli


HOST = {
    "schema": 1,
    "os": "linux",
    "machine": "x86_64",
    "driver": {"version": "580.65.06", "cuda": "13.0", "source": "nvml"},
    "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}],
}


def redist_project(folder: Path, server: WorldServer, mirror: str | None) -> Path:
    project = torch_example(folder, server)
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text()
    text = text.replace('"torch==2.5.1"', '"torch==2.9.1"')
    text = text.replace('"torchvision==0.20.1"', '"torchvision==0.24.1"')
    text = text.replace(
        'targets = ["hosts/*.json"]', 'targets = ["hosts/gpu.json"]\ntoolkit = "redist"'
    )
    if mirror is not None:
        text = text.replace(
            "[tool.poetry-cuda.mirrors]\n",
            f'[tool.poetry-cuda.mirrors]\ncuda-redist = "{mirror}"\n',
        )
    pyproject.write_text(text)
    for host in (project / "hosts").iterdir():
        host.unlink()
    (project / "hosts" / "gpu.json").write_text(json.dumps(HOST))
    return project


def test_an_unreachable_redist_mirror_is_exit_4_naming_the_setting(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    with refused_url() as dead:
        project = redist_project(tmp_path / "app", server, f"{dead}/redist")
        before = snapshot(project)
        result = cli.run("lock", cwd=project)
        assert result.code == 4, result
        assert f"{dead}/redist" in result.stderr
        assert "the cuda-redist mirror in use" in result.stderr
        assert '[tool.poetry-cuda.mirrors] cuda-redist = "https://..."' in result.stderr
        assert snapshot(project) == before
        zh = cli.run("lock", cwd=project, env={"LANG": "zh_CN.UTF-8"})
        assert zh.code == 4, zh
        assert "原因：lock 要从正在使用的 cuda-redist 镜像" in zh.stderr
        assert "解决办法：检查网络" in zh.stderr


def test_a_per_user_redist_mirror_out_of_reach_is_named_too(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    with refused_url() as dead:
        project = redist_project(tmp_path / "app", server, None)
        env = {"POETRY_CUDA_MIRROR_CUDA_REDIST": f"{dead}/nvidia"}
        result = cli.run("lock", cwd=project, env=env)
    assert result.code == 4, result
    assert "the cuda-redist mirror in use" in result.stderr
    assert "POETRY_CUDA_MIRROR_CUDA_REDIST" in result.stderr
