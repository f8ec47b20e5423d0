"""A test world of ROCm and XPU builds, laid out like download.pytorch.org/whl/rocmX.Y and /whl/xpu.

`build_rocm_world(dest)` writes the tree an `IndexServer` serves::

    /whl/rocm6.3/<project>/   torch 2.9.1, torchvision 0.24.1, pytorch-triton-rocm 3.5.1
    /whl/rocm6.4/<project>/   torch 2.8.0 and 2.9.1, torchvision 0.23.0 and 0.24.1,
                              pytorch-triton-rocm 3.4.0 and 3.5.1
    /whl/rocm7.1/<project>/   torch 2.10.0, torchvision 0.25.0, triton-rocm 3.6.0
    /whl/xpu/<project>/       torch 2.10.0 (Linux and Windows), torchvision 0.25.0 (Linux),
                              triton-xpu 3.6.0 (Linux)
    /simple/<project>/        the PyPI stand-in: the Intel runtime wheels +xpu torch pins, and
                              PyPI's torch and torchvision of each release, for every platform

What is mirrored from the real indexes (the sources are the knowledge's rocm.toml and xpu.toml):
ROCm builds are Linux x86_64 only, ``manylinux_2_28_x86_64`` from torch 2.6 on, labelled
``+rocmX.Y``, with the ROCm Triton pinned under a Linux x86_64 marker (``pytorch-triton-rocm``
up to 2.9, ``triton-rocm`` from 2.10; neither is usable from PyPI, so they live on the ROCm
index). The rocm6.4 index stops at 2.9.1 (2.10 is built for rocm7.0/7.1 only), the case of a
lock pinning ``2.10.0+rocm7.1`` against rocm6.4. XPU builds are ``+xpu`` for Linux and Windows
and pin Intel's runtime wheels, which PyPI serves (a subset of the 2.10-cycle pins of
PYTORCH_EXTRA_INSTALL_REQUIREMENTS). The Triton versions are stand-ins of the right shape.

Files inside torch: ``torch/version.py`` (``cuda = None``, ``hip`` the build's ROCm, None on
XPU), ``torch/cuda/__init__.py`` whose ``get_arch_list()`` returns the build's gfx list from
rocm.toml, and ``torch/xpu/__init__.py``; ``is_available()`` is False everywhere. One CPython
(cp311), as tests run on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from packaging.utils import canonicalize_name

from poetry_cuda.knowledge import packaged
from tests.support.wheels import Metadata
from tests.support.wheels import WheelSpec
from tests.support.wheels import build_wheel


if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


PYTHON = "cp311"
LINUX_X86_64 = 'platform_system == "Linux" and platform_machine == "x86_64"'
MANYLINUX = "manylinux_2_28_x86_64"
TRITON_TAG = "manylinux_2_27_x86_64.manylinux_2_28_x86_64"
WINDOWS = "win_amd64"


@dataclass(frozen=True)
class RocmBuild:
    """One torch release on one ROCm index, with its torchvision and Triton."""

    torch: str
    torchvision: str
    rocm: str
    triton: str
    triton_version: str


ROCM_BUILDS = (
    RocmBuild("2.9.1", "0.24.1", "6.3", "pytorch-triton-rocm", "3.5.1"),
    RocmBuild("2.8.0", "0.23.0", "6.4", "pytorch-triton-rocm", "3.4.0"),
    RocmBuild("2.9.1", "0.24.1", "6.4", "pytorch-triton-rocm", "3.5.1"),
    RocmBuild("2.10.0", "0.25.0", "7.1", "triton-rocm", "3.6.0"),
)
XPU_TORCH = "2.10.0"
XPU_TORCHVISION = "0.25.0"
XPU_TRITON = ("triton-xpu", "3.6.0")
# pytorch/pytorch .github/scripts/generate_binary_build_matrix.py, the 2.10-cycle XPU pins.
INTEL_RUNTIME = (
    ("intel-cmplr-lib-rt", "2025.3.1"),
    ("intel-sycl-rt", "2025.3.1"),
    ("tcmlib", "1.4.1"),
    ("umf", "1.0.2"),
    ("intel-pti", "0.15.0"),
)


@dataclass(frozen=True)
class RocmWorld:
    """A built world: `root` is the directory an `IndexServer` serves."""

    root: Path


def gfx_list(torch: str, rocm_version: str) -> tuple[str, ...]:
    """The gfx targets rocm.toml records for `torch` built for ROCm `rocm_version`."""
    release = packaged.rocm().release(torch)
    if release is None:
        raise ValueError(f"rocm.toml has no torch {torch}")
    return next(build.gfx for build in release.builds if build.rocm == rocm_version)


def _torch(version: str, *, hip: str | None, arches: tuple[str, ...]) -> dict[str, str]:
    return {
        "torch/__init__.py": (
            '"""Stand-in for PyTorch."""\n'
            "from torch import cuda as cuda\n"
            "from torch import version as version\n"
            "from torch import xpu as xpu\n\n"
            f'__version__ = "{version}"\n'
        ),
        "torch/version.py": (
            f'__version__ = "{version}"\ncuda = None\nhip = {hip!r}\ndebug = False\n'
        ),
        "torch/cuda/__init__.py": (
            "def is_available() -> bool:\n    return False\n\n\n"
            "def device_count() -> int:\n    return 0\n\n\n"
            f"def get_arch_list() -> list[str]:\n    return {list(arches)!r}\n"
        ),
        "torch/xpu/__init__.py": "def is_available() -> bool:\n    return False\n",
    }


def _wheel(name: str, version: str, tag: str, files: dict[str, str], *requires: str) -> WheelSpec:
    metadata = Metadata(
        name,
        version,
        summary=f"Stand-in for {name}",
        requires_python=">=3.10",
        requires_dist=requires,
    )
    return WheelSpec(metadata, tag, files)


def _module(name: str, version: str) -> dict[str, str]:
    module = name.replace("-", "_")
    return {f"{module}/__init__.py": f'"""Stand-in for {name}."""\n__version__ = "{version}"\n'}


def _catalog() -> Iterator[tuple[str, WheelSpec]]:
    for build in ROCM_BUILDS:
        index = f"whl/rocm{build.rocm}"
        torch = f"{build.torch}+rocm{build.rocm}"
        pin = f"{build.triton}=={build.triton_version}; {LINUX_X86_64}"
        files = _torch(torch, hip=build.rocm, arches=gfx_list(build.torch, build.rocm))
        yield index, _wheel("torch", torch, f"{PYTHON}-{PYTHON}-{MANYLINUX}", files, pin)
        vision = f"{build.torchvision}+rocm{build.rocm}"
        yield (
            index,
            _wheel(
                "torchvision",
                vision,
                f"{PYTHON}-{PYTHON}-{MANYLINUX}",
                _module("torchvision", vision),
                f"torch=={build.torch}",
            ),
        )
        triton = _module(build.triton, build.triton_version)
        yield (
            index,
            _wheel(build.triton, build.triton_version, f"{PYTHON}-{PYTHON}-{TRITON_TAG}", triton),
        )
    torch = f"{XPU_TORCH}+xpu"
    runtime = [f"{name}=={version}" for name, version in INTEL_RUNTIME]
    linux = [
        *(f"{pin}; {LINUX_X86_64}" for pin in runtime),
        f"{XPU_TRITON[0]}=={XPU_TRITON[1]}; {LINUX_X86_64}",
    ]
    files = _torch(torch, hip=None, arches=())
    yield "whl/xpu", _wheel("torch", torch, f"{PYTHON}-{PYTHON}-{MANYLINUX}", files, *linux)
    windows = [f'{pin}; platform_system == "Windows"' for pin in runtime]
    yield "whl/xpu", _wheel("torch", torch, f"{PYTHON}-{PYTHON}-{WINDOWS}", files, *windows)
    vision = f"{XPU_TORCHVISION}+xpu"
    yield (
        "whl/xpu",
        _wheel(
            "torchvision",
            vision,
            f"{PYTHON}-{PYTHON}-{MANYLINUX}",
            _module("torchvision", vision),
            f"torch=={XPU_TORCH}",
        ),
    )
    yield "whl/xpu", _wheel(*XPU_TRITON, f"{PYTHON}-{PYTHON}-{TRITON_TAG}", _module(*XPU_TRITON))
    for name, version in INTEL_RUNTIME:
        for tag in (MANYLINUX, WINDOWS):
            yield "simple", _wheel(name, version, f"py2.py3-none-{tag}", _module(name, version))
    # PyPI's own builds, which serve where the ROCm and XPU wheels are not published
    # (macOS, Linux aarch64; Windows for ROCm): one wheel for every platform stands in.
    releases = {(b.torch, b.torchvision) for b in ROCM_BUILDS} | {(XPU_TORCH, XPU_TORCHVISION)}
    for torch_version, vision_version in sorted(releases):
        yield (
            "simple",
            _wheel("torch", torch_version, "py3-none-any", _module("torch", torch_version)),
        )
        yield (
            "simple",
            _wheel(
                "torchvision",
                vision_version,
                "py3-none-any",
                _module("torchvision", vision_version),
                f"torch=={torch_version}",
            ),
        )


def build_rocm_world(dest: Path) -> RocmWorld:
    """Write the world into `dest` (empty or missing); each project is a directory of wheels."""
    for index, spec in _catalog():
        build_wheel(spec, dest / index / canonicalize_name(spec.metadata.name))
    return RocmWorld(dest)
