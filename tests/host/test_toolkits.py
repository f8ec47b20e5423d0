from __future__ import annotations

import json
import os
import shutil
import subprocess
import time

from pathlib import Path

import pytest

from hypothesis import given
from hypothesis import strategies as st

from poetry_cuda.host.profiles import Toolkit
from poetry_cuda.host.toolkits import find_toolkits
from poetry_cuda.host.toolkits import parse_dist_info
from poetry_cuda.host.toolkits import parse_nvcc_version
from poetry_cuda.host.toolkits import parse_version_json
from poetry_cuda.host.toolkits import parse_version_txt
from poetry_cuda.versions import CudaVersion


NVCC_13 = """nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2025 NVIDIA Corporation
Built on Wed_Aug_20_01:58:59_PM_PDT_2025
Cuda compilation tools, release 13.0, V13.0.88
Build cuda_13.0.r13.0/compiler.36424714_0
"""
NVCC_10 = """nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2019 NVIDIA Corporation
Built on Wed_Oct_23_19:24:38_PDT_2019
Cuda compilation tools, release 10.2, V10.2.89
"""


def version_json(cuda: str, nvcc: str) -> str:
    return json.dumps(
        {
            "cuda": {"name": "CUDA SDK", "version": cuda},
            "cuda_nvcc": {"name": "CUDA NVCC", "version": nvcc},
        },
        indent=3,
    )


def test_parse_version_json() -> None:
    assert parse_version_json(version_json("12.4.1", "12.4.131")) == "12.4.1"
    assert parse_version_json('{"cuda_nvcc": {"version": "12.4.131"}}') is None
    assert parse_version_json('{"cuda": {"version": "twelve"}}') is None
    assert parse_version_json("[]") is None
    assert parse_version_json("{") is None


def test_parse_version_txt() -> None:
    assert parse_version_txt("CUDA Version 11.8.89\n") == "11.8.89"
    assert parse_version_txt("CUDA Version 10.0.130") == "10.0.130"
    assert parse_version_txt("nothing\n") is None


def test_parse_dist_info_prefers_nvcc() -> None:
    names = [
        "nvidia_cuda_cccl-13.0.85.dist-info",
        "nvidia_cuda_runtime-13.0.96.dist-info",
        "nvidia_cuda_nvcc-13.0.88.dist-info",
    ]
    assert parse_dist_info(names) == "13.0.88"
    assert parse_dist_info(names[:2]) == "13.0.96"
    assert parse_dist_info(["nvidia_cuda_cccl-13.0.85.dist-info"]) is None


def test_parse_nvcc_version() -> None:
    assert parse_nvcc_version(NVCC_13) == "13.0.88"
    assert parse_nvcc_version(NVCC_10) == "10.2.89"
    assert parse_nvcc_version("Cuda compilation tools, release 9.1\n") == "9.1"
    assert parse_nvcc_version("command not found") is None


@given(st.text())
def test_parsers_never_raise(text: str) -> None:
    for parse in (parse_version_json, parse_version_txt, parse_nvcc_version):
        version = parse(text)
        if version is not None:
            CudaVersion.parse(version)
    version = parse_dist_info(text.split())
    if version is not None:
        CudaVersion.parse(version)


versions = st.tuples(st.integers(1, 99), st.integers(0, 9), st.integers(0, 999)).map(
    lambda parts: ".".join(map(str, parts))
)


@given(versions)
def test_parsers_round_trip(version: str) -> None:
    major_minor = ".".join(version.split(".")[:2])
    assert parse_version_json(version_json(version, version)) == version
    assert parse_version_txt(f"CUDA Version {version}\n") == version
    assert parse_dist_info([f"nvidia_cuda_nvcc-{version}.dist-info"]) == version
    text = f"Cuda compilation tools, release {major_minor}, V{version}\n"
    assert parse_nvcc_version(text) == version


