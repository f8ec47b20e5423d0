"""The fat binary scanner: on what nvcc writes, and on built layouts and broken files."""

from __future__ import annotations

import os
import shutil
import subprocess

from pathlib import Path

import pytest

from poetry_cuda.doctor.fatbin import FatbinArches
from poetry_cuda.doctor.fatbin import fatbin_arches
from poetry_cuda.doctor.fatbin import read_fatbin
from poetry_cuda.errors import InputFileError
from poetry_cuda.versions import ComputeCapability
from tests.doctor.fatbins import ELF
from tests.doctor.fatbins import PTX
from tests.doctor.fatbins import container
from tests.doctor.fatbins import elf
from tests.doctor.fatbins import entry
from tests.doctor.fatbins import sass_and_ptx


CC = ComputeCapability.parse
NVCC = Path("/usr/local/cuda/bin/nvcc")
KERNEL = "__global__ void twice(float *x) { x[threadIdx.x] *= 2.0f; }\n"


def arches(sass: str, ptx: str = "") -> FatbinArches:
    return FatbinArches(tuple(CC(s) for s in sass.split()), tuple(CC(p) for p in ptx.split()))


@pytest.mark.skipif(
    not NVCC.exists() or shutil.which("g++") is None, reason="no nvcc at /usr/local/cuda"
)
def test_what_nvcc_writes(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text(KERNEL)
    library = tmp_path / "libk.so"
    subprocess.run(
        [
            str(NVCC),
            "-gencode", "arch=compute_75,code=sm_75",
            "-gencode", "arch=compute_90,code=compute_90",
            # sm_100 and later entries have longer headers (80 to 112 bytes)
            "-gencode", "arch=compute_120,code=[sm_120,compute_120]",
            "-shared", "-Xcompiler", "-fPIC", "-o", str(library), str(tmp_path / "k.cu"),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )  # fmt: skip
    assert read_fatbin(library) == arches("7.5 12.0", "9.0 12.0")


def test_containers_headers_and_padding() -> None:
    first = container(entry(ELF, 75), entry(PTX, 90, header=80, payload=13))
    second = container(entry(ELF, 100, header=112), entry(ELF, 121), entry(0x40, 52))
    section = first + b"\0" * 8 + second + b"\0" * 8  # padding before and after a container
    assert fatbin_arches(elf(section), "lib") == arches("7.5 10.0 12.1", "9.0")


def test_repeated_entries_count_once_and_come_sorted() -> None:
    section = sass_and_ptx([90, 80], [90]) + sass_and_ptx([80, 50], [90])
    assert fatbin_arches(elf(section), "lib") == arches("5.0 8.0 9.0", "9.0")


def test_a_library_without_device_code() -> None:
    assert fatbin_arches(elf(None), "lib") == arches("")
    assert fatbin_arches(elf(b""), "lib") == arches("")


@pytest.mark.parametrize(
    ("image", "message"),
    [
        (b"", "lib: not an ELF file"),
        (b"MZ" + b"\0" * 100, "lib: not an ELF file"),
        (b"\x7fELF\x01\x01" + b"\0" * 100, "not a 64-bit little-endian ELF file"),
        (b"\x7fELF\x02\x01" + b"\0" * 20, "runs past the end of the file"),
        (elf(sass_and_ptx([75])[:-8]), "a container at byte 64 runs past its section"),
        (elf(container(entry(ELF, 75, header=16))), "an entry at byte 80 runs past its container"),
        (elf(container(entry(ELF, 7))), "architecture 7"),
    ],
)
def test_broken_files_are_named(image: bytes, message: str) -> None:
    with pytest.raises(InputFileError) as raised:
        fatbin_arches(image, "lib")
    assert message in raised.value.what


def test_truncated_section_table() -> None:
    image = elf(sass_and_ptx([75]))
    with pytest.raises(InputFileError, match="runs past the end of the file"):
        fatbin_arches(image[:-10], "lib")


def test_read_fatbin_maps_a_regular_file(tmp_path: Path) -> None:
    library = tmp_path / "libk.so"
    library.write_bytes(elf(sass_and_ptx([86], [90])))
    assert read_fatbin(library) == arches("8.6", "9.0")
    (tmp_path / "empty.so").touch()
    with pytest.raises(InputFileError, match="not an ELF file"):
        read_fatbin(tmp_path / "empty.so")
    with pytest.raises(InputFileError, match="not a regular file"):
        read_fatbin(tmp_path)
    with pytest.raises(InputFileError, match="cannot read the file"):
        read_fatbin(tmp_path / "missing.so")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_a_pipe_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.so")
    with pytest.raises(InputFileError, match="not a regular file"):
        read_fatbin(tmp_path / "pipe.so")
