"""The one writer of test projects (pyproject.toml, and a cuda.lock where a test needs one), the
tiny uv and Poetry projects that take torch from a CUDA index and everything else from the PyPI
stand-in, and readers for the locks they produce."""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import tomlkit

from poetry_cuda.files import read_toml
from poetry_cuda.locking import lockfile
from poetry_cuda.locking.freshness import sealed
from poetry_cuda.locking.lockfile import CudaLock
from poetry_cuda.locking.lockfile import LockedExtra
from poetry_cuda.locking.lockfile import LockedPackage
from poetry_cuda.locking.lockfile import TargetFacts
from poetry_cuda.locking.lockfile_toml import dumps
from poetry_cuda.planning.plan import SystemRequirement
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion


if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence
    from pathlib import Path


CUDA_PLATFORMS = "sys_platform == 'linux' or sys_platform == 'win32'"
APP = {"package-mode": False}
THIS_MACHINE = TargetFacts(
    "this machine",
    "linux",
    "x86_64",
    DriverVersion.parse("550.54.14"),
    CudaVersion(12, 4),
    (ComputeCapability(8, 9),),
)


def write_project(
    folder: Path,
    *,
    name: str = "demo",
    version: str = "0",
    requires_python: str | None = None,
    dependencies: Sequence[str] | None = None,
    pep621: bool = True,
    tool: Mapping[str, object] | None = None,
    extra_toml: str = "",
) -> Path:
    """`folder` with a pyproject.toml in tomlkit's layout, so every test project looks alike.

    [project] comes first (none where `pep621` is false: a Poetry-only project), then the
    `tool` tables, then `extra_toml` as written, for text a table cannot express.
    """
    folder.mkdir(parents=True, exist_ok=True)
    document: dict[str, object] = {}
    if pep621:
        table: dict[str, object] = {"name": name, "version": version}
        if requires_python is not None:
            table["requires-python"] = requires_python
        if dependencies is not None:
            table["dependencies"] = list(dependencies)
        document["project"] = table
    if tool:
        document["tool"] = dict(tool)
    (folder / "pyproject.toml").write_text(tomlkit.dumps(document) + extra_toml)
    return folder


def write_cuda_lock(
    project: Path,
    *,
    packages: Sequence[LockedPackage] = (),
    requirements: Sequence[SystemRequirement] = (),
    cuda: str = "auto",
    fresh: bool = True,
    base_image: str | None = None,
) -> Path:
    """A cuda.lock for this machine beside `project`'s pyproject.toml.

    `fresh` seals it against that pyproject.toml; otherwise its hash matches no project, for
    tests of commands that read a lock without judging whether it is stale.
    """
    record = CudaLock(
        content_hash="" if fresh else "sha256:0",
        backend="poetry",
        policy="newest",
        cuda=cuda,
        targets=(THIS_MACHINE,),
        packages=tuple(packages),
        system_requirements=tuple(requirements),
        managed_sources=(),
        base_image=base_image,
    )
    if fresh:
        record = sealed(record, read_toml(project / "pyproject.toml"))
    (project / lockfile.FILENAME).write_text(dumps(record))
    return project


def make_project(
    folder: Path,
    *,
    packages: Sequence[tuple[str, str, str]] = (),
    requirements: Sequence[tuple[str, str]] = (),
    settings: str = "",
    cuda: str = "auto",
) -> Path:
    """A project with pyproject.toml (`settings` in [tool.poetry-cuda]) and a cuda.lock
    recording (name, variant, cuda) and (kind, spec) system requirements of the first package."""
    write_project(
        folder,
        name=folder.name,
        version="0.1.0",
        requires_python=">=3.10",
        dependencies=(),
        tool={"poetry": APP},
        extra_toml=f"\n[tool.poetry-cuda]\n{settings}\n",
    )
    lead = packages[0][0] if packages else "the project"
    return write_cuda_lock(
        folder,
        packages=[
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
        ],
        requirements=[
            SystemRequirement(lead, kind, spec, f"{lead} loads it", f"install {kind} {spec}")
            for kind, spec in requirements
        ],
        cuda=cuda,
        fresh=False,
    )


PADDLE = {
    "packages": [("paddlepaddle-gpu", "cu118", "11.8")],
    "requirements": [("cuda-runtime", ">=11.8,<12"), ("cudnn", ">=8.6.0,<9")],
}
TORCH = {"packages": [("torch", "cu124", "12.4"), ("torchvision", "cu124", "12.4")]}


