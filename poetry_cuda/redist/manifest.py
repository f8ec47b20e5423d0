"""NVIDIA's ``redistrib_<release>.json``: the archives of one CUDA release, typed.

NVIDIA publishes every toolkit component as an archive under
https://developer.download.nvidia.com/compute/cuda/redist/ with a JSON manifest per
release, the same files TensorFlow's and JAX's hermetic CUDA builds fetch
(``third_party/gpus/cuda/hermetic/cuda_redist_versions.bzl``: ``CUDA_REDIST_PATH_PREFIX``
and ``CUDA_REDIST_JSON_DICT``, redistrib_11.8.0.json to redistrib_13.0.2.json). A manifest
holds ``release_date`` (and, from 12.x on, ``release_label``), then one object per
component (``cuda_nvcc``: ``name``, ``license``, ``version``) with one object per platform
(``linux-x86_64``, ``linux-sbsa``, ``windows-x86_64``, older ones ``linux-ppc64le``):
``relative_path`` below the redist base, ``sha256``, ``md5`` and ``size`` (a decimal string).
Archives are read for NVIDIA's platform names only (`REDIST_PLATFORMS`): a well-formed name
this version does not know serves no host it knows and is left out, a malformed one refused.
Components this tool does not use may have other shapes (``cuda_compat`` nests an
object per CUDA variant, with a ``cuda_variant`` list); they are kept without archives.

Everything here is pure but `read_manifest`: the caller fetches the bytes.
"""

from __future__ import annotations

import json
import posixpath
import re

from dataclasses import field
from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.errors import InputFileError
from poetry_cuda.files import MiB
from poetry_cuda.files import read_bounded
from poetry_cuda.messages import message
from poetry_cuda.records import frozen
from poetry_cuda.redist.components import nvcc_components
from poetry_cuda.schema import Table
from poetry_cuda.schema import Voice
from poetry_cuda.versions import CudaVersion


if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Mapping
    from pathlib import Path


# Real manifests are 40 to 60 KiB; a listing of the redist directory about as much.
MANIFEST_LIMIT = 4 * MiB
LISTING_LIMIT = 4 * MiB
# A component's archive: NVIDIA's largest (nsight_systems) are about 1.1 GiB.
ARCHIVE_LIMIT = 8 * 1024 * MiB

_RELEASE = re.compile(r"\d+\.\d+\.\d+")
_MANIFEST = re.compile(r"redistrib_(\d+\.\d+\.\d+)\.json")
_HREF = re.compile(r"""href\s*=\s*["']?([^"'\s>]+)""", re.IGNORECASE)
_NAME = re.compile(r"[a-z0-9][a-z0-9_]*")
_PLATFORM = re.compile(r"[a-z0-9]+-[a-z0-9_]+")
_VERSION = re.compile(r"[0-9][A-Za-z0-9.+_-]*")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_SIZE = re.compile(r"[1-9][0-9]{0,15}")
_PATH = re.compile(r"[A-Za-z0-9._+-]+(?:/[A-Za-z0-9._+-]+)*")
_METADATA = {"name", "license", "license_path", "version"}


@frozen
class Archive:
    """One component's archive for one platform, as the manifest lists it."""

    component: str
    version: str
    platform: str
    relative_path: str  # below the redist base URL
    sha256: str
    size: int

    @property
    def file_name(self) -> str:
        return posixpath.basename(self.relative_path)


@frozen
class Component:
    name: str
    version: str
    archives: Mapping[str, Archive] = field(default_factory=dict)  # platform -> archive


@frozen
class RedistRelease:
    """One ``redistrib_<version>.json``."""

    version: str  # "12.4.1"
    date: str
    components: Mapping[str, Component]

    @property
    def cuda(self) -> CudaVersion:
        major, minor, _ = self.version.split(".")
        return CudaVersion(int(major), int(minor))


