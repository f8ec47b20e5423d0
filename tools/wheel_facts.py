"""Read a release's CUDA facts from its wheels on PyPI and compare them with the knowledge base.

For a package and version the tool reads PyPI's JSON API (the release list and upload dates),
then, for one wheel per platform, only the parts of the wheel it needs, by HTTP range requests:
the zip central directory, METADATA (PEP 658 where the index offers it), the file the build
records its CUDA version in, and, for the platforms whose build is a CUDA one, the CUDA library
whose fat binaries it scans for SASS and PTX architectures. That library is read whole (it is
deflated, so it can only be read from its start), the rest of the wheel is not.

    .venv/bin/python tools/wheel_facts.py torch 2.5.1
    .venv/bin/python tools/wheel_facts.py onnxruntime-gpu 1.27.0
    .venv/bin/python tools/wheel_facts.py paddlepaddle-gpu 2.6.2

It prints the rows it derived in the data files' format beside the data files' rows, the
differences, and how many bytes it read. Exit status: 0 when they agree, 1 when they differ,
2 on bad usage or when PyPI cannot be read. The family's own index (download.pytorch.org,
Paddle's) is optional: the variants found there are listed when it answers, and the tool says
so when it does not.
"""

from __future__ import annotations

import argparse
import ast
import collections
import email.parser
import fnmatch
import http.client
import json
import re
import struct
import sys
import urllib.error
import urllib.parse
import urllib.request
import zlib

from dataclasses import dataclass
from dataclasses import field
from typing import TYPE_CHECKING
from typing import Literal
from urllib.parse import urljoin

from packaging.requirements import InvalidRequirement
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import InvalidWheelFilename
from packaging.utils import canonicalize_name
from packaging.utils import parse_wheel_filename
from packaging.version import InvalidVersion
from packaging.version import Version

from poetry_cuda.knowledge.model import PLATFORMS
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.knowledge.packaged import load_directory
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion


if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Iterator
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import FixedFlavour
    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.knowledge.model import Release


PYPI = "https://pypi.org"
TIMEOUT_S = 60
CHUNK = 1 << 20


class UnreachableError(Exception):
    """A host that did not answer, or answered without what the tool needs."""


class FormatError(Exception):
    """Bytes that are not what they claim to be (a zip, an ELF file, a fat binary)."""


# --- zip: the central directory at the end of the file, then one member's local header ----------
# PKWARE APPNOTE.TXT sections 4.3.7 (local header), 4.3.12 (central directory header),
# 4.3.14-4.3.16 (zip64 end of central directory record and locator, end of central directory).

_EOCD = struct.Struct("<IHHHHIIH")
_EOCD_SIGNATURE = 0x06054B50
_ZIP64_LOCATOR = struct.Struct("<IIQI")
_ZIP64_LOCATOR_SIGNATURE = 0x07064B50
_ZIP64_EOCD = struct.Struct("<IQHHIIQQQQ")
_ZIP64_EOCD_SIGNATURE = 0x06064B50
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
_CENTRAL_SIGNATURE = 0x02014B50
_LOCAL = struct.Struct("<IHHHHHIIIHH")
_LOCAL_SIGNATURE = 0x04034B50
_ZIP64_EXTRA = 0x0001
_SATURATED = 0xFFFFFFFF
# The end record plus the longest comment it can carry: where the record must lie.
TAIL_BYTES = _EOCD.size + 0xFFFF
STORED = 0
DEFLATED = 8


@dataclass(frozen=True)
class Directory:
    """Where a zip's central directory lies, read from its end record."""

    offset: int
    size: int


@dataclass(frozen=True)
class Member:
    """One file of a zip, as its central directory describes it."""

    name: str
    method: int
    crc: int
    compressed_size: int
    size: int
    header_offset: int


def central_directory(tail: bytes, tail_offset: int) -> Directory:
    """The central directory's place, from the last bytes of a zip (`tail` starts at `tail_offset`)."""
    at = tail.rfind(struct.pack("<I", _EOCD_SIGNATURE))
    if at < 0 or at + _EOCD.size > len(tail):
        raise FormatError("no zip end-of-central-directory record")
    *_, size, offset, _comment = _EOCD.unpack_from(tail, at)
    if _SATURATED not in (size, offset):
        return Directory(offset, size)
    locator = at - _ZIP64_LOCATOR.size
    if locator < 0 or _ZIP64_LOCATOR.unpack_from(tail, locator)[0] != _ZIP64_LOCATOR_SIGNATURE:
        raise FormatError("a zip64 archive without its zip64 locator")
    record = _ZIP64_LOCATOR.unpack_from(tail, locator)[2] - tail_offset
    if not 0 <= record <= len(tail) - _ZIP64_EOCD.size:
        raise FormatError("the zip64 end record is not near the end of the archive")
    fields = _ZIP64_EOCD.unpack_from(tail, record)
    if fields[0] != _ZIP64_EOCD_SIGNATURE:
        raise FormatError("no zip64 end-of-central-directory record")
    return Directory(offset=fields[9], size=fields[8])