def make_toolkit(
    root: Path,
    *,
    version_json_text: str | None = None,
    version_txt: str | None = None,
    dist_info: tuple[str, ...] = (),
    nvcc_output: str | None = None,
    nvcc_sleep: int = 0,
) -> Path:
    """A fake toolkit folder; `nvcc_output` makes bin/nvcc a script printing it."""
    (root / "include").mkdir(parents=True)
    (root / "include" / "cuda_runtime.h").write_text("/* fake */\n", encoding="utf-8")
    if version_json_text is not None:
        (root / "version.json").write_text(version_json_text, encoding="utf-8")
    if version_txt is not None:
        (root / "version.txt").write_text(version_txt, encoding="utf-8")
    for name in dist_info:
        (root / "dist-info" / name).mkdir(parents=True)
    (root / "bin").mkdir()
    nvcc = root / "bin" / "nvcc"
    output = root / "nvcc.out"
    output.write_text(nvcc_output or "", encoding="utf-8")
    pause = f"exec {shutil.which('sleep')} {nvcc_sleep}\n" if nvcc_sleep else ""
    script = f'#!/bin/sh\n{pause}while IFS= read -r l; do printf "%s\\n" "$l"; done < "{output}"\n'
    nvcc.write_text(script, encoding="utf-8")
    nvcc.chmod(0o755)
    return root


def find(
    root: Path, environ: dict[str, str] | None = None, *, os_name: str = "linux"
) -> tuple[tuple[Toolkit, ...], str, str]:
    toolkits, report = find_toolkits(
        {"PATH": ""} if environ is None else environ,
        os_name="windows" if os_name == "windows" else "linux",
        usr_local=root / "usr" / "local",
        opt=root / "opt",
        timeout=5,
    )
    return toolkits, report.result, report.detail


def test_toolkits_side_by_side(fake_root: Path) -> None:
    local = fake_root / "usr" / "local"
    make_toolkit(local / "cuda-12.4", version_json_text=version_json("12.4.1", "12.4.131"))
    make_toolkit(local / "cuda-11.8", version_txt="CUDA Version 11.8.89\n")
    make_toolkit(
        fake_root / "opt" / "cuda",
        dist_info=("nvidia_cuda_nvcc-13.0.88.dist-info", "nvidia_cuda_runtime-13.0.96.dist-info"),
    )
    (local / "cuda").symlink_to("cuda-12.4")
    (local / "cuda-12").symlink_to(local / "cuda-12.4")

    toolkits, result, detail = find(fake_root)

    assert result == "found"
    assert [(t.version, t.root, t.source) for t in toolkits] == [
        ("11.8.89", str(local / "cuda-11.8"), "/usr/local/cuda-*"),
        ("12.4.1", str(local / "cuda-12.4"), "/usr/local/cuda"),
        ("13.0.88", str(fake_root / "opt" / "cuda"), "/opt/cuda"),
    ]
    assert toolkits[1].nvcc == str(local / "cuda-12.4" / "bin" / "nvcc")
    assert toolkits[1].cuda == CudaVersion(12, 4)
    assert "12.4.1 at" in detail


def test_cuda_home_comes_first(fake_root: Path, tmp_path: Path) -> None:
    home = make_toolkit(tmp_path / "sdk" / "cuda-12.1", version_txt="CUDA Version 12.1.105\n")
    link = tmp_path / "sdk" / "current"
    link.symlink_to(home)
    toolkits, _, _ = find(fake_root, {"PATH": "", "CUDA_HOME": str(link)})
    nvcc = str(home / "bin" / "nvcc")
    assert toolkits == (Toolkit(version="12.1.105", root=str(home), nvcc=nvcc, source="CUDA_HOME"),)


def test_cuda_home_pointing_nowhere(fake_root: Path) -> None:
    toolkits, result, detail = find(fake_root, {"PATH": "", "CUDA_HOME": "/nonexistent/cuda"})
    assert toolkits == ()
    assert result == "absent"
    assert "CUDA_HOME=/nonexistent/cuda is not a folder" in detail


def test_nvcc_on_path(fake_root: Path, tmp_path: Path) -> None:
    root = make_toolkit(tmp_path / "toolchains" / "cuda", nvcc_output=NVCC_13)
    toolkits, _, _ = find(fake_root, {"PATH": str(root / "bin")})
    assert [(t.version, t.root, t.source) for t in toolkits] == [("13.0.88", str(root), "PATH")]


