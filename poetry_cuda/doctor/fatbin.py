"""The architectures a CUDA library carries, read from its fat binary.

nvcc puts a library's device code in the ELF section ``.nv_fatbin``: containers of
entries, each entry one architecture's SASS (a cubin) or PTX. Only headers are read:
a framework's section holds hundreds of MB of payload, so the file is mapped and the
walk touches a few bytes per entry. `fatbin_arches` is pure; `read_fatbin` maps a file.

The layout is NVIDIA's and undocumented. The offsets below follow the headers
reverse-engineered in n-eiling/cuda-fatbin-decompression (``fatbin-decompress.h``:
``fat_elf_header`` and ``fat_text_header``), and the tests check them against what
nvcc 13.0 writes:

    container  u32 magic 0xBA55ED50 | u16 version | u16 header size | u64 size of its entries
    entry      u16 kind (1 PTX, 2 ELF) | u16 version | u32 header size | u64 payload size
               | ... | u32 architecture at offset 28 (75 for sm_75, 120 for sm_120)

An entry's payload (often compressed) follows its header; the next entry follows the
payload. Containers follow each other, sometimes with padding between them.
"""

from __future__ import annotations

import mmap
import os
import stat
import struct

from typing import TYPE_CHECKING

from poetry_cuda.errors import InputFileError
from poetry_cuda.messages import message
from poetry_cuda.records import frozen
from poetry_cuda.versions import ComputeCapability


if TYPE_CHECKING:
    from pathlib import Path

    from poetry_cuda.messages import Message


Image = bytes | mmap.mmap

SECTION = b".nv_fatbin"
MAGIC = 0xBA55ED50
_MAGIC_BYTES = struct.pack("<I", MAGIC)
_CONTAINER = struct.Struct("<IHHQ")
_ENTRY = struct.Struct("<HHIQ")
_ARCH = struct.Struct("<I")
_ARCH_OFFSET = 28
_ENTRY_MINIMUM = _ARCH_OFFSET + _ARCH.size
KIND_PTX, KIND_ELF = 1, 2
# ELF64: the section header table's offset, entry size, count and names' index.
_SHOFF = struct.Struct("<Q")
_SHTABLE = struct.Struct("<HHH")
_SECTION_HEADER = struct.Struct("<IIQQQQIIQQ")
_SHN_XINDEX = 0xFFFF
_SHT_NOBITS = 8
_BINARY = getattr(os, "O_BINARY", 0)


@frozen
class FatbinArches:
    """The architectures with SASS and with PTX in a library's fat binary, sorted."""

    sass: tuple[ComputeCapability, ...]
    ptx: tuple[ComputeCapability, ...]


def _unpack(layout: struct.Struct, image: Image, offset: int, name: str) -> tuple[int, ...]:
    if offset < 0 or offset + layout.size > len(image):
        raise _malformed(name, message("fatbin.header-past-end", at=offset))
    return layout.unpack_from(image, offset)


def _malformed(name: str, detail: Message) -> InputFileError:
    return InputFileError(
        message("fatbin.malformed", name=name, detail=detail),
        why=message("fatbin.malformed-why"),
        fix=message("fatbin.malformed-fix"),
    )


def find_section(image: Image, wanted: bytes, name: str) -> tuple[int, int] | None:
    """(offset, size) of the section called `wanted` in a 64-bit little-endian ELF file."""
    if image[:4] != b"\x7fELF":
        raise InputFileError(message("fatbin.not-elf", name=name), fix=message("fatbin.reinstall"))
    if image[4:6] != b"\x02\x01":  # ELFCLASS64, ELFDATA2LSB: every CUDA platform's libraries
        raise InputFileError(message("fatbin.not-elf64", name=name))
    (table,) = _unpack(_SHOFF, image, 0x28, name)
    entry_size, count, names_index = _unpack(_SHTABLE, image, 0x3A, name)
    if table == 0:
        return None
    if entry_size < _SECTION_HEADER.size:
        raise _malformed(name, message("fatbin.header-size", size=entry_size))
    # More than 0xFF00 sections: the real count and index are in section 0's header.
    first = _unpack(_SECTION_HEADER, image, table, name)
    count = count or first[5]
    names_index = first[6] if names_index == _SHN_XINDEX else names_index
    headers = [_unpack(_SECTION_HEADER, image, table + i * entry_size, name) for i in range(count)]
    if names_index >= count:
        raise _malformed(name, message("fatbin.no-names"))
    names = headers[names_index][4]
    for header in headers:
        start = names + header[0]
        if image[start : start + len(wanted) + 1] == wanted + b"\0":
            return (0, 0) if header[1] == _SHT_NOBITS else (header[4], header[5])
    return None


def fatbin_arches(image: Image, name: str) -> FatbinArches:
    """The SASS and PTX architectures of the ELF library `image` (`name` names it)."""
    found = find_section(image, SECTION, name)
    sass: set[ComputeCapability] = set()
    ptx: set[ComputeCapability] = set()
    if found is None:
        return FatbinArches((), ())
    position, end = found[0], found[0] + found[1]
    if end > len(image):
        raise _malformed(name, message("fatbin.section-past-end", section=SECTION.decode()))
    while position + _CONTAINER.size <= end:
        magic, _, header, size = _unpack(_CONTAINER, image, position, name)
        if magic != MAGIC:  # padding before the next container
            position = image.find(_MAGIC_BYTES, position + 1, end)
            if position < 0:
                break
            continue
        entry, container_end = position + header, position + header + size
        if header < _CONTAINER.size or container_end > end:
            raise _malformed(name, message("fatbin.container-past-end", at=position))
        while entry < container_end:
            kind, _, entry_header, payload = _unpack(_ENTRY, image, entry, name)
            (arch,) = _unpack(_ARCH, image, entry + _ARCH_OFFSET, name)
            if entry_header < _ENTRY_MINIMUM or entry + entry_header + payload > container_end:
                raise _malformed(name, message("fatbin.entry-past-end", at=entry))
            if kind in (KIND_PTX, KIND_ELF):
                if not 10 <= arch < 1000:
                    raise _malformed(name, message("fatbin.bad-arch", arch=arch, at=entry))
                (ptx if kind == KIND_PTX else sass).add(ComputeCapability(arch // 10, arch % 10))
            entry += entry_header + payload
        position = container_end
    return FatbinArches(tuple(sorted(sass)), tuple(sorted(ptx)))


def read_fatbin(path: Path) -> FatbinArches:
    """`fatbin_arches` of the library at `path`, mapped rather than read: only the pages
    holding headers are loaded."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _BINARY)
    except OSError as error:
        raise InputFileError(
            message("file.unreadable", name=path, error=error.strerror or error)
        ) from None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise InputFileError(message("fatbin.not-regular", name=path))
        if info.st_size == 0:
            return fatbin_arches(b"", str(path))
        with mmap.mmap(descriptor, 0, access=mmap.ACCESS_READ) as image:
            return fatbin_arches(image, str(path))
    except OSError as error:
        raise InputFileError(
            message("file.unreadable", name=path, error=error.strerror or error)
        ) from None
    finally:
        os.close(descriptor)
