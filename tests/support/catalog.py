"""The standard test world: PyPI, PyTorch and Paddle indexes with the distributions tests lock against.

`build_world(dest)` writes the whole tree (a second or two; build it once per session) and
`WorldServer(world)` serves it on 127.0.0.1 with the URLs tests put into pyproject.toml::

    /simple/<project>/                       the PyPI stand-in
    /whl/<variant>/<project>/                download.pytorch.org/whl/<variant>
    /packages/stable/<variant>/<project>/    www.paddlepaddle.org.cn/packages/stable/<variant>
    /padded/whl/cu124/torch/                 one padded torch wheel, after `add_padded_torch`
    /mirror-suffix/<variant>/simple/<project>/   /whl/ as a simple mirror with a suffix (SEU)
    /mirror-flat/<variant>/                  /whl/<variant>/ as one flat listing (Aliyun)
    /mirror-elsewhere/<variant>/<project>/   /whl/ pages whose links point at localhost:PORT/whl/

What is mirrored from the real indexes:

- torch 2.4.1 / 2.5.1 / 2.6.0 with torchvision 0.19.1 / 0.20.1 / 0.21.0 and torchaudio of torch's
  version, in the CUDA variants each release really published (2.4 and 2.5: cu118 cu121 cu124;
  2.6: cu118 cu124 cu126) plus cpu.
- For the adoption corpus (tests/fixtures/adoption/), torch 2.0.1 / 2.1.1 / 2.1.2 / 2.7.1 / 2.8.0 /
  2.9.1 with their published torchvision/torchaudio pairs (0.15.2/2.0.2, 0.16.1/2.1.1,
  0.16.2/2.1.2, 0.22.1/2.7.1, 0.23.0/2.8.0, 0.24.1/2.9.1), again in the variants each published
  (2.0: cu117 cu118; 2.1: cu118 cu121; 2.7: cu118 cu126 cu128; 2.8: cu126 cu128 cu129; 2.9: cu126
  cu128 cu130) plus cpu. PyPI's Linux build is cu117 for 2.0, cu121 for 2.1, cu126 for 2.7 and
  cu128 for 2.8 and 2.9.
- triton, as published: Linux x86_64 wheels without a local label, on PyPI and on every CUDA
  variant index of the releases that use it (2.0.0, 2.1.0, 3.0.0 ... 3.5.1, one per release).
- File names as published. On download.pytorch.org Linux wheels are tagged `linux_x86_64` and carry
  the local label (`torch-2.5.1+cu124-cp311-cp311-linux_x86_64.whl`), Windows wheels `win_amd64`, and
  the macOS arm64 wheels (cpu index only) carry *no* label (`torch-2.5.1-cp311-none-macosx_11_0_arm64`,
  the same file as on PyPI). On PyPI the Linux wheels are `manylinux1_x86_64` CUDA builds (2.4.1 is
  CUDA 12.1, 2.5.1 and 2.6.0 CUDA 12.4) and the Windows and macOS wheels are CPU builds.
- Dependencies. Linux CUDA torch wheels (both indexes) pin `nvidia-*` wheels under
  `platform_system == "Linux" and platform_machine == "x86_64"`: a representative subset of the real
  pins (cuda-runtime, cudnn, cublas, with their real versions; CUDA 13 names drop the `-cu13` but
  for cuDNN, `nvidia-cuda-runtime`, `nvidia-cudnn-cu13`), and from 2.0.1 on also
  `triton==<its triton>` under the same marker (2.4.1 to 2.6.0 leave that pin out, so the locks
  the older tests assert stay as they were); Windows wheels bundle CUDA and pin nothing. torch also
  requires filelock and typing-extensions>=4.8.0 (a subset of the real
  filelock/typing-extensions/sympy/networkx/jinja2/fsspec) and offers the real `opt-einsum` extra.
  torchvision and torchaudio pin torch exactly, as the real METADATA does: on Linux and macOS without
  the label (`torch==2.5.1`, which `2.5.1+cu124` satisfies), on Windows with it
  (`torch==2.5.1+cu124`). The PyTorch and Paddle variant indexes also serve the dependencies their
  packages need, as the real ones do, so `--index-url` style use works too.
- paddlepaddle-gpu 2.6.2 on PyPI (no nvidia-* dependencies), `2.6.2.post117` / `2.6.2.post120` on
  `/packages/stable/cu117/` and `/cu120/`, and 3.0.0 on `/cu118/` and `/cu126/` with nvidia-* pins;
  the pre-release 3.0.0b2 on `/cu118/` too (the knowledge base does not list it).
- flash-attn 2.7.4.post1 on PyPI only as an sdist (static PKG-INFO, so it locks without a build).

Python tags: like the real projects, one wheel per CPython version, cp310-cp313 (cp310-cp312 for the
torch 2.4 family and paddlepaddle-gpu 2.6.2; cp311 only for the corpus releases, so projects on
those declare ">=3.11,<3.12" or Poetry's "~3.11"). uv requires wheels for the lower bound of the project's
`requires-python`, and Poetry records every file of a locked version, so projects must declare a
`requires-python` inside that range (">=3.11,<3.12" keeps locks smallest; ">=3.10" works too).
Tests run on CPython 3.11, which every release covers.

Files inside the wheels: `torch/__init__.py` (`__version__`), `torch/version.py` (`cuda = "12.4"` or
None), `torch/cuda/__init__.py` (`is_available()` returns False); torchvision and torchaudio with
`version.py`; `paddle/version/__init__.py` with `cuda()` / `cudnn()`; nvidia-* wheels with their
`nvidia/<lib>/lib/<soname>` and, for cuda-runtime and cudnn, the version headers.
"""

