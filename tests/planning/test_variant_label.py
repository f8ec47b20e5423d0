"""The label poetry-cuda chooses per target, against what NVIDIA's provider would pick."""

from __future__ import annotations

import json

from typing import Any

import pytest

from poetry_cuda.errors import NoVariantError
from poetry_cuda.host.profiles import profile_from_json
from poetry_cuda.planning.targets import settle
from poetry_cuda.planning.variant_label import choose_for_all
from poetry_cuda.planning.variant_label import choose_label
from poetry_cuda.planning.variant_label import provider_order
from poetry_cuda.planning.variant_label import provider_pick
from poetry_cuda.planning.variant_label import with_static
from poetry_cuda.planning.variant_lock import pick_variant
from poetry_cuda.planning.variant_metadata import parse_variants_json
from poetry_cuda.planning.variant_metadata import property_lines
from poetry_cuda.planning.variant_properties import answers
from poetry_cuda.planning.variant_properties import pinned
from poetry_cuda.planning.variant_properties import render
from tests.support.plans import KB
from tests.support.plans import linux_host
from tests.support.plans import plan_text
from tests.support.variant_world import TORCH_28
from tests.support.variant_world import TORCH_29
from tests.support.variant_world import TORCH_29_PEP850
from tests.support.variant_world import TORCH_210


def _metadata(document: dict[str, Any], version: str = "2.9.0") -> Any:
    return parse_variants_json(json.dumps(document).encode(), f"torch-{version}-variants.json")


def _release(series: str) -> Any:
    family = KB.family_of("torch")
    assert family is not None
    return next(r for r in family.releases if r.series == series)


# Drivers: 560.35.03 supports CUDA 12.6, 570.86.10 12.8, 580.65.06 13.0.
SINGLE = [
    ("h100-cuda12.8", "570.86.10", "9.0", "cuda12.8"),
    ("a6000-cuda13.0", "580.65.06", "8.6", "cuda13.0"),
    ("5090-cuda12.6", "560.35.03", "12.0", "cuda12.8"),  # minor-version compatibility
    ("1080-cuda12.8", "570.86.10", "6.1", "cuda12.6"),
    ("4090-cuda13.0", "580.65.06", "8.9", "cuda13.0"),
]


@pytest.mark.parametrize("document", [TORCH_29, TORCH_210, TORCH_29_PEP850])
@pytest.mark.parametrize(("name", "driver", "cc", "label"), SINGLE)
def test_single_gpu_hosts_get_what_the_provider_picks(
    document: dict[str, Any], name: str, driver: str, cc: str, label: str
) -> None:
    metadata = _metadata(document)
    target = linux_host(name, driver, cc)
    choice = choose_label(metadata, target, KB.nvidia, release=_release("2.9"), package="torch")
    assert choice.label == label
    assert provider_pick(metadata, target) == label
    assert not [line for line in map(str, choice.audit) if "installer picks" in line]


def test_no_gpu_gets_null() -> None:
    metadata = _metadata(TORCH_29)
    target = linux_host("cpu", None)
    choice = choose_label(metadata, target, KB.nvidia, release=_release("2.9"))
    assert choice.label == "null"
    assert "no NVIDIA driver" in str(choice.reason)
    assert provider_pick(metadata, target) == "null"


def test_torch_28_null_is_the_hash_era_label() -> None:
    metadata = _metadata(TORCH_28, "2.8.0")
    target = linux_host("cpu", None)
    assert choose_label(metadata, target, KB.nvidia, release=_release("2.8")).label == "00000000"


def test_4090_and_1080_get_the_build_that_serves_both() -> None:
    metadata = _metadata(TORCH_29)
    target = linux_host("4090+1080", "580.65.06", "8.9", "6.1")
    choice = choose_label(metadata, target, KB.nvidia, release=_release("2.9"), package="torch")
    assert choice.label == "cuda12.6"
    assert "sm_61 has SASS in cuda12.6 (its sm_60 build)" in str(choice.reason)
    assert provider_pick(metadata, target) == "cuda13.0"  # the highest GPU only
    assert any("installer picks cuda13.0" in line for line in map(str, choice.audit))
    verdicts = dict(choice.verdicts)
    assert not verdicts["cuda13.0"].ok
    assert "no SASS for sm_61" in str(verdicts["cuda13.0"].detail)


def test_the_published_lower_bound_is_audited() -> None:
    metadata = _metadata(TORCH_29)
    target = linux_host("h100", "570.86.10", "9.0")
    choice = choose_label(metadata, target, KB.nvidia, release=_release("2.9"), package="torch")
    assert any("cuda_version_lower_bound :: 12.0" in line for line in map(str, choice.audit))