# NVIDIA's platform names per host (`os`, `canonical_machine`); none for macOS.
PLATFORMS = {
    ("linux", "x86_64"): "linux-x86_64",
    ("linux", "aarch64"): "linux-sbsa",
    ("linux", "ppc64le"): "linux-ppc64le",
    ("windows", "x86_64"): "windows-x86_64",
}
# Every platform NVIDIA's redist manifests name: the hosts' above, and Jetson's linux-aarch64.
REDIST_PLATFORMS = (
    "linux-x86_64",
    "linux-sbsa",
    "linux-aarch64",
    "linux-ppc64le",
    "windows-x86_64",
)


def platform_of(os_name: str, machine: str) -> str | None:
    """NVIDIA's platform name of a host, or None where NVIDIA publishes no archives."""
    return PLATFORMS.get((os_name, machine))


def check_platform(text: str) -> str:
    """`text` if it is one of NVIDIA's redist platform names, else ValueError."""
    if text not in REDIST_PLATFORMS:
        raise ValueError(f"{text!r} is not one of {', '.join(REDIST_PLATFORMS)}")
    return text


def check_component(text: str) -> str:
    """`text` if it is a component name as manifests write it (``cuda_nvcc``), else ValueError."""
    if not _NAME.fullmatch(text):
        raise ValueError(f"{text!r} is not a component name (lower case letters, digits and _)")
    return text


def check_version(text: str) -> str:
    """`text` if it is a component's version as manifests write it, else ValueError."""
    if not _VERSION.fullmatch(text):
        raise ValueError(f"{text!r} is not a version")
    return text


def check_relative_path(path: str) -> str:
    """`path` if it is a plain relative path below the redist base, else ValueError."""
    if not _PATH.fullmatch(path) or any(part in {".", ".."} for part in path.split("/")):
        raise ValueError(f"{path!r} is not a plain relative path")
    return path


def check_sha256(text: str) -> str:
    """`text` if it is 64 lower-case hexadecimal digits, else ValueError."""
    if not _SHA256.fullmatch(text):
        raise ValueError(f"{text!r} is not 64 hexadecimal digits")
    return text


def manifest_name(release: str) -> str:
    return f"redistrib_{release}.json"


def _voice(name: str) -> Voice:
    return Voice(
        InputFileError,
        f"{name}: ",
        why="poetry-cuda downloads and unpacks only archives that NVIDIA's manifest names "
        "with a safe path, a sha256 and a size",
        fix="check that the redist base URL (or its mirror) serves NVIDIA's own manifest",
    )


def parse_manifest(document: object, name: str) -> RedistRelease:
    """A parsed manifest (JSON values) as a RedistRelease; `name` is its file name.

    The release is the file name's (``redistrib_12.4.1.json``); ``release_label``, which
    manifests before 12.x lack, must agree where present.
    """
    voice = _voice(name)
    match = _MANIFEST.fullmatch(name)
    if match is None:
        raise voice.fail("", "not a manifest file name (redistrib_<X.Y.Z>.json)")
    if not isinstance(document, dict):
        raise voice.fail("", "expected a JSON object")
    top = Table(document, voice)
    release = match.group(1)
    label = top.text("release_label", None)
    if label is not None and label != release:
        raise top.error("release_label", f"{label!r} is not the file's release {release}")
    date = top.text("release_date")
    components = {}
    for key, value in document.items():
        if isinstance(value, dict) and key not in {"release_label", "release_date"}:
            components[key] = _component(top, key)
    return RedistRelease(release, date, components)


def _component(top: Table, name: str) -> Component:
    if not _NAME.fullmatch(name):
        raise top.error(name, "not a component name (lower case letters, digits and _)")
    table = top.table(name)
    version = table.text("version")
    if not _VERSION.fullmatch(version):
        raise table.error("version", f"{version!r} is not a version")
    archives = {}
    for key, value in table.data.items():
        # A platform object without relative_path nests variants (cuda_compat): not an archive.
        if key in _METADATA or not isinstance(value, dict) or "relative_path" not in value:
            continue
        if not _PLATFORM.fullmatch(key):
            raise table.error(key, "not a platform name such as linux-x86_64")
        if key in REDIST_PLATFORMS:  # a platform NVIDIA adds later serves no host known here
            archives[key] = _archive(table.table(key), name, version, key)
    return Component(name, version, archives)


