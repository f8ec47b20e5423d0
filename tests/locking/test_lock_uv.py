"""`lock` end to end for uv projects: the real uv against local indexes.

A uv copy of the example project plans for its RTX 4090 / driver 550.54.14 and macOS
hosts, `poetry-cuda lock` writes uv's own configuration and runs `uv lock` through the
pytorch mirror served on 127.0.0.1, and plain `uv sync` (no poetry-cuda) installs the
CUDA build.
"""

from __future__ import annotations

import difflib
import json
import shutil
import signal
import subprocess
import sys
import time

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import read_toml
from poetry_cuda.planning.managed import CUDA_PLATFORMS
from tests.support.cli import BIN
from tests.support.example import EXAMPLES
from tests.support.example import configure_uv
from tests.support.example import snapshot
from tests.support.index import Fault
from tests.support.index import refused_url
from tests.support.isolation import UV_OFFLINE


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli
    from tests.support.cli import Result


pytestmark = pytest.mark.slow
FILES = ("pyproject.toml", "uv.lock", "cuda.lock")
# uv uses the interpreter running the tests and never downloads one.
UV = {**UV_OFFLINE, "UV_HTTP_RETRIES": "0"}


@pytest.fixture
def project(tmp_path: Path, server: WorldServer) -> Path:
    project = tmp_path / "torch_project"
    shutil.copytree(EXAMPLES / "torch_project", project)
    configure_uv(project, server)
    return project


def lock(cli: Cli, project: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    return cli.run("lock", *args, cwd=project, env={**UV, **(env or {})})


def entries(project: Path, name: str) -> dict[str, tuple[str, list[str]]]:
    """uv.lock's entries of `name`: version -> (registry, resolution markers)."""
    return {
        p["version"]: (p["source"].get("registry"), p.get("resolution-markers", []))
        for p in read_toml(project / "uv.lock")["package"]
        if p["name"] == name
    }


def test_lock_sync_and_idempotence(cli: Cli, project: Path, server: WorldServer) -> None:
    result = lock(cli, project)
    assert result.code == 0, result.stderr
    cu124 = server.pytorch_url("cu124")

    data = read_toml(project / "pyproject.toml")
    uv = data["tool"]["uv"]
    [index] = [i for i in uv["index"] if i["name"] != "local-pypi"]
    assert index["name"].startswith("pytorch-cu124-mirror-")
    assert index == {"name": index["name"], "url": cu124, "explicit": True}
    pinned = [{"index": index["name"], "marker": CUDA_PLATFORMS}]
    assert uv["sources"] == {"torch": pinned, "torchvision": pinned}
    assert data["dependency-groups"]["poetry-cuda"] == [
        f"torch; {CUDA_PLATFORMS}",
        f"torchvision; {CUDA_PLATFORMS}",
    ]

    # uv.lock is universal: the CUDA build on Linux and Windows, PyPI's on macOS.
    torch = entries(project, "torch")
    assert set(torch) == {"2.5.1+cu124", "2.5.1"}
    assert torch["2.5.1+cu124"] == (cu124, [CUDA_PLATFORMS])
    registry, markers = torch["2.5.1"]
    assert registry == server.pypi_url
    assert markers == ["sys_platform != 'linux' and sys_platform != 'win32'"]
    assert set(entries(project, "torchvision")) == {"0.20.1+cu124", "0.20.1"}

    cuda_lock = read_toml(project / "cuda.lock")
    assert cuda_lock["backend"] == "uv"
    torch_record = next(p for p in cuda_lock["packages"] if p["name"] == "torch")
    assert (torch_record["variant"], torch_record["version"]) == ("cu124", "2.5.1+cu124")

    before = snapshot(project, FILES)
    again = lock(cli, project)
    assert again.code == 0, again.stderr
    assert snapshot(project, FILES) == before
    assert lock(cli, project, "--check").code == 0
    # uv itself agrees that uv.lock matches pyproject.toml.
    assert cli.run("lock", "--check", cwd=project, program="uv", env=UV).code == 0

    # A teammate without poetry-cuda: plain `uv sync` installs the CUDA build.
    sync = cli.run("sync", cwd=project, program="uv", env=UV)
    assert sync.code == 0, sync.stderr
    version = subprocess.run(
        [str(project / ".venv" / "bin" / "python"), "-c", "import torch; print(torch.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert version.stdout.strip() == "2.5.1+cu124"


def test_a_torchvision_only_project_gets_torch_from_the_same_variant(
    cli: Cli, project: Path, server: WorldServer
) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('    "torch==2.5.1",\n', ""))
    result = lock(cli, project)
    assert result.code == 0, result.stderr
    torch = entries(project, "torch")
    assert torch["2.5.1+cu124"] == (server.pytorch_url("cu124"), [CUDA_PLATFORMS])
    # torch is pinned through the managed group only.
    group = read_toml(pyproject)["dependency-groups"]["poetry-cuda"]
    assert f"torch; {CUDA_PLATFORMS}" in group


def test_switching_variant_rewrites_only_managed_entries(
    cli: Cli, project: Path, server: WorldServer
) -> None:
    assert lock(cli, project).code == 0
    before = (project / "pyproject.toml").read_text()
    result = lock(cli, project, "--cuda", "cu118")
    assert result.code == 0, result.stderr
    after = (project / "pyproject.toml").read_text()
    changed = [
        line
        for line in difflib.ndiff(before.splitlines(), after.splitlines())
        if line.startswith(("+ ", "- "))
    ]
    assert changed
    # Only the managed index's name and URL and the sources naming it differ.
    assert all("pytorch-cu1" in line or "/whl/cu1" in line for line in changed), changed
    assert len(changed) == 2 * 4  # name, url, and the two sources
    assert set(entries(project, "torch")) == {"2.5.1+cu118", "2.5.1"}
    assert entries(project, "torch")["2.5.1+cu118"][0] == server.pytorch_url("cu118")
    # --check compares with the settings in pyproject, which still say auto (cu124).
    assert lock(cli, project, "--check").code == 1
    back = lock(cli, project)
    assert back.code == 0, back.stderr
    assert (project / "pyproject.toml").read_text() == before


def test_regenerate_resolves_anew(cli: Cli, project: Path) -> None:
    assert lock(cli, project).code == 0
    before = snapshot(project, FILES)
    result = lock(cli, project, "--regenerate")
    assert result.code == 0, result.stderr
    assert snapshot(project, FILES) == before


def test_the_plugin_locks_a_uv_project_when_told_to(cli: Cli, project: Path) -> None:
    before = snapshot(project, FILES)
    refused = cli.run("cuda", "lock", cwd=project, program="poetry", env=UV)
    assert refused.code == 2
    assert "`poetry-cuda lock`" in refused.stderr
    assert snapshot(project, FILES) == before

    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            "[tool.poetry-cuda]\n", '[tool.poetry-cuda]\nbackend = "uv"\n'
        )
    )
    result = cli.run("cuda", "lock", cwd=project, program="poetry", env=UV)
    assert result.code == 0, result.stderr
    assert "2.5.1+cu124" in entries(project, "torch")
    assert read_toml(project / "cuda.lock")["backend"] == "uv"