def write_uv_project(
    directory: Path,
    *,
    pypi: str,
    cuda_index: str,
    requires_python: str = ">=3.11,<3.12",
    dependencies: tuple[str, ...] = ("torch==2.5.1",),
) -> Path:
    """The documented uv setup: an explicit `pytorch-cu124` index pinned by `tool.uv.sources`."""
    directory.mkdir(parents=True)
    uv = {
        "index": [
            {"name": "pypi-stand-in", "url": pypi, "default": True},
            {"name": "pytorch-cu124", "url": cuda_index, "explicit": True},
        ],
        "sources": {"torch": [{"index": "pytorch-cu124", "marker": CUDA_PLATFORMS}]},
    }
    return write_project(
        directory,
        version="0.1.0",
        requires_python=requires_python,
        dependencies=dependencies,
        tool={"uv": uv},
    )


def write_poetry_project(
    directory: Path, *, pypi: str, cuda_index: str, python: str = ">=3.11,<3.12"
) -> Path:
    """A Poetry project: the PyPI stand-in as primary source (so PyPI itself is never used) and
    torch from an explicit `pytorch-cu124` source."""
    directory.mkdir(parents=True)
    poetry = {
        **APP,
        "dependencies": {
            "python": python,
            "torch": {"version": "2.5.1", "source": "pytorch-cu124"},
        },
        "source": [
            {"name": "pypi-stand-in", "url": pypi, "priority": "primary"},
            {"name": "pytorch-cu124", "url": cuda_index, "priority": "explicit"},
        ],
    }
    return write_project(directory, pep621=False, tool={"poetry": poetry})


def locked_packages(lock: Path, name: str) -> list[dict[str, Any]]:
    """The `[[package]]` entries of a uv.lock or poetry.lock for one name."""
    document = tomlkit.parse(lock.read_text()).unwrap()
    return [package for package in document["package"] if package["name"] == name]


def registries(uv_lock: Path) -> set[str]:
    """Every index URL a uv.lock refers to."""
    document = tomlkit.parse(uv_lock.read_text()).unwrap()
    return {
        package["source"]["registry"]
        for package in document["package"]
        if "registry" in package["source"]
    }


# The extras of a multi-variant torch project, as cuda.lock records them (torch 2.5.1's).
CPU_EXTRA = LockedExtra("cpu", "extra", "torch", "cpu", None, (), (), "the CPU build")
CU124_EXTRA = LockedExtra(
    "cu124",
    "extra",
    "torch",
    "cu124",
    CudaVersion(12, 4),
    ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"),
    ("this machine",),
    "driver 550.54.14 supports CUDA <= 12.4",
)


def write_multi_variant_uv_project(directory: Path, *, pypi: str, cpu: str, cu124: str) -> Path:
    """A uv project as uv's PyTorch guide writes one: the extras `cpu` and `cu124`, which
    conflict, each taking torch from its own explicit index (`pypi`, `cpu` and `cu124` are
    the indexes' URLs)."""
    uv = {
        "environments": ["sys_platform == 'linux'"],
        "conflicts": [[{"extra": "cpu"}, {"extra": "cu124"}]],
        "sources": {
            "torch": [
                {"index": "pytorch-cpu", "extra": "cpu"},
                {"index": "pytorch-cu124", "extra": "cu124"},
            ]
        },
        "index": [
            {"name": "pypi-stand-in", "url": pypi, "default": True},
            {"name": "pytorch-cpu", "url": cpu, "explicit": True},
            {"name": "pytorch-cu124", "url": cu124, "explicit": True},
        ],
    }
    return write_project(
        directory,
        version="0.1.0",
        requires_python=">=3.11,<3.12",
        dependencies=(),
        tool={"uv": uv},
        extra_toml='\n[project.optional-dependencies]\ncpu = ["torch==2.5.1"]\n'
        'cu124 = ["torch==2.5.1"]\n',
    )


def write_extras_lock(
    project: Path, extras: Sequence[LockedExtra] = (CPU_EXTRA, CU124_EXTRA), *, backend: str = "uv"
) -> Path:
    """A fresh cuda.lock for a multi-variant project: its extras, no single chosen build."""
    record = CudaLock(
        content_hash="",
        backend=backend,
        policy="newest",
        cuda="auto",
        targets=(THIS_MACHINE,),
        packages=(),
        system_requirements=(),
        managed_sources=(),
        extras=tuple(extras),
    )
    record = sealed(record, read_toml(project / "pyproject.toml"))
    (project / lockfile.FILENAME).write_text(dumps(record))
    return project