from __future__ import annotations

import os
import shutil

from dataclasses import dataclass
from typing import TYPE_CHECKING
from typing import Literal

from packaging.utils import canonicalize_name

from tests.support.index import IndexServer
from tests.support.index import View
from tests.support.wheels import Metadata
from tests.support.wheels import SdistSpec
from tests.support.wheels import WheelSpec
from tests.support.wheels import build_sdist
from tests.support.wheels import build_wheel


if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Iterator
    from pathlib import Path


MIB = 1 << 20
PYPI_INDEX = "simple"
PADDED_VARIANT = "cu124"
PADDED_TORCH = "2.5.1"
LINUX_X86_64 = 'platform_system == "Linux" and platform_machine == "x86_64"'

Platform = Literal["linux", "windows", "macos"]
NvidiaKind = Literal["cuda-runtime", "cudnn", "cublas"]
_PY311 = ("cp311",)
_PY310_312 = ("cp310", "cp311", "cp312")
_PY310_313 = ("cp310", "cp311", "cp312", "cp313")
_PYPI_TAGS: dict[Platform, str] = {
    "linux": "manylinux1_x86_64",
    "windows": "win_amd64",
    "macos": "macosx_11_0_arm64",
}
_PYTORCH_TAGS: dict[Platform, str] = {
    "linux": "linux_x86_64",
    "windows": "win_amd64",
    "macos": "macosx_11_0_arm64",
}


@dataclass(frozen=True)
class NvidiaLib:
    """One `nvidia-<kind>-cu<major>` wheel."""

    kind: NvidiaKind
    cuda_major: int
    version: str

    @property
    def name(self) -> str:
        return nvidia_name(self.kind, self.cuda_major)

    @property
    def pin(self) -> str:
        return f"{self.name}=={self.version}"


def nvidia_name(kind: NvidiaKind, cuda_major: int) -> str:
    """`nvidia-cudnn-cu12`; from CUDA 13 NVIDIA drops the major from every name but cuDNN's."""
    if cuda_major >= 13 and kind != "cudnn":
        return f"nvidia-{kind}"
    return f"nvidia-{kind}-cu{cuda_major}"


def _libs(major: int, runtime: str, cudnn: str, cublas: str) -> tuple[NvidiaLib, ...]:
    return (
        NvidiaLib("cuda-runtime", major, runtime),
        NvidiaLib("cudnn", major, cudnn),
        NvidiaLib("cublas", major, cublas),
    )