def members(directory: bytes) -> list[Member]:
    """Every member the central directory lists."""
    found = []
    at = 0
    while at + _CENTRAL.size <= len(directory):
        fields = _CENTRAL.unpack_from(directory, at)
        if fields[0] != _CENTRAL_SIGNATURE:
            raise FormatError(f"no central directory header at byte {at}")
        method, crc, compressed, size = fields[4], fields[7], fields[8], fields[9]
        name_length, extra_length, comment_length = fields[10], fields[11], fields[12]
        offset = fields[16]
        name_start = at + _CENTRAL.size
        name = directory[name_start : name_start + name_length].decode("utf-8", "replace")
        extra = directory[name_start + name_length : name_start + name_length + extra_length]
        size, compressed, offset = _zip64_sizes(extra, size, compressed, offset)
        found.append(Member(name, method, crc, compressed, size, offset))
        at = name_start + name_length + extra_length + comment_length
    return found


def _zip64_sizes(extra: bytes, size: int, compressed: int, offset: int) -> tuple[int, int, int]:
    """The 64-bit values of the fields saturated at 0xFFFFFFFF, in the zip64 extra field's order."""
    at = 0
    while at + 4 <= len(extra):
        tag, length = struct.unpack_from("<HH", extra, at)
        if tag == _ZIP64_EXTRA:
            values = iter(struct.unpack_from(f"<{length // 8}Q", extra, at + 4))
            size = next(values) if size == _SATURATED else size
            compressed = next(values) if compressed == _SATURATED else compressed
            offset = next(values) if offset == _SATURATED else offset
            return size, compressed, offset
        at += 4 + length
    return size, compressed, offset


def data_offset(local_header: bytes, member: Member) -> int:
    """Where `member`'s bytes start, from the first bytes of its local header."""
    if len(local_header) < _LOCAL.size:
        raise FormatError(f"{member.name}: local header cut short")
    fields: tuple[int, ...] = _LOCAL.unpack_from(local_header)
    if fields[0] != _LOCAL_SIGNATURE:
        raise FormatError(f"{member.name}: no local header at byte {member.header_offset}")
    return member.header_offset + _LOCAL.size + fields[9] + fields[10]


def inflate(member: Member, compressed: Iterable[bytes]) -> Iterator[bytes]:
    """The member's own bytes from its compressed ones, checked against its CRC."""
    if member.method not in (STORED, DEFLATED):
        raise FormatError(f"{member.name}: compression method {member.method} is not supported")
    decompressor = zlib.decompressobj(-zlib.MAX_WBITS) if member.method == DEFLATED else None
    crc = 0
    for chunk in compressed:
        pieces = [chunk]
        if decompressor is not None:
            # Bounded pieces: a deflate stream may expand a thousandfold.
            pieces = [decompressor.decompress(chunk, CHUNK * 4)]
            while decompressor.unconsumed_tail:
                pieces.append(decompressor.decompress(decompressor.unconsumed_tail, CHUNK * 4))
        for piece in pieces:
            crc = zlib.crc32(piece, crc)
            yield piece
    if decompressor is not None:
        yield (rest := decompressor.flush())
        crc = zlib.crc32(rest, crc)
    if crc != member.crc:
        raise FormatError(f"{member.name}: CRC mismatch (the transfer was damaged)")


# --- ELF and fat binaries --------------------------------------------------------------------
#
# ELF64 little endian (the System V gABI): the header gives the section header table's offset,
# its entry size and count, and which section holds the section names.
#
# Fat binary layout, from the reverse-engineered descriptions in n-eiling/cuda-fatbin-
# decompression (fatbin-decompress.h: fat_elf_header, fat_text_header) and GrigoryEvko/
# nvopen-tools (fatbin/FORMAT_SPECIFICATION.md), checked against nvcc 13.0 output:
#   container header, 16 bytes: u32 magic 0xBA55ED50, u16 version 1, u16 header size (16),
#       u64 size of the entries that follow;
#   entry header, 64 bytes or more: u16 kind (1 PTX, 2 ELF/SASS), u16, u32 header size,
#       u64 payload size (padded), ..., u32 sm_arch at byte 28 (75 for sm_75 and compute_75);
#       the next entry starts header size + payload size later.
# A linked library's .nv_fatbin section is one container per translation unit, back to back.

_ELF_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")
_SECTION = struct.Struct("<IIQQQQIIQQ")
_ELF_MAGIC = b"\x7fELF"
_ELFCLASS64 = 2
_ELFDATA2LSB = 1
FATBIN_SECTION = ".nv_fatbin"
FATBIN_MAGIC = struct.pack("<I", 0xBA55ED50)
_CONTAINER = struct.Struct("<IHHQ")
_ENTRY = struct.Struct("<HHIQ")
_ENTRY_ARCH = struct.Struct("<I")
_ENTRY_ARCH_OFFSET = 28
_ENTRY_MIN = 64
_ENTRY_MAX = 4096  # far above any header nvcc writes (64, 80, 112): a guard against noise
PTX_KIND = 1
SASS_KIND = 2
# The section name table sits just before the section headers at the end of linked output;
# this much of the end is kept while streaming to read both.
KEPT_TAIL = 1 << 20

Kind = Literal["sass", "ptx"]


@dataclass(frozen=True)
class Entry:
    kind: Kind
    arch: ComputeCapability