def test_published_arches_that_disagree_are_audited_not_followed() -> None:
    document = json.loads(json.dumps(TORCH_29))
    document["variants"]["cuda12.8"]["nvidia"]["sm_arch"].append("61_real")
    metadata = _metadata(document)
    target = linux_host("1080", "570.86.10", "6.1")
    choice = choose_label(metadata, target, KB.nvidia, release=_release("2.9"), package="torch")
    assert choice.label == "cuda12.6"  # the knowledge base has no sm_61 in cu128
    assert provider_pick(metadata, target) == "cuda12.8"
    assert any(
        "publishes nvidia :: sm_arch" in line and "decides" in line
        for line in map(str, choice.audit)
    )


def test_a_label_the_knowledge_base_lacks_is_judged_by_its_properties() -> None:
    metadata = _metadata(TORCH_29)
    target = linux_host("h100", "570.86.10", "9.0")
    choice = choose_label(metadata, target, KB.nvidia, release=None)
    assert choice.label == "cuda12.8"
    assert any("not in the knowledge base" in line for line in map(str, choice.audit))


def test_no_label_serves_an_old_gpu() -> None:
    metadata = _metadata(TORCH_29)
    target = linux_host("k80", "570.86.10", "3.7")
    with pytest.raises(NoVariantError, match="no variant label serves k80") as raised:
        choose_label(metadata, target, KB.nvidia, release=_release("2.9"))
    assert raised.value.exit_code == 3


@pytest.mark.parametrize("document", [TORCH_29, TORCH_210, TORCH_29_PEP850])
@pytest.mark.parametrize(
    ("gpus", "driver", "label"),
    [
        (("8.9", "6.1"), "580.65.06", "cuda12.6"),
        (("9.0",), "570.86.10", "cuda12.8"),
        (("8.6",), "580.65.06", "cuda13.0"),
        (("12.0",), "560.35.03", "cuda12.8"),
    ],
)
def test_pinned_properties_make_the_chosen_label_rank_first(
    document: dict[str, Any], gpus: tuple[str, ...], driver: str, label: str
) -> None:
    metadata = _metadata(document)
    target = linux_host("host", driver, *gpus)
    choice = choose_for_all(metadata, [target], KB.nvidia, release=_release("2.9"))
    assert choice.label == label
    supported = pinned(metadata, label, [target])
    assert provider_order(metadata, with_static(metadata, supported))[0] == label


def test_the_file_for_the_mixed_host() -> None:
    metadata = _metadata(TORCH_29)
    target = linux_host("4090+1080", "580.65.06", "8.9", "6.1")
    supported = pinned(metadata, "cuda12.6", [target])
    text = render(answers(metadata, supported, target), "poetry-cuda 0", ["for 4090+1080"])
    assert text == (
        "# for 4090+1080\n"
        "[metadata]\n"
        'created-by = "poetry-cuda 0"\n'
        'version = "0.1"\n'
        "\n"
        "[[provider]]\n"
        'namespace = "nvidia"\n'
        'plugin-api = "nvidia_variant_provider.plugin:NvidiaVariantPlugin"\n'
        'resolved = ["nvidia-variant-provider==0.0.2"]\n'
        "\n"
        "[provider.properties]\n"
        'cuda_version_lower_bound = ["12.0"]\n'
        'sm_arch = ["60_real", "80_real", "86_real"]\n'
        "\n"
        "[[provider]]\n"
        'namespace = "intel"\n'
        'plugin-api = "intel_variant_provider.plugin:IntelVariantPlugin"\n'
        'resolved = ["intel-variant-provider==0.0.2"]\n'
        "\n"
        "[provider.properties]\n"
        "\n"
        "[[provider]]\n"
        'namespace = "amd"\n'
        'plugin-api = "amd_variant_provider.plugin:AMDVariantPlugin"\n'
        'resolved = ["amd-variant-provider==0.0.2"]\n'
        "\n"
        "[provider.properties]\n"
        "\n"
        "[[provider]]\n"
        'namespace = "priority"\n'
        "resolved = []\n"
        "\n"
        "[provider.properties]\n"
        'order = ["3"]\n'
    )


def test_a_mixed_fleet_gets_one_label_for_every_target() -> None:
    metadata = _metadata(TORCH_29)
    targets = [linux_host("h100", "570.86.10", "9.0"), linux_host("1080", "570.86.10", "6.1")]
    choice = choose_for_all(metadata, targets, KB.nvidia, release=_release("2.9"))
    assert choice.label == "cuda12.6"


