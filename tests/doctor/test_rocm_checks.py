"""doctor's host checks of a locked ROCm or XPU build: served GPUs are ok, an AMD GPU whose
gfx the build was not compiled for fails, and no NVIDIA driver is asked for."""

from __future__ import annotations

from typing import Any

from poetry_cuda.doctor.checks import check_host
from poetry_cuda.doctor.findings import exit_code
from poetry_cuda.host.profiles import profile_from_json
from poetry_cuda.knowledge import packaged
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.locking.lockfile import CudaLock
from poetry_cuda.locking.lockfile import LockedPackage
from poetry_cuda.planning.targets import Target
from poetry_cuda.planning.targets import settle


KB = load()
# rocm.toml: torch 2.9's rocm6.4 build, without the gfx its libraries dropped.
RELEASE = packaged.rocm().release("2.9")
assert RELEASE is not None
ROCM64 = next(b for b in RELEASE.builds if b.rocm == "6.4")


def host(*gpus: dict[str, Any]) -> Target:
    document = {"schema": 2, "os": "linux", "machine": "x86_64", "gpus": list(gpus)}
    return settle(profile_from_json(document, "host.json"), KB.nvidia)[0]


def amd(index: int, name: str, gfx: str) -> dict[str, Any]:
    return {"index": index, "name": name, "vendor": "amd", "gfx": gfx}


def rocm_lock() -> CudaLock:
    torch = LockedPackage(
        "torch",
        "rocm6.4",
        None,
        "pytorch-rocm6.4",
        "https://download.pytorch.org/whl/rocm6.4",
        "2.9.1+rocm6.4",
        packaged.rocm().usable_gfx(ROCM64),
        "chosen",
    )
    return CudaLock("sha256:0", "uv", "newest", "auto", (), (torch,), (), ())


def test_the_rocm_build_serves_every_listed_amd_gpu() -> None:
    target = host(amd(0, "AMD Instinct MI250X", "gfx90a"), amd(1, "Radeon RX 7900 XTX", "gfx1100"))
    found = check_host(target, rocm_lock(), KB, backend="uv")
    assert {f.status for f in found} == {"ok"}
    assert not [f for f in found if f.check == "driver"]  # no NVIDIA driver is needed
    (variant,) = [f for f in found if f.check == "variant"]
    assert variant.message == (
        "torch rocm6.4 is a ROCm build for AMD Instinct MI250X (gfx90a), "
        "Radeon RX 7900 XTX (gfx1100)"
    )
    assert [f.subject for f in found if f.check == "architecture"] == [
        "torch on gpu0",
        "torch on gpu1",
    ]


def test_an_amd_gpu_the_build_is_not_compiled_for_fails() -> None:
    # gfx906 (MI50) is compiled into rocm6.4 but rocBLAS dropped it (rocm.toml library_gap).
    found = check_host(host(amd(0, "AMD Instinct MI50", "gfx906")), rocm_lock(), KB, backend="uv")
    (failed,) = [f for f in found if f.status == "fail"]
    assert failed.check == "architecture"
    assert failed.message.startswith("GPU 0 (AMD Instinct MI50 (gfx906)): torch rocm6.4 is not")
    assert "lock again with this machine among the targets" in failed.fix
    assert exit_code(found) != 0


def test_a_rocm_build_on_a_machine_without_an_amd_gpu_runs_on_the_cpu() -> None:
    found = check_host(host(), rocm_lock(), KB, backend="uv")
    (variant,) = [f for f in found if f.check == "variant"]
    assert variant.status == "warn"
    assert "runs on the CPU here" in variant.message


def test_item4_a_rocm_build_without_an_amd_gpu_fails_only_when_strict() -> None:
    found = check_host(host(), rocm_lock(), KB, backend="uv")
    (driver,) = [f for f in found if f.check == "driver"]
    assert driver.status == "warn"
    assert "not among cuda.lock's targets" in driver.message  # no NVIDIA driver asked for
    assert exit_code(found) == 0
    strict = check_host(host(), rocm_lock(), KB, backend="uv", strict=True)
    (variant,) = [f for f in strict if f.check == "variant"]
    assert variant.status == "fail"
    assert exit_code(strict) == 1
