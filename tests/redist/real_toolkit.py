"""The CUDA toolkit of this machine packed as NVIDIA's redist archives, for the tests.

The archives hold only what nvcc needs to compile and link (nvlink included: linking
objects runs it; libnvvm.so left out: cicc does not load it), split as the components table
says for the toolkit's CUDA version (`build`). `fingerprint` keys a built stand-in by the
toolkit's files, so that it is built once and kept in pytest's cache.
"""

from __future__ import annotations

import hashlib

from pathlib import Path

from poetry_cuda.redist.components import nvcc_components
from poetry_cuda.versions import CudaVersion
from tests.redist.standin import Layout
from tests.redist.standin import Member


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


def fingerprint(root: Path, version: str) -> str:
    digest = hashlib.sha256(f"{LAYOUT} {version} {root}".encode())
    for relative in ("bin/nvcc", "bin/ptxas", "nvvm/bin/cicc", "include/cuda_runtime.h"):
        info = (root / relative).stat()
        digest.update(f"{relative} {info.st_size} {info.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def build(folder: Path, root: Path, version: str) -> None:
    major, minor = version.split(".")[:2]
    layout = Layout(folder, release=f"{major}.{minor}.1")
    names = nvcc_components(CudaVersion(int(major), int(minor))).components
    for name, members in _split(root, names).items():
        layout.add(name, version, members)
    layout.write(extra=(f"redistrib_{major}.{minor}.0.json",))  # an older patch release
