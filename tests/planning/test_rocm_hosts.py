"""AMD and Intel hosts (schema-2 profiles) and the build each plan gets, each expectation
naming its row of the research note on issue 32 and that row's primary source."""

from __future__ import annotations

from typing import Any

import pytest

from poetry_cuda.errors import NoVariantError
from poetry_cuda.host.profiles import HostProfile
from poetry_cuda.host.profiles import profile_from_json
from poetry_cuda.knowledge import packaged
from poetry_cuda.planning.rocm import AcceleratorPlan
from poetry_cuda.planning.rocm import plan_accelerator


# The torch releases' last patch versions as download.pytorch.org offers them.
OFFERED = (
    "2.0.1", "2.1.2", "2.2.2", "2.3.1", "2.4.1", "2.5.1", "2.6.0",
    "2.7.1", "2.8.0", "2.9.1", "2.10.0", "2.11.0", "2.12.0", "2.13.0",
)  # fmt: skip
NVIDIA_DRIVER = {"version": "550.54.14", "cuda": "12.4", "source": "nvml"}


def _plan(profile: HostProfile, **options: Any) -> AcceleratorPlan:
    """The plan for `profile` from the versions `OFFERED`, with the shipped knowledge."""
    return plan_accelerator(
        profile, OFFERED, rocm_kb=packaged.rocm(), xpu_kb=packaged.xpu(), **options
    )


def amd(name: str, gfx: str, index: int = 0) -> dict[str, Any]:
    return {"index": index, "name": name, "vendor": "amd", "gfx": gfx}


def intel(name: str, ip: str, index: int = 0) -> dict[str, Any]:
    return {"index": index, "name": name, "vendor": "intel", "device_ip": ip}


RTX_4090 = {"index": 0, "name": "RTX 4090", "vendor": "nvidia", "compute_capability": "8.9"}


def host(
    *gpus: dict[str, Any],
    kernel: str | None = None,
    os: str = "linux",
    machine: str = "x86_64",
    xpu: bool = True,
    driver: dict[str, Any] | None = None,
) -> dict[str, Any]:
    has_amd = any(gpu["vendor"] == "amd" for gpu in gpus)
    has_intel = any(gpu["vendor"] == "intel" for gpu in gpus)
    return {
        "schema": 2,
        "os": os,
        "machine": machine,
        "driver": driver,
        "gpus": list(gpus),
        "rocm": {"kernel_driver": kernel, "source": "kfd"} if has_amd and kernel else None,
        "xpu": {"driver": "1.6.32224", "source": "level-zero"} if has_intel and xpu else None,
    }