_CU117 = _libs(11, "11.7.99", "8.5.0.96", "11.10.3.66")
_CU118_CUDNN8 = _libs(11, "11.8.89", "8.7.0.84", "11.11.3.6")
_CU118 = _libs(11, "11.8.89", "9.1.0.70", "11.11.3.6")
_CU121_CUDNN8 = _libs(12, "12.1.105", "8.9.2.26", "12.1.3.1")
_CU121 = _libs(12, "12.1.105", "9.1.0.70", "12.1.3.1")
_CU124_EARLY = _libs(12, "12.4.99", "9.1.0.70", "12.4.2.65")
_CU124 = _libs(12, "12.4.127", "9.1.0.70", "12.4.5.8")
_CU126 = _libs(12, "12.6.77", "9.5.1.17", "12.6.4.1")
_CU126_CUDNN910 = _libs(12, "12.6.77", "9.10.2.21", "12.6.4.1")
_CU128_EARLY = _libs(12, "12.8.57", "9.7.1.26", "12.8.3.14")
_CU128 = _libs(12, "12.8.90", "9.10.2.21", "12.8.4.1")
_CU129 = _libs(12, "12.9.79", "9.10.2.21", "12.9.1.4")
_CU130 = _libs(13, "13.0.96", "9.13.0.50", "13.1.0.3")
_PADDLE_CU118 = _libs(11, "11.8.89", "8.9.6.50", "11.11.3.6")


@dataclass(frozen=True)
class TorchRelease:
    """One torch release with its paired domain libraries and its published CUDA variants."""

    torch: str
    torchvision: str
    torchaudio: str
    variants: tuple[str, ...]
    pypi_variant: str
    pythons: tuple[str, ...]
    torch_requires_python: str
    torchvision_requires_python: str
    nvidia: dict[str, tuple[NvidiaLib, ...]]
    triton: str
    # The first three releases leave their triton pin out, so their wheels and the locks the
    # older tests assert stay as they were; triton itself is served for them all the same.
    pins_triton: bool = True

    def version(self, package: str) -> str:
        """The version of `package` (torch, torchvision or torchaudio) in this release."""
        return {
            "torch": self.torch,
            "torchvision": self.torchvision,
            "torchaudio": self.torchaudio,
        }[package]


TORCH_RELEASES = (
    TorchRelease(
        "2.4.1",
        "0.19.1",
        "2.4.1",
        ("cu118", "cu121", "cu124"),
        "cu121",
        _PY310_312,
        ">=3.8.0",
        ">=3.8",
        {"cu118": _CU118, "cu121": _CU121, "cu124": _CU124_EARLY},
        "3.0.0",
        pins_triton=False,
    ),
    TorchRelease(
        "2.5.1",
        "0.20.1",
        "2.5.1",
        ("cu118", "cu121", "cu124"),
        "cu124",
        _PY310_313,
        ">=3.8.0",
        ">=3.9",
        {"cu118": _CU118, "cu121": _CU121, "cu124": _CU124},
        "3.1.0",
        pins_triton=False,
    ),
    TorchRelease(
        "2.6.0",
        "0.21.0",
        "2.6.0",
        ("cu118", "cu124", "cu126"),
        "cu124",
        _PY310_313,
        ">=3.9.0",
        ">=3.9",
        {"cu118": _CU118, "cu124": _CU124, "cu126": _CU126},
        "3.2.0",
        pins_triton=False,
    ),
    # The releases the adoption corpus pins, for CPython 3.11 only to keep the world small.
    TorchRelease(
        "2.0.1",
        "0.15.2",
        "2.0.2",
        ("cu117", "cu118"),
        "cu117",
        _PY311,
        ">=3.8.0",
        ">=3.8",
        {"cu117": _CU117, "cu118": _CU118_CUDNN8},
        "2.0.0",
    ),
    TorchRelease(
        "2.1.1",
        "0.16.1",
        "2.1.1",
        ("cu118", "cu121"),
        "cu121",
        _PY311,
        ">=3.8.0",
        ">=3.8",
        {"cu118": _CU118_CUDNN8, "cu121": _CU121_CUDNN8},
        "2.1.0",
    ),
    TorchRelease(
        "2.1.2",
        "0.16.2",
        "2.1.2",
        ("cu118", "cu121"),
        "cu121",
        _PY311,
        ">=3.8.0",
        ">=3.8",
        {"cu118": _CU118_CUDNN8, "cu121": _CU121_CUDNN8},
        "2.1.0",
    ),
    TorchRelease(
        "2.7.1",
        "0.22.1",
        "2.7.1",
        ("cu118", "cu126", "cu128"),
        "cu126",
        _PY311,
        ">=3.9.0",
        ">=3.9",
        {"cu118": _CU118, "cu126": _CU126, "cu128": _CU128_EARLY},
        "3.3.1",
    ),
    TorchRelease(
        "2.8.0",
        "0.23.0",
        "2.8.0",
        ("cu126", "cu128", "cu129"),
        "cu128",
        _PY311,
        ">=3.9.0",
        ">=3.9",
        {"cu126": _CU126_CUDNN910, "cu128": _CU128, "cu129": _CU129},
        "3.4.0",
    ),
    TorchRelease(
        "2.9.1",
        "0.24.1",
        "2.9.1",
        ("cu126", "cu128", "cu130"),
        "cu128",
        _PY311,
        ">=3.10",
        ">=3.10",
        {"cu126": _CU126_CUDNN910, "cu128": _CU128, "cu130": _CU130},
        "3.5.1",
    ),
)


