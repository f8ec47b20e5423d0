"""A hostile copy of the standard world: a CUDA index that serves more than it should.

`build_hostile_world(world, dest)` hard-links the standard world into `dest` and adds, on the
PyTorch stand-in's cu124 index only (`/whl/cu124/`):

- `filelock 99.0` (`HOSTILE_FILELOCK`), a higher version of a package torch depends on, which the
  PyPI stand-in serves as 3.16.1: the shape of the December 2022 `torchtriton` attack, where the
  nightly index served a package that pip preferred over PyPI's;
- `cuda-only-helper 1.0` (`CUDA_ONLY`), a package no other index serves.

`tamper(wheel)` replaces one served file by a different, valid wheel of the same name,
as a compromised index or mirror would. Files are unlinked before they are replaced, so the standard
world the copy was linked from never changes.
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import zipfile

from pathlib import Path

from tests.support.catalog import TORCH_RELEASES
from tests.support.catalog import World
from tests.support.catalog import _torch_wheel
from tests.support.wheels import Metadata
from tests.support.wheels import WheelSpec
from tests.support.wheels import build_wheel


HOSTILE_INDEX = "whl/cu124"
HOSTILE_FILELOCK = "99.0"
CUDA_ONLY = "cuda-only-helper"
PAYLOAD = 'raise SystemExit("installed from the CUDA index")\n'


def copy_world(world: World, dest: Path) -> World:
    """A copy of `world` made of hard links: cheap, and safe to `tamper` with."""
    shutil.copytree(world.root, dest, copy_function=os.link)
    return World(dest)


def build_hostile_world(world: World, dest: Path) -> World:
    """`world` plus the hostile packages on `/whl/cu124/` (see the module docstring)."""
    copy_world(world, dest)
    index = dest / HOSTILE_INDEX
    for name, version in (("filelock", HOSTILE_FILELOCK), (CUDA_ONLY, "1.0")):
        module = name.replace("-", "_")
        spec = WheelSpec(
            Metadata(name, version, requires_python=">=3.8"),
            files={f"{module}/__init__.py": PAYLOAD},
        )
        build_wheel(spec, index / name)
    return World(dest)


def torch_wheel(world: World, variant: str = "cu124", python: str = "cp311") -> Path:
    """The Linux torch 2.5.1 wheel of `variant` that an x86_64 CPython install downloads."""
    release = next(item for item in TORCH_RELEASES if item.torch == "2.5.1")
    spec = _torch_wheel(release, variant, "linux", python, pypi=False)
    return world.root / "whl" / variant / "torch" / spec.filename


def tamper(wheel: Path) -> None:
    """Serve different, installable bytes under `wheel`'s name (its metadata file unchanged).

    The index lists the new file's sha256, as an index that was itself compromised would.
    """
    release = next(item for item in TORCH_RELEASES if item.torch == "2.5.1")
    variant = wheel.parent.parent.name
    python = wheel.name.split("-")[2]
    spec = _torch_wheel(release, variant, "linux", python, pypi=False)
    assert spec.filename == wheel.name, (spec.filename, wheel.name)
    evil = WheelSpec(spec.metadata, spec.tag, {**spec.files, "torch/backdoor.py": PAYLOAD})
    with tempfile.TemporaryDirectory() as scratch:
        built = build_wheel(evil, Path(scratch), metadata_file=False)
        original = wheel.read_bytes()
        wheel.unlink()  # break the hard link to the standard world first
        shutil.copyfile(built, wheel)
    assert wheel.read_bytes() != original


def tamper_in_place(wheel: Path) -> None:
    """Replace `wheel` by a different, readable wheel of the same size and modification time.

    An `IndexServer` that has already listed the file keeps listing the old sha256 (it caches a
    file's hash by size and mtime): a mirror whose pages are stale while its files changed.
    """
    stat = wheel.stat()
    unpadded = _rewritten(wheel, b"")
    # Pad to the original size with the archive comment, which readers ignore.
    data = _rewritten(wheel, b" " * (stat.st_size - len(unpadded)))
    assert len(data) == stat.st_size, (len(data), stat.st_size)
    wheel.unlink()  # break the hard link to the standard world first
    wheel.write_bytes(data)
    os.utime(wheel, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def _rewritten(wheel: Path, comment: bytes) -> bytes:
    """`wheel` without torch.cuda, with torch's `__init__` replaced, and `comment`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(wheel) as original, zipfile.ZipFile(buffer, "w") as changed:
        for info in original.infolist():
            if info.filename == "torch/cuda/__init__.py":
                continue
            data = PAYLOAD.encode() if info.filename == "torch/__init__.py" else original.read(info)
            changed.writestr(info, data)
        changed.comment = comment
    return buffer.getvalue()