# (id, profile, torch constraint, expected (accelerator, torch, variant) or "refused: ...",
#  source). Research note rows are "A<n>"/"I<n>" of its section 10.
CASES: list[tuple[str, dict[str, Any], str, tuple[str, str | None, str | None] | str, str]] = [
    (
        "mi300x-newest",
        host(amd("AMD Instinct MI300X", "gfx942"), kernel="6.16.13"),
        "",
        ("rocm", "2.13.0", "rocm7.2"),
        "A1: test-infra 6d36e31f45e8 (2.13: rocm7.1, rocm7.2); amdgpu 30.30 runs ROCm 6.3-7.2",
    ),
    (
        "mi300x-in-tree-pinned",
        host(amd("AMD Instinct MI300X", "gfx942")),
        "==2.9.1",
        ("rocm", "2.9.1", "rocm6.4"),
        "A2: test-infra 06789010bfc6 (2.9: rocm6.3, rocm6.4); in-tree amdgpu has no version",
    ),
    (
        "rx7900xtx-2.4",
        host(amd("Radeon RX 7900 XTX", "gfx1100"), kernel="6.8.5"),
        ">=2.4,<2.5",
        ("rocm", "2.4.1", "rocm6.1"),
        "A3: test-infra ac9a718ca850 (2.4: rocm6.0, rocm6.1); uv issue 14086 lists gfx1100",
    ),
    (
        "rx9070-too-new-for-2.5",
        host(amd("Radeon RX 9070 XT", "gfx1201"), kernel="6.16.13"),
        "==2.5.1",
        "refused: gfx1201 is served from torch 2.7",
        "A4: uv issue 14086 (2.5.1+rocm6.2 arch list has no gfx1201); pytorch PR 148562",
    ),
    (
        "rx9070-newest",
        host(amd("Radeon RX 9070 XT", "gfx1201"), kernel="6.16.13"),
        "",
        ("rocm", "2.13.0", "rocm7.2"),
        "A5: uv issue 18730 (measured rocm7.2 list has gfx1201)",
    ),
    (
        "mi50-dropped-by-rocm-6.4",
        host(amd("AMD Instinct MI50", "gfx906"), kernel="6.12.12"),
        "",
        ("rocm", "2.9.1", "rocm6.3"),
        "A6: ollama issue 12481, unsloth 7354 (rocBLAS of ROCm >= 6.4 has no gfx906 kernels)",
    ),
    (
        "apu-780m-before-2.13",
        host(amd("AMD Radeon 780M (Phoenix)", "gfx1103")),
        "<2.13",
        "refused: HSA_OVERRIDE_GFX_VERSION=11.0.0",
        "A7: pytorch PR 179653 (gfx1103 added for 2.13); TheRock RELEASES.md device-gfx1103",
    ),
    (
        "apu-780m-newest",
        host(amd("AMD Radeon 780M (Phoenix)", "gfx1103")),
        "",
        ("rocm", "2.13.0", "rocm7.2"),
        "A8: rocm.toml 2.13 build lists (gfx1103 from pytorch PR 179653)",
    ),
    (
        "strix-halo-2.9",
        host(amd("AMD Radeon 8060S (Strix Halo)", "gfx1151"), kernel="6.16.13"),
        "==2.9.1",
        "refused: gfx1151 is served from torch 2.10",
        "A9: uv crates/uv-torch backend.rs rocm6.4 row (no gfx1151); uv issue 18730",
    ),
    (
        "strix-halo-newest",
        host(amd("AMD Radeon 8060S (Strix Halo)", "gfx1151"), kernel="6.16.13"),
        "",
        ("rocm", "2.13.0", "rocm7.2"),
        "A10: uv issue 18730 (measured rocm7.2 list has gfx1150, gfx1151)",
    ),
    (
        "nvidia-and-amd-igpu",
        host(RTX_4090, amd("AMD Radeon Graphics (Raphael)", "gfx1036", 1), driver=NVIDIA_DRIVER),
        "",
        ("cuda", None, None),
        "A11: uv accelerator.rs (NVIDIA detected first); gfx1036 in no PYTORCH_ROCM_ARCH",
    ),
    (
        "windows-amd",
        host(amd("Radeon RX 7900 XTX", "gfx1100"), os="windows"),
        "",
        ("cpu", None, None),
        "A12: test-infra generate_binary_build_matrix.py (ROCm arches only if os == LINUX)",
    ),
    (
        "mi250x-torch-2.0",
        host(amd("AMD Instinct MI250X", "gfx90a")),
        "==2.0.1",
        ("rocm", "2.0.1", "rocm5.4.2"),
        "A13: test-infra bc96de983476 (2.0.1: rocm5.3, rocm5.4.2); builder list has gfx90a",
    ),
    (
        "mi355x-before-2.10",
        host(amd("AMD Instinct MI355X", "gfx950"), kernel="6.16.13"),
        "==2.9.1",
        "refused: gfx950 is served from torch 2.10",
        "A14: pytorch issue 163860 (gfx950 first in the 2.10 rocm7.x builds)",
    ),
    (
        "aarch64-amd",
        host(amd("Radeon PRO W7900", "gfx1100"), machine="aarch64"),
        "",
        ("cpu", None, None),
        "A16: test-infra (linux-aarch64 builds CPU and CUDA only)",
    ),
    (
        "mi210-and-mi300x-kernel-6.4",
        host(
            amd("AMD Instinct MI210", "gfx90a"),
            amd("AMD Instinct MI300X", "gfx942", 1),
            kernel="6.12.12",
        ),
        "",
        ("rocm", "2.10.0", "rocm7.0"),
        "A17: AMD user/kernel-space matrix of 2025-09-17 (driver 6.4 runs ROCm 6.1-7.0)",
    ),
    (
        "apu-next-to-discrete-amd",
        host(
            amd("AMD Radeon 780M (Phoenix)", "gfx1103"),
            amd("Radeon RX 7900 XTX", "gfx1100", 1),
            kernel="6.16.13",
        ),
        "",
        ("rocm", "2.13.0", "rocm7.2"),
        "A11 transposed: the APU's GPU is the display's; rocm.toml 2.13 lists gfx1100",
    ),
    (
        "arc-a770",
        host(intel("Intel Arc A770", "12.55.8")),
        "",
        ("xpu", "2.13.0", "xpu"),
        "I1: pytorch.org get_start_xpu (Arc A validated); torch-xpu-ops AOT dg2 since 2.7",
    ),
    (
        "arc-a770-torch-2.4",
        host(intel("Intel Arc A770", "12.55.8")),
        "==2.4.1",
        "refused: +xpu wheels exist from torch 2.5",
        "I2: test-infra 788059361c9d (XPU added to the matrix after the 2.4 cut)",
    ),
    (
        "max-1550",
        host(intel("Intel Data Center GPU Max 1550", "12.60.7")),
        "",
        ("xpu", "2.13.0", "xpu"),
        "I5: torch-xpu-ops BuildFlags.cmake (pvc AOT in every Linux list since 2.5)",
    ),
    (
        "windows-meteor-lake",
        host(intel("Intel Arc Graphics (Meteor Lake-H)", "12.71.4"), os="windows"),
        "",
        ("xpu", "2.13.0", "xpu"),
        "I6: pytorch.org get_start_xpu (MTL-H validated on Windows)",
    ),
    (
        "arc-a770-without-level-zero",
        host(intel("Intel Arc A770", "12.55.8"), xpu=False),
        "",
        ("xpu", "2.13.0", "xpu"),
        "I8: pytorch .ci/manywheel/build_xpu.sh (wheels ship no Level Zero)",
    ),
    (
        "uhd-770-pre-arc",
        host(intel("Intel UHD Graphics 770", "12.2.0")),
        "",
        ("cpu", None, None),
        "I9: c10/xpu/XPUFunctions.cpp (older than intel_gpu_acm_g10: not supported)",
    ),
    (
        "nvidia-and-intel-igpu",
        host(RTX_4090, intel("Intel UHD Graphics 770", "12.2.0", 1), driver=NVIDIA_DRIVER),
        "",
        ("cuda", None, None),
        "I12: uv accelerator.rs (NVIDIA first)",
    ),
]


