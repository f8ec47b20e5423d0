"""Issue 41 pattern 6: hand-written ROCm and XPU indexes (`/whl/rocm6.3`, `/whl/rocm6.4`,
`/whl/xpu`) are recognised as a CUDA index is (every label form `accelerator_of` knows). The
AMD or Intel target's build is chosen among those the authors' index serves (rocm6.3 over
the newer rocm6.4 of the same torch release), and `lock` uses their index and source as found
instead of refusing them ("remove that source from torch")."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.files import read_toml
from poetry_cuda.knowledge import packaged
from poetry_cuda.request.handwritten import index_variant
from tests.support.adoption_walk import walk
from tests.support.index import IndexServer
from tests.support.isolation import UV_OFFLINE
from tests.support.rocm_world import build_rocm_world


if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from tests.support.cli import Cli


UV = {**UV_OFFLINE, "UV_HTTP_RETRIES": "0"}
ARC = {
    "gpus": [{"name": "Intel Arc A770", "vendor": "intel", "device_ip": "12.55.8"}],
    "xpu": {"driver": "1.6.32224", "source": "level-zero"},
}
MI250X = {"gpus": [{"name": "AMD Instinct MI250X", "vendor": "amd", "gfx": "gfx90a"}]}


@pytest.mark.parametrize(
    "url",
    [
        "https://download.pytorch.org/whl/rocm6.2.4",
        "https://download.pytorch.org/whl/rocm6.3/",
        "https://download.pytorch.org/whl/xpu",
        "https://mirrors.example.org/pytorch-wheels/xpu/",
    ],
)
def test_a_rocm_or_xpu_index_is_a_torch_index(url: str) -> None:
    found = index_variant(url, packaged.load().families, {})
    assert found is not None
    family, variant, _ = found
    assert (family.name, variant) == ("torch", url.rstrip("/").rsplit("/", 1)[-1])


@pytest.fixture(scope="module")
def rocm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IndexServer]:
    world = build_rocm_world(tmp_path_factory.mktemp("rocm-world"))
    with IndexServer(world.root) as index:
        yield index


@pytest.mark.slow
@pytest.mark.parametrize(
    ("variant", "host", "torch"),
    [("xpu", ARC, "2.10.0"), ("rocm6.4", MI250X, "2.9.1"), ("rocm6.3", MI250X, "2.9.1")],
    ids=["xpu", "rocm6.4", "rocm6.3"],
)
def test_handwritten_rocm_and_xpu_indexes(
    cli: Cli,
    tmp_path: Path,
    rocm_server: IndexServer,
    variant: str,
    host: dict[str, Any],
    torch: str,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    profile = {"schema": 2, "os": "linux", "machine": "x86_64", **host}
    (project / "gpu.json").write_text(json.dumps(profile))
    index = rocm_server.url(f"/whl/{variant}/")
    authors = (
        '[project]\nname = "gpu-project"\nversion = "0.1.0"\nrequires-python = ">=3.11,<3.12"\n'
        f"dependencies = [\"torch=={torch}; sys_platform == 'linux'\"]\n\n"
        "[tool.uv]\npackage = false\nenvironments = [\"sys_platform == 'linux'\"]\n\n"
        f'[[tool.uv.index]]\nname = "pytorch-{variant}"\nurl = "{index}"\nexplicit = true\n\n'
        f'[tool.uv.sources]\ntorch = [{{ index = "pytorch-{variant}" }}]\n'
    )
    world = (
        f'\n[tool.poetry-cuda.mirrors]\npytorch = "{rocm_server.url("/whl/{variant}/")}"\n\n'
        f'[[tool.uv.index]]\nname = "local-pypi"\nurl = "{rocm_server.url("/simple/")}"\n'
        "default = true\n"
    )
    (project / "pyproject.toml").write_text(authors + world)

    plan = cli.run("plan", "--target", "gpu.json", "--json", cwd=project, env=UV)
    assert plan.code == 0, plan.stderr
    lead = next(p for p in json.loads(plan.stdout)["packages"] if p["name"] == "torch")
    assert (lead["variant"], lead["source"]["name"]) == (variant, f"pytorch-{variant}"), lead

    walk(cli, project, "--target", "gpu.json", env=UV)
    lines = (project / "pyproject.toml").read_text().splitlines()
    assert all(line in lines for line in authors.splitlines())  # their index and source
    locked = {p["name"]: p for p in read_toml(project / "uv.lock")["package"]}
    assert locked["torch"]["version"] == f"{torch}+{variant}"
    assert locked["torch"]["source"]["registry"] == index
    record = next(p for p in read_toml(project / "cuda.lock")["packages"] if p["name"] == "torch")
    assert record["variant"] == variant