@dataclass(frozen=True)
class Container:
    """One fat binary container: where it starts in the library and what it holds."""

    offset: int
    entries: frozenset[Entry]


@dataclass(frozen=True)
class Section:
    name: str
    offset: int
    size: int


def arch_of(sm_arch: int) -> ComputeCapability:
    """The capability an entry's sm_arch field names: 75 is 7.5, 120 is 12.0."""
    return ComputeCapability(sm_arch // 10, sm_arch % 10)


def section_table_place(header: bytes) -> tuple[int, int]:
    """(offset, length) of an ELF64 little-endian file's section header table."""
    if len(header) < _ELF_HEADER.size or not header.startswith(_ELF_MAGIC):
        raise FormatError("not an ELF file")
    if header[4] != _ELFCLASS64 or header[5] != _ELFDATA2LSB:
        raise FormatError("not a 64-bit little-endian ELF file")
    fields = _ELF_HEADER.unpack_from(header)
    offset, entry_size, count = fields[6], fields[11], fields[12]
    if entry_size != _SECTION.size or count == 0:
        raise FormatError("no usable ELF section header table")
    return offset, entry_size * count


def name_table_place(header: bytes, table: bytes) -> tuple[int, int]:
    """(offset, size) of the section that holds the section names."""
    index = _ELF_HEADER.unpack_from(header)[13]
    if (index + 1) * _SECTION.size > len(table):
        raise FormatError("the ELF section name table index is out of range")
    row = _SECTION.unpack_from(table, index * _SECTION.size)
    return row[4], row[5]


def elf_sections(table: bytes, names: bytes) -> list[Section]:
    """The sections of a section header table, named from the section name table."""
    sections = []
    for at in range(0, len(table) - _SECTION.size + 1, _SECTION.size):
        name_offset, _type, _flags, _address, offset, size = _SECTION.unpack_from(table, at)[:6]
        end = names.find(b"\0", name_offset)
        name = names[name_offset : end if end >= 0 else len(names)].decode("ascii", "replace")
        sections.append(Section(name, offset, size))
    return sections


@dataclass
class _Capture:
    """A byte range of the stream to keep as it passes."""

    offset: int
    length: int
    data: bytearray = field(default_factory=bytearray)

    @property
    def done(self) -> bool:
        return len(self.data) == self.length


class FatbinScanner:
    """Fat binary containers of an ELF file fed in pieces, in order, as they stream past.

    The scanner searches for the container magic, reads each container's entry headers and
    skips their payloads without searching them. Containers are kept with their offsets: only
    those inside the .nv_fatbin section count. Which bytes that is, the section header table
    says (its place is in the ELF header, its names in a section it points to), so those are
    kept as they pass; the last KEPT_TAIL bytes are kept too, for a name table that comes
    before the section header table, as linkers usually write it.
    """

    def __init__(self) -> None:
        self.containers: list[Container] = []
        self._buffer = bytearray()
        self._start = 0  # the stream offset of _buffer[0]
        self._head = b""
        self._kept = bytearray()  # the last KEPT_TAIL bytes before _length
        self._length = 0
        self._table: _Capture | None = None
        self._names: _Capture | None = None
        self._entry: int | None = None  # inside a container: the offset of its next entry header
        self._end = 0
        self._open = 0  # the offset of the container being read
        self._found: set[Entry] = set()

    def feed(self, chunk: bytes) -> None:
        if len(self._head) < _ELF_HEADER.size:
            self._head += chunk[: _ELF_HEADER.size - len(self._head)]
            if len(self._head) == _ELF_HEADER.size:
                self._table = _Capture(*section_table_place(self._head))
        self._capture(chunk)
        self._length += len(chunk)
        self._kept += chunk
        del self._kept[:-KEPT_TAIL]
        self._buffer += chunk
        while self._step():
            pass

    def _capture(self, chunk: bytes) -> None:
        for capture in (self._table, self._names):
            if capture is None or capture.done:
                continue
            wanted = capture.offset + len(capture.data)
            end = capture.offset + capture.length
            kept_from = self._length - len(self._kept)
            if wanted < kept_from:
                raise FormatError("the ELF section names lie too far before the section headers")
            if wanted < self._length:
                capture.data += self._kept[wanted - kept_from : min(end, self._length) - kept_from]
                wanted = capture.offset + len(capture.data)
            low, high = max(wanted, self._length), min(end, self._length + len(chunk))
            if low < high:
                capture.data += chunk[low - self._length : high - self._length]
        if self._names is None and self._table is not None and self._table.done:
            # Only now is the name table's place known: it may lie behind, or in this chunk.
            self._names = _Capture(*name_table_place(self._head, bytes(self._table.data)))
            self._capture(chunk)

    def _step(self) -> bool:
        """Take one step through the buffer; False when it needs more bytes."""
        if self._entry is not None:
            return self._read_entry(self._entry)
        at = self._buffer.find(FATBIN_MAGIC)
        if at < 0:
            self._discard_to(self._start + max(0, len(self._buffer) - len(FATBIN_MAGIC) + 1))
            return False
        self._discard_to(self._start + at)
        if len(self._buffer) < _CONTAINER.size + _ENTRY_MIN:
            return False
        _magic, version, header_size, size = _CONTAINER.unpack_from(self._buffer)
        first = _ENTRY.unpack_from(self._buffer, header_size) if header_size == 16 else None
        if (
            version != 1
            or first is None
            or first[0] not in (PTX_KIND, SASS_KIND)
            or not _ENTRY_MIN <= first[2] <= _ENTRY_MAX
            or first[2] + first[3] > size
        ):
            self._discard_to(self._start + 1)  # the magic's bytes by chance, not a container
            return True
        self._open = self._start
        self._found = set()
        self._entry = self._start + header_size
        self._end = self._entry + size
        return True

    def _read_entry(self, entry: int) -> bool:
        if entry >= self._end:
            self.containers.append(Container(self._open, frozenset(self._found)))
            self._entry = None
            return True
        self._discard_to(entry)
        if self._start < entry or len(self._buffer) < _ENTRY_MIN:
            return False
        kind, _, header_size, payload = _ENTRY.unpack_from(self._buffer)
        if header_size < _ENTRY_MIN or entry + header_size + payload > self._end:
            raise FormatError(f"malformed fat binary entry at byte {entry}")
        (sm_arch,) = _ENTRY_ARCH.unpack_from(self._buffer, _ENTRY_ARCH_OFFSET)
        if kind in (PTX_KIND, SASS_KIND):
            self._found.add(Entry("ptx" if kind == PTX_KIND else "sass", arch_of(sm_arch)))
        self._entry = entry + header_size + payload
        return True

    def _discard_to(self, offset: int) -> None:
        count = min(offset - self._start, len(self._buffer))
        del self._buffer[:count]
        self._start += count

    def finish(self) -> list[Container]:
        """The containers inside the .nv_fatbin section (none for a library without one)."""
        if len(self._head) < _ELF_HEADER.size:
            raise FormatError("not an ELF file")
        if self._entry is not None:
            raise FormatError("the file ends inside a fat binary container")
        if self._table is None or self._names is None or not self._names.done:
            raise FormatError("the file ends before its section headers and names")
        sections = elf_sections(bytes(self._table.data), bytes(self._names.data))
        fatbin = [s for s in sections if s.name == FATBIN_SECTION]
        return [
            container
            for container in self.containers
            if any(s.offset <= container.offset < s.offset + s.size for s in fatbin)
        ]


def scan_library(chunks: Iterable[bytes]) -> list[Container]:
    """The fat binary containers of the ELF library streamed as `chunks`."""
    scanner = FatbinScanner()
    for chunk in chunks:
        scanner.feed(chunk)
    return scanner.finish()


@dataclass(frozen=True)
class Arches:
    """What a library's fat binaries carry.

    `sass` and `ptx` are the entries at least half of them hold: the build's arch list
    (TORCH_CUDA_ARCH_LIST, CMAKE_CUDA_ARCHITECTURES). A few translation units are compiled
    for more (torch 2.8's sm_89 kernels for FP8): those are `fewer`, with their counts.
    """

    sass: tuple[ComputeCapability, ...]
    ptx: tuple[ComputeCapability, ...]
    fewer: tuple[tuple[Entry, int], ...]
    containers: int


def arches(containers: Sequence[Container]) -> Arches:
    counts = collections.Counter(entry for container in containers for entry in container.entries)
    common = {entry for entry, count in counts.items() if 2 * count >= len(containers)}
    return Arches(
        sass=tuple(sorted(e.arch for e in common if e.kind == "sass")),
        ptx=tuple(sorted(e.arch for e in common if e.kind == "ptx")),
        fewer=tuple(
            sorted(
                ((e, n) for e, n in counts.items() if e not in common),
                key=lambda item: (item[0].kind, item[0].arch),
            )
        ),
        containers=len(containers),
    )


def spelled(entry: Entry) -> str:
    """The compiler's name of an entry: sm_89 for SASS, compute_90 for PTX."""
    prefix = "sm" if entry.kind == "sass" else "compute"
    return f"{prefix}_{entry.arch.major}{entry.arch.minor}"


# --- what a build records about itself -------------------------------------------------------

_NVIDIA_RUNTIME = re.compile(r"^nvidia-cuda-runtime(?:-cu\d+)?$")


def assigned_string(source: str, name: str) -> str | None:
    """The string a module assigns to `name` at top level (``cuda = '12.4'``), None if absent
    or None."""
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        raise FormatError(f"not Python source: {error.msg}") from None
    value: str | None = None
    for node in tree.body:
        target, assigned = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, assigned = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, assigned = node.target, node.value
        if isinstance(target, ast.Name) and target.id == name:
            constant = assigned.value if isinstance(assigned, ast.Constant) else None
            value = constant if isinstance(constant, str) else None
    return value


def runtime_pins(metadata: str) -> tuple[str, ...]:
    """The `nvidia-cuda-runtime` requirements of a wheel's METADATA, as written."""
    message = email.parser.Parser().parsestr(metadata, headersonly=True)
    pins = []
    for line in message.get_all("Requires-Dist") or []:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if _NVIDIA_RUNTIME.match(canonicalize_name(requirement.name)):
            pins.append(str(requirement))
    return tuple(pins)


# Enough of a PEP 508 environment to decide which of a wheel's requirements apply on its platform.
_MARKER_ENVIRONMENTS = {
    "linux-x86_64": ("linux", "Linux", "x86_64"),
    "linux-aarch64": ("linux", "Linux", "aarch64"),
    "windows-x86_64": ("win32", "Windows", "AMD64"),
    "macos-arm64": ("darwin", "Darwin", "arm64"),
    "macos-x86_64": ("darwin", "Darwin", "x86_64"),
}


def pinned_cuda(pins: Iterable[str], platform: str) -> CudaVersion | None:
    """The CUDA version an exact runtime pin names on `platform`, outside any extra:
    nvidia-cuda-runtime-cu12==12.4.127 is 12.4."""
    system, name, machine = _MARKER_ENVIRONMENTS[platform]
    environment = {
        "sys_platform": system,
        "platform_system": name,
        "platform_machine": machine,
        "extra": "",
    }
    for pin in pins:
        requirement = Requirement(pin)
        if requirement.marker is not None and not requirement.marker.evaluate(environment):
            continue
        for specifier in requirement.specifier:
            if specifier.operator == "==":
                return CudaVersion.parse(specifier.version.removesuffix(".*"))
    return None


# --- the packages the tool knows how to read -------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """Where a package's wheel records its CUDA version and keeps its kernels."""

    build_file: str  # a Python module of the wheel
    build_name: str  # the name it assigns the CUDA version to
    libraries: tuple[str, ...]  # fnmatch patterns of the CUDA libraries to scan


LAYOUTS = {
    "torch": Layout("torch/version.py", "cuda", ("torch/lib/libtorch_cuda.so",)),
    "onnxruntime-gpu": Layout(
        "onnxruntime/capi/build_and_package_info.py",
        "cuda_version",
        ("onnxruntime/capi/libonnxruntime_providers_cuda.so",),
    ),
    "paddlepaddle-gpu": Layout(
        "paddle/version/__init__.py", "cuda_version", ("paddle/libs/libphi*.so",)
    ),
}


def platform_of(filename: str) -> str | None:
    """The data files' platform name of a wheel (``linux-x86_64``), None for other platforms."""
    try:
        tags = parse_wheel_filename(filename)[3]
    except InvalidWheelFilename:
        return None
    for tag in tags:
        machine = tag.platform
        if machine.startswith(("manylinux", "musllinux", "linux")):
            if machine.endswith("x86_64"):
                return "linux-x86_64"
            if machine.endswith("aarch64"):
                return "linux-aarch64"
        if machine == "win_amd64":
            return "windows-x86_64"
        if machine.startswith("macosx") and machine.endswith("arm64"):
            return "macos-arm64"
        if machine.startswith("macosx") and machine.endswith("x86_64"):
            return "macos-x86_64"
    return None


# --- HTTP: the one edge that touches the network ---------------------------------------------


@dataclass
class Http:
    """GET and byte-range reads, counting the body bytes and requests that went over the wire."""

    timeout: float = TIMEOUT_S
    bytes_read: int = 0
    requests: int = 0

    def get(self, url: str, accept: str = "*/*") -> bytes:
        return b"".join(self._body(url, {"Accept": accept}, expect=200))

    def read(self, url: str, start: int, length: int) -> bytes:
        return b"".join(self.ranged(url, start, length))

    def ranged(self, url: str, start: int, length: int) -> Iterator[bytes]:
        """`length` bytes of `url` from `start`, in pieces, by one Range request."""
        if length <= 0:
            return iter(())
        headers = {"Range": f"bytes={start}-{start + length - 1}"}
        return self._body(url, headers, expect=206)

    def _body(self, url: str, headers: dict[str, str], *, expect: int) -> Iterator[bytes]:
        request = urllib.request.Request(url, headers={"User-Agent": "wheel-facts", **headers})
        self.requests += 1
        try:
            response = urllib.request.urlopen(request, timeout=self.timeout)
        except urllib.error.HTTPError as error:
            error.close()
            raise UnreachableError(f"{url}: HTTP {error.code}") from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise UnreachableError(f"{_host(url)} unreachable: {reason}") from None
        return self._chunks(response, url, expect)

    def _chunks(self, response: http.client.HTTPResponse, url: str, expect: int) -> Iterator[bytes]:
        with response:
            if response.status != expect:
                # A server that ignores Range would send the whole wheel: refuse instead.
                raise UnreachableError(f"{_host(url)} answered {response.status}, not {expect}")
            try:
                while chunk := response.read(CHUNK):
                    self.bytes_read += len(chunk)
                    yield chunk
            except (OSError, http.client.HTTPException) as error:
                raise UnreachableError(f"{_host(url)}: transfer failed: {error}") from None


def _host(url: str) -> str:
    return urllib.parse.urlsplit(url).netloc or url


@dataclass
class RemoteWheel:
    """A wheel on an index, read by ranges: its central directory, then single members."""

    http: Http
    filename: str
    url: str
    size: int
    _members: dict[str, Member] | None = None

    def members(self) -> dict[str, Member]:
        if self._members is None:
            tail_offset = max(0, self.size - TAIL_BYTES)
            tail = self.http.read(self.url, tail_offset, self.size - tail_offset)
            place = central_directory(tail, tail_offset)
            before = max(0, tail_offset - place.offset)
            head = self.http.read(self.url, place.offset, before)
            start = place.offset + before - tail_offset
            directory = head + tail[start : start + place.size - before]
            self._members = {member.name: member for member in members(directory)}
        return self._members

    def chunks(self, member: Member) -> Iterator[bytes]:
        """The member's own bytes, inflated as they arrive."""
        header = self.http.read(self.url, member.header_offset, _LOCAL.size)
        start = data_offset(header, member)
        return inflate(member, self.http.ranged(self.url, start, member.compressed_size))

    def text(self, member: Member) -> str:
        return b"".join(self.chunks(member)).decode("utf-8", "replace")


# --- PyPI's JSON API -------------------------------------------------------------------------


@dataclass(frozen=True)
class WheelFile:
    filename: str
    url: str
    size: int
    uploaded: str
    metadata: bool  # the index serves `<url>.metadata` (PEP 658)


@dataclass(frozen=True)
class Project:
    """A project as PyPI's JSON API describes it: its releases and one release's files."""

    name: str
    uploaded: dict[str, str]  # version -> date of its first upload
    files: tuple[WheelFile, ...]  # the wheels of the release asked for


def read_project(http: Http, package: str, version: str, base: str = PYPI) -> Project:
    url = f"{base}/pypi/{package}/json"
    try:
        document = json.loads(http.get(url, accept="application/json"))
        releases = document["releases"]
    except (ValueError, KeyError, TypeError):
        raise UnreachableError(f"{url}: not a PyPI JSON API document") from None
    if version not in releases:
        raise UnreachableError(f"{package} {version} is not on PyPI")
    uploaded = {
        name: min(file["upload_time_iso_8601"] for file in files)[:10]
        for name, files in releases.items()
        if files
    }
    wheels = tuple(
        WheelFile(
            filename=file["filename"],
            url=urljoin(url, file["url"]),
            size=int(file["size"]),
            uploaded=file["upload_time_iso_8601"][:10],
            metadata=bool(file.get("core-metadata") or file.get("data-dist-info-metadata")),
        )
        for file in releases[version]
        if file["filename"].endswith(".whl") and not file.get("yanked")
    )
    return Project(document["info"]["name"], uploaded, wheels)


# --- reading the facts of one release --------------------------------------------------------


@dataclass(frozen=True)
class Build:
    """What one platform's wheel says about its build."""

    platform: str
    filename: str
    cuda: CudaVersion | None  # from the build file; None for a CPU build
    pins: tuple[str, ...]  # nvidia-cuda-runtime requirements in METADATA
    libraries: tuple[str, ...] = ()  # the members scanned
    arches: Arches | None = None  # for CUDA builds on Linux

    @property
    def variant(self) -> str:
        return "cpu" if self.cuda is None else self.cuda.variant


def read_build(http: Http, layout: Layout, platform: str, wheel: WheelFile) -> Build:
    remote = RemoteWheel(http, wheel.filename, wheel.url, wheel.size)
    found = remote.members()
    build_file = found.get(layout.build_file)
    if build_file is None:
        raise FormatError(f"{wheel.filename} has no {layout.build_file}")
    text = assigned_string(remote.text(build_file), layout.build_name)
    cuda = CudaVersion.parse(text) if text else None
    pins = runtime_pins(_metadata(http, remote, wheel))
    if cuda is None or not platform.startswith("linux"):
        return Build(platform, wheel.filename, cuda, pins)
    libraries = sorted(
        name for name in found if any(fnmatch.fnmatch(name, p) for p in layout.libraries)
    )
    if not libraries:
        raise FormatError(f"{wheel.filename} has none of {', '.join(layout.libraries)}")
    containers: list[Container] = []
    for name in libraries:
        containers += scan_library(remote.chunks(found[name]))
    return Build(platform, wheel.filename, cuda, pins, tuple(libraries), arches(containers))


def _metadata(http: Http, remote: RemoteWheel, wheel: WheelFile) -> str:
    if wheel.metadata:
        try:
            return http.get(wheel.url + ".metadata").decode("utf-8", "replace")
        except UnreachableError:
            pass  # read it from the wheel instead
    name = next(
        (n for n in remote.members() if re.fullmatch(r"[^/]+\.dist-info/METADATA", n)), None
    )
    if name is None:
        raise FormatError(f"{wheel.filename} has no METADATA")
    return remote.text(remote.members()[name])


def one_wheel_per_platform(files: Iterable[WheelFile]) -> dict[str, WheelFile]:
    """The first wheel by name of each platform: every wheel of a platform is the same build."""
    chosen: dict[str, WheelFile] = {}
    for wheel in sorted(files, key=lambda w: w.filename):
        platform = platform_of(wheel.filename)
        if platform is not None:
            chosen.setdefault(platform, wheel)
    return chosen


# --- the data files' rows and the differences ------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    derived: list[str]  # lines in the data files' format
    recorded: list[str]
    recorded_from: str  # which file and row
    differences: list[str]


def _toml_list(values: Iterable[object]) -> str:
    return "[" + ", ".join(f'"{value}"' for value in values) + "]"


def _toml_table(pairs: dict[str, str]) -> str:
    return "{" + ", ".join(f'{key} = "{value}"' for key, value in pairs.items()) + "}"


def _variant_lines(
    name: str,
    cuda: CudaVersion | None,
    sass: Sequence[ComputeCapability],
    ptx: Sequence[ComputeCapability],
) -> list[str]:
    lines = ["", "[[release.variant]]", f'name = "{name}"']
    if cuda is not None:
        lines += [f'cuda = "{cuda}"', f"sass = {_toml_list(sass)}", f"ptx = {_toml_list(ptx)}"]
    return lines


def compare_release(
    release: Release | None,
    family_file: str,
    package: str,
    version: str,
    builds: Sequence[Build],
    uploaded: dict[str, str],
) -> Comparison:
    """A family's release row (`pypi`, the PyPI variants' cuda/sass/ptx) against the wheels."""
    by_platform = {build.platform: build.variant for build in builds}
    derived_pypi = {
        platform: by_platform[platform] for platform in PLATFORMS if platform in by_platform
    }
    derived = [f"pypi = {_toml_table(derived_pypi)}"]
    for build in builds:
        if build.arches is not None:
            derived += _variant_lines(
                build.variant, build.cuda, build.arches.sass, build.arches.ptx
            )
            derived.append(f'platform = "{build.platform}"')
    if release is None:
        return Comparison(derived, [], family_file, [f"no release row holds {package} {version}"])
    recorded = [f"pypi = {_toml_table(release.pypi)}"]
    differences = []
    for platform in sorted(set(derived_pypi) | set(release.pypi)):
        wheels, data = derived_pypi.get(platform, "no wheel"), release.pypi.get(platform, "none")
        if wheels != data:
            differences.append(f"pypi {platform}: the data says {data}, PyPI's wheel is {wheels}")
    for build in builds:
        if build.arches is None:
            continue
        row = release.variant(build.variant)
        if row is None:
            differences.append(f"series {release.series} has no variant {build.variant}")
            continue
        row = row.on(build.platform)
        recorded += _variant_lines(row.name, row.cuda, row.sass, row.ptx)
        recorded.append(f'platform = "{build.platform}"')
        for what, recorded_arches, found_arches in (
            ("sass", row.sass, build.arches.sass),
            ("ptx", row.ptx, build.arches.ptx),
        ):
            if recorded_arches != found_arches:
                differences.append(
                    f"{row.name} {build.platform} {what}: the data says"
                    f" {_toml_list(recorded_arches)}, the wheel has {_toml_list(found_arches)}"
                )
    missing = [
        name for name in _series_versions(uploaded, release.series) if name not in release.versions
    ]
    if missing:
        differences.append(
            f"series {release.series}: on PyPI but not in the data: {', '.join(missing)}"
        )
    return Comparison(derived, recorded, f"{family_file}, series {release.series}", differences)


def _series_versions(uploaded: dict[str, str], series: str) -> list[str]:
    found = []
    for name in uploaded:
        try:
            parsed = Version(name)
        except InvalidVersion:
            continue
        if not parsed.is_prerelease and f"{parsed.major}.{parsed.minor}" == series:
            found.append(name)
    return sorted(found, key=Version)


def compare_flavour(
    rows: Sequence[FixedFlavour], package: str, version: str, builds: Sequence[Build]
) -> Comparison:
    """A fixed flavour's row (its CUDA range and oldest architecture) against the wheels."""
    derived = ["[[flavour]]", f'package = "{package}"']
    for build in builds:
        derived.append(f'# {build.platform}: cuda = "{build.cuda or "none"}"')
        if build.arches is not None and build.arches.sass:
            derived += [
                f'oldest_arch = "{build.arches.sass[0]}"',
                f"# sass = {_toml_list(build.arches.sass)}",
                f"# ptx = {_toml_list(build.arches.ptx)}",
            ]
    if not rows:
        return Comparison(derived, [], "fixed.toml", [f"no flavour row covers {package} {version}"])
    row = rows[0]
    recorded = [
        "[[flavour]]",
        f'package = "{row.package}"',
        f'versions = "{row.versions}"',
        f'cuda = "{row.cuda}"',
    ]
    if row.oldest_arch is not None:
        recorded.append(f'oldest_arch = "{row.oldest_arch}"')
    differences = []
    for build in builds:
        if build.cuda is None:
            differences.append(f"{build.platform}: the wheel is not a CUDA build")
        elif str(build.cuda) not in SpecifierSet(row.cuda):
            differences.append(
                f"{build.platform}: the wheel is built with CUDA {build.cuda},"
                f' outside the row\'s cuda = "{row.cuda}"'
            )
        if build.arches is None:
            continue
        oldest = build.arches.sass[0] if build.arches.sass else None
        if oldest != row.oldest_arch:
            differences.append(
                f"{build.platform}: the oldest SASS is {oldest or 'none'},"
                f" the row's oldest_arch is {row.oldest_arch or 'not given'}"
            )
    return Comparison(derived, recorded, f"fixed.toml, {row.package} {row.versions}", differences)


def pin_differences(builds: Sequence[Build], build_file: str) -> list[str]:
    """Builds whose METADATA pins another CUDA runtime than the build file records."""
    differences = []
    for build in builds:
        pinned = pinned_cuda(build.pins, build.platform)
        if pinned is not None and pinned != build.cuda:
            differences.append(
                f"{build.platform}: METADATA pins CUDA {pinned}, {build_file} says {build.cuda}"
            )
    return differences


# --- the family's own index (optional) -------------------------------------------------------


def probe_index(http: Http, release: Release, index: str, package: str, version: str) -> list[str]:
    """Which of the release's variants the family's index serves this version for.

    The index is not PyPI and may be out of reach: a failure is reported, not raised.
    """
    lines: list[str] = []
    for variant in release.variants:
        url = index.replace("{variant}", variant.name).rstrip("/") + f"/{package}/"
        try:
            page = http.get(url, accept="text/html").decode("utf-8", "replace")
        except UnreachableError as error:
            return [*lines, f"{error}; the variants there were not checked"]
        names = re.findall(r">([^<>]+\.whl)<", page)
        platforms = sorted(
            {
                platform
                for name in names
                if (platform := platform_of(name)) is not None and _is_build(name, version)
            }
        )
        lines.append(f"{url}: {version} for {', '.join(platforms) or 'no platform'}")
    return lines


def _is_build(filename: str, version: str) -> bool:
    try:
        built = parse_wheel_filename(filename)[1]
    except InvalidWheelFilename:
        return False
    return built.base_version == Version(version).base_version


# --- the command -----------------------------------------------------------------------------


def report(
    http: Http,
    knowledge: KnowledgeBase,
    package: str,
    version: str,
    *,
    pypi: str = PYPI,
    index: bool = True,
) -> int:
    layout = LAYOUTS[package]
    project = read_project(http, package, version, pypi)
    print(
        f"{project.name} {version} on PyPI: uploaded {project.uploaded.get(version, 'no files')};"
        f" {len(project.uploaded)} releases, the newest {max(project.uploaded, key=Version)}"
    )
    wheels = one_wheel_per_platform(project.files)
    builds = []
    for platform, wheel in sorted(wheels.items()):
        build = read_build(http, layout, platform, wheel)
        builds.append(build)
        print(f"  {platform}: {wheel.filename}")
        print(f"    {layout.build_file}: {layout.build_name} = {build.cuda or 'None'}")
        if build.pins:
            print(f"    METADATA: {'; '.join(build.pins)}")
        if build.arches is not None:
            fewer = ", ".join(f"{spelled(e)} ({n})" for e, n in build.arches.fewer)
            print(
                f"    {', '.join(build.libraries)}: {build.arches.containers} fat binaries"
                + (f"; in fewer than half of them: {fewer}" if fewer else "")
            )
    family = knowledge.family_of(package)
    extra_lines: list[str] = []
    if family is not None:
        release = next((r for r in family.releases if version in r.versions), None)
        comparison = compare_release(
            release, f"{family.name}.toml", package, version, builds, project.uploaded
        )
        if index and release is not None and family.index is not None:
            extra_lines = probe_index(http, release, family.index, package, version)
    else:
        rows = [
            row
            for row in knowledge.fixed
            if row.package == package
            and row.extra is None
            and version in SpecifierSet(row.versions)
        ]
        comparison = compare_flavour(rows, package, version, builds)
    differences = comparison.differences + pin_differences(builds, layout.build_file)
    print("\n# derived from the wheels")
    print("\n".join(comparison.derived))
    print(f"\n# the data files ({comparison.recorded_from})")
    print("\n".join(comparison.recorded) or "(no row)")
    if extra_lines:
        print("\n# the family's index")
        print("\n".join(extra_lines))
    print("\ndifferences:" if differences else "\nno differences")
    for line in differences:
        print(f"  - {line}")
    print(f"\nread {http.bytes_read:,} bytes over the network in {http.requests} requests")
    return 1 if differences else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("package", help=f"one of {', '.join(LAYOUTS)}")
    parser.add_argument("version", help="a release on PyPI, e.g. 2.5.1")
    parser.add_argument("--data", help="a directory of data files instead of the packaged ones")
    parser.add_argument("--pypi", default=PYPI, help=f"PyPI or a mirror of it (default {PYPI})")
    parser.add_argument(
        "--no-index", action="store_true", help="do not look at the family's own index"
    )
    arguments = parser.parse_args(argv)
    package = canonicalize_name(arguments.package)
    if package not in LAYOUTS:
        parser.error(f"no wheel layout known for {package} (known: {', '.join(LAYOUTS)})")
    try:
        Version(arguments.version)
    except InvalidVersion:
        parser.error(f"not a version: {arguments.version}")
    knowledge = load_directory(arguments.data) if arguments.data else load()
    http = Http()
    try:
        return report(
            http,
            knowledge,
            package,
            arguments.version,
            pypi=arguments.pypi.rstrip("/"),
            index=not arguments.no_index,
        )
    except (UnreachableError, FormatError) as error:
        print(f"wheel_facts: {error}", file=sys.stderr)
        print(f"read {http.bytes_read:,} bytes over the network", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
