"""Fake CUDA trees made of real shared libraries, and a probe that loads them.

`libcudart` stand-ins are compiled with gcc, carry the real sonames
(``libcudart.so.11.0``, ``libcudart.so.12``) and export ``fake_cudart_major``; the
probe program dlopens sonames the way a CUDA application does and prints, for each,
the major it got and the file the dynamic linker chose.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest


if TYPE_CHECKING:
    from pathlib import Path


PROBE_SOURCE = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        void *handle = dlopen(argv[i], RTLD_NOW);
        if (!handle) { printf("%s none -\n", argv[i]); continue; }
        struct link_map *map = NULL;
        dlinfo(handle, RTLD_DI_LINKMAP, &map);
        int major = -1;
        int (*fake)(void) = (int (*)(void))dlsym(handle, "fake_cudart_major");
        int (*real)(int *) = (int (*)(int *))dlsym(handle, "cudaRuntimeGetVersion");
        int version = 0;
        if (fake) major = fake();
        else if (real && real(&version) == 0) major = version / 1000;
        printf("%s %d %s\n", argv[i], major, map ? map->l_name : "-");
    }
    return 0;
}
"""


def gcc() -> str:
    found = shutil.which("gcc") or shutil.which("cc")
    if found is None:
        pytest.skip("no C compiler (gcc) to build the fake CUDA libraries")
    return found


def compile_library(path: Path, soname: str, major: int) -> Path:
    """A shared library `path` with `soname` whose fake_cudart_major() returns `major`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    source = path.parent / f".{path.name}.c"
    source.write_text(f"int fake_cudart_major(void) {{ return {major}; }}\n")
    subprocess.run(
        [gcc(), "-shared", "-fPIC", f"-Wl,-soname,{soname}", "-o", str(path), str(source)],
        check=True,
        timeout=60,
    )
    source.unlink()
    return path


@dataclass(frozen=True)
class Probe:
    program: Path

    @staticmethod
    def parse(stdout: str) -> dict[str, tuple[int, str]]:
        """soname -> (major, file) from the probe's output; (-1 or none) when not loaded."""
        found = {}
        for line in stdout.splitlines():
            name, major, where = line.split(" ", 2)
            found[name] = (int(major) if major != "none" else 0, where)
        return found


def make_toolkit(
    root: Path,
    version: str,
    *,
    cudart: tuple[str, int] | None,
    cudnn: str | None = None,
    nvcc: bool = False,
) -> Path:
    """A toolkit folder as NVIDIA's installer lays it out: version.json, bin, lib64."""
    (root / "bin").mkdir(parents=True)
    (root / "include").mkdir()
    (root / "version.json").write_text(json.dumps({"cuda": {"version": version}}))
    lib = root / "lib64"
    lib.mkdir()
    if cudart is not None:
        soname, major = cudart
        compile_library(lib / soname, soname, major)
        (lib / "libcudart.so").symlink_to(soname)
    if cudnn is not None:
        first, minor, patch = cudnn.split(".")
        compile_library(lib / f"libcudnn.so.{cudnn}", f"libcudnn.so.{first}", int(first))
        (lib / f"libcudnn.so.{first}").symlink_to(f"libcudnn.so.{cudnn}")
        (root / "include" / "cudnn_version.h").write_text(
            f"#define CUDNN_MAJOR {first}\n#define CUDNN_MINOR {minor}\n"
            f"#define CUDNN_PATCHLEVEL {patch}\n"
        )
    if nvcc:
        script = root / "bin" / "nvcc"
        release = ".".join(version.split(".")[:2])
        script.write_text(
            f"#!/bin/sh\necho 'Cuda compilation tools, release {release}, V{version}'\n"
        )
        script.chmod(0o755)
    return root


def site_packages(venv: Path) -> Path:
    site = venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    site.mkdir(parents=True, exist_ok=True)
    (venv / "bin").mkdir(exist_ok=True)
    return site


def add_wheel_library(venv: Path, folder: str, soname: str, major: int) -> Path:
    """A library where an nvidia-* wheel puts it: site-packages/nvidia/<folder>/lib."""
    return compile_library(site_packages(venv) / "nvidia" / folder / "lib" / soname, soname, major)


@dataclass(frozen=True)
class Machine:
    """Fake toolkits side by side below `usr_local`, as POETRY_CUDA_TOOLKITS names them."""

    usr_local: Path
    cuda118: Path
    cuda124: Path
