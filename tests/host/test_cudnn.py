from __future__ import annotations

import shutil
import time

from typing import TYPE_CHECKING

from hypothesis import given
from hypothesis import strategies as st

from poetry_cuda.host.cudnn import find_cudnn
from poetry_cuda.host.cudnn import parse_header
from poetry_cuda.host.cudnn import parse_ldconfig
from poetry_cuda.host.cudnn import parse_library_name
from poetry_cuda.host.cudnn import probe_ldconfig
from poetry_cuda.host.paths import HostPaths
from poetry_cuda.host.profiles import Cudnn


if TYPE_CHECKING:
    from pathlib import Path

    from poetry_cuda.host.profiles import ProbeReport


def version_header(major: int, minor: int, patch: int) -> str:
    return (
        "#ifndef CUDNN_VERSION_H_\n#define CUDNN_VERSION_H_\n\n"
        f"#define CUDNN_MAJOR {major}\n#define CUDNN_MINOR {minor}\n"
        f"#define CUDNN_PATCHLEVEL {patch}\n\n"
        "#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n"
        "\n#endif /* CUDNN_VERSION_H */\n"
    )


LDCONFIG = """1234 libs found in cache `/etc/ld.so.cache'
\tlibcudnn_ops_infer.so.8 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn_ops_infer.so.8
\tlibcudnn.so.8 (libc6,x86-64) => {lib}/libcudnn.so.8
\tlibcudnn.so (libc6,x86-64) => {lib}/libcudnn.so
\tlibc.so.6 (libc6,x86-64, OS ABI: Linux 3.2.0) => /lib/x86_64-linux-gnu/libc.so.6
"""


def test_parse_header() -> None:
    assert parse_header(version_header(8, 9, 7)) == "8.9.7"
    assert parse_header(version_header(9, 1, 0)) == "9.1.0"
    # cuDNN 8's cudnn.h only includes cudnn_version.h.
    assert parse_header('#include "cudnn_version.h"\n') is None
    assert parse_header("#define CUDNN_MAJOR 7\n") is None


def test_parse_library_name() -> None:
    assert parse_library_name("libcudnn.so.8") == "8"
    assert parse_library_name("libcudnn.so.8.9.7") == "8.9.7"
    assert parse_library_name("cudnn64_9.dll") == "9"
    for name in ("libcudnn.so", "libcudnn_ops_infer.so.8", "libcudnn.so.8.x", "libcudart.so.12"):
        assert parse_library_name(name) is None


def test_parse_ldconfig() -> None:
    assert parse_ldconfig(LDCONFIG.format(lib="/usr/lib64")) == [
        ("libcudnn.so.8", "/usr/lib64/libcudnn.so.8")
    ]


@given(st.text())
def test_parsers_never_raise(text: str) -> None:
    parse_header(text)
    parse_ldconfig(text)
    for word in text.split():
        parse_library_name(word)


@given(st.integers(0, 99), st.integers(0, 99), st.integers(0, 99))
def test_header_round_trip(major: int, minor: int, patch: int) -> None:
    assert parse_header(version_header(major, minor, patch)) == f"{major}.{minor}.{patch}"


def _library(folder: Path, version: str) -> Path:
    """A cuDNN library as packages install it: the soname links to the versioned file."""
    folder.mkdir(parents=True, exist_ok=True)
    real = folder / f"libcudnn.so.{version}"
    real.write_bytes(b"\x7fELF")
    soname = folder / f"libcudnn.so.{version.split('.')[0]}"
    soname.symlink_to(real.name)
    (folder / "libcudnn.so").symlink_to(soname.name)
    return soname


def _find(
    paths: HostPaths, toolkit_roots: tuple[str, ...] = ()
) -> tuple[tuple[Cudnn, ...], tuple[ProbeReport, ...]]:
    return find_cudnn(
        os_name="linux",
        toolkit_roots=toolkit_roots,
        include_dirs=paths.include_dirs,
        library_dirs=paths.library_dirs,
        ldconfig=paths.ldconfig,
        environ={"PATH": ""},
        timeout=5,
    )


