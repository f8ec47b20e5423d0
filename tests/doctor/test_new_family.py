"""A new package family is data only, doctor included: one TOML file in the data folder.

The family below exists nowhere but in this file. Written into a copy of the packaged data
folder, it is planned like torch, and doctor reads its installed build by its
``[family.installed]`` row: the CUDA the build records, and the kernels its library holds
for each GPU. Without that row doctor has nothing to read, which is the control.
"""

from __future__ import annotations

import shutil

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from poetry_cuda.doctor.builds import Build
from poetry_cuda.doctor.builds import check_builds
from poetry_cuda.doctor.builds import read_builds
from poetry_cuda.doctor.deep import modules
from poetry_cuda.doctor.environment import check_environment
from poetry_cuda.doctor.installed import read_environment
from poetry_cuda.host.profiles import profile_from_json
from poetry_cuda.knowledge.packaged import DATA
from poetry_cuda.knowledge.packaged import load_directory
from poetry_cuda.locking.lockfile import CudaLock
from poetry_cuda.locking.lockfile import LockedPackage
from poetry_cuda.planning.assemble import make_plan
from poetry_cuda.planning.targets import settle
from poetry_cuda.request.dependencies import Dependency
from poetry_cuda.request.settings import Settings
from tests.doctor.fatbins import elf
from tests.doctor.fatbins import sass_and_ptx
from tests.support.doctor_projects import Dist
from tests.support.doctor_projects import make_venv


if TYPE_CHECKING:
    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.planning.targets import Target


INSTALLED = """
[family.installed]
module = "fakefw"
version_file = "fakefw/build_info.py"
cuda_pattern = '(?m)^cuda_version\\s*=\\s*(.+?)\\s*$'
kernels = ["fakefw/lib/libfakefw_cuda.so"]
source = "the fakefw wheels: fakefw/build_info.py, fakefw/lib/libfakefw_cuda.so"
confidence = "verified"
"""

FAMILY = """\
schema = 1

[family]
name = "fakefw"
lead = "fakefw"
members = ["fakefw"]
mechanism = "index"
version_form = "local"
index = "https://fakefw.example/whl/{variant}"
source_prefix = "fakefw"
source = "fakefw's install guide"
confidence = "verified"
INSTALLED
[[release]]
series = "1.0"
pairs = [{fakefw = "1.0.0"}]
source = "fakefw's release notes"
confidence = "verified"

[[release.variant]]
name = "cpu"
platforms = ["linux-x86_64"]

[[release.variant]]
name = "cu124"
cuda = "12.4"
sass = ["8.0", "9.0"]
platforms = ["linux-x86_64"]
"""
LIBRARY = "fakefw/lib/libfakefw_cuda.so"


def knowledge(folder: Path, *, installed: bool = True) -> KnowledgeBase:
    """The packaged knowledge base with the new family's file beside its own."""
    data = Path(shutil.copytree(DATA, folder))
    text = FAMILY.replace("INSTALLED", INSTALLED if installed else "")
    (data / "fakefw.toml").write_text(text, encoding="utf-8")
    return load_directory(data)


def gpu_host(kb: KnowledgeBase, *capabilities: str) -> Target:
    profile = {
        "os": "linux",
        "machine": "x86_64",
        "driver": {"version": "550.54.14"},
        "gpus": [{"compute_capability": cc} for cc in capabilities],
    }
    return settle(profile_from_json(profile, "this machine"), kb.nvidia)[0]


def fakefw(cuda: str, kernels: bytes) -> Dist:
    files: dict[str, str | bytes] = {"fakefw/build_info.py": f"cuda_version = {cuda!r}\n"}
    files[LIBRARY] = kernels
    return Dist("fakefw", "1.0.0+cu124", files)


def locked(kb: KnowledgeBase, target: Target) -> LockedPackage:
    """The build the plan chooses, as cuda.lock records it."""
    dependency = Dependency("fakefw", ">=1.0", frozenset(), "[project] dependencies")
    (choice,) = make_plan([dependency], [target], Settings(), kb).packages
    assert (choice.variant, choice.version) == ("cu124", "1.0.0+cu124")
    return LockedPackage(
        choice.name, choice.variant, choice.cuda, choice.source.name, choice.source.url,
        choice.version, choice.arches, str(choice.reason),
    )  # fmt: skip


def lock_of(package: LockedPackage) -> CudaLock:
    return CudaLock("hash", "uv", "newest", "auto", (), (package,), (), ())


@pytest.mark.parametrize("installed", [True, False], ids=["with its row", "control: without"])
def test_a_family_from_a_toml_file_alone_gets_doctors_checks(
    tmp_path: Path, installed: bool
) -> None:
    kb = knowledge(tmp_path / "data", installed=installed)
    package = locked(kb, gpu_host(kb, "8.9"))
    target = gpu_host(kb, "8.9", "7.5")  # doctor on a machine with a GPU the lock did not plan for
    kernels = elf(sass_and_ptx([80, 90]))

    # The build records which CUDA it was made for: a CPU build where cu124 is locked fails.
    cpu = read_environment(make_venv(tmp_path / "cpu", [fakefw("None", kernels)]), kb.installed)
    (_, built) = check_environment(cpu, lock_of(package), {}, target, "uv")
    gpu = read_environment(make_venv(tmp_path / "gpu", [fakefw("12.4", kernels)]), kb.installed)
    (_, fine) = check_environment(gpu, lock_of(package), {}, target, "uv")

    # Its kernel library is scanned, and each GPU judged against what it carries.
    builds = read_builds({}, [package], gpu, kb.installed)
    found = check_builds([package], builds, target, "uv sync")
    if not installed:
        assert (built.status, fine.message) == ("ok", "fakefw 1.0.0+cu124")
        assert builds == {}
        assert found == []
        return
    assert built.status == "fail"
    assert built.message.startswith("a CPU build of fakefw (1.0.0+cu124) is installed")
    assert fine.message == "fakefw 1.0.0+cu124 (built for CUDA 12.4)"
    scanned = builds["fakefw"]
    assert isinstance(scanned, Build)
    assert str(scanned.source).endswith(LIBRARY)
    assert [(f.check, f.status, f.subject) for f in found] == [
        ("build", "ok", "fakefw"),
        ("kernels", "ok", "fakefw on gpu0"),  # sm_89 runs the sm_80 SASS
        ("kernels", "fail", "fakefw on gpu1"),  # sm_75 has none
    ]
    assert modules([package], kb.installed) == ["fakefw="]
