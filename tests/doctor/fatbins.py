"""Fat binaries for tests: ELF files whose ``.nv_fatbin`` holds chosen entries, in the
layout nvcc writes (see `poetry_cuda.doctor.fatbin`)."""

from __future__ import annotations

import struct

from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from collections.abc import Sequence

PTX, ELF = 1, 2
MAGIC = 0xBA55ED50


def entry(kind: int, arch: int, *, header: int = 64, payload: int = 24) -> bytes:
    """One entry: its header (the architecture at offset 28) and a zero payload."""
    head = struct.pack("<HHIQ", kind, 0x0101, header, payload) + b"\0" * 12
    head += struct.pack("<I", arch)
    return head + b"\0" * (header - len(head)) + b"\0" * payload


def container(*entries: bytes) -> bytes:
    body = b"".join(entries)
    return struct.pack("<IHHQ", MAGIC, 1, 16, len(body)) + body


def sass_and_ptx(sass: Sequence[int], ptx: Sequence[int] = ()) -> bytes:
    return container(*[entry(ELF, a) for a in sass], *[entry(PTX, a) for a in ptx])


def elf(section: bytes | None) -> bytes:
    """A 64-bit little-endian ELF file with a ``.nv_fatbin`` section holding `section`
    (none without it), then its section names, then the section header table."""
    name = b".nv_fatbin"
    names = b"\0" + name + b"\0.shstrtab\0"
    data = section or b""
    data_at = 64
    names_at = data_at + len(data)
    table_at = names_at + len(names)
    table_at += -table_at % 8
    headers = [b"\0" * 64]
    if section is not None:
        headers.append(struct.pack("<IIQQQQIIQQ", 1, 1, 0, 0, data_at, len(data), 0, 0, 8, 0))
    headers.append(
        struct.pack("<IIQQQQIIQQ", len(name) + 2, 3, 0, 0, names_at, len(names), 0, 0, 1, 0)
    )
    ident = b"\x7fELF\x02\x01\x01" + b"\0" * 9
    header = ident + struct.pack(
        "<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, table_at, 0, 64, 0, 0, 64, len(headers), len(headers) - 1
    )
    body = header + data + names
    return body + b"\0" * (table_at - len(body)) + b"".join(headers)
