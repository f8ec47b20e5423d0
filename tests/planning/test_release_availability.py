"""Availability per point release, platform and Python: the plans issue 29 found wrong.

Each expectation is derived from the knowledge base's own rows (which cite their sources)
or from the published fact named beside it, not from running the planner.
"""

from __future__ import annotations

import dataclasses

from typing import Any

import pytest

from poetry_cuda.backends.readers import READERS
from poetry_cuda.errors import NoVariantError
from poetry_cuda.host.profiles import profile_from_json
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.planning.assemble import make_plan
from poetry_cuda.planning.candidates import Unavailable
from poetry_cuda.planning.candidates import python_gap
from poetry_cuda.planning.plan import PYPI
from poetry_cuda.planning.plan import Choice
from poetry_cuda.planning.plan import Plan
from poetry_cuda.planning.targets import settle
from poetry_cuda.planning.toolkit_wheels import additions
from poetry_cuda.request.dependencies import read_dependencies
from poetry_cuda.request.handwritten import recognise
from poetry_cuda.request.python import project_python
from poetry_cuda.request.settings import Settings
from poetry_cuda.request.settings import parse_settings
from poetry_cuda.versions import CudaVersion


KB = load()
TORCH = next(f for f in KB.families if f.name == "torch")


def _host(os: str, machine: str, driver: str, *gpus: str) -> dict[str, Any]:
    return {
        "os": os,
        "machine": machine,
        "driver": {"version": driver},
        "gpus": [{"compute_capability": g} for g in gpus],
    }


GTX1080_580 = _host("linux", "x86_64", "580.95.05", "6.1")
RTX4090_575 = _host("linux", "x86_64", "575.64.03", "8.9")
RTX5090_570 = _host("linux", "x86_64", "570.124.06", "12.0")
RTX5090_580 = _host("linux", "x86_64", "580.95.05", "12.0")
GH200_570 = _host("linux", "aarch64", "570.124.06", "9.0")


def plan(
    deps: list[str],
    doc: dict[str, Any],
    *,
    python: str | None = None,
    unavailable: tuple[Unavailable, ...] = (),
    **changes: Any,
) -> Plan:
    target, _ = settle(profile_from_json(dict(doc), "t"), KB.nvidia)
    settings = dataclasses.replace(Settings(), **changes)
    pyproject: dict[str, Any] = {"project": {"dependencies": deps}}
    hand = recognise(pyproject, KB.families, settings.mirrors, READERS)
    return make_plan(
        read_dependencies(pyproject, READERS),
        [target],
        settings,
        KB,
        hand,
        python=python,
        unavailable=unavailable,
    )


def versions(result: Plan) -> dict[str, str | None]:
    return {c.name: c.version for c in result.packages}


def _release(series: str) -> Any:
    return next(r for r in TORCH.releases if r.series == series)


# -- torchaudio 2.11.0 and torchvision 0.29.1 are stable-ABI builds ---------------------------


def test_torch_2_13_with_torchaudio_on_a_gtx_1080_gets_the_stable_abi_torchaudio() -> None:
    # Was exit 3: torchaudio was modelled as pinned to torch 2.11.0. Its 2.11.0 wheels
    # declare no Requires-Dist (PyPI METADATA) and support torch>=2.11 (pytorch/audio #4212).
    result = plan(["torch==2.13.0", "torchvision", "torchaudio"], GTX1080_580)
    assert versions(result) == {
        "torch": "2.13.0+cu126",
        "torchvision": "0.28.0+cu126",
        "torchaudio": "2.11.0+cu126",
    }
    audio = result.choice("torchaudio")
    assert audio is not None and audio.availability is not None
    assert "requires torch>=2.11" in audio.availability.fact
    assert "with torch 2.11" in audio.availability.fact


def test_torch_2_12_to_2_14_with_torchaudio_on_r575() -> None:
    # Was exit 3. On a 12.9 driver the 13.x builds need 580; 2.14's cu126 runs (sm_86 SASS
    # serves 8.9) and torchaudio 2.11.0 is on the cu126 index.
    result = plan(["torch>=2.12,<2.15", "torchaudio"], RTX4090_575)
    assert versions(result) == {"torch": "2.14.1+cu126", "torchaudio": "2.11.0+cu126"}


def test_unpinned_torch_family_on_pascal_gets_2_14_1() -> None:
    # Was 2.11.0. The newest release with a Pascal build is 2.14 (cu126, sm_60 SASS).
    result = plan(["torch", "torchvision", "torchaudio"], GTX1080_580)
    assert versions(result) == {
        "torch": "2.14.1+cu126",
        "torchvision": "0.29.1+cu126",
        "torchaudio": "2.11.0+cu126",
    }
    assert any(w.startswith("torch 2.15 passed over: ") for w in map(str, result.warnings))


def test_torchvision_0_29_1_serves_torch_2_14_0() -> None:
    # torchvision 0.29.1 declares torch (>=2.14.0) in its METADATA, so torch 2.14.0 may use it.
    result = plan(["torch==2.14.0", "torchvision"], GTX1080_580)
    assert versions(result) == {"torch": "2.14.0+cu126", "torchvision": "0.29.1+cu126"}


# -- cu129 of 2.12 exists for 2.12.1 only; 2.8 has no cu128 aarch64 build ---------------------


def test_torch_2_12_0_has_no_cu129_build() -> None:
    cu129 = _release("2.12").variant("cu129")
    assert cu129 is not None and cu129.versions == ("2.12.1",)
    # On a 12.8 driver only cu129 would serve sm_120 (cu126 lacks it, 13.x need 580).
    with pytest.raises(NoVariantError) as raised:
        plan(["torch==2.12.0"], RTX5090_570)
    text = raised.value.render()
    assert "cu126 (torch 2.12.0)" in text
    assert "cu129 (torch 2.12.0)" not in text  # never a candidate
    result = plan(["torch==2.12.*"], RTX5090_570)
    assert versions(result) == {"torch": "2.12.1+cu129"}


