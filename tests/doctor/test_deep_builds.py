"""`doctor --deep` judges each GPU by the installed build's own architectures, through the
real console script, a real venv with a test-local torch or onnxruntime, and the fake NVML."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.locking.lockfile import LockedPackage
from poetry_cuda.versions import CudaVersion
from tests.doctor.fatbins import elf
from tests.doctor.fatbins import sass_and_ptx
from tests.support.doctor_projects import Dist
from tests.support.doctor_projects import fresh_project
from tests.support.doctor_projects import make_venv
from tests.support.fake_nvml import GTX_1080_TI
from tests.support.fake_nvml import RTX_4090


if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from tests.support.cli import Cli
    from tests.support.fake_nvml import FakeGpu
    from tests.support.fake_nvml import FakeNvml


# What cuda.lock records for torch 2.5.1+cu124: the knowledge base's row.
TABLE = ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "compute_90")


def torch_dist(flags: str, devices: Sequence[tuple[int, int]] = ()) -> Dist:
    """torch as it behaves: get_arch_list() is empty without a usable GPU, while
    torch._C._cuda_getArchFlags() gives the build's list anyway."""
    return Dist(
        "torch",
        "2.5.1+cu124",
        {
            "torch/__init__.py": (
                "from torch import _C as _C\nfrom torch import cuda as cuda\n"
                "from torch import version as version\n__version__ = '2.5.1+cu124'\n"
            ),
            "torch/_C.py": f"def _cuda_getArchFlags():\n    return {flags!r}\n",
            "torch/version.py": "cuda = '12.4'\n",
            "torch/cuda/__init__.py": (
                "from torch import _C\n"
                f"DEVICES = {list(devices)!r}\n"
                "def is_available():\n    return bool(DEVICES)\n"
                "def device_count():\n    return len(DEVICES)\n"
                "def get_device_capability(index):\n    return DEVICES[index]\n"
                "def get_arch_list():\n"
                "    return _C._cuda_getArchFlags().split() if is_available() else []\n"
            ),
        },
    )


def project_with(tmp_path: Path, package: LockedPackage, dist: Dist) -> Path:
    project = fresh_project(tmp_path / "demo", packages=[package])
    make_venv(project / ".venv", [dist], interpreter=True)
    return project


def torch_project(tmp_path: Path, dist: Dist) -> Path:
    cu124 = CudaVersion.parse("12.4")
    package = LockedPackage(
        "torch", "cu124", cu124, "pytorch-cu124", "https://download.pytorch.org/whl/cu124",
        "2.5.1+cu124", TABLE, "test",
    )  # fmt: skip
    return project_with(tmp_path, package, dist)


def deep(cli: Cli, project: Path, env: dict[str, str]) -> tuple[int, dict[tuple[str, str], Any]]:
    result = cli.run("doctor", "--json", "--deep", cwd=project, env=env)
    rows = json.loads(result.stdout)["findings"]
    found = {(r["check"], r["subject"]): r for r in rows if r["area"] in ("deep", "host")}
    return result.code, found


def scenario(fake_nvml: FakeNvml, gpu: FakeGpu) -> dict[str, str]:
    return fake_nvml.scenario(gpus=[gpu])


def test_a_gpu_the_build_lacks_fails_though_the_table_has_it(
    cli: Cli, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    project = torch_project(tmp_path, torch_dist("sm_75 sm_80 sm_86 sm_90 compute_90"))
    code, found = deep(cli, project, scenario(fake_nvml, GTX_1080_TI))
    assert code == 1
    assert found[("architecture", "torch on gpu0")]["status"] == "ok"  # the table's verdict
    kernels = found[("kernels", "torch on gpu0")]
    assert kernels["status"] == "fail"
    assert kernels["message"] == (
        "GPU 0 (NVIDIA GeForce GTX 1080 Ti, sm_61) has no kernels in torch's installed build: "
        "it carries sm_75, sm_80, sm_86, sm_90, compute_90"
    )
    assert kernels["fix"].startswith("lock again for this GPU")
    table = found[("build", "torch")]
    assert table["status"] == "warn"
    assert "the row is wrong" in table["message"]
    assert "sm_50, sm_60, sm_70" in table["message"]
    assert "report it to poetry-cuda" in table["fix"]


def test_a_build_with_sass_for_the_gpu_is_ok(cli: Cli, fake_nvml: FakeNvml, tmp_path: Path) -> None:
    dist = torch_dist(" ".join(TABLE), devices=[(8, 9)])
    _, found = deep(cli, torch_project(tmp_path, dist), scenario(fake_nvml, RTX_4090))
    assert found[("build", "torch")]["status"] == "ok"
    kernels = found[("kernels", "torch on gpu0")]
    assert kernels["status"] == "ok"
    assert kernels["message"] == (
        "GPU 0 (NVIDIA GeForce RTX 4090, sm_89): SASS in torch's build (its sm_86 build)"
    )
    assert found[("device", "torch")]["message"] == "torch sees GPU 0 (sm_89)"


def test_ptx_only_is_a_warning(cli: Cli, fake_nvml: FakeNvml, tmp_path: Path) -> None:
    dist = torch_dist("sm_70 sm_75 compute_75", devices=[(8, 9)])
    _, found = deep(cli, torch_project(tmp_path, dist), scenario(fake_nvml, RTX_4090))
    kernels = found[("kernels", "torch on gpu0")]
    assert kernels["status"] == "warn"
    assert "only compute_75 PTX, JIT-compiled at first use" in kernels["message"]


def test_onnxruntime_s_library_is_scanned(cli: Cli, fake_nvml: FakeNvml, tmp_path: Path) -> None:
    package = LockedPackage(
        "onnxruntime-gpu", "cu12", CudaVersion.parse("12.0"), "pypi", "https://pypi.org/simple",
        "1.27.0", ("from sm_60",), "test",
    )  # fmt: skip
    library = "onnxruntime/capi/libonnxruntime_providers_cuda.so"
    files: dict[str, str | bytes] = {
        "onnxruntime/__init__.py": "__version__ = '1.27.0'\n",
        library: elf(sass_and_ptx([75, 80, 86, 89, 90, 100, 120])),
    }
    project = project_with(tmp_path, package, Dist("onnxruntime-gpu", "1.27.0", files))
    code, found = deep(cli, project, scenario(fake_nvml, GTX_1080_TI))
    assert code == 1
    build = found[("build", "onnxruntime-gpu")]
    assert build["status"] == "ok"
    assert build["message"].startswith("onnxruntime-gpu 1.27.0 carries sm_75, sm_80")
    assert build["message"].endswith(f"{library})")
    kernels = found[("kernels", "onnxruntime-gpu on gpu0")]
    assert kernels["status"] == "fail"
    assert (
        "(NVIDIA GeForce GTX 1080 Ti, sm_61) has no kernels in onnxruntime-gpu's"
        in kernels["message"]
    )
