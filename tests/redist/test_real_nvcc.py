"""The nvcc of this machine's CUDA toolkit, packed as NVIDIA's redist archives, served on
loopback, stored and assembled, really compiles and links a .cu file (no GPU needed).

The archives hold only what nvcc needs to compile and link (nvlink included: linking
objects runs it; libnvvm.so left out: cicc does not load it), split as the components table says
for the toolkit's CUDA version. They are built once and kept in pytest's cache, keyed by
the toolkit's files.
"""

from __future__ import annotations

import json
import subprocess

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.redist.assemble import assemble
from poetry_cuda.redist.fetch import fetch
from poetry_cuda.redist.fetch import join
from poetry_cuda.redist.manifest import LISTING_LIMIT
from poetry_cuda.redist.manifest import MANIFEST_LIMIT
from poetry_cuda.redist.manifest import nvcc_archives
from poetry_cuda.redist.manifest import parse_manifest
from poetry_cuda.redist.manifest import release_for
from poetry_cuda.redist.manifest import releases
from poetry_cuda.redist.store import ENVIRONMENT
from poetry_cuda.redist.store import Store
from poetry_cuda.versions import CudaVersion
from tests.redist.real_toolkit import SOURCE
from tests.redist.real_toolkit import SYSTEM_CUDA
from tests.redist.standin import PLATFORM
from tests.redist.standin import Server


if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


@pytest.fixture
def server(standin: Path) -> Iterator[Server]:
    with Server(standin) as running:
        yield running


def _size(root: Path) -> int:
    return sum(p.lstat().st_size for p in root.rglob("*") if not p.is_dir() or p.is_symlink())


def _project(server: Server, store: Store, home: Path, cuda: CudaVersion) -> None:
    listing = fetch(f"{server.url}/", limit=LISTING_LIMIT).decode()
    name = release_for(cuda, releases(listing))
    document = json.loads(fetch(join(server.url, name), limit=MANIFEST_LIMIT))
    archives = nvcc_archives(parse_manifest(document, name), PLATFORM)
    assemble(home, [store.ensure(archive, server.url) for archive in archives])


def _run(*argv: str | Path, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(a) for a in argv],
        check=False,
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done


def test_the_stored_nvcc_compiles_and_links_a_cu_file(
    toolkit: tuple[Path, str],
    server: Server,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, version = toolkit
    major, minor = (int(p) for p in version.split(".")[:2])
    monkeypatch.setenv(ENVIRONMENT, str(tmp_path / "store"))
    store = Store.default()
    home = tmp_path / "one" / ".venv" / "cuda"
    _project(server, store, home, CudaVersion(major, minor))
    assert server.requests[f"/redistrib_{major}.{minor}.1.json"] == 1
    after_one = _size(store.root)

    nvcc = home / "bin" / "nvcc"
    assert nvcc.resolve().is_relative_to(store.root.resolve())
    env = {"PATH": f"{home / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path), "TMPDIR": str(tmp_path)}
    assert f"release {major}.{minor}" in _run("nvcc", "--version", env=env, cwd=tmp_path).stdout
    (tmp_path / "add.cu").write_text(SOURCE)
    _run("nvcc", "-c", "add.cu", "-o", "add.o", env=env, cwd=tmp_path)
    _run("nvcc", "add.o", "-o", "add", "-lcudart", env=env, cwd=tmp_path)
    assert (tmp_path / "add").read_bytes()[:4] == b"\x7fELF"
    steps = _run("nvcc", "--dryrun", "add.cu", "-o", "dry", env=env, cwd=tmp_path).stderr
    assert f"TOP={home}/bin/.." in steps
    assert str(SYSTEM_CUDA) not in steps and str(toolkit[0]) not in steps

    _project(server, store, tmp_path / "two" / ".venv" / "cuda", CudaVersion(major, minor))
    assert _size(store.root) == after_one  # a second project adds no second copy