def test_nvcc_wrapper_outside_a_toolkit_is_ignored(fake_root: Path, tmp_path: Path) -> None:
    bin_dir = tmp_path / "wrappers" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "nvcc").write_text('#!/bin/sh\nexec /somewhere/nvcc "$@"\n', encoding="utf-8")
    (bin_dir / "nvcc").chmod(0o755)
    toolkits, result, detail = find(fake_root, {"PATH": str(bin_dir)})
    assert toolkits == ()
    assert f"PATH: {bin_dir / 'nvcc'} is not inside a toolkit folder" in detail
    assert result == "absent"


def test_nvcc_version_is_the_last_resort(fake_root: Path) -> None:
    make_toolkit(fake_root / "usr" / "local" / "cuda-10.2", nvcc_output=NVCC_10)
    toolkits, _, _ = find(fake_root)
    assert [t.version for t in toolkits] == ["10.2.89"]


def test_hanging_nvcc_is_stopped(fake_root: Path) -> None:
    make_toolkit(fake_root / "usr" / "local" / "cuda-12.0", nvcc_sleep=30)
    started = time.monotonic()
    toolkits, report = find_toolkits(
        {"PATH": ""},
        os_name="linux",
        usr_local=fake_root / "usr" / "local",
        opt=fake_root / "opt",
        timeout=1,
    )
    assert time.monotonic() - started < 5
    assert toolkits == ()
    assert report.result == "absent"
    assert "nvcc --version did not answer within 1 s" in report.detail


def test_folder_without_a_version(fake_root: Path) -> None:
    (fake_root / "opt" / "cuda").mkdir(parents=True)
    toolkits, result, detail = find(fake_root)
    assert toolkits == ()
    assert result == "absent"
    assert "no version.json, version.txt, dist-info or nvcc" in detail


def test_nothing_installed(fake_root: Path) -> None:
    assert find(fake_root) == ((), "absent", "no CUDA toolkit found")


def test_windows_installer_layout(tmp_path: Path) -> None:
    base = tmp_path / "NVIDIA GPU Computing Toolkit" / "CUDA"
    for version, full in (("v12.4", "12.4.1"), ("v11.8", "11.8.0")):
        root = make_toolkit(base / version, version_json_text=version_json(full, full))
        (root / "bin" / "nvcc").rename(root / "bin" / "nvcc.exe")
    environ = {"PATH": "", "ProgramFiles": str(tmp_path), "CUDA_PATH": str(base / "v12.4")}
    toolkits, _, _ = find(tmp_path, environ, os_name="windows")
    assert [(t.version, t.source) for t in toolkits] == [
        ("11.8.0", "Program Files"),
        ("12.4.1", "CUDA_PATH"),
    ]
    assert toolkits[1].nvcc == str(base / "v12.4" / "bin" / "nvcc.exe")


REAL = Path("/usr/local/cuda")


@pytest.mark.skipif(not (REAL / "bin" / "nvcc").is_file(), reason="no /usr/local/cuda toolkit")
def test_real_usr_local_cuda() -> None:
    toolkits, _ = find_toolkits(
        {"PATH": ""}, os_name="linux", usr_local=Path("/usr/local"), opt=Path("/opt"), timeout=30
    )
    root = os.path.realpath(REAL)
    matching = [toolkit for toolkit in toolkits if toolkit.root == root]
    assert len(matching) == 1
    toolkit = matching[0]
    assert toolkit.nvcc == str(Path(root, "bin", "nvcc"))
    assert toolkit.source == "/usr/local/cuda"
    completed = subprocess.run(
        [toolkit.nvcc, "--version"], capture_output=True, text=True, timeout=30, check=True
    )
    reported = parse_nvcc_version(completed.stdout)
    assert reported is not None
    # version.json names the SDK release (12.4.1), nvcc its own build (12.4.131).
    assert toolkit.cuda == CudaVersion.parse(reported)
