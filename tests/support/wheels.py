"""Real, installable wheels and sdists for the test indexes.

`build_wheel` writes a PEP 427 wheel: the files asked for, then (optionally) a stored, incompressible
padding file, then `<name>-<version>.dist-info/{METADATA,WHEEL,RECORD}` last, as real wheels do, so
that a lazy reader has to seek to the end of the archive for the metadata. RECORD carries a correct
sha256 and size for every file. Next to the wheel it writes the PEP 658 `<wheel>.metadata` file.

`build_sdist` writes a PEP 625 `.tar.gz` whose PKG-INFO is Metadata-Version 2.2 with nothing dynamic
(and a matching static `[project]` table), so Poetry and uv read its dependencies without building it;
installing it needs setuptools, which the test indexes do not serve.

Archives are byte-for-byte reproducible (fixed timestamps and ordering, seeded padding).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import random
import re
import tarfile
import zipfile

from dataclasses import dataclass
from dataclasses import field
from typing import TYPE_CHECKING

from packaging.tags import parse_tag
from packaging.version import Version


if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path


_EPOCH = (1980, 1, 1, 0, 0, 0)
_PADDING_CHUNK = 1 << 20
_GENERATOR = "poetry-cuda-test-builder (1.0)"


@dataclass(frozen=True)
class Metadata:
    """Core metadata of one distribution."""

    name: str
    version: str
    summary: str = ""
    requires_python: str | None = None
    requires_dist: tuple[str, ...] = ()
    provides_extra: tuple[str, ...] = ()

    @property
    def normalized_version(self) -> str:
        return str(Version(self.version))

    @property
    def file_stem(self) -> str:
        """`<escaped name>-<version>`, the stem of wheel, sdist and dist-info names."""
        return f"{escape_name(self.name)}-{self.normalized_version}"

    def render(self, metadata_version: str) -> bytes:
        lines = [
            f"Metadata-Version: {metadata_version}",
            f"Name: {self.name}",
            f"Version: {self.normalized_version}",
        ]
        if self.summary:
            lines.append(f"Summary: {self.summary}")
        if self.requires_python is not None:
            lines.append(f"Requires-Python: {self.requires_python}")
        lines.extend(f"Provides-Extra: {extra}" for extra in self.provides_extra)
        lines.extend(f"Requires-Dist: {requirement}" for requirement in self.requires_dist)
        return ("\n".join(lines) + "\n").encode()


@dataclass(frozen=True)
class WheelSpec:
    """One wheel: its metadata, its tag (compressed tag sets allowed) and its files."""

    metadata: Metadata
    tag: str = "py3-none-any"
    files: Mapping[str, str | bytes] = field(default_factory=dict)
    padding_bytes: int = 0

    @property
    def filename(self) -> str:
        return f"{self.metadata.file_stem}-{self.tag}.whl"

    @property
    def is_pure(self) -> bool:
        return all(tag.abi == "none" and tag.platform == "any" for tag in parse_tag(self.tag))


@dataclass(frozen=True)
class SdistSpec:
    """One source distribution: its metadata and the files of its source tree."""

    metadata: Metadata
    files: Mapping[str, str | bytes] = field(default_factory=dict)

    @property
    def filename(self) -> str:
        return f"{self.metadata.file_stem}.tar.gz"


def escape_name(name: str) -> str:
    """The distribution name as it appears in file names (PEP 427 / PEP 625)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def record_hash(data: bytes) -> str:
    """The `sha256=<urlsafe base64>` form used in RECORD."""
    digest = hashlib.sha256(data).digest()
    return _encode_digest(digest)


