"""A CUDA-like stack of real-shaped wheels, for measuring installs: torch, triton and the
nvidia-* libraries of a PyTorch project, 20 wheels of 20 to 200 MiB unpacked.

Each wheel looks like the real one: a few large shared libraries (``.so`` files that hold
most of its bytes, half compressible, as real ones are), many small Python modules and
headers, its dist-info with METADATA, WHEEL, RECORD (and entry points for torch), deflated
at a fast level. torch requires the others exactly, the nvidia-* and triton ones under
``platform_system == "Linux"``, as the real torch does. The bytes are seeded, so the stack
is the same at every build; `build_stack` skips the work when the folder already holds it.

    root/simple/<name>/<wheel>      an index `IndexServer(root)` serves at /simple/
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import zipfile

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tests.support.wheels import record_hash


if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


MIB = 1 << 20
PYTHON_TAG = "cp311-cp311-manylinux_2_28_x86_64"
LINUX = 'platform_system == "Linux"'
_STAMP = "stack.json"
_BLOCK = 1 << 16


@dataclass(frozen=True)
class Layer:
    """One wheel of the stack: its name, version, unpacked size, shared libraries and small
    files, and whether torch needs it on Linux only."""

    name: str
    version: str
    mib: int
    libraries: int
    small: int
    linux_only: bool = True
    pure: bool = False

    @property
    def tag(self) -> str:
        return "py3-none-any" if self.pure else PYTHON_TAG

    @property
    def filename(self) -> str:
        return f"{self.name.replace('-', '_')}-{self.version}-{self.tag}.whl"


STACK = (
    Layer("torch", "2.9.1", 200, 12, 2500, linux_only=False),
    Layer("triton", "3.5.1", 110, 4, 600),
    Layer("nvidia-cudnn-cu12", "9.10.2.21", 190, 8, 40),
    Layer("nvidia-cublas-cu12", "12.8.4.1", 170, 3, 30),
    Layer("nvidia-nccl-cu12", "2.27.5", 120, 2, 20),
    Layer("nvidia-cusparse-cu12", "12.5.8.93", 110, 2, 20),
    Layer("nvidia-cufft-cu12", "11.3.3.83", 100, 2, 20),
    Layer("nvidia-cusolver-cu12", "11.7.3.90", 90, 3, 20),
    Layer("nvidia-cusparselt-cu12", "0.7.1", 80, 2, 20),
    Layer("nvidia-curand-cu12", "10.3.9.90", 60, 2, 20),
    Layer("nvidia-nvshmem-cu12", "3.3.20", 60, 4, 60),
    Layer("nvidia-cuda-nvrtc-cu12", "12.8.93", 50, 3, 20),
    Layer("nvidia-nvjitlink-cu12", "12.8.93", 40, 1, 20),
    Layer("nvidia-cuda-cupti-cu12", "12.8.90", 30, 6, 200),
    Layer("nvidia-cuda-runtime-cu12", "12.8.90", 20, 2, 80),
    Layer("nvidia-cufile-cu12", "1.13.1.3", 20, 2, 40),
    Layer("nvidia-nvtx-cu12", "12.8.90", 20, 1, 60),
    Layer("sympy", "1.14.0", 30, 0, 1500, linux_only=False, pure=True),
    Layer("networkx", "3.5", 20, 0, 700, linux_only=False, pure=True),
    Layer("mpmath", "1.3.0", 20, 0, 300, linux_only=False, pure=True),
)


def requirements() -> list[str]:
    """torch's Requires-Dist on the rest of the stack."""
    return [
        f"{layer.name}=={layer.version}" + (f"; {LINUX}" if layer.linux_only else "")
        for layer in STACK[1:]
    ]


def build_stack(root: Path, *, scale: float = 1.0) -> Path:
    """The stack's index at `root` (built unless it is there, at this `scale` of the sizes)."""
    stamp = root / _STAMP
    wanted = {"layers": [layer.filename for layer in STACK], "scale": scale, "builder": 2}
    if stamp.is_file() and json.loads(stamp.read_text()) == wanted:
        return root
    for index, layer in enumerate(STACK):
        folder = root / "simple" / layer.name
        folder.mkdir(parents=True, exist_ok=True)
        extra = requirements() if layer.name == "torch" else []
        _write_wheel(folder / layer.filename, layer, extra, random.Random(index), scale)
    stamp.write_text(json.dumps(wanted))
    return root