@dataclass(frozen=True)
class PaddleBuild:
    """One paddlepaddle-gpu build: where it is published and what it was built with."""

    index: str
    version: str
    cuda: str
    cudnn: str
    pythons: tuple[str, ...]
    pypi: bool
    nvidia: tuple[NvidiaLib, ...] = ()


PADDLE_BUILDS = (
    PaddleBuild(PYPI_INDEX, "2.6.2", "11.8", "8.6.0", _PY310_312, pypi=True),
    # Paddle's own cu118 index serves PyPI's 2.6.2 (a CUDA 11.8 build) under its plain version.
    PaddleBuild("packages/stable/cu118", "2.6.2", "11.8", "8.6.0", _PY310_312, pypi=False),
    PaddleBuild("packages/stable/cu117", "2.6.2.post117", "11.7", "8.4.1", _PY310_312, pypi=False),
    PaddleBuild("packages/stable/cu120", "2.6.2.post120", "12.0", "8.9.1", _PY310_312, pypi=False),
    PaddleBuild(
        "packages/stable/cu118",
        "3.0.0",
        "11.8",
        "8.9.6",
        _PY310_313,
        pypi=False,
        nvidia=_PADDLE_CU118,
    ),
    # A pre-release the knowledge base does not list, on the index the project pins it to.
    PaddleBuild(
        "packages/stable/cu118",
        "3.0.0b2",
        "11.8",
        "8.9.6",
        _PY310_313,
        pypi=False,
        nvidia=_PADDLE_CU118,
    ),
    PaddleBuild(
        "packages/stable/cu126", "3.0.0", "12.6", "9.5.1", _PY310_313, pypi=False, nvidia=_CU126
    ),
)


@dataclass(frozen=True)
class World:
    """A built world: `root` is the directory an `IndexServer` serves."""

    root: Path


class WorldServer(IndexServer):
    """An `IndexServer` over a `World`, with the URLs tests configure."""

    def __init__(self, world: World, *, max_connections: int = 128) -> None:
        super().__init__(world.root, max_connections=max_connections)
        self.mount("/mirror-suffix/", View("suffix", "/whl/"))
        self.mount("/mirror-flat/", View("flat", "/whl/"))
        self.mount("/mirror-elsewhere/", View("elsewhere", "/whl/", self.upstream_url("/whl/")))

    def upstream_url(self, path: str) -> str:
        """`path` on this server by another host name: an upstream the mirrors link back to."""
        return f"http://localhost:{self.port}{path}"

    @property
    def suffix_mirror(self) -> str:
        """A simple mirror with a suffix after the variant, as SEU's."""
        return self.url("/mirror-suffix/{variant}/simple/")

    @property
    def flat_mirror(self) -> str:
        """A flat listing per variant, `+` written as `&#43;`, as Aliyun's."""
        return self.url("/mirror-flat/{variant}/")

    @property
    def elsewhere_mirror(self) -> str:
        """A simple mirror whose file links point upstream (`upstream_url`)."""
        return self.url("/mirror-elsewhere/{variant}/")

    @property
    def pypi_url(self) -> str:
        """The PyPI stand-in's simple index, e.g. for Poetry's primary source or uv's default."""
        return self.url(f"/{PYPI_INDEX}")

    @property
    def pytorch_mirror(self) -> str:
        """`[tool.poetry-cuda.mirrors] pytorch`: `http://127.0.0.1:PORT/whl/{variant}`."""
        return self.url("/whl/{variant}")

    @property
    def paddle_mirror(self) -> str:
        """`[tool.poetry-cuda.mirrors] paddle`: `http://127.0.0.1:PORT/packages/stable/{variant}`."""
        return self.url("/packages/stable/{variant}")

    @property
    def padded_pytorch_mirror(self) -> str:
        """A pytorch mirror whose only variant, cu124, holds the padded torch wheel."""
        return self.url("/padded/whl/{variant}")

    def pytorch_url(self, variant: str) -> str:
        return self.pytorch_mirror.format(variant=variant)

    def paddle_url(self, variant: str) -> str:
        return self.paddle_mirror.format(variant=variant)


