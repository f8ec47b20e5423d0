"""`lock` end to end for AMD and Intel targets: torch's ROCm and XPU builds, with the real uv
and Poetry against the ROCm test world (download.pytorch.org's /whl/rocmX.Y and /whl/xpu
layout on 127.0.0.1).

Two targets, an MI250X (gfx90a) and a Radeon RX 7900 XTX (gfx1100), share 2.9.1+rocm6.4
(rocm.toml: torch 2.9's rocm6.4 lists both). Lock writes the ROCm index and the managed
group as it does a CUDA index, the package manager locks the ``+rocm6.4`` build with its
Triton from the same index, cuda.lock records the ROCm accelerator, and a plain install
(no poetry-cuda) gets the ROCm build. An Intel Arc target gets 2.10.0+xpu the same way, with
its Triton from the XPU index and Intel's runtime wheels from PyPI.
"""

from __future__ import annotations

import json
import subprocess

from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.files import read_toml
from poetry_cuda.planning.managed import ROCM_PLATFORMS
from poetry_cuda.planning.variant_metadata import property_lines
from tests.support.example import snapshot
from tests.support.index import IndexServer
from tests.support.isolation import UV_OFFLINE
from tests.support.rocm_world import build_rocm_world
from tests.support.variant_world import TORCH_210
from tests.support.variant_world import build_world
from tests.support.variant_world import serve_index


if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from tests.support.cli import Cli


pytestmark = pytest.mark.slow
UV = {**UV_OFFLINE, "UV_HTTP_RETRIES": "0"}
FILES = ("pyproject.toml", "uv.lock", "poetry.lock", "cuda.lock")
PYPI = "local-pypi"
LINUX = "sys_platform == 'linux'"
HOSTS = {
    "mi250x.json": {"gpus": [{"name": "AMD Instinct MI250X", "vendor": "amd", "gfx": "gfx90a"}]},
    "rx7900.json": {"gpus": [{"name": "Radeon RX 7900 XTX", "vendor": "amd", "gfx": "gfx1100"}]},
}
ARC = {
    "gpus": [{"name": "Intel Arc A770", "vendor": "intel", "device_ip": "12.55.8"}],
    "xpu": {"driver": "1.6.32224", "source": "level-zero"},
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IndexServer]:
    world = build_rocm_world(tmp_path_factory.mktemp("rocm-world"))
    with IndexServer(world.root) as index:
        yield index


def write_project(
    directory: Path,
    server: IndexServer,
    backend: str,
    hosts: dict[str, dict[str, Any]] = HOSTS,
    torch: str = ">=2.8,<2.10",
) -> Path:
    project = directory / "rocm_project"
    (project / "hosts").mkdir(parents=True)
    for name, facts in hosts.items():
        profile = {"schema": 2, "os": "linux", "machine": "x86_64", **facts}
        (project / "hosts" / name).write_text(json.dumps(profile))
    text = (
        '[project]\nname = "rocm-project"\nversion = "0.1.0"\nrequires-python = ">=3.11,<3.12"\n'
        # The ROCm wheels are Linux x86_64 only: so is the project.
        f'dependencies = ["torch{torch}; {LINUX}", "torchvision; {LINUX}"]\n\n'
        '[tool.poetry-cuda]\ntargets = ["hosts/*.json"]\n\n'
        f'[tool.poetry-cuda.mirrors]\npytorch = "{server.url("/whl/{variant}/")}"\n\n'
    )
    if backend == "uv":
        text += (
            "[tool.uv]\npackage = false\nenvironments = [\"sys_platform == 'linux'\"]\n\n"
            f'[[tool.uv.index]]\nname = "{PYPI}"\nurl = "{server.url("/simple/")}"\n'
            "default = true\n"
        )
    else:
        text += (
            "[tool.poetry]\npackage-mode = false\n\n"
            f'[[tool.poetry.source]]\nname = "{PYPI}"\nurl = "{server.url("/simple/")}"\n'
            'priority = "primary"\n'
        )
    (project / "pyproject.toml").write_text(text)
    return project


def check_cuda_lock(project: Path, server: IndexServer) -> None:
    cuda_lock = read_toml(project / "cuda.lock")
    records = {p["name"]: p for p in cuda_lock["packages"]}
    torch = records["torch"]
    assert (torch["variant"], torch["accelerator"]) == ("rocm6.4", "rocm")
    assert torch["version"] == "2.9.1+rocm6.4"
    assert torch["url"] == server.url("/whl/rocm6.4/")
    assert {"gfx90a", "gfx1100"} <= set(torch["arches"])
    assert records["torchvision"]["version"] == "0.24.1+rocm6.4"
    assert records["pytorch-triton-rocm"]["accelerator"] == "rocm"


def installed_torch(python: Path) -> list[str]:
    shown = subprocess.run(
        [str(python), "-c", "import torch; print(torch.__version__, torch.version.hip)"],
        capture_output=True,
        text=True,
        check=True,
    )
    return shown.stdout.split()