def unpacked_bytes(scale: float = 1.0) -> int:
    """About how many bytes the stack unpacks to."""
    return int(sum(layer.mib for layer in STACK) * MIB * scale)


def _write_wheel(
    path: Path, layer: Layer, requires: list[str], seed: random.Random, scale: float
) -> None:
    package = "torch" if layer.name == "torch" else layer.name.split("-")[0]
    if layer.name.startswith("nvidia-"):
        package = f"nvidia/{layer.name.removeprefix('nvidia-').rsplit('-', 1)[0].replace('-', '_')}"
    members: list[tuple[str, bytes | int, int]] = []  # path, bytes (or size to generate), mode
    small_total = 0
    for number in range(layer.small):
        kind = (".py", ".h", ".pyi")[number % 3] if not layer.pure else ".py"
        size = seed.randrange(512, 12 * 1024)
        small_total += size
        folder = f"{package}/{'include' if kind == '.h' else 'sub' + str(number % 17)}"
        members.append((f"{folder}/m{number}{kind}", _text(seed, size), 0o644))
    budget = max(int(layer.mib * MIB * scale) - small_total, 0)
    for number in range(layer.libraries):
        size = budget // layer.libraries
        members.append((f"{package}/lib/lib{layer.name.split('-')[-1]}{number}.so.1", size, 0o755))
    dist_info = f"{layer.name.replace('-', '_')}-{layer.version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {layer.name}\nVersion: {layer.version}\n"
    metadata += "".join(f"Requires-Dist: {r}\n" for r in requires)
    wheel = (
        "Wheel-Version: 1.0\nGenerator: poetry-cuda-test-builder (1.0)\n"
        f"Root-Is-Purelib: {'true' if layer.pure else 'false'}\nTag: {layer.tag}\n"
    )
    members.append((f"{dist_info}/METADATA", metadata.encode(), 0o644))
    members.append((f"{dist_info}/WHEEL", wheel.encode(), 0o644))
    if layer.name == "torch":
        points = "[console_scripts]\ntorchrun = torch.distributed.run:main\n"
        members.append((f"{dist_info}/entry_points.txt", points.encode(), 0o644))
    rows = []
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for name, content, mode in members:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o100000 | mode) << 16
            # A fast level, as `compresslevel` above: ZipInfo's own field (private before
            # Python 3.13) decides for members written through `open`.
            setattr(
                info, "compress_level" if hasattr(info, "compress_level") else "_compresslevel", 1
            )
            if isinstance(content, bytes):
                archive.writestr(info, content, compresslevel=1)
                rows.append(f"{name},{record_hash(content)},{len(content)}")
                continue
            rows.append(f"{name},{_library(archive, info, content, seed)},{content}")
        rows.append(f"{dist_info}/RECORD,,")
        record = zipfile.ZipInfo(f"{dist_info}/RECORD", date_time=(1980, 1, 1, 0, 0, 0))
        record.external_attr = 0o100644 << 16
        archive.writestr(
            record, ("\n".join(rows) + "\n").encode(), compress_type=zipfile.ZIP_DEFLATED
        )
    (path.parent / f"{path.name}.metadata").write_bytes(metadata.encode())


def _text(seed: random.Random, size: int) -> bytes:
    words = [b"import", b"def", b"return", b"cuda", b"tensor", b"self", b"(x)", b"\n    "]
    return b" ".join(seed.choice(words) for _ in range(size // 5))[:size]


def _blocks(seed: random.Random) -> Iterator[bytes]:
    """Library-like bytes: half random, half long runs, so deflate halves them as it does
    real shared libraries."""
    pattern = bytes(range(256)) * (_BLOCK // 512)
    while True:
        yield seed.randbytes(_BLOCK // 2) + pattern


def _library(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, size: int, seed: random.Random
) -> str:
    """Write `size` library-like bytes as `info`; its RECORD hash."""
    digest = hashlib.sha256()
    remaining = size
    with archive.open(info, "w", force_zip64=True) as member:
        for block in _blocks(seed):
            if not remaining:
                break
            chunk = block[: min(remaining, len(block))]
            member.write(chunk)
            digest.update(chunk)
            remaining -= len(chunk)
    return "sha256=" + base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()