def build_wheel(spec: WheelSpec, dest_dir: Path, *, metadata_file: bool = True) -> Path:
    """Write the wheel (and its `.metadata` file) into `dest_dir`; return the wheel's path."""
    dest_dir.mkdir(parents=True, exist_ok=True)
    path = dest_dir / spec.filename
    dist_info = f"{spec.metadata.file_stem}.dist-info"
    metadata = spec.metadata.render("2.1")
    records: list[str] = []
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in sorted(spec.files.items()):
            data = _as_bytes(content)
            _write_member(archive, name, data, zipfile.ZIP_DEFLATED)
            records.append(f"{name},{record_hash(data)},{len(data)}")
        if spec.padding_bytes:
            records.append(_write_padding(archive, spec))
        for name, data in (
            (f"{dist_info}/METADATA", metadata),
            (f"{dist_info}/WHEEL", _wheel_file(spec)),
        ):
            _write_member(archive, name, data, zipfile.ZIP_DEFLATED)
            records.append(f"{name},{record_hash(data)},{len(data)}")
        records.append(f"{dist_info}/RECORD,,")
        _write_member(
            archive,
            f"{dist_info}/RECORD",
            ("\n".join(records) + "\n").encode(),
            zipfile.ZIP_DEFLATED,
        )
    if metadata_file:
        (dest_dir / f"{spec.filename}.metadata").write_bytes(metadata)
    return path


def build_sdist(spec: SdistSpec, dest_dir: Path) -> Path:
    """Write the sdist into `dest_dir`; return its path."""
    if spec.metadata.provides_extra:
        raise ValueError("sdists with extras are not supported")
    dest_dir.mkdir(parents=True, exist_ok=True)
    path = dest_dir / spec.filename
    root = spec.metadata.file_stem
    members = {
        "PKG-INFO": spec.metadata.render("2.2"),
        "pyproject.toml": _sdist_pyproject(spec.metadata),
        **{name: _as_bytes(content) for name, content in spec.files.items()},
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for name, data in sorted(members.items()):
            info = tarfile.TarInfo(f"{root}/{name}")
            info.size = len(data)
            info.mode = 0o644
            archive.addfile(info, io.BytesIO(data))
    with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as packed:
        packed.write(buffer.getvalue())
    return path


def _as_bytes(content: str | bytes) -> bytes:
    return content.encode() if isinstance(content, str) else content


def _encode_digest(digest: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _write_member(archive: zipfile.ZipFile, name: str, data: bytes, compression: int) -> None:
    info = zipfile.ZipInfo(name, date_time=_EPOCH)
    info.compress_type = compression
    info.external_attr = 0o644 << 16
    archive.writestr(info, data)


def _write_padding(archive: zipfile.ZipFile, spec: WheelSpec) -> str:
    """Stream `padding_bytes` of seeded random bytes, stored uncompressed; return its RECORD line."""
    name = f"{escape_name(spec.metadata.name)}/_padding.bin"
    info = zipfile.ZipInfo(name, date_time=_EPOCH)
    info.compress_type = zipfile.ZIP_STORED
    info.external_attr = 0o644 << 16
    block = random.Random(spec.filename).randbytes(_PADDING_CHUNK)
    digest = hashlib.sha256()
    remaining = spec.padding_bytes
    with archive.open(info, "w", force_zip64=True) as member:
        while remaining:
            chunk = block[: min(remaining, _PADDING_CHUNK)]
            member.write(chunk)
            digest.update(chunk)
            remaining -= len(chunk)
    return f"{name},{_encode_digest(digest.digest())},{spec.padding_bytes}"


def _wheel_file(spec: WheelSpec) -> bytes:
    lines = [
        "Wheel-Version: 1.0",
        f"Generator: {_GENERATOR}",
        f"Root-Is-Purelib: {'true' if spec.is_pure else 'false'}",
    ]
    lines.extend(f"Tag: {tag}" for tag in sorted(str(tag) for tag in parse_tag(spec.tag)))
    return ("\n".join(lines) + "\n").encode()


def _sdist_pyproject(metadata: Metadata) -> bytes:
    dependencies = "".join(f"    {_toml_string(item)},\n" for item in metadata.requires_dist)
    lines = [
        "[build-system]",
        'requires = ["setuptools>=61"]',
        'build-backend = "setuptools.build_meta"',
        "",
        "[project]",
        f"name = {_toml_string(metadata.name)}",
        f"version = {_toml_string(metadata.normalized_version)}",
    ]
    if metadata.requires_python is not None:
        lines.append(f"requires-python = {_toml_string(metadata.requires_python)}")
    lines.append(f"dependencies = [\n{dependencies}]")
    return ("\n".join(lines) + "\n").encode()


def _toml_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