def test_gh200_with_torch_2_8_gets_the_cu129_aarch64_build() -> None:
    cu128 = _release("2.8").variant("cu128")
    assert cu128 is not None and "linux-aarch64" not in cu128.platforms
    # Policy native: cu129 needs a 12.9 driver, and 2.8 has no other aarch64 CUDA build.
    with pytest.raises(NoVariantError):
        plan(["torch==2.8.0"], GH200_570, policy="native")
    result = plan(["torch==2.8.0"], GH200_570)
    assert versions(result) == {"torch": "2.8.0+cu129"}


# -- Requires-Python of each release against the project's requires-python ----------------


def test_a_project_admitting_3_10_gets_the_newest_release_it_can_install() -> None:
    assert _release("2.15").requires_python == ">=3.11"  # PyPI torch 2.15.0 METADATA
    newest = plan(["torch"], RTX5090_580, python=">=3.11")
    assert versions(newest) == {"torch": "2.15.0+cu132"}
    result = plan(["torch"], RTX5090_580, python=">=3.10")
    assert versions(result) == {"torch": "2.14.1+cu132"}
    torch = result.choice("torch")
    assert torch is not None and torch.bound == "<2.15.0"
    (passed,) = [w for w in map(str, result.warnings) if "passed over" in w]
    assert passed.startswith("torch 2.15 passed over: torch 2.15.0 requires Python >=3.11")
    assert "admits 3.10" in passed and "narrow requires-python" in passed


def test_poetry_caret_python_is_read_too() -> None:
    result = plan(["torch"], RTX5090_580, python="^3.10")
    assert versions(result) == {"torch": "2.14.1+cu132"}


def test_only_releases_the_project_python_excludes_tells_to_narrow_it() -> None:
    with pytest.raises(NoVariantError) as raised:
        plan(["torch>=2.15"], RTX5090_580, python=">=3.10,<3.13")
    text = raised.value.render()
    assert "requires Python >=3.11" in text
    assert "narrow the project's requires-python" in text


def test_a_cpu_plan_also_passes_over_what_the_python_excludes() -> None:
    doc = {"os": "linux", "machine": "x86_64"}
    result = plan(["torch"], doc, python=">=3.10")
    assert versions(result) == {"torch": "2.14.1+cpu"}
    assert any(
        w.startswith("torch 2.15 passed over: torch 2.15.0 requires")
        for w in map(str, result.warnings)
    )


@pytest.mark.parametrize(
    ("package", "project", "gap"),
    [
        (">=3.11", ">=3.10", ("3.10",)),
        (">=3.11", ">=3.11,<3.14", ()),
        (">=3.10", "^3.9", ("3.9",)),
        (">=3.9.0", ">=3.8,<3.10", ("3.8",)),
        (None, ">=3.8", ()),
        (">=3.11", None, ()),
    ],
)
def test_python_gap(package: str | None, project: str | None, gap: tuple[str, ...]) -> None:
    assert python_gap(package, project) == gap


def test_project_python_reads_pep_621_then_poetry() -> None:
    assert project_python({"project": {"requires-python": ">=3.10"}}) == ">=3.10"
    poetry = {"tool": {"poetry": {"dependencies": {"python": "^3.11"}}}}
    assert project_python(poetry) == "^3.11"
    assert project_python({"project": {"name": "x"}}) is None


# -- a build an index lacks is passed over (lock's index check) -----------------------------


def test_an_unavailable_build_falls_back_to_the_same_variants_older_version() -> None:
    result = plan(["torch"], GTX1080_580, unavailable=(("torch", "2.14.1", "cu126"),))
    assert versions(result) == {"torch": "2.14.0+cu126"}
    both = (("torch", "2.14.1", "cu126"), ("torch", "2.14.0", "cu126"))
    assert versions(plan(["torch"], GTX1080_580, unavailable=both)) == {"torch": "2.13.0+cu126"}


# -- plan --json names each package's Requires-Python and availability ---------------------


def test_the_plan_json_carries_requires_python_and_the_availability_fact() -> None:
    result = plan(["torch==2.12.*", "torchvision"], RTX5090_570)
    torch, vision = result.to_json()["packages"]
    assert torch["requires_python"] == _release("2.12").requires_python == ">=3.10"
    cu129 = _release("2.12").variant("cu129")
    assert cu129 is not None
    assert torch["availability"] == {
        "fact": "torch 2.12.1+cu129 is published for linux-x86_64, linux-aarch64 (2.12.1 only)",
        "source": cu129.source,
        "confidence": cu129.confidence,
    }
    assert vision["requires_python"] is None  # not held for the members
    assert vision["availability"]["fact"] == (
        "torchvision 0.27.1+cu129 is published with torch 2.12.1"
    )


def test_toolkit_wheels_for_cuda_13_4_pin_cccl_on_its_line() -> None:
    choice = Choice("torch", "torch", "cu134", CudaVersion.parse("13.4"), PYPI, None, (), "")
    settings = parse_settings({"tool": {"poetry-cuda": {"toolkit": "wheels"}}})
    added, _ = additions(Plan("newest", ("t",), (choice,), (), ()), settings, KB)
    assert {a.name: a.spec for a in added} == {
        "nvidia-cuda-nvcc": "==13.4.*",
        "nvidia-nvvm": "==13.4.*",
        "nvidia-cuda-crt": "==13.4.*",
        "nvidia-cuda-runtime": "==13.4.*",
        "nvidia-cuda-cccl": "==13.3.4.*",
    }
