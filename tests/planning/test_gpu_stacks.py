"""The torch family's ROCm and XPU builds in plans: the choice shown like a CUDA one, its
index or the family's mirror, the refusals (an APU without override, a team one build
cannot serve), and the CPU build where no ROCm wheel is published."""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.errors import NoVariantError
from poetry_cuda.files import parse_toml
from poetry_cuda.host.profiles import profile_from_json
from poetry_cuda.planning.gpu_stacks import stack_refusal
from poetry_cuda.planning.targets import settle
from poetry_cuda.request.settings import parse_settings
from tests.support.plans import KB
from tests.support.plans import STACKS
from tests.support.plans import linux_host
from tests.support.plans import plan_text


if TYPE_CHECKING:
    from poetry_cuda.planning.plan import Plan
    from poetry_cuda.planning.targets import Target


def project(constraint: str = "", extra: str = "") -> str:
    return (
        '[project]\nname = "p"\nversion = "0"\n'
        f'dependencies = ["torch{constraint}", "torchvision"]\n{extra}'
    )


def target(label: str, *gpus: dict[str, Any], kernel: str | None = None, **fields: Any) -> Target:
    document: dict[str, Any] = {"schema": 2, "os": "linux", "machine": "x86_64", **fields}
    document["gpus"] = [{"index": i, **gpu} for i, gpu in enumerate(gpus)]
    if kernel is not None:
        document["rocm"] = {"kernel_driver": kernel, "source": "kfd"}
    return settle(profile_from_json(document, label), KB.nvidia)[0]


def amd(name: str, gfx: str) -> dict[str, Any]:
    return {"name": name, "vendor": "amd", "gfx": gfx}


MI250X = amd("AMD Instinct MI250X", "gfx90a")
RX_7900 = amd("Radeon RX 7900 XTX", "gfx1100")


def plan(text: str, *targets: Target) -> Plan:
    settings = parse_settings(parse_toml(text))
    return plan_text(text, targets, mirrors=settings.mirrors, cuda=settings.cuda).plan


def test_a_gfx90a_and_a_gfx1100_host_share_torchs_rocm6_4_build() -> None:
    # rocm.toml: 2.9's builds are rocm6.3 and rocm6.4, both listing gfx90a and gfx1100
    # (pytorch/test-infra 06789010bfc6); the highest ROCm of the release wins.
    chosen = plan(project(">=2.8,<2.10"), target("mi250x", MI250X), target("rx7900", RX_7900))
    torch, vision, triton = chosen.packages
    assert (torch.name, torch.version, torch.accelerator) == ("torch", "2.9.1+rocm6.4", "rocm")
    # rocm.toml [[triton]]: torch < 2.10's ROCm wheels depend on pytorch-triton-rocm, which
    # only the ROCm index serves.
    assert (triton.name, triton.source, triton.label) == ("pytorch-triton-rocm", torch.source, "")
    assert (vision.name, vision.version, vision.label) == (
        "torchvision",
        "0.24.1+rocm6.4",
        "+rocm6.4",
    )
    assert torch.source.name == "pytorch-rocm6.4"
    assert torch.source.url == "https://download.pytorch.org/whl/rocm6.4"
    assert {"gfx90a", "gfx1100"} <= set(torch.arches)
    assert torch.cuda is None and torch.bound == ""
    assert "AMD Instinct MI250X (gfx90a), Radeon RX 7900 XTX (gfx1100)" in str(torch.reason)
    assert not any("CPU builds only" in w for w in map(str, chosen.warnings))


def test_a_driver_that_runs_an_older_rocm_bounds_the_pins() -> None:
    # amdgpu module 6.12 is driver 6.4, which runs ROCm 6.1 to 7.0 (AMD's compatibility
    # matrix): torch 2.10's rocm7.0 is the newest build it runs; 2.11 (rocm7.1/7.2) is not.
    chosen = plan(project(), target("rx7900", RX_7900, kernel="6.12.12"))
    torch = chosen.packages[0]
    assert (torch.variant, torch.version, torch.bound) == ("rocm7.0", "2.10.0+rocm7.0", "<2.11.0")
    assert any("newer torch passed over" in w for w in map(str, chosen.warnings))