def test_uv_locks_and_installs_the_rocm_build(
    cli: Cli, tmp_path: Path, server: IndexServer
) -> None:
    project = write_project(tmp_path, server, "uv")
    plan = cli.run("plan", "--json", cwd=project, env=UV)
    assert plan.code == 0, plan.stderr
    torch = json.loads(plan.stdout)["packages"][0]
    assert (torch["variant"], torch["accelerator"]) == ("rocm6.4", "rocm")

    result = cli.run("lock", cwd=project, env=UV)
    assert result.code == 0, result.stderr
    data = read_toml(project / "pyproject.toml")
    [index] = [i for i in data["tool"]["uv"]["index"] if i["name"] != PYPI]
    assert index["name"].startswith("pytorch-rocm6.4-mirror-")
    assert index["url"] == server.url("/whl/rocm6.4/")
    assert set(data["tool"]["uv"]["sources"]) == {"torch", "torchvision", "pytorch-triton-rocm"}
    # ROCm wheels are published for Linux x86_64 only: elsewhere the default index serves.
    markers = {entry[0]["marker"] for entry in data["tool"]["uv"]["sources"].values()}
    assert markers == {ROCM_PLATFORMS}
    locked = {
        p["name"]: (p["version"], p["source"].get("registry"))
        for p in read_toml(project / "uv.lock")["package"]
    }
    assert locked["torch"] == ("2.9.1+rocm6.4", server.url("/whl/rocm6.4/"))
    assert locked["pytorch-triton-rocm"] == ("3.5.1", server.url("/whl/rocm6.4/"))
    check_cuda_lock(project, server)

    before = snapshot(project, FILES)
    assert cli.run("lock", cwd=project, env=UV).code == 0
    assert snapshot(project, FILES) == before
    assert cli.run("lock", "--check", cwd=project, env=UV).code == 0

    sync = cli.run("sync", cwd=project, program="uv", env=UV)
    assert sync.code == 0, sync.stderr
    assert installed_torch(project / ".venv" / "bin" / "python") == ["2.9.1+rocm6.4", "6.4"]

    # doctor finds the ROCm build installed as locked, not a CUDA build gone missing.
    doctor = cli.run("doctor", "--json", cwd=project, env=UV)
    findings = json.loads(doctor.stdout)["findings"]
    installed = [f for f in findings if f["check"] == "installed" and f["subject"] == "torch"]
    assert [f["status"] for f in installed] == ["ok"], installed
    assert not [f for f in findings if f["status"] == "fail"], findings

    # cuda.lock records what the AMD targets' build was chosen by: relocking without the
    # targets setting plans for the recorded targets, to the same build.
    recorded = read_toml(project / "cuda.lock")["targets"]
    assert sorted(t["amd-gfx"] for t in recorded) == [["gfx1100"], ["gfx90a"]]
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('targets = ["hosts/*.json"]\n', ""))
    replanned = cli.run("plan", "--json", cwd=project, env=UV)
    assert replanned.code == 0, replanned.stderr
    document = json.loads(replanned.stdout)
    assert sorted(document["targets"]) == ["hosts/mi250x.json", "hosts/rx7900.json"]
    assert document["packages"][0]["version"] == "2.9.1+rocm6.4"


def test_poetry_locks_and_installs_the_rocm_build(
    cli: Cli, tmp_path: Path, server: IndexServer
) -> None:
    project = write_project(tmp_path, server, "poetry")
    result = cli.run("lock", cwd=project)
    assert result.code == 0, result.stderr
    sources = read_toml(project / "pyproject.toml")["tool"]["poetry"]["source"]
    [rocm] = [s for s in sources if s["name"] != PYPI]
    assert rocm["url"] == server.url("/whl/rocm6.4/")
    assert rocm["priority"] == "explicit"
    group = read_toml(project / "pyproject.toml")["tool"]["poetry"]["group"]["poetry-cuda"]
    assert {pin["markers"] for pin in group["dependencies"].values()} == {ROCM_PLATFORMS}
    locked = {
        p["name"]: (str(p["version"]), (p.get("source") or {}).get("url"))
        for p in read_toml(project / "poetry.lock")["package"]
    }
    assert locked["torch"] == ("2.9.1+rocm6.4", server.url("/whl/rocm6.4"))
    assert locked["torchvision"][0] == "0.24.1+rocm6.4"
    check_cuda_lock(project, server)
    assert cli.run("lock", "--check", cwd=project).code == 0

    # A plain `poetry install` (no poetry-cuda) installs the ROCm build with its Triton.
    install = cli.run("install", cwd=project, program="poetry")
    assert install.code == 0, install.stderr
    assert installed_torch(project / ".venv" / "bin" / "python") == ["2.9.1+rocm6.4", "6.4"]
    doctor = cli.run("doctor", "--json", cwd=project)
    findings = json.loads(doctor.stdout)["findings"]
    installed = {f["subject"]: f["status"] for f in findings if f["check"] == "installed"}
    assert installed["torch"] == "ok", findings
    assert not [f for f in findings if f["status"] == "fail"], findings