@pytest.mark.parametrize(
    ("name", "driver", "cc", "said", "unsaid"),
    [
        ("h100", "570.86.10", "9.0", "h100's driver (CUDA 12.8) runs it natively", "runs it only"),
        (
            "5090",
            "560.35.03",
            "12.0",
            "5090's driver (CUDA 12.6) runs it only through minor-version compatibility",
            "natively",
        ),
    ],
)
def test_the_lower_bound_audit_says_native_or_minor_compatible_as_the_driver_runs_it(
    name: str, driver: str, cc: str, said: str, unsaid: str
) -> None:
    """Issue 39 item 5: cuda12.8 publishes a lower bound of 12.0; a 12.8 driver runs it
    natively (SPEC, Selection rules), a 12.6 one only through minor-version compatibility."""
    metadata = _metadata(TORCH_29)
    target = linux_host(name, driver, cc)
    choice = choose_label(metadata, target, KB.nvidia, release=_release("2.9"), package="torch")
    assert choice.label == "cuda12.8"
    [line] = [line for line in map(str, choice.audit) if "cuda_version_lower_bound" in line]
    assert said in line
    assert unsaid not in line


MI300X = {"name": "AMD Instinct MI300X", "vendor": "amd", "gfx": "gfx942"}
ARC_B580 = {"name": "Intel Arc B580", "vendor": "intel", "device_ip": "20.1.0"}


def _stack_host(label: str, gpu: dict[str, str]) -> Any:
    document = {"schema": 2, "os": "linux", "machine": "x86_64", "gpus": [gpu]}
    if gpu["vendor"] == "amd":
        document["rocm"] = {"kernel_driver": "6.16.13", "source": "kfd"}
    else:
        document["xpu"] = {"driver": "1.6.32224", "source": "level-zero"}
    return settle(profile_from_json(document, label), KB.nvidia)[0]


@pytest.mark.parametrize(
    ("gpu", "variant"), [(MI300X, "rocm7.1"), (ARC_B580, "xpu")], ids=["mi300x", "arc-b580"]
)
def test_lock_records_the_label_of_the_rocm_or_xpu_build_the_plan_chose(
    gpu: dict[str, str], variant: str
) -> None:
    """Issue 39 item 5: `lock`'s label (`pick_variant`) of an AMD or Intel target is the
    plan's build, so the build is kept, not passed over for want of a variant wheel."""
    target = _stack_host("host", gpu)
    project = (
        '[project]\nname = "demo"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n'
        'dependencies = ["torch==2.10.0"]\n'
    )
    choice = plan_text(project, [target]).plan.choice("torch")
    assert choice is not None
    assert choice.variant == variant
    pick = pick_variant(
        choice, _metadata(TORCH_210, "2.10.0"), [target], KB.nvidia, release=None, policy="newest"
    )
    assert (pick.label, pick.matches) == (variant, True)
    assert pick.properties == property_lines(TORCH_210["variants"][variant])


def test_a_planned_build_without_its_label_is_said_not_given_the_cpu_label() -> None:
    """Issue 39 item 5: torch 2.9's metadata has rocm6.4 but no rocm7.1."""
    target = _stack_host("mi300x", MI300X)
    with pytest.raises(NoVariantError, match=r"no variant label for rocm7\.1") as raised:
        choose_label(
            _metadata(TORCH_29), target, KB.nvidia, release=None, stacks={"mi300x": "rocm7.1"}
        )
    assert raised.value.exit_code == 3


def test_a_rocm_label_whose_published_gfx_leaves_out_the_gpu_is_audited_and_still_pinned() -> None:
    """The knowledge base decides: the plan's rocm7.1 serves gfx942; metadata that does not
    list it is audited, and the static properties still make an installer take rocm7.1."""
    document = json.loads(json.dumps(TORCH_210))
    document["variants"]["rocm7.1"]["amd"]["gfx_arch"].remove("gfx942")
    metadata = _metadata(document, "2.10.0")
    target = _stack_host("mi300x", MI300X)
    choice = choose_for_all(
        metadata, [target], KB.nvidia, release=None, stacks={"mi300x": "rocm7.1"}
    )
    assert choice.label == "rocm7.1"
    assert any("without gfx942 of mi300x" in line for line in map(str, choice.audit))
    supported = pinned(metadata, "rocm7.1", [target])
    assert provider_order(metadata, with_static(metadata, supported))[0] == "rocm7.1"