def _archive(table: Table, component: str, version: str, platform: str) -> Archive:
    path = table.text("relative_path")
    if not _PATH.fullmatch(path) or any(part in {".", ".."} for part in path.split("/")):
        raise table.error("relative_path", f"{path!r} is not a plain relative path")
    sha256 = table.text("sha256").lower()
    if not _SHA256.fullmatch(sha256):
        raise table.error("sha256", "not 64 hexadecimal digits")
    return Archive(component, version, platform, path, sha256, _size(table))


def _size(table: Table) -> int:
    raw: Any = table.data.get("size")
    text = str(raw) if isinstance(raw, (str, int)) and not isinstance(raw, bool) else ""
    if not _SIZE.fullmatch(text):
        raise table.error("size", f"expected a positive number of bytes, got {raw!r}")
    size = int(text)
    if size > ARCHIVE_LIMIT:
        raise table.error("size", f"{size} bytes is more than any CUDA component's archive")
    return size


def read_manifest(path: Path) -> RedistRelease:
    """A manifest file on disk (a download or a test's copy)."""
    return load_manifest(read_bounded(path, limit=MANIFEST_LIMIT, name=path.name), path.name)


def load_manifest(data: bytes, name: str) -> RedistRelease:
    """A manifest's bytes (a download, a file's) as a RedistRelease; `name` is its file name."""
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise _voice(name).fail("", f"not valid JSON ({str(error)[:200]})") from None
    return parse_manifest(document, name)


def nvcc_archives(release: RedistRelease, platform: str) -> tuple[Archive, ...]:
    """The archives nvcc needs on `platform` to compile and link, in the table's order."""
    parts = nvcc_components(release.cuda)
    name = manifest_name(release.version)
    missing = [c for c in parts.components if c not in release.components]
    if missing:
        raise InputFileError(
            message("redist.no-component", name=name, missing=", ".join(missing)),
            why=message(
                "redist.no-component-why",
                cuda=release.cuda,
                components=", ".join(parts.components),
                source=parts.source,
            ),
            fix=message("redist.no-component-fix"),
        )
    archives = []
    for component in (release.components[c] for c in parts.components):
        archive = component.archives.get(platform)
        if archive is None:
            offered = ", ".join(sorted(component.archives)) or "none"
            raise InputFileError(
                message(
                    "redist.no-platform",
                    name=name,
                    component=component.name,
                    platform=platform,
                    offered=offered,
                ),
                why=message(
                    "redist.no-platform-why",
                    component=f"{component.name} {component.version}",
                    platform=platform,
                ),
                fix=message("redist.no-platform-fix", platform=platform),
            )
        archives.append(archive)
    return tuple(archives)


def releases(listing: str) -> tuple[str, ...]:
    """The releases a redist directory listing links to (``redistrib_12.4.1.json``)."""
    found = {
        match.group(1)
        for href in _HREF.findall(listing)
        if (match := _MANIFEST.fullmatch(posixpath.basename(href.split("?")[0])))
    }
    return tuple(sorted(found, key=_key))


def _key(release: str) -> tuple[int, ...]:
    return tuple(int(part) for part in release.split("."))


def release_for(cuda: CudaVersion, available: Iterable[str]) -> str:
    """The manifest file name of the newest patch release of `cuda` (12.4.1 over 12.4.0)."""
    known = sorted((r for r in available if _RELEASE.fullmatch(r)), key=_key)
    wanted = [r for r in known if _key(r)[:2] == (cuda.major, cuda.minor)]
    if not wanted:
        shown = ", ".join(known[-8:]) or "none"
        raise InputFileError(
            message("redist.no-release", cuda=cuda, shown=shown),
            why=message("redist.no-release-why"),
            fix=message("redist.no-release-fix"),
        )
    return manifest_name(wanted[-1])
