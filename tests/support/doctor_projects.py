"""Real project folders for doctor: pyproject.toml, cuda.lock, poetry.lock and a venv.

The venv is a folder laid out as a virtual environment with the `*.dist-info` folders
(METADATA, RECORD) and module files that installers write; `python -m venv` gives it
an interpreter where a test runs `--deep`.
"""

from __future__ import annotations

import subprocess
import sys

from dataclasses import dataclass
from dataclasses import field
from typing import TYPE_CHECKING

import tomlkit

from poetry_cuda.locking.lockfile import LockedPackage
from poetry_cuda.versions import CudaVersion
from tests.support.projects import APP
from tests.support.projects import write_cuda_lock
from tests.support.projects import write_project


if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence
    from pathlib import Path

    from poetry_cuda.planning.plan import SystemRequirement


PYTHON = f"python{sys.version_info.major}.{sys.version_info.minor}"
CU124_LIBS = ("nvidia-cuda-runtime-cu12", "nvidia-cudnn-cu12", "nvidia-cublas-cu12")


@dataclass(frozen=True)
class Dist:
    """One installed distribution: its METADATA name/version and files under site-packages."""

    name: str
    version: str
    files: Mapping[str, str | bytes] = field(default_factory=dict)
    # RECORD entries whose files are not written (deleted after installation).
    deleted: tuple[str, ...] = ()


def torch_dist(version: str, cuda: str | None) -> Dist:
    value = repr(cuda) if cuda else "None"
    return Dist(
        "torch",
        version,
        {
            "torch/__init__.py": (
                "from torch import cuda as cuda\nfrom torch import version as version\n"
                f'__version__ = "{version}"\n'
            ),
            "torch/version.py": f'__version__ = "{version}"\ncuda: str | None = {value}\n',
            "torch/cuda/__init__.py": "def is_available() -> bool:\n    return False\n",
        },
    )


def nvidia_dist(name: str, version: str, library: str, *, deleted: bool = False) -> Dist:
    module = name.removeprefix("nvidia-").rsplit("-cu", 1)[0].replace("-", "_")
    path = f"nvidia/{module}/lib/{library}"
    files: dict[str, str | bytes] = {f"nvidia/{module}/__init__.py": ""}
    if not deleted:
        files[path] = b"\x7fELF" + b"\0" * 4096
    return Dist(name, version, files, (path,) if deleted else ())


def make_venv(root: Path, dists: Sequence[Dist], *, interpreter: bool = False) -> Path:
    if interpreter:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    site = root / "lib" / PYTHON / "site-packages"
    site.mkdir(parents=True, exist_ok=True)
    (root / "pyvenv.cfg").touch()
    for dist in dists:
        stem = f"{dist.name.replace('-', '_')}-{dist.version}"
        info = site / f"{stem}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {dist.name}\nVersion: {dist.version}\n\nText: no\n"
        )
        records = []
        for relative, content in dist.files.items():
            path = site / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content)
            records.append(f"{relative},,")
        records += [f"{relative},," for relative in dist.deleted]
        (info / "RECORD").write_text("\n".join([*records, f"{stem}.dist-info/METADATA,,"]) + "\n")
    return root


def torch_package(version: str = "2.5.1+cu124", variant: str = "cu124") -> LockedPackage:
    cuda = None if variant == "cpu" else CudaVersion.parse(variant)
    return LockedPackage(
        name="torch",
        variant=variant,
        cuda=cuda,
        source=f"pytorch-{variant}",
        url=f"https://download.pytorch.org/whl/{variant}",
        version=version,
        arches=(),
        reason="test",
    )


def fresh_project(
    project: Path,
    *,
    dependencies: Sequence[str] = ("torch==2.5.1",),
    packages: Sequence[LockedPackage] = (),
    requirements: Sequence[SystemRequirement] = (),
    poetry_lock: Sequence[Mapping[str, object]] | None = None,
    base_image: str | None = None,
) -> Path:
    """A project with pyproject.toml and a fresh cuda.lock (and poetry.lock if given)."""
    write_project(project, dependencies=dependencies, tool={"poetry": APP})
    write_cuda_lock(project, packages=packages, requirements=requirements, base_image=base_image)
    if poetry_lock is not None:
        document = tomlkit.document()
        document.add("package", tomlkit.aot())
        for entry in poetry_lock:
            document["package"].append(tomlkit.item(dict(entry)))
        (project / "poetry.lock").write_text(tomlkit.dumps(document))
    return project


def locked_torch(version: str, source: str | None, deps: Sequence[str] = ()) -> dict[str, object]:
    entry: dict[str, object] = {
        "name": "torch",
        "version": version,
        "files": [{"file": f"torch-{version}-cp311-cp311-linux_x86_64.whl", "hash": "sha256:0"}],
        "dependencies": dict.fromkeys(deps, "*"),
    }
    if source:
        entry["source"] = {"type": "legacy", "url": f"https://x.test/{source}", "reference": source}
    return entry
