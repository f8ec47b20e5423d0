"""`plan` with mirrors: the URL a setting expands to, and `--check-index` against loopback
stand-ins of each layout (simple, simple with a suffix, flat with `&#43;`, links elsewhere)."""

from __future__ import annotations

import json
import shutil

from typing import TYPE_CHECKING

import pytest

from tests.support.example import EXAMPLES
from tests.support.index import Fault
from tests.support.index import refused_url


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli


TARGET = ("--target", "hosts/workstation-rtx4090.json")


def project_with(tmp_path: Path, mirror: str, *, uv: bool = False) -> Path:
    project = tmp_path / "torch_project"
    shutil.copytree(EXAMPLES / "torch_project", project)
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text()
    if uv:
        text = text.replace("[tool.poetry]\npackage-mode = false\n", "[tool.uv]\npackage = false\n")
    pyproject.write_text(text + f"\n[tool.poetry-cuda.mirrors]\npytorch = {mirror}\n")
    return project


def sources(result_stdout: str) -> dict[str, str]:
    return {p["name"]: p["source"]["url"] for p in json.loads(result_stdout)["packages"]}


@pytest.mark.parametrize(
    ("name", "url", "layout"),
    [
        ("sjtu", "https://mirror.sjtu.edu.cn/pytorch-wheels/cu124/", "simple"),
        ("seu", "https://mirrors.seu.edu.cn/pytorch/whl/cu124/simple/", "simple"),
        ("aliyun", "https://mirrors.aliyun.com/pytorch-wheels/cu124/", "flat"),
    ],
)
def test_plan_shows_the_url_a_known_mirror_expands_to(
    cli: Cli, tmp_path: Path, name: str, url: str, layout: str
) -> None:
    project = project_with(tmp_path, f'"{name}"', uv=True)
    result = cli.run("plan", *TARGET, cwd=project)
    assert result.code == 0, result.stderr
    assert "torch        cu124 from pytorch-cu124-mirror-" in result.stdout
    assert f"({url})" in result.stdout
    assert f'Mirror: [tool.poetry-cuda] mirrors.pytorch = "{name}" (' in result.stdout
    assert f", {layout})" in result.stdout
    as_json = cli.run("plan", *TARGET, "--json", cwd=project)
    assert sources(as_json.stdout) == {"torch": url, "torchvision": url}


def test_an_unknown_mirror_name_is_exit_2_listing_the_known(cli: Cli, tmp_path: Path) -> None:
    result = cli.run("plan", cwd=project_with(tmp_path, '"tuna"'))
    assert result.code == 2
    assert "mirrors.pytorch: 'tuna' is neither a URL nor a known mirror" in result.stderr
    assert '"sjtu", "seu", "nju", "aliyun"' in result.stderr


@pytest.mark.parametrize("layout", ["simple", "suffix", "flat", "elsewhere"])
def test_check_index_reports_what_each_layout_serves(
    cli: Cli, tmp_path: Path, server: WorldServer, layout: str
) -> None:
    template = {
        "simple": server.pytorch_mirror,
        "suffix": server.suffix_mirror,
        "flat": server.flat_mirror,
        "elsewhere": server.elsewhere_mirror,
    }[layout]
    value = f'{{ url = "{template}", layout = "flat" }}' if layout == "flat" else f'"{template}"'
    project = project_with(tmp_path, value, uv=layout == "flat")
    plan = cli.run("plan", *TARGET, cwd=project)
    assert plan.code == 0, plan.stderr
    url = template.format(variant="cu124")
    assert f"({url})" in plan.stdout
    assert server.request_count() == 0  # plan alone stays offline

    result = cli.run("plan", *TARGET, "--check-index", cwd=project)
    assert result.code == 0, result.stdout + result.stderr
    page = url if layout == "flat" else f"{url.rstrip('/')}/torch/"
    assert f"torch 2.5.1+cu124: served by {page}" in result.stdout
    if layout == "elsewhere":
        upstream = server.upstream_url("")[len("http://") :]
        assert f"its file links point elsewhere: {upstream}" in result.stdout
    else:
        assert "its file links point at the index itself" in result.stdout

    as_json = json.loads(cli.run("plan", *TARGET, "--check-index", "--json", cwd=project).stdout)
    torch = next(r for r in as_json["index_check"] if r["package"] == "torch")
    assert torch["serves"] is True
    assert torch["layout"] == ("flat" if layout == "flat" else "simple")
    assert torch["links"] == ("elsewhere" if layout == "elsewhere" else "local")


def test_check_index_exit_1_when_an_index_does_not_serve_a_package(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    project = project_with(tmp_path, f'"{server.pytorch_mirror}"')
    server.inject("/whl/cu124/torchvision/", Fault.error(404))
    result = cli.run("plan", *TARGET, "--check-index", cwd=project)
    assert result.code == 1
    assert "torch 2.5.1+cu124: served by" in result.stdout
    assert "torchvision 0.20.1+cu124: cannot read" in result.stdout
    assert "HTTP 404" in result.stdout


def test_check_index_exit_1_when_the_mirror_is_unreachable(cli: Cli, tmp_path: Path) -> None:
    with refused_url() as dead:
        project = project_with(tmp_path, f'"{dead}/whl/{{variant}}"')
        result = cli.run("plan", *TARGET, "--check-index", cwd=project)
    assert result.code == 1
    assert f"cannot read {dead}/whl/cu124/torch/: unreachable" in result.stdout


def test_check_index_bad_input_is_exit_2(cli: Cli, tmp_path: Path) -> None:
    result = cli.run("plan", "--check-index", "--target", "missing.json", cwd=tmp_path)
    assert result.code == 2