def cuda_version(variant: str) -> str | None:
    """`cu124` -> `12.4`, `cu118` -> `11.8`; `cpu` -> None."""
    if variant == "cpu":
        return None
    digits = variant.removeprefix("cu")
    return f"{digits[:-1]}.{digits[-1]}"


def build_world(dest: Path) -> World:
    """Build the standard world into `dest` (which must be empty or missing).

    Each distinct distribution is built once into a hidden pool and hard-linked into every index
    that serves it. Two indexes may serve different files under one name, as the real ones do
    (paddlepaddle-gpu 3.0.0 for cu118 and for cu126).
    """
    pool: dict[str, list[tuple[WheelSpec | SdistSpec, Path]]] = {}
    for index, spec in _standard_catalog():
        same_name = pool.setdefault(spec.filename, [])
        source = next((built for other, built in same_name if other == spec), None)
        if source is None:
            source = dest / ".pool" / f"{len(same_name)}"
            _build(spec, source)
            same_name.append((spec, source))
        project_dir = dest / index / canonicalize_name(spec.metadata.name)
        project_dir.mkdir(parents=True, exist_ok=True)
        for name in (spec.filename, f"{spec.filename}.metadata"):
            if (source / name).is_file():
                _link(source / name, project_dir / name)
    return World(dest)


def add_padded_torch(world: World, size_bytes: int = 200 * MIB) -> Path:
    """Add `/padded/whl/cu124/torch/` holding one torch 2.5.1+cu124 cp311 Linux wheel padded with
    `size_bytes` of incompressible data; return the wheel's path. Idempotent for one size."""
    release = next(item for item in TORCH_RELEASES if item.torch == PADDED_TORCH)
    spec = _torch_wheel(release, PADDED_VARIANT, "linux", "cp311", pypi=False)
    padded = WheelSpec(spec.metadata, spec.tag, spec.files, padding_bytes=size_bytes)
    directory = world.root / "padded" / "whl" / PADDED_VARIANT / "torch"
    wheel = directory / padded.filename
    if not (wheel.is_file() and wheel.stat().st_size > size_bytes):
        wheel = build_wheel(padded, directory)
    return wheel


def _standard_catalog() -> Iterator[tuple[str, WheelSpec | SdistSpec]]:
    for release in TORCH_RELEASES:
        for variant in (*release.variants, "cpu"):
            index = f"whl/{variant}"
            platforms: tuple[Platform, ...] = ("linux", "windows")
            if variant == "cpu":
                platforms += ("macos",)
            for platform in platforms:
                for python in release.pythons:
                    for package in ("torch", "torchvision", "torchaudio"):
                        yield (
                            index,
                            _family_wheel(package, release, variant, platform, python, pypi=False),
                        )
            yield from ((index, lib) for lib in _nvidia_wheels(release.nvidia.get(variant, ())))
            yield from ((index, dep) for dep in _PURE_DEPENDENCIES)
            if variant != "cpu":
                yield from ((index, triton) for triton in _triton_wheels(release))
        yield from ((PYPI_INDEX, triton) for triton in _triton_wheels(release))
        for platform in ("linux", "windows", "macos"):
            for python in release.pythons:
                for package in ("torch", "torchvision", "torchaudio"):
                    yield (
                        PYPI_INDEX,
                        _family_wheel(
                            package, release, release.pypi_variant, platform, python, pypi=True
                        ),
                    )
        for libs in release.nvidia.values():
            yield from ((PYPI_INDEX, lib) for lib in _nvidia_wheels(libs))
    for build in PADDLE_BUILDS:
        for platform in ("linux", "windows"):
            for python in build.pythons:
                yield build.index, _paddle_wheel(build, platform, python)
        for index in dict.fromkeys((build.index, PYPI_INDEX)):
            yield from ((index, lib) for lib in _nvidia_wheels(build.nvidia))
        if not build.pypi:
            yield from ((build.index, dep) for dep in _PURE_DEPENDENCIES)
    yield from ((PYPI_INDEX, dep) for dep in _PURE_DEPENDENCIES)
    yield PYPI_INDEX, _pure("einops", "0.8.0", ">=3.8")
    yield (
        PYPI_INDEX,
        SdistSpec(
            Metadata(
                "flash-attn",
                "2.7.4.post1",
                summary="Flash Attention: Fast and Memory-Efficient Exact Attention",
                requires_python=">=3.9",
                requires_dist=("torch", "einops"),
            ),
            files={"flash_attn/__init__.py": '__version__ = "2.7.4.post1"\n'},
        ),
    )