@pytest.mark.parametrize(
    ("document", "constraint", "expected"),
    [pytest.param(doc, con, exp, id=name) for name, doc, con, exp, _ in CASES],
)
def test_host_plans(
    document: dict[str, Any],
    constraint: str,
    expected: tuple[str, str | None, str | None] | str,
) -> None:
    profile = profile_from_json(document, "host.json")
    if isinstance(expected, str):
        with pytest.raises(NoVariantError) as caught:
            _plan(profile, constraint=constraint)
        assert caught.value.exit_code == 3
        assert expected.removeprefix("refused: ") in caught.value.render()
        return
    plan = _plan(profile, constraint=constraint)
    assert (plan.accelerator, plan.torch, plan.variant) == expected


def test_enough_hosts_with_sources() -> None:
    vendors = [
        {gpu["vendor"] for gpu in document["gpus"]} - {"nvidia"} for _, document, *_ in CASES
    ]
    assert sum("amd" in found for found in vendors) >= 12
    assert sum("intel" in found for found in vendors) >= 6
    assert all(source for *_, source in CASES)


def plan_of(name: str, constraint: str | None = None) -> Any:
    _, document, con, *_ = next(case for case in CASES if case[0] == name)
    profile = profile_from_json(document, "host.json")
    return _plan(profile, constraint=con if constraint is None else constraint)


