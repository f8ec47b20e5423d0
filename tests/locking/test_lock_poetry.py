"""`lock` end to end: real Poetry against local indexes laid out like download.pytorch.org.

The example project plans for its RTX 4090 / driver 550.54.14 and macOS hosts, locks
through the pytorch mirror served on 127.0.0.1, and plain Poetry (no plugin) installs
the result.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import time

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import read_toml
from tests.support.catalog import WorldServer
from tests.support.catalog import add_padded_torch
from tests.support.cli import BIN
from tests.support.example import EXAMPLES
from tests.support.example import configure
from tests.support.example import snapshot
from tests.support.example import torch_entries
from tests.support.example import torch_example
from tests.support.index import Fault


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import World
    from tests.support.cli import Cli


pytestmark = pytest.mark.slow


@pytest.fixture
def project(tmp_path: Path, server: WorldServer) -> Path:
    return torch_example(tmp_path, server)


def test_lock_install_and_idempotence(cli: Cli, project: Path) -> None:
    result = cli.run("lock", cwd=project)
    assert result.code == 0, result.stderr
    entries = torch_entries(project)
    cuda = [e for e in entries if str(e[1]).startswith("pytorch-")]
    pypi = [e for e in entries if e[1] == "local-pypi"]  # the PyPI stand-in
    assert [e[0] for e in cuda] == ["2.5.1+cu124"]
    assert str(cuda[0][1]).startswith("pytorch-cu124-mirror-")
    assert "linux" in str(cuda[0][2]) and "win32" in str(cuda[0][2])
    assert [e[0] for e in pypi] == ["2.5.1"]  # macOS: PyPI's own build

    cuda_lock = read_toml(project / "cuda.lock")
    torch = next(p for p in cuda_lock["packages"] if p["name"] == "torch")
    assert torch["variant"] == "cu124"
    assert torch["version"] == "2.5.1+cu124"
    assert {t["label"] for t in cuda_lock["targets"]} == {
        "hosts/laptop-macos.json",
        "hosts/workstation-rtx4090.json",
    }
    gpu_host = next(t for t in cuda_lock["targets"] if t["os"] == "linux")
    assert gpu_host["driver"] == "550.54.14"
    assert gpu_host["compute-capabilities"] == ["8.9"]

    before = snapshot(project)
    again = cli.run("lock", cwd=project)
    assert again.code == 0, again.stderr
    assert snapshot(project) == before
    assert cli.run("lock", "--check", cwd=project).code == 0

    # A teammate without the plugin: plain Poetry installs the CUDA build.
    install = cli.run("--no-plugins", "install", cwd=project, program="poetry")
    assert install.code == 0, install.stderr
    python = project / ".venv" / "bin" / "python"
    version = subprocess.run(
        [str(python), "-c", "import torch; print(torch.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert version.stdout.strip() == "2.5.1+cu124"


def test_switching_variant_rewrites_only_managed_entries(cli: Cli, project: Path) -> None:
    assert cli.run("lock", cwd=project).code == 0
    result = cli.run("lock", "--cuda", "cu118", cwd=project)
    assert result.code == 0, result.stderr
    assert [e[0] for e in torch_entries(project) if str(e[1]).startswith("pytorch-")] == [
        "2.5.1+cu118"
    ]
    data = read_toml(project / "pyproject.toml")
    names = [s["name"] for s in data["tool"]["poetry"]["source"]]
    assert names[0] == "local-pypi"
    assert len(names) == 2 and names[1].startswith("pytorch-cu118-mirror-")
    # --check compares with the settings in pyproject, which still say auto (cu124).
    assert cli.run("lock", "--check", cwd=project).code == 1


def test_check_notices_a_changed_constraint(cli: Cli, project: Path) -> None:
    assert cli.run("lock", cwd=project).code == 0
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("torch==2.5.1", "torch==2.4.1"))
    pyproject.write_text(pyproject.read_text().replace("torchvision==0.20.1", "torchvision"))
    result = cli.run("lock", "--check", cwd=project)
    assert result.code == 1
    assert "CUDA-relevant parts of pyproject.toml changed" in result.stderr


def test_switching_mirrors_locks_and_installs_cleanly(
    cli: Cli, project: Path, server: WorldServer, world: World
) -> None:
    assert cli.run("lock", cwd=project).code == 0
    first = {e[1] for e in torch_entries(project) if str(e[1]).startswith("pytorch-")}
    with WorldServer(world) as other:
        pyproject = project / "pyproject.toml"
        pyproject.write_text(
            pyproject.read_text().replace(server.pytorch_mirror, other.pytorch_mirror)
        )
        result = cli.run("lock", cwd=project)
        assert result.code == 0, result.stderr
        second = {e[1] for e in torch_entries(project) if str(e[1]).startswith("pytorch-")}
        # A new URL gets a new source name, so Poetry's per-name cache cannot serve stale files.
        assert first.isdisjoint(second)
        install = cli.run("--no-plugins", "install", cwd=project, program="poetry")
        assert install.code == 0, install.stderr


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_lock_restores_every_file(
    cli: Cli, project: Path, server: WorldServer, signum: int
) -> None:
    assert cli.run("lock", cwd=project).code == 0
    before = snapshot(project)
    # Switch variant, and stall the index so the interruption lands during resolution.
    server.inject("/whl/cu118/", Fault.stall(20))
    process = subprocess.Popen(
        [str(BIN / "poetry-cuda"), "lock", "--cuda", "cu118"],
        cwd=project,
        env=cli.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    # Resolution runs once pyproject.toml is written (lock's check of the pages comes first).
    pyproject = project / "pyproject.toml"
    while (
        not server.request_count("/whl/cu118/") or pyproject.read_bytes() == before[pyproject.name]
    ) and time.monotonic() < deadline:
        time.sleep(0.1)
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "restored" in stderr
    assert "Traceback" not in stderr
    assert snapshot(project) == before
    server.clear_faults()
    assert cli.run("lock", "--cuda", "cu118", cwd=project).code == 0


def test_lock_reads_metadata_files_not_whole_wheels(
    cli: Cli, tmp_path: Path, server: WorldServer, world: World
) -> None:
    add_padded_torch(world)
    project = tmp_path / "padded"
    shutil.copytree(EXAMPLES / "torch_project", project)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('    "torchvision==0.20.1",\n', ""))
    configure(project, server, mirror=server.padded_pytorch_mirror)
    server.reset_counters()
    result = cli.run("lock", cwd=project)
    assert result.code == 0, result.stderr
    assert server.bytes_sent("/padded/") < 1 << 20  # the wheel itself is 200 MiB