def _init_module(package: str, version: str) -> str:
    return f'"""Stand-in for {package}."""\n__version__ = "{version}"\n'


def _pure(name: str, version: str, requires_python: str, *requires: str) -> WheelSpec:
    module = name.replace("-", "_")
    return WheelSpec(
        Metadata(name, version, requires_python=requires_python, requires_dist=requires),
        files={f"{module}/__init__.py": _init_module(name, version)},
    )


_PURE_DEPENDENCIES = (
    _pure("filelock", "3.16.1", ">=3.8"),
    _pure("typing-extensions", "4.12.2", ">=3.8"),
    _pure("numpy", "2.1.3", ">=3.10"),
    _pure("pillow", "11.0.0", ">=3.9"),
)


def _family_wheel(
    package: str,
    release: TorchRelease,
    variant: str,
    platform: Platform,
    python: str,
    *,
    pypi: bool,
) -> WheelSpec:
    if package == "torch":
        return _torch_wheel(release, variant, platform, python, pypi=pypi)
    version = release.version(package)
    label = _label(variant, platform, pypi=pypi)
    torch_pin = release.torch + (f"+{label}" if label and platform == "windows" else "")
    requires = [f"torch=={torch_pin}"]
    if package == "torchvision":
        requires = ["numpy", *requires, "pillow!=8.3.*,>=5.3.0"]
    metadata = Metadata(
        package,
        _labelled(version, label),
        summary=f"Stand-in for {package}",
        requires_python=release.torchvision_requires_python if package == "torchvision" else None,
        requires_dist=tuple(requires),
    )
    cuda = _cuda_of_build(variant, platform, pypi=pypi)
    files = {
        f"{package}/__init__.py": _init_module(package, metadata.version),
        f"{package}/version.py": f'__version__ = "{metadata.version}"\ncuda = {_literal(cuda)}\n',
    }
    tags = _PYPI_TAGS if pypi else _PYTORCH_TAGS
    return WheelSpec(metadata, f"{python}-{python}-{tags[platform]}", files)


def _torch_wheel(
    release: TorchRelease, variant: str, platform: Platform, python: str, *, pypi: bool
) -> WheelSpec:
    label = _label(variant, platform, pypi=pypi)
    version = _labelled(release.torch, label)
    cuda = _cuda_of_build(variant, platform, pypi=pypi)
    requires = ["filelock", "typing-extensions>=4.8.0"]
    if platform == "linux" and cuda is not None:
        requires.extend(f"{lib.pin}; {LINUX_X86_64}" for lib in release.nvidia[variant])
        if release.pins_triton:
            requires.append(f"triton=={release.triton}; {LINUX_X86_64}")
    requires.append('opt-einsum>=3.3; extra == "opt-einsum"')
    metadata = Metadata(
        "torch",
        version,
        summary="Tensors and Dynamic neural networks in Python with strong GPU acceleration",
        requires_python=release.torch_requires_python,
        requires_dist=tuple(requires),
        provides_extra=("opt-einsum",),
    )
    files = {
        "torch/__init__.py": (
            '"""Stand-in for PyTorch."""\n'
            "from torch import cuda as cuda\n"
            "from torch import version as version\n\n"
            f'__version__ = "{version}"\n'
        ),
        "torch/version.py": (
            f'__version__ = "{version}"\ncuda = {_literal(cuda)}\nhip = None\ndebug = False\n'
        ),
        "torch/cuda/__init__.py": (
            "def is_available() -> bool:\n    return False\n\n\n"
            "def device_count() -> int:\n    return 0\n"
        ),
    }
    abi = "none" if platform == "macos" else python
    tags = _PYPI_TAGS if pypi else _PYTORCH_TAGS
    return WheelSpec(metadata, f"{python}-{abi}-{tags[platform]}", files)