def test_mixed_machine_names_the_gpu_it_leaves_out() -> None:
    (warning,) = map(str, plan_of("nvidia-and-amd-igpu").warnings)
    assert "serves its NVIDIA GPUs with CUDA builds" in warning
    assert "AMD Radeon Graphics (Raphael) (gfx1036) is not served" in warning


def test_mixed_machine_asking_for_rocm() -> None:
    _, document, *_ = next(case for case in CASES if case[0] == "nvidia-and-amd-igpu")
    profile = profile_from_json(document, "host.json")
    with pytest.raises(NoVariantError, match="HSA_OVERRIDE_GFX_VERSION"):
        _plan(profile, prefer="rocm")


def test_windows_amd_warning_explains_the_cpu_build() -> None:
    (warning,) = map(str, plan_of("windows-amd").warnings)
    assert "ROCm wheels for linux-x86_64 only, not windows-x86_64" in warning
    assert "CPU build" in warning


def test_unknown_kernel_driver_is_said() -> None:
    assert any(
        "in-tree" in warning for warning in map(str, plan_of("mi300x-in-tree-pinned").warnings)
    )


def test_mi50_names_the_releases_passed_over() -> None:
    warnings = " ".join(map(str, plan_of("mi50-dropped-by-rocm-6.4").warnings))
    assert "torch 2.13.0 (rocm7.1, rocm7.2) has no build for gfx906" in warnings


def test_kernel_driver_too_old_for_newer_rocm() -> None:
    warnings = " ".join(map(str, plan_of("mi210-and-mi300x-kernel-6.4").warnings))
    assert "does not run (it runs ROCm 6.1 to 7.0)" in warnings


def test_level_zero_missing_is_a_warning() -> None:
    warnings = " ".join(map(str, plan_of("arc-a770-without-level-zero").warnings))
    assert "Level Zero" in warnings


def test_no_gpu_is_the_cpu() -> None:
    profile = profile_from_json(host(), "host.json")
    assert _plan(profile).accelerator == "cpu"


def test_windows_names_its_machine_amd64_as_detect_does() -> None:
    # Windows' platform.machine() is AMD64; the +xpu wheels are published for it.
    meteor_lake = intel("Intel Arc Graphics (Meteor Lake-H)", "12.71.4")
    document = host(meteor_lake, os="windows", machine="AMD64")
    plan = _plan(profile_from_json(document, "host.json"))
    assert (plan.accelerator, plan.torch, plan.variant) == ("xpu", "2.13.0", "xpu")


def test_rocminfo_feature_flags_name_the_bare_target() -> None:
    # rocminfo prints gfx90a:sramecc+:xnack-; a build for gfx90a runs in either mode.
    document = host(amd("AMD Instinct MI250X", "gfx90a:sramecc+:xnack-"))
    profile = profile_from_json(document, "host.json")
    assert profile.gpus[0].gfx == "gfx90a"
    assert _plan(profile).accelerator == "rocm"


def test_an_unknown_gfx_is_refused_with_what_to_check() -> None:
    profile = profile_from_json(host(amd("AMD GPU", "gfx9999")), "host.json")
    with pytest.raises(NoVariantError) as caught:
        _plan(profile)
    assert "gfx9999 is in no ROCm build this version of poetry-cuda knows" in caught.value.fix
    assert caught.value.fix.endswith(
        "plan the CPU build with allow-cpu-fallback = true in [tool.poetry-cuda]"
    )


def test_a_refusal_names_only_the_gfx_a_release_lacks() -> None:
    gpus = [amd("AMD Instinct MI250X", "gfx90a", i) for i in range(32)]
    gpus += [amd("AMD GPU", "gfx9999", 32 + i) for i in range(32)]
    with pytest.raises(NoVariantError) as caught:
        _plan(profile_from_json(host(*gpus), "host.json"))
    assert caught.value.what.count("gfx90a") == 1  # each kind of GPU is named once
    assert "has no build for gfx9999;" in caught.value.why
    assert "gfx90a" not in caught.value.why + caught.value.fix
