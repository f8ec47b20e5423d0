"""Fake CUDA trees made of real shared libraries, and projects with a cuda.lock.

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

from poetry_cuda.locking.lockfile import CudaLock
from poetry_cuda.locking.lockfile import LockedPackage
from poetry_cuda.locking.lockfile import TargetFacts
from poetry_cuda.planning.plan import SystemRequirement
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion


if TYPE_CHECKING:
    from collections.abc import Sequence
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


@pytest.fixture(scope="session")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Probe:
    folder = tmp_path_factory.mktemp("probe")
    source = folder / "probe.c"
    source.write_text(PROBE_SOURCE)
    program = folder / "probe"
    subprocess.run([gcc(), "-o", str(program), str(source), "-ldl"], check=True, timeout=60)
    return Probe(program)


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


PYPROJECT = """\
[project]
name = "{name}"
version = "0.1.0"
requires-python = ">=3.10"
dependencies = []

[tool.poetry]
package-mode = false

[tool.poetry-cuda]
{settings}
"""


def make_project(
    folder: Path,
    *,
    packages: Sequence[tuple[str, str, str]] = (),
    requirements: Sequence[tuple[str, str]] = (),
    settings: str = "",
    cuda: str = "auto",
) -> Path:
    """A project with pyproject.toml and a cuda.lock recording (name, variant, cuda)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(PYPROJECT.format(name=folder.name, settings=settings))
    lead = packages[0][0] if packages else "the project"
    lock = CudaLock(
        content_hash="sha256:0",
        backend="poetry",
        policy="newest",
        cuda=cuda,
        targets=(
            TargetFacts(
                "this machine",
                "linux",
                "x86_64",
                DriverVersion.parse("550.54.14"),
                CudaVersion(12, 4),
                (ComputeCapability(8, 9),),
            ),
        ),
        packages=tuple(
            LockedPackage(
                name,
                variant,
                CudaVersion.parse(version),
                "pypi",
                "https://pypi.org/simple",
                None,
                (),
                "",
            )
            for name, variant, version in packages
        ),
        system_requirements=tuple(
            SystemRequirement(lead, kind, spec, f"{lead} loads it", f"install {kind} {spec}")
            for kind, spec in requirements
        ),
        managed_sources=(),
    )
    (folder / "cuda.lock").write_text(lock.dumps())
    return folder


PADDLE = {
    "packages": [("paddlepaddle-gpu", "cu118", "11.8")],
    "requirements": [("cuda-runtime", ">=11.8,<12"), ("cudnn", ">=8.6.0,<9")],
}
TORCH = {"packages": [("torch", "cu124", "12.4"), ("torchvision", "cu124", "12.4")]}


@dataclass(frozen=True)
class Machine:
    """Fake toolkits side by side below `usr_local`, as POETRY_CUDA_TOOLKITS names them."""

    usr_local: Path
    cuda118: Path
    cuda124: Path


@pytest.fixture(scope="session")
def machine(tmp_path_factory: pytest.TempPathFactory) -> Machine:
    usr_local = tmp_path_factory.mktemp("fake-root") / "usr" / "local"
    cuda118 = make_toolkit(
        usr_local / "cuda-11.8",
        "11.8.89",
        cudart=("libcudart.so.11.0", 11),
        cudnn="8.9.7",
        nvcc=True,
    )
    cuda124 = make_toolkit(
        usr_local / "cuda-12.4", "12.4.131", cudart=("libcudart.so.12", 12), nvcc=True
    )
    (usr_local / "cuda").symlink_to("cuda-12.4")
    return Machine(usr_local, cuda118, cuda124)