def _paddle_wheel(build: PaddleBuild, platform: Platform, python: str) -> WheelSpec:
    requires = ["numpy>=1.13", "pillow"]
    if build.nvidia:
        requires = ["numpy>=1.21", "pillow", "typing-extensions"]
        requires.extend(f"{lib.pin}; {LINUX_X86_64}" for lib in build.nvidia)
    metadata = Metadata(
        "paddlepaddle-gpu",
        build.version,
        summary="Parallel Distributed Deep Learning",
        requires_dist=tuple(requires),
    )
    files = {
        "paddle/__init__.py": (
            f'"""Stand-in for PaddlePaddle."""\n__version__ = "{build.version}"\n'
        ),
        "paddle/version/__init__.py": (
            f'full_version = "{build.version}"\n'
            f'cuda_version = "{build.cuda}"\n'
            f'cudnn_version = "{build.cudnn}"\n\n\n'
            "def cuda() -> str:\n    return cuda_version\n\n\n"
            "def cudnn() -> str:\n    return cudnn_version\n"
        ),
    }
    tag = (_PYPI_TAGS if build.pypi else _PYTORCH_TAGS)[platform]
    return WheelSpec(metadata, f"{python}-{python}-{tag}", files)


def _triton_wheels(release: TorchRelease) -> Iterator[WheelSpec]:
    """triton as published: Linux x86_64 only, no local label, one wheel per CPython version."""
    for python in release.pythons:
        yield WheelSpec(
            Metadata(
                "triton",
                release.triton,
                summary="A language and compiler for custom Deep Learning operations",
            ),
            f"{python}-{python}-manylinux_2_17_x86_64.manylinux2014_x86_64",
            {"triton/__init__.py": _init_module("triton", release.triton)},
        )


def _nvidia_wheels(libs: Iterable[NvidiaLib]) -> Iterator[WheelSpec]:
    for lib in libs:
        module = lib.kind.replace("-", "_")
        files: dict[str, str | bytes] = {
            "nvidia/__init__.py": "",
            f"nvidia/{module}/__init__.py": "",
        }
        requires: tuple[str, ...] = ()
        numbers = [int(part) for part in lib.version.split(".")]
        if lib.kind == "cuda-runtime":
            soname = (
                "libcudart.so.11.0" if lib.cuda_major == 11 else f"libcudart.so.{lib.cuda_major}"
            )
            files[f"nvidia/{module}/include/cuda_runtime_api.h"] = (
                f"#define CUDART_VERSION {numbers[0] * 1000 + numbers[1] * 10}\n"
            )
        elif lib.kind == "cudnn":
            soname = f"libcudnn.so.{numbers[0]}"
            files[f"nvidia/{module}/include/cudnn_version.h"] = (
                f"#define CUDNN_MAJOR {numbers[0]}\n"
                f"#define CUDNN_MINOR {numbers[1]}\n"
                f"#define CUDNN_PATCHLEVEL {numbers[2]}\n"
            )
            requires = (nvidia_name("cublas", lib.cuda_major),)
        else:
            soname = f"libcublas.so.{lib.cuda_major}"
        files[f"nvidia/{module}/lib/{soname}"] = (
            b"\x7fELF" + f" stand-in for {soname} from {lib.name} {lib.version}\n".encode()
        )
        yield WheelSpec(
            Metadata(
                lib.name,
                lib.version,
                summary=f"Stand-in for NVIDIA {lib.kind}",
                requires_python=">=3",
                requires_dist=requires,
            ),
            "py3-none-manylinux2014_x86_64",
            files,
        )


def _label(variant: str, platform: Platform, *, pypi: bool) -> str | None:
    """The local version label a wheel carries: none on PyPI, none for macOS on the cpu index."""
    if pypi or platform == "macos":
        return None
    return variant


def _cuda_of_build(variant: str, platform: Platform, *, pypi: bool) -> str | None:
    if platform == "macos" or (pypi and platform == "windows"):
        return None
    return cuda_version(variant)


def _literal(value: str | None) -> str:
    return "None" if value is None else f'"{value}"'


def _labelled(version: str, label: str | None) -> str:
    return f"{version}+{label}" if label else version


def _build(spec: WheelSpec | SdistSpec, pool: Path) -> None:
    if isinstance(spec, WheelSpec):
        build_wheel(spec, pool)
    else:
        build_sdist(spec, pool)


def _link(source: Path, target: Path) -> None:
    if target.exists():
        return
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)