def test_the_mirror_template_serves_the_rocm_variant() -> None:
    mirrors = '[tool.poetry-cuda.mirrors]\npytorch = "https://mirror.example/torch/{variant}/"\n'
    torch = plan(project("==2.9.1", mirrors), target("mi250x", MI250X)).packages[0]
    assert torch.source.url == "https://mirror.example/torch/rocm6.4/"
    assert torch.source.name.startswith("pytorch-rocm6.4")
    assert torch.source.name != "pytorch-rocm6.4"  # a mirror never shares the index's name


def test_an_apu_without_override_is_refused_with_the_workaround() -> None:
    # rocm.toml [[unserved]] gfx1036: in no pytorch.org ROCm wheel; HSA_OVERRIDE 10.3.0.
    raphael = amd("AMD Radeon Graphics (Raphael)", "gfx1036")
    with pytest.raises(NoVariantError) as refused:
        plan(project(), target("desktop", raphael))
    assert refused.value.exit_code == 3
    assert "no pytorch.org ROCm build of torch serves" in refused.value.what
    assert "HSA_OVERRIDE_GFX_VERSION=10.3.0" in refused.value.fix


def test_allow_cpu_fallback_gives_the_apu_the_cpu_build() -> None:
    raphael = amd("AMD Radeon Graphics (Raphael)", "gfx1036")
    chosen = plan_text(project(), [target("desktop", raphael)], allow_cpu_fallback=True).plan
    assert chosen.packages[0].variant == "cpu"
    assert any("allow-cpu-fallback = true" in w for w in map(str, chosen.warnings))


def test_nvidia_and_amd_targets_in_one_lock_are_refused() -> None:
    nvidia = linux_host("rtx4090", "550.54.14", "8.9")
    with pytest.raises(NoVariantError) as refused:
        plan(project("==2.9.1"), nvidia, target("mi250x", MI250X))
    error = refused.value
    assert error.exit_code == 3
    assert error.what == "no one build of torch serves every target"
    assert "mi250x needs torch 2.9.1+rocm6.4" in error.why
    assert "rtx4090 needs a CUDA build" in error.why
    assert "multi-variant" in error.fix
    assert "没有一个 torch 版本能服务所有目标主机" in error.render("zh")


def test_amd_targets_that_need_different_builds_are_refused() -> None:
    # gfx906's kernels are gone from rocBLAS from ROCm 6.4 on (rocm.toml [[library_gap]]),
    # so the MI50 host stops at 2.9.1+rocm6.3 while the MI300X host gets the newest build.
    mi50 = target("mi50", amd("AMD Instinct MI50", "gfx906"), kernel="6.12.12")
    mi300 = target("mi300x", amd("AMD Instinct MI300X", "gfx942"), kernel="6.16.13")
    with pytest.raises(NoVariantError, match="no one build of torch") as refused:
        plan(project(), mi50, mi300)
    assert "mi50 needs torch 2.9.1+rocm6.3" in refused.value.why


def test_a_cpu_only_linux_target_beside_an_amd_one_installs_the_rocm_build() -> None:
    chosen = plan(project("==2.9.1"), target("mi250x", MI250X), linux_host("ci", None))
    assert chosen.packages[0].version == "2.9.1+rocm6.4"


def test_a_windows_target_beside_an_amd_one_is_refused() -> None:
    # rocm.toml [index]: the ROCm wheels are linux-x86_64 only, so Windows cannot share them.
    windows = target("win", os="windows")
    with pytest.raises(NoVariantError, match="no one build of torch") as refused:
        plan(project("==2.9.1"), target("mi250x", MI250X), windows)
    assert "win needs a CPU build (no rocm6.4 wheels for windows-x86_64)" in refused.value.why


def test_a_macos_laptop_beside_an_amd_target_keeps_pypis_build() -> None:
    laptop = target("mac", os="macos", machine="arm64")
    assert plan(project("==2.9.1"), target("mi250x", MI250X), laptop).packages[0].variant == (
        "rocm6.4"
    )


def test_windows_amd_gets_the_cpu_build_with_the_reason() -> None:
    # rocm.toml [index]: pytorch.org's ROCm wheels are linux-x86_64 only.
    chosen = plan(project("==2.9.1"), target("win", RX_7900, os="windows"))
    torch = chosen.packages[0]
    assert (torch.variant, torch.accelerator) == ("cpu", "cpu")
    assert any(
        "publishes ROCm wheels for linux-x86_64 only" in w for w in map(str, chosen.warnings)
    )