def fake_uv(folder: Path, version: str) -> Path:
    folder.mkdir()
    script = folder / "uv"
    script.write_text(f"#!/bin/sh\necho 'uv {version}'\n")
    script.chmod(0o755)
    return script


@pytest.mark.parametrize("kind", ["missing", "too old"])
def test_a_missing_or_old_uv_is_exit_2(cli: Cli, project: Path, tmp_path: Path, kind: str) -> None:
    assert lock(cli, project).code == 0
    before = snapshot(project, FILES)
    if kind == "missing":
        env = {"POETRY_CUDA_UV": str(tmp_path / "nowhere" / "uv")}
    else:
        # A name is looked up on PATH, where an old uv comes first.
        old = fake_uv(tmp_path / "old-bin", "0.4.30")
        env = {"POETRY_CUDA_UV": "uv", "PATH": f"{old.parent}:{cli.env['PATH']}"}
    result = lock(cli, project, "--cuda", "cu118", env=env)
    assert result.code == 2, result.stderr
    if kind == "missing":
        assert "POETRY_CUDA_UV" in result.stderr
    else:
        assert "uv 0.4.30" in result.stderr and "0.5.0 or newer" in result.stderr
    assert snapshot(project, FILES) == before


def test_an_unreachable_index_is_exit_4_with_uvs_message(
    cli: Cli, project: Path, server: WorldServer
) -> None:
    assert lock(cli, project).code == 0
    with refused_url() as dead:
        pyproject = project / "pyproject.toml"
        pyproject.write_text(
            pyproject.read_text().replace(server.pytorch_mirror, f"{dead}/whl/{{variant}}")
        )
        before = snapshot(project, FILES)
        result = lock(cli, project)
    assert result.code == 4, result.stderr
    assert "uv's resolution failed" in result.stderr
    assert f"{dead}/whl/cu124" in result.stderr  # uv's own message is passed on
    assert snapshot(project, FILES) == before