def test_uv_locks_and_installs_the_xpu_build(cli: Cli, tmp_path: Path, server: IndexServer) -> None:
    # torch 2.10.0+xpu pins triton-xpu (from the XPU index) and Intel's runtime (from PyPI).
    project = write_project(tmp_path, server, "uv", {"arc.json": ARC}, "==2.10.0")
    result = cli.run("lock", cwd=project, env=UV)
    assert result.code == 0, result.stderr
    locked = {
        p["name"]: (p["version"], p["source"].get("registry"))
        for p in read_toml(project / "uv.lock")["package"]
    }
    assert locked["torch"] == ("2.10.0+xpu", server.url("/whl/xpu/"))
    assert locked["triton-xpu"] == ("3.6.0", server.url("/whl/xpu/"))
    assert locked["intel-sycl-rt"] == ("2025.3.1", server.url("/simple/"))
    records = {p["name"]: p for p in read_toml(project / "cuda.lock")["packages"]}
    assert (records["torch"]["variant"], records["torch"]["accelerator"]) == ("xpu", "xpu")
    assert read_toml(project / "cuda.lock")["targets"][0]["intel-device-ips"] == ["12.55.8"]
    assert cli.run("lock", "--check", cwd=project, env=UV).code == 0
    sync = cli.run("sync", cwd=project, program="uv", env=UV)
    assert sync.code == 0, sync.stderr
    assert installed_torch(project / ".venv" / "bin" / "python") == ["2.10.0+xpu", "None"]


MI300X = {
    "gpus": [{"name": "AMD Instinct MI300X", "vendor": "amd", "gfx": "gfx942"}],
    "rocm": {"kernel_driver": "6.16.13", "source": "kfd"},
}


@pytest.mark.parametrize(
    ("host", "variant"), [(MI300X, "rocm7.1"), (ARC, "xpu")], ids=["mi300x", "arc-a770"]
)
def test_lock_records_the_variant_label_of_the_rocm_or_xpu_build_the_plan_chose(
    cli: Cli, tmp_path: Path, server: IndexServer, host: dict[str, Any], variant: str
) -> None:
    """Issue 39 item 5: with torch opted into wheel variants, cuda.lock records the label of
    the build `plan` chose (torch 2.10.0's published rocm7.1 / xpu), with its properties."""
    build_world(tmp_path / "variant-files", TORCH_210, version="2.10.0")
    with serve_index(tmp_path / "variant-files", tmp_path / "variant-root") as index:
        project = write_project(tmp_path, server, "uv", {"host.json": host}, "==2.10.0")
        pyproject = project / "pyproject.toml"
        pyproject.write_text(
            pyproject.read_text() + f'\n[tool.poetry-cuda.wheel-variants]\ntorch = "{index}"\n'
        )
        result = cli.run("lock", cwd=project, env=UV)
        assert result.code == 0, result.stderr
        torch = next(
            p for p in read_toml(project / "cuda.lock")["packages"] if p["name"] == "torch"
        )
        assert (torch["variant"], torch["variant-label"]) == (variant, variant)
        assert torch["variant-properties"] == list(property_lines(TORCH_210["variants"][variant]))
        assert "planning again" not in result.stderr
        assert cli.run("lock", "--check", cwd=project, env=UV).code == 0


def test_env_and_run_of_a_rocm_project_ask_for_no_cuda_toolkit(
    cli: Cli, tmp_path: Path, server: IndexServer
) -> None:
    # Even with toolkit = "wheels" (nvidia-* wheels) and a shell set up for a CUDA toolkit,
    # a ROCm lock has no CUDA toolkit to find: env says what applies instead.
    project = write_project(tmp_path, server, "uv")
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            "[tool.poetry-cuda]\n", '[tool.poetry-cuda]\ntoolkit = "wheels"\n'
        )
    )
    assert cli.run("lock", cwd=project, env=UV).code == 0
    shell = {**UV, "CUDA_HOME": str(tmp_path / "cuda-12.4")}
    result = cli.run("env", "--shell", "json", cwd=project, env=shell)
    assert result.code == 0, result.stderr
    document = json.loads(result.stdout)
    assert (document["cuda"], document["toolkit"], document["library_path"]) == (None, None, [])
    assert not [name for name in document["set"] if "CUDA" in name]
    applies = (
        "no CUDA toolkit applies: the rocm6.4 build's wheels bring the HIP and ROCm libraries "
        "they load, and only the amdgpu kernel driver comes from the system; "
        "HIP_VISIBLE_DEVICES picks the GPUs"
    )
    assert document["notes"] == [applies]
    chinese = cli.run("env", "-v", cwd=project, env={**shell, "LC_ALL": "zh_CN.UTF-8"})
    assert chinese.code == 0, chinese.stderr
    assert "不适用 CUDA 工具包：rocm6.4 版的 wheel 自带" in chinese.stderr
    run = cli.run("run", "--", "sh", "-c", 'echo "[${CUDA_HOME-unset}]"', cwd=project, env=shell)
    assert (run.code, run.stdout.strip()) == (0, "[unset]"), run
