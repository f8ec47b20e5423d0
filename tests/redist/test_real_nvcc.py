"""The nvcc of this machine's CUDA toolkit, packed as NVIDIA's redist archives, served on
loopback, stored and assembled, really compiles and links a .cu file (no GPU needed).

The archives hold only what nvcc needs to compile and link (nvlink included: linking
objects runs it; libnvvm.so left out: cicc does not load it), split as the components table says
for the toolkit's CUDA version. They are built once and kept in pytest's cache, keyed by
the toolkit's files.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from poetry_cuda.host.toolkits import toolkit_version
from poetry_cuda.redist.assemble import assemble
from poetry_cuda.redist.components import nvcc_components
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
from tests.redist.standin import PLATFORM
from tests.redist.standin import Layout
from tests.redist.standin import Member
from tests.redist.standin import Server


if TYPE_CHECKING:
    from collections.abc import Iterator


SYSTEM_CUDA = Path("/usr/local/cuda")
LAYOUT = 2  # change to rebuild the cached archives
NVCC_BIN = ("nvcc", "nvcc.profile", "cudafe++", "ptxas", "fatbinary", "nvlink", "crt")
CCCL = ("cccl", "cub", "thrust", "cuda", "nv")  # include/cccl from 13.0, the rest before
CUDART_LIBS = ("libcudart_static.a", "libcudart.so*", "libcudadevrt.a")
SOURCE = """#include <cstdio>
__global__ void add(int *x) { *x += 1; }
int main() {
    int *x = nullptr;
    cudaError_t error = cudaMalloc(&x, sizeof(int));
    add<<<1, 1>>>(x);
    std::printf("%s\\n", cudaGetErrorName(error));
    return 0;
}
"""


def _below(root: Path, relative: str) -> list[Member]:
    """`relative` (a file, a link or a folder) as archive members."""
    path = root / relative
    if path.is_symlink() or path.is_file():
        return [(relative, path)]
    if not path.is_dir():
        return []
    found = sorted(p for p in path.rglob("*") if p.is_symlink() or p.is_file())
    return [(p.relative_to(root).as_posix(), p) for p in found]


def _split(root: Path, names: tuple[str, ...]) -> dict[str, list[Member]]:
    """The toolkit's files per redist component (CUDA 12 keeps crt and nvvm in cuda_nvcc)."""
    crt = "cuda_crt" if "cuda_crt" in names else "cuda_nvcc"
    nvvm = "libnvvm" if "libnvvm" in names else "cuda_nvcc"
    cccl = next(n for n in names if n.endswith("cccl"))
    parts: dict[str, list[Member]] = {name: [] for name in names}
    for name in NVCC_BIN:
        parts["cuda_nvcc"] += _below(root, f"bin/{name}")
    parts["cuda_nvcc"] += _below(root, "include/fatbinary_section.h")
    parts[crt] += _below(root, "include/crt")
    parts[nvvm] += _below(root, "nvvm/bin") + _below(root, "nvvm/libdevice")
    for name in CCCL:
        parts[cccl] += _below(root, f"include/{name}")
    skip = {"crt", "fatbinary_section.h", *CCCL}
    for entry in sorted((root / "include").iterdir()):
        if entry.name not in skip:
            parts["cuda_cudart"] += _below(root, f"include/{entry.name}")
    for pattern in CUDART_LIBS:
        for library in sorted((root / "lib64").glob(pattern)):
            parts["cuda_cudart"].append((f"lib/{library.name}", library))
    return parts


def _fingerprint(root: Path, version: str) -> str:
    digest = hashlib.sha256(f"{LAYOUT} {version} {root}".encode())
    for relative in ("bin/nvcc", "bin/ptxas", "nvvm/bin/cicc", "include/cuda_runtime.h"):
        info = (root / relative).stat()
        digest.update(f"{relative} {info.st_size} {info.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def _build(folder: Path, root: Path, version: str) -> None:
    major, minor = version.split(".")[:2]
    layout = Layout(folder, release=f"{major}.{minor}.1")
    names = nvcc_components(CudaVersion(int(major), int(minor))).components
    for name, members in _split(root, names).items():
        layout.add(name, version, members)
    layout.write(extra=(f"redistrib_{major}.{minor}.0.json",))  # an older patch release


@pytest.fixture(scope="module")
def toolkit() -> tuple[Path, str]:
    if sys.platform != "linux" or not (SYSTEM_CUDA / "bin" / "nvcc").is_file():
        pytest.skip("no CUDA toolkit with nvcc at /usr/local/cuda")
    if shutil.which("g++") is None:
        pytest.skip("no host compiler (g++) for nvcc")
    root = Path(os.path.realpath(SYSTEM_CUDA))
    nvcc = root / "bin" / "nvcc"
    version, _ = toolkit_version(root, nvcc=nvcc, environ=os.environ, timeout=30)
    if version is None or not (root / "nvvm" / "bin" / "cicc").is_file():
        pytest.skip("the toolkit at /usr/local/cuda has no known version or no cicc")
    return root, version


@pytest.fixture(scope="module")
def standin(
    toolkit: tuple[Path, str],
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    root, version = toolkit
    cache = getattr(request.config, "cache", None)
    base = cache.mkdir("poetry-cuda-redist") if cache else tmp_path_factory.mktemp("standin")
    folder = base / _fingerprint(root, version)
    if not (folder / "index.html").is_file():
        for stale in base.iterdir():  # archives of an older layout or toolkit
            shutil.rmtree(stale)
        staging = base / f".{folder.name}"
        _build(staging, root, version)
        staging.rename(folder)
    return folder


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