def test_a_user_source_for_torch_is_exit_2(cli: Cli, project: Path) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text() + '\n[tool.uv.sources]\ntorch = { index = "local-pypi" }\n'
    )
    before = snapshot(project, FILES)
    result = lock(cli, project)
    assert result.code == 2, result.stderr
    assert 'torch = { index = "local-pypi" }' in result.stderr
    assert "pytorch-cu124-mirror-" in result.stderr
    assert snapshot(project, FILES) == before


def test_an_interrupted_lock_restores_every_file(
    cli: Cli, project: Path, server: WorldServer
) -> None:
    assert lock(cli, project).code == 0
    before = snapshot(project, FILES)
    # Switch variant, and stall the index so the interruption lands during `uv lock`.
    server.inject("/whl/cu118/", Fault.stall(20))
    process = subprocess.Popen(
        [str(BIN / "poetry-cuda"), "lock", "--cuda", "cu118"],
        cwd=project,
        env={**cli.env, **UV},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    # `uv lock` runs once pyproject.toml is written (lock's check of the pages comes first).
    pyproject = project / "pyproject.toml"
    while (
        not server.request_count("/whl/cu118/") or pyproject.read_bytes() == before[pyproject.name]
    ) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert server.request_count("/whl/cu118/"), "uv lock never reached the index"
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    # Only what was checked is claimed: uv had not written uv.lock yet.
    assert (
        "pyproject.toml, uv.lock and cuda.lock are as before (restored: pyproject.toml)" in stderr
    )
    assert "Traceback" not in stderr
    assert snapshot(project, FILES) == before
    server.clear_faults()
    assert lock(cli, project, "--cuda", "cu118").code == 0


def test_a_pypi_choice_is_verified_against_the_default_index(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    # paddlepaddle-gpu 2.6.2 is PyPI's own CUDA 11.8 build; here the default index stands
    # in for PyPI, and uv.lock records only its URL.
    project = tmp_path / "paddle_project"
    shutil.copytree(EXAMPLES / "paddle_project", project)
    configure_uv(project, server)
    target = EXAMPLES / "torch_project" / "hosts" / "workstation-rtx4090.json"
    result = lock(cli, project, "--target", str(target))
    assert result.code == 0, result.stderr
    data = read_toml(project / "pyproject.toml")
    assert "sources" not in data["tool"]["uv"]  # nothing to pin: PyPI is the default
    assert "dependency-groups" not in data
    [paddle] = read_toml(project / "cuda.lock")["packages"]
    assert (paddle["source"], paddle["version"]) == ("pypi", "2.6.2")
    assert entries(project, "paddlepaddle-gpu") == {"2.6.2": (server.pypi_url, [])}


def test_doctor_env_and_run_on_a_synced_uv_project(cli: Cli, project: Path) -> None:
    assert lock(cli, project).code == 0
    assert cli.run("sync", cwd=project, program="uv", env=UV).code == 0
    driver = {**UV, "POETRY_CUDA_DRIVER_VERSION": "550.54.14"}

    doctor = cli.run("doctor", "--json", cwd=project, env=driver)
    report = json.loads(doctor.stdout)
    by_check = {(f["area"], f["check"], f["subject"]): f for f in report["findings"]}
    locks = [f for f in report["findings"] if f["area"] == "locks"]
    assert locks and all(f["status"] == "ok" for f in locks), locks
    assert any("uv.lock" in f["message"] for f in locks)
    installed = [f for (area, _, subject), f in by_check.items() if subject == "torch"]
    assert any(f["area"] == "environment" and f["status"] == "ok" for f in installed), installed

    env = cli.run("env", "--shell", "json", cwd=project, env=UV)
    assert env.code == 0, env.stderr
    variables = json.loads(env.stdout)
    assert variables["cuda"] == "12.4"
    site = project / ".venv" / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    first = variables["set"]["LD_LIBRARY_PATH"].split(":")[0]
    assert first.startswith(str(site / "site-packages" / "nvidia"))  # the venv's wheels first
    assert variables["set"]["PATH"].startswith(str(project / ".venv" / "bin"))

    run = cli.run(
        "run", "--", "python", "-c", "import torch; print(torch.__version__)", cwd=project, env=UV
    )
    assert run.code == 0, run.stderr
    assert run.stdout.strip() == "2.5.1+cu124"