def test_headers_and_libraries(fake_root: Path) -> None:
    paths = HostPaths.under(fake_root)
    include = paths.include_dirs[1]
    include.mkdir(parents=True)
    (include / "cudnn_version_v8.h").write_text(version_header(8, 9, 7), encoding="utf-8")
    (include.parent / "cudnn_version.h").symlink_to(include / "cudnn_version_v8.h")
    soname = _library(paths.library_dirs[0], "8.9.7")
    toolkit = fake_root / "usr" / "local" / "cuda-12.4"
    (toolkit / "include").mkdir(parents=True)
    (toolkit / "include" / "cudnn_version.h").write_text(version_header(9, 1, 0), encoding="utf-8")
    toolkit_lib = _library(toolkit / "lib64", "9.1.0")

    cudnn, reports = _find(paths, (str(toolkit),))

    assert cudnn == (
        Cudnn("8.9.7", str(include.parent / "cudnn_version.h"), "header"),
        Cudnn("8.9.7", str(soname), "library-dir"),
        Cudnn("9.1.0", str(toolkit / "include" / "cudnn_version.h"), "header"),
        Cudnn("9.1.0", str(toolkit_lib), "library-dir"),
    )
    assert [(report.probe, report.result) for report in reports] == [
        ("cudnn", "found"),
        ("ldconfig", "absent"),
    ]


def test_library_without_versioned_file(fake_root: Path) -> None:
    paths = HostPaths.under(fake_root)
    folder = paths.library_dirs[1]
    folder.mkdir(parents=True)
    (folder / "libcudnn.so.9").write_bytes(b"\x7fELF")
    cudnn, _ = _find(paths)
    assert cudnn == (Cudnn("9", str(folder / "libcudnn.so.9"), "library-dir"),)


def _ldconfig(fake_root: Path, output: str, *, sleep: int = 0) -> HostPaths:
    paths = HostPaths.under(fake_root)
    program = paths.ldconfig[1]
    program.parent.mkdir(parents=True, exist_ok=True)
    (program.parent / "ldconfig.out").write_text(output, encoding="utf-8")
    pause = f"exec {shutil.which('sleep')} {sleep}\n" if sleep else ""
    program.write_text(
        f'#!/bin/sh\n{pause}while IFS= read -r l; do printf "%s\\n" "$l"; done'
        f' < "{program.parent}/ldconfig.out"\n',
        encoding="utf-8",
    )
    program.chmod(0o755)
    return paths


def test_ldconfig_cache(fake_root: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "opt-lib"
    soname = _library(elsewhere, "8.6.0")
    paths = _ldconfig(fake_root, LDCONFIG.format(lib=elsewhere))
    cudnn, reports = _find(paths)
    assert cudnn == (Cudnn("8.6.0", str(soname), "ldconfig"),)
    assert reports[1].probe == "ldconfig"
    assert reports[1].result == "found"


def test_ldconfig_entry_already_found_is_not_repeated(fake_root: Path) -> None:
    paths = HostPaths.under(fake_root)
    soname = _library(paths.library_dirs[0], "8.9.7")
    paths = _ldconfig(fake_root, LDCONFIG.format(lib=paths.library_dirs[0]))
    cudnn, _ = _find(paths)
    assert cudnn == (Cudnn("8.9.7", str(soname), "library-dir"),)


def test_hanging_ldconfig_is_stopped(fake_root: Path) -> None:
    paths = _ldconfig(fake_root, "", sleep=30)
    started = time.monotonic()
    found, report = probe_ldconfig(paths.ldconfig, environ={"PATH": ""}, timeout=1)
    assert time.monotonic() - started < 5
    assert found == []
    assert report.result == "timeout"


def test_windows_dlls(tmp_path: Path) -> None:
    toolkit = tmp_path / "CUDA" / "v11.8"
    (toolkit / "bin").mkdir(parents=True)
    (toolkit / "bin" / "cudnn64_8.dll").write_bytes(b"MZ")
    installer = tmp_path / "NVIDIA" / "CUDNN" / "v9.1" / "include" / "12.4"
    installer.mkdir(parents=True)
    (installer / "cudnn_version.h").write_text(version_header(9, 1, 0), encoding="utf-8")
    cudnn, reports = find_cudnn(
        os_name="windows",
        toolkit_roots=(str(toolkit),),
        include_dirs=(),
        library_dirs=(),
        ldconfig=(),
        environ={"ProgramFiles": str(tmp_path)},
        timeout=5,
    )
    assert cudnn == (
        Cudnn("8", str(toolkit / "bin" / "cudnn64_8.dll"), "library-dir"),
        Cudnn("9.1.0", str(installer / "cudnn_version.h"), "header"),
    )
    assert [report.probe for report in reports] == ["cudnn"]
