"""The accelerator seam in planning: CUDA planned as before, torch's ROCm and XPU builds for AMD
and Intel GPUs, and the GPUs no family's plan serves named, not hidden."""

from __future__ import annotations

from typing import Any

from poetry_cuda.host.profiles import profile_from_json
from poetry_cuda.planning.targets import distinct
from poetry_cuda.planning.targets import settle
from tests.support.plans import KB
from tests.support.plans import linux_host
from tests.support.plans import plan_text


TORCH = '[project]\nname = "p"\nversion = "0"\ndependencies = ["torch==2.5.1"]\n'
CUPY = '[project]\nname = "p"\nversion = "0"\ndependencies = ["cupy-cuda12x"]\n'
MI250X = {"name": "AMD Instinct MI250X", "vendor": "amd", "gfx": "gfx90a"}
MAX_1550 = {"name": "Intel Data Center GPU Max 1550", "vendor": "intel", "device_ip": "12.60.7"}


def host(label: str, *gpus: dict[str, Any], **fields: Any) -> Any:
    document = {"schema": 2, "os": "linux", "machine": "x86_64", "gpus": list(gpus), **fields}
    return settle(profile_from_json(document, label), KB.nvidia)


def test_an_amd_only_host_gets_torchs_rocm_build() -> None:
    target, warnings = host("mi250x.json", MI250X, rocm={"version": "6.4.1", "source": "kfd"})
    assert target.accelerator == "cpu"  # what every family is planned for
    assert not target.runs_cuda
    assert target.unplanned_gpus == target.profile.gpus
    assert warnings == []  # the plan says what it made of the GPU
    planned = plan_text(TORCH, [target])
    torch = planned.plan.choice("torch")
    assert torch is not None
    # torch 2.5's ROCm builds are rocm6.1 and rocm6.2, both with gfx90a (rocm.toml).
    assert (torch.variant, torch.accelerator, torch.version) == ("rocm6.2", "rocm", "2.5.1+rocm6.2")
    assert torch.source.url == "https://download.pytorch.org/whl/rocm6.2"
    assert "AMD Instinct MI250X (gfx90a)" in str(torch.reason)
    assert "gfx90a" in torch.arches
    assert not any(
        "does not plan" in w or "plans only" in w for w in map(str, planned.plan.warnings)
    )


def test_an_amd_gpu_no_family_plans_for_is_named() -> None:
    target, _ = host("mi250x.json", MI250X)
    plan = plan_text(CUPY, [target]).plan
    (warning,) = [w for w in map(str, plan.warnings) if "needs ROCm builds" in w]
    assert warning.startswith("mi250x.json: AMD Instinct MI250X (gfx90a) needs ROCm builds")
    assert "the torch family" in warning


def test_an_intel_gpu_beside_an_nvidia_one_is_named_and_cuda_is_planned() -> None:
    nvidia = {"name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}
    target, warnings = host("mixed.json", nvidia, MAX_1550, driver={"version": "550.54.14"})
    assert target.accelerator == "cuda"
    assert [gpu.name for gpu in target.unplanned_gpus] == [MAX_1550["name"]]
    assert warnings == []
    planned = plan_text(TORCH, [target]).plan
    torch = planned.choice("torch")
    assert torch is not None
    assert (torch.variant, torch.accelerator) == ("cu124", "cuda")
    assert (
        "mixed.json: Intel Data Center GPU Max 1550 (12.60.7) needs XPU builds, which "
        "poetry-cuda plans only for the torch family on a machine without an NVIDIA driver; "
        "the plan gives this target CUDA builds"
    ) in planned.warnings


def test_cuda_targets_are_planned_as_before() -> None:
    target = linux_host("rtx4090.json", "550.54.14", "8.9")
    assert target.accelerator == "cuda"
    assert target.unplanned_gpus == ()
    document = plan_text(TORCH, [target]).plan.to_json()
    torch = document["packages"][0]
    assert (torch["variant"], torch["accelerator"], torch["cuda"]) == ("cu124", "cuda", "12.4")


def test_plan_json_says_cpu_for_a_cpu_build() -> None:
    document = plan_text(TORCH, [linux_host("ci.json", None)]).plan.to_json()
    assert {p["accelerator"] for p in document["packages"]} == {"cpu"}


def test_hosts_that_differ_only_in_their_amd_gpus_stay_two_targets() -> None:
    a, _ = host("a.json", MI250X)
    b, _ = host("b.json", {**MI250X, "gfx": "gfx942"})
    c, _ = host("c.json", {**MI250X, "index": 3})
    assert [t.label for t in distinct([a, b, c])] == ["a.json", "b.json"]