def test_cpu_asked_for_keeps_the_cpu_build_on_an_amd_host() -> None:
    text = project("==2.9.1", '[tool.poetry-cuda]\ncuda = "cpu"\n')
    torch = plan(text, target("mi250x", MI250X)).packages[0]
    assert torch.variant == "cpu"


def test_an_intel_arc_host_gets_the_xpu_build() -> None:
    # xpu.toml: +xpu wheels on download.pytorch.org/whl/xpu; Arc A770 is device IP 12.55.
    arc = {"name": "Intel Arc A770", "vendor": "intel", "device_ip": "12.55.8"}
    xpu = {"driver": "1.6.32224", "source": "level-zero"}
    chosen = plan(project("==2.10.0"), target("arc", arc, xpu=xpu))
    torch, vision, triton = chosen.packages
    assert (torch.version, torch.accelerator) == ("2.10.0+xpu", "xpu")
    assert vision.version == "0.25.0+xpu"
    assert (triton.name, triton.source) == ("triton-xpu", torch.source)
    assert torch.source.url == "https://download.pytorch.org/whl/xpu"
    assert "Intel Arc A770 (12.55.8)" in str(torch.reason)


def test_the_mirror_template_serves_the_xpu_variant() -> None:
    mirrors = '[tool.poetry-cuda.mirrors]\npytorch = "https://mirror.example/torch/{variant}/"\n'
    arc = {"name": "Intel Arc A770", "vendor": "intel", "device_ip": "12.55.8"}
    xpu = {"driver": "1.6.32224", "source": "level-zero"}
    torch, _, triton = plan(project("==2.10.0", mirrors), target("arc", arc, xpu=xpu)).packages
    assert torch.source.url == "https://mirror.example/torch/xpu/"
    assert triton.source == torch.source


def test_the_reason_names_only_the_gpus_the_build_serves() -> None:
    # An APU's GPU beside a discrete one is left out (a warning says so): the reason, which
    # names the GPUs the build is for, names the discrete GPU alone, once for many of it.
    raphael = amd("AMD Radeon Graphics (Raphael)", "gfx1036")
    host = target("workstation", *[RX_7900] * 8, raphael)
    chosen = plan(project(">=2.8,<2.10"), host)
    reason = str(chosen.packages[0].reason)
    assert reason.startswith("Radeon RX 7900 XTX (gfx1100): rocm6.4 is built for"), reason
    left_out = (
        "workstation: the plan serves its GPUs with ROCm builds; "
        "AMD Radeon Graphics (Raphael) (gfx1036) is not served"
    )
    assert [str(w) for w in chosen.warnings if "gfx1036" in str(w)] == [left_out]


MI50 = amd("AMD Instinct MI50", "gfx906")


def test_a_forks_rocm_build_is_judged_by_the_gpus_gfx() -> None:
    """A fork's ROCm build serves an AMD GPU only where the knowledge lists its gfx for the
    build; a build the knowledge does not describe is left to the GPU's vendor."""
    mi50, mi250x = target("mi50", MI50), target("mi250x", MI250X)
    refused = stack_refusal(mi50, "2.9.1", "rocm6.4", STACKS)
    assert refused is not None
    assert (
        refused.what
        == "torch 2.9.1+rocm6.4 does not serve the GPUs here: AMD Instinct MI50 (gfx906)"
    )
    assert refused.why == "2.9.1+rocm6.4 is not built for gfx906; 2.9.1+rocm6.3 is"
    assert "2.9.1+rocm6.3" in refused.fix
    assert stack_refusal(mi50, "2.9.1", "rocm6.3", STACKS) is None
    assert stack_refusal(mi250x, "2.9.1", "rocm6.4", STACKS) is None
    assert stack_refusal(mi50, "9.9.0", "rocm9.9", STACKS) is None  # not in the knowledge
    # amdgpu module 6.12 runs ROCm 6.1 to 7.0: torch 2.10's rocm7.0 build, not its rocm7.1.
    rx7900 = target("rx7900", RX_7900, kernel="6.12.12")
    refused = stack_refusal(rx7900, "2.10.0", "rocm7.1", STACKS)
    assert refused is not None
    assert refused.why == (
        "the amdgpu kernel driver here cannot run 2.10.0+rocm7.1; it runs 2.10.0+rocm7.0"
    )
    assert stack_refusal(rx7900, "2.10.0", "rocm7.0", STACKS) is None
