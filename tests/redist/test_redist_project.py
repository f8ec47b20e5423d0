"""The "Done when" of `toolkit = "redist"`, for real: a Poetry project of the test world locks
the nvcc archives of the loopback stand-in (this machine's CUDA 13.0 toolkit, repacked), a
plain `poetry install`, then `poetry-cuda run -- nvcc` compiles and links a .cu file with the
project's nvcc from the shared store, not /usr/local/cuda; a second project, installed with
`poetry-cuda sync`, adds no copy.
"""

from __future__ import annotations

import json
import os

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import read_toml
from poetry_cuda.redist.store import ENVIRONMENT
from tests.redist.real_toolkit import SOURCE
from tests.redist.standin import Server
from tests.support.example import torch_example


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli


# A host whose driver runs CUDA 13.0: the test world serves torch 2.9.1 for cu130.
HOST = {
    "schema": 1,
    "os": "linux",
    "machine": "x86_64",
    "driver": {"version": "580.65.06", "cuda": "13.0", "source": "nvml"},
    "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}],
}


def _project(folder: Path, server: WorldServer, redist_url: str) -> Path:
    project = torch_example(folder, server)
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text()
    text = text.replace('"torch==2.5.1"', '"torch==2.9.1"')
    text = text.replace('"torchvision==0.20.1"', '"torchvision==0.24.1"')
    text = text.replace(
        'targets = ["hosts/*.json"]', 'targets = ["hosts/gpu.json"]\ntoolkit = "redist"'
    )
    text = text.replace(
        "[tool.poetry-cuda.mirrors]\n",
        f'[tool.poetry-cuda.mirrors]\ncuda-redist = "{redist_url}"\n',
    )
    pyproject.write_text(text)
    for host in (project / "hosts").iterdir():
        host.unlink()
    (project / "hosts" / "gpu.json").write_text(json.dumps(HOST))
    return project


def _size(root: Path) -> int:
    """The bytes of the stored archives (not the store's own records, locks and temporaries,
    in its dot folders: a project's usage record is a few bytes per project)."""
    return sum(
        p.lstat().st_size
        for p in root.rglob("*")
        if (not p.is_dir() or p.is_symlink()) and not p.relative_to(root).parts[0].startswith(".")
    )


def _lock_and_install(cli: Cli, project: Path, env: dict[str, str]) -> None:
    locked = cli.run("lock", cwd=project, env=env)
    assert locked.code == 0, locked
    installed = cli.run("install", cwd=project, program="poetry", env=env, timeout=600)
    assert installed.code == 0, installed


def test_a_redist_project_compiles_with_the_nvcc_from_the_store(
    cli: Cli,
    server: WorldServer,
    toolkit: tuple[Path, str],
    standin: Path,
    tmp_path: Path,
) -> None:
    _, version = toolkit
    if not version.startswith("13.0."):
        pytest.skip(f"the stand-in is CUDA {version}; the test world's torch 2.9.1 is cu130")
    store = tmp_path / "store"
    path = os.pathsep.join(
        p for p in os.environ.get("PATH", "").split(os.pathsep) if "cuda" not in p
    )
    env = {ENVIRONMENT: str(store), "PATH": path}
    with Server(standin) as redist:
        project = _project(tmp_path / "one", server, redist.url)

        # Neither --dry-run nor --check goes online.
        dry = cli.run("lock", "--dry-run", cwd=project, env=env)
        assert dry.code == 0, dry
        assert 'toolkit = "redist": `lock` resolves the CUDA 13.0 nvcc archives' in dry.stdout
        assert sum(redist.requests.values()) == 0

        _lock_and_install(cli, project, env)
        record = read_toml(project / "cuda.lock")["toolkit"]
        assert (record["mode"], record["release"]) == ("redist", "13.0.1")
        components = [a["component"] for a in record["archives"]]
        assert components == ["cuda_nvcc", "cuda_crt", "libnvvm", "cuda_cudart", "cuda_cccl"]
        assert {a["platform"] for a in record["archives"]} == {"linux-x86_64"}
        asked = sum(redist.requests.values())
        checked = cli.run("lock", "--check", cwd=project, env=env)
        assert checked.code == 0, checked
        assert sum(redist.requests.values()) == asked
        recorded = (project / "cuda.lock").read_text()
        (project / "cuda.lock").write_text(
            recorded.replace('release = "13.0.1"', 'release = "12.4.1"')
        )
        stale = cli.run("lock", "--check", cwd=project, env=env)
        assert stale.code == 1, stale
        assert (
            "records the redist release 12.4.1, but the project's CUDA version is 13.0"
            in stale.stderr
        )
        (project / "cuda.lock").write_text(recorded)

        nvcc = cli.run("run", "--", "nvcc", "--version", cwd=project, env=env)
        assert nvcc.code == 0, nvcc
        assert "release 13.0" in nvcc.stdout
        where = cli.run("run", "--", "sh", "-c", "command -v nvcc", cwd=project, env=env)
        assert where.stdout.strip() == str(project / ".venv" / "cuda" / "bin" / "nvcc")
        assert (project / ".venv/cuda/bin/nvcc").resolve().is_relative_to(store.resolve())
        (project / "add.cu").write_text(SOURCE)
        for argv in (("-c", "add.cu", "-o", "add.o"), ("add.o", "-o", "add", "-lcudart")):
            built = cli.run("run", "--", "nvcc", *argv, cwd=project, env=env)
            assert built.code == 0, built
        assert (project / "add").read_bytes()[:4] == b"\x7fELF"
        dry_run = cli.run("run", "--", "nvcc", "--dryrun", "add.cu", cwd=project, env=env)
        assert "/usr/local/cuda" not in dry_run.stdout + dry_run.stderr
        after_one = _size(store)

        second = _project(tmp_path / "two", server, redist.url)
        locked = cli.run("lock", cwd=second, env=env)
        assert locked.code == 0, locked
        synced = cli.run("sync", cwd=second, env=env, timeout=600)  # installs, then assembles
        assert synced.code == 0, synced
        assert f"Toolkit: 13.0.88 at {second / '.venv' / 'cuda'} (redist)" in synced.stdout
        assert (second / ".venv/cuda/bin/nvcc").resolve().is_relative_to(store.resolve())
        again = cli.run("env", cwd=second, env=env)
        assert again.code == 0, again
        assert str(second / ".venv" / "cuda") in again.stdout
        assert _size(store) == after_one  # the second project adds no second copy

        # doctor checks the assembled toolkit against cuda.lock; `store` lists both users.
        doctor = cli.run("doctor", "--json", cwd=second, env=env)
        findings = [
            f for f in json.loads(doctor.stdout)["findings"] if f["check"] == "project-toolkit"
        ]
        assert [f["status"] for f in findings] == ["ok"], findings
        listed = json.loads(cli.run("store", "--json", cwd=second, env=env).stdout)
        assert all(len(a["projects"]) == 2 for a in listed["archives"]), listed

    # Offline, with an empty store: one message naming the base URL and what to do.
    offline = cli.run("env", cwd=project, env={**env, ENVIRONMENT: str(tmp_path / "empty")})
    assert offline.code == 1, offline
    assert redist.url in offline.stderr
    assert "cuda-redist" in offline.stderr
    assert offline.stderr.count("Error") <= 1
