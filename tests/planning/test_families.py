"""Selection against the shipped knowledge base.

Expected answers come from the published facts (PyTorch's build matrix and
TORCH_CUDA_ARCH_LIST per variant, NVIDIA's driver tables), not from running the code.
"""

from __future__ import annotations

import dataclasses

from typing import TYPE_CHECKING
from typing import Any

import pytest

from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from poetry_cuda.backends.readers import READERS
from poetry_cuda.errors import NoVariantError
from poetry_cuda.host.profiles import profile_from_json
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.planning.assemble import make_plan
from poetry_cuda.planning.compat import judge
from poetry_cuda.planning.managed import Managed
from poetry_cuda.planning.managed import Pin
from poetry_cuda.planning.planner import Options
from poetry_cuda.planning.planner import apply_options
from poetry_cuda.planning.targets import settle
from poetry_cuda.request.dependencies import read_dependencies
from poetry_cuda.request.handwritten import recognise
from poetry_cuda.request.settings import CudaRequest
from poetry_cuda.request.settings import Settings


if TYPE_CHECKING:
    from poetry_cuda.knowledge.model import Release
    from poetry_cuda.knowledge.model import Variant


KB = load()


def host(
    os: str = "linux",
    driver: str | None = None,
    *gpus: str,
    cuda: str | None = None,
    machine: str = "x86_64",
    label: str = "t",
) -> dict[str, Any]:
    doc: dict[str, Any] = {"os": os, "machine": machine}
    if driver or cuda:
        doc["driver"] = {k: v for k, v in (("version", driver), ("cuda", cuda)) if v}
        doc["gpus"] = [{"compute_capability": g} for g in gpus]
    doc["label"] = label
    return doc


def plan_for(deps: list[str], *hosts: dict[str, Any], **changes: Any) -> Any:
    targets = []
    for doc in hosts:
        label = doc.pop("label", "t")
        target, _ = settle(profile_from_json(doc, label), KB.nvidia)
        targets.append(target)
    settings = dataclasses.replace(Settings(), **changes)
    pyproject = {"project": {"dependencies": deps}}
    hand = recognise(pyproject, KB.families, settings.mirrors, READERS)
    return make_plan(read_dependencies(pyproject, READERS), targets, settings, KB, hand)


RTX4090_550 = host("linux", "550.54.14", "8.9")
GTX1080TI_580 = host("linux", "580.65.06", "6.1")


def test_the_reference_case_cu124() -> None:
    plan = plan_for(["torch==2.5.1"], RTX4090_550)
    torch = plan.choice("torch")
    assert torch.variant == "cu124"
    assert str(torch.cuda) == "12.4"
    assert torch.source.name == "pytorch-cu124"
    assert torch.source.url == "https://download.pytorch.org/whl/cu124"
    assert torch.version == "2.5.1+cu124"
    assert "driver 550.54.14 supports CUDA <= 12.4" in str(torch.reason)
    assert "sm_89 has SASS in cu124" in str(torch.reason)


@pytest.mark.parametrize(
    ("deps", "target", "changes", "variant"),
    [
        # No driver: the CPU build from the CPU index (PyPI's Linux torch is a CUDA build).
        (["torch==2.5.1"], host("linux"), {}, "cpu"),
        (["torch==2.5.1"], host("macos", machine="arm64"), {}, "cpu"),
        (["torch==2.5.1"], host("windows", "551.61", "8.9"), {}, "cu124"),
        # Driver 470 (CUDA 11.4) runs cu118 through CUDA 11 minor-version compatibility.
        (["torch==2.5.1"], host("linux", "470.82.01", "8.6"), {}, "cu118"),
        (["torch==2.5.1"], RTX4090_550, {"cuda": CudaRequest.parse("cu121")}, "cu121"),
        (["torch==2.5.1"], RTX4090_550, {"cuda": CudaRequest.parse("cpu")}, "cpu"),
        (["torch==2.5.1"], RTX4090_550, {"cuda": CudaRequest.parse("<12.2")}, "cu121"),
        # Pascal keeps SASS (sm_60) in cu124 for torch 2.5.
        (["torch==2.5.1"], GTX1080TI_580, {}, "cu124"),
        # Pascal on a new driver: cu128/cu129/cu130 dropped sm_6x, cu126 still has sm_60.
        (["torch>=2.4"], GTX1080TI_580, {}, "cu126"),
        (["torch>=2.4"], GTX1080TI_580, {"policy": "native"}, "cu126"),
        # Policy native on driver 550: nothing above CUDA 12.4, and the newest release with
        # such a build wins: torch 2.7's cu118 (sm_89 runs its sm_86 SASS), not 2.6's cu124.
        (["torch>=2.4"], RTX4090_550, {"policy": "native"}, "cu118"),
        (["torch>=2.7,<2.8"], host("linux", "570.124.06", "8.9", "6.1"), {}, "cu126"),
        (["torch>=2.7,<2.8"], host("linux", "570.124.06", "12.0"), {}, "cu128"),
        (["torchvision==0.20.1"], RTX4090_550, {}, "cu124"),
        # Only a CUDA version given: the oldest 12.1 driver, which is past the 12.x floor.
        (["torch==2.5.1"], host("linux", cuda="12.1"), {}, "cu124"),
        (["torch==2.5.1"], host("linux", cuda="12.1"), {"policy": "native"}, "cu121"),
    ],
)
def test_variant_table(
    deps: list[str], target: dict[str, Any], changes: dict[str, Any], variant: str
) -> None:
    plan = plan_for(deps, target, **changes)
    assert plan.choice("torch").variant == variant


def test_policy_newest_goes_past_the_native_cuda_through_minor_compatibility() -> None:
    torch = plan_for(["torch>=2.4"], RTX4090_550).choice("torch")
    assert torch.cuda.major == 12
    assert torch.cuda.minor > 4
    assert "minor-version compatibility" in str(torch.reason)


def test_cpu_sources() -> None:
    assert plan_for(["torch==2.5.1"], host("macos", machine="arm64")).choice("torch").source.is_pypi
    linux_cpu = plan_for(["torch==2.5.1"], host("linux")).choice("torch")
    assert linux_cpu.source.name == "pytorch-cpu"
    assert linux_cpu.version == "2.5.1+cpu"


def test_family_members_share_the_variant_and_the_lead_is_pulled_in() -> None:
    plan = plan_for(["torchvision==0.20.1", "torchaudio"], RTX4090_550)
    assert [c.name for c in plan.packages] == ["torch", "torchvision", "torchaudio"]
    assert {c.variant for c in plan.packages} == {"cu124"}
    assert plan.choice("torch").version == "2.5.1+cu124"
    assert plan.choice("torchvision").version == "0.20.1+cu124"
    assert plan.choice("torchaudio").version == "2.5.1+cu124"


def test_several_targets_get_one_variant_that_serves_all() -> None:
    plan = plan_for(
        ["torch>=2.7,<2.8"],
        host("linux", "570.124.06", "8.9", label="a"),
        host("linux", "560.35.03", "6.1", label="b"),
    )
    assert plan.choice("torch").variant == "cu126"


def test_targets_no_single_variant_serves() -> None:
    # sm_120 needs cu128, whose builds have no sm_61: no torch 2.7 variant serves both.
    with pytest.raises(NoVariantError, match="sm_61"):
        plan_for(
            ["torch>=2.7,<2.8"],
            host("linux", "570.124.06", "12.0", label="a"),
            host("linux", "570.124.06", "6.1", label="b"),
        )


def test_blackwell_on_old_torch_is_exit_3_with_the_versions_that_would_serve() -> None:
    with pytest.raises(NoVariantError) as caught:
        plan_for(["torch==2.5.1"], host("linux", "570.124.06", "12.0"))
    message = caught.value.render()
    assert caught.value.exit_code == 3
    assert "sm_120" in message
    assert "2.7.0" in message
    assert "cu124" in message


def test_one_gpu_architecture_no_build_has_kernels_for_is_said_first() -> None:
    with pytest.raises(NoVariantError) as caught:
        plan_for(["torch==2.5.1"], host("linux", "570.124.06", "12.0"))
    lines = caught.value.render().splitlines()
    assert lines[1] == "  no build of torch 2.5.1 has kernels for sm_120"
    assert lines[2].startswith("  cu124 (torch 2.5.1): cu124 has no SASS for sm_120 ")


def test_targets_that_rule_builds_out_for_different_gpus_get_no_summary() -> None:
    with pytest.raises(NoVariantError) as caught:
        plan_for(
            ["torch>=2.7,<2.8"],
            host("linux", "570.124.06", "12.0", label="a"),
            host("linux", "570.124.06", "6.1", label="b"),
        )
    message = caught.value.render()
    assert "no build of" not in message
    assert "  cu128 (torch 2.7.1) on b: cu128 has no SASS for sm_61 " in message


def test_cpu_fallback_when_allowed() -> None:
    plan = plan_for(["torch==2.5.1"], host("linux", "570.124.06", "12.0"), allow_cpu_fallback=True)
    assert plan.choice("torch").variant == "cpu"
    assert any("allow-cpu-fallback" in w for w in map(str, plan.warnings))


def test_a_driver_too_old_for_any_variant() -> None:
    with pytest.raises(NoVariantError, match=r"450\.80\.02"):
        plan_for(["torch==2.5.1"], host("linux", "450.51.06", "7.5", cuda="11.0"))


def test_a_labelled_pin_is_the_projects_request_even_on_a_gpu_host() -> None:
    torch = plan_for(["torch==2.5.1+cpu"], RTX4090_550).choice("torch")
    assert torch.variant == "cpu"
    assert str(torch.reason) == "the project asks for the CPU build: torch is pinned to 2.5.1+cpu"


def test_a_pin_that_agrees_is_fine() -> None:
    assert plan_for(["torch==2.5.1+cu124"], RTX4090_550).choice("torch").variant == "cu124"


def test_versions_newer_than_the_data_are_assumed_and_said() -> None:
    plan = plan_for(["torch>=9.0"], host("linux", "580.65.06", "8.9"))
    torch = plan.choice("torch")
    assert torch.variant == "cu132"  # 13.2 runs on driver 580 through minor compatibility
    assert torch.version is None
    (said,) = [w for w in map(str, plan.warnings) if "newer than the knowledge base" in w]
    assert "variants of torch 2.15 (cu132, cu130, cpu)" in said
    assert "PyPI builds (cu132 on linux-x86_64, cu132 on linux-aarch64)" in said
    assert "python3 tools/wheel_facts.py torch <version>" in said


def test_a_constraint_no_release_can_meet() -> None:
    with pytest.raises(NoVariantError, match="No known torch release"):
        plan_for(["torch<1.0"], RTX4090_550)


def test_projects_without_cuda_packages_plan_nothing() -> None:
    plan = plan_for(["requests", "numpy"], RTX4090_550)
    assert plan.packages == ()
    assert plan.system_requirements == ()


def test_paddle_2_from_pypi_needs_system_cuda_and_cudnn() -> None:
    plan = plan_for(["paddlepaddle-gpu==2.6.2"], RTX4090_550)
    paddle = plan.choice("paddlepaddle-gpu")
    assert paddle.variant == "cu118"
    assert paddle.source.is_pypi
    kinds = {(r.package, r.kind) for r in plan.system_requirements}
    assert ("paddlepaddle-gpu", "cuda-runtime") in kinds
    assert ("paddlepaddle-gpu", "cudnn") in kinds


def test_jax_flavours_are_checked_against_the_driver() -> None:
    plan = plan_for(["jax[cuda12]"], RTX4090_550)
    assert plan.choice("jax").variant == "cuda12"
    with pytest.raises(NoVariantError, match="CUDA 13"):
        plan_for(["jax[cuda13]"], RTX4090_550)


@pytest.mark.parametrize(
    ("constraint", "cuda", "needs"),
    [
        # jax-ml/jax setup.py: jaxlib+cuda11.cudnn82, +cuda11.cudnn86, +cuda12.cudnn89 builds
        # for a local CUDA; from 0.4.30 the same extras as jax[cuda12].
        ("==0.3.25", "11.1", {"cuda-runtime": ">=11.1,<12", "cudnn": ">=8.2,<9"}),
        ("==0.4.25", "11.4", {"cuda-runtime": ">=11.4,<12", "cudnn": ">=8.6,<9"}),
        ("==0.4.28", "12.1", {"cuda-runtime": ">=12.1,<13", "cudnn": ">=8.9,<9"}),
        (">=0.4.30", "12.1", {}),
    ],
)
def test_the_old_jax_cuda_extra_is_a_flavour_of_its_period(
    constraint: str, cuda: str, needs: dict[str, str]
) -> None:
    plan = plan_for([f"jax[cuda]{constraint}"], RTX4090_550)
    jax = plan.choice("jax")
    assert (jax.variant, str(jax.cuda)) == ("cuda", cuda)
    assert f"jax[cuda] (CUDA >={cuda}" in str(jax.reason)
    assert {r.kind: r.spec for r in plan.system_requirements if r.package == "jax"} == needs


def test_cupy_without_ctk_needs_a_system_cuda_runtime() -> None:
    plan = plan_for(["cupy-cuda12x"], RTX4090_550)
    assert any(r.kind == "cuda-runtime" for r in plan.system_requirements)
    plan = plan_for(["cupy-cuda12x[ctk]"], RTX4090_550)
    assert not any(
        r.package == "cupy-cuda12x" and r.kind == "cuda-runtime" for r in plan.system_requirements
    )


def test_nvcc_builds_match_torchs_cuda_major() -> None:
    plan = plan_for(["torch==2.5.1", "flash-attn"], RTX4090_550)
    (nvcc,) = [r for r in plan.system_requirements if r.package == "flash-attn"]
    assert nvcc.kind == "nvcc"
    assert nvcc.spec == ">=12.0,<13"


# Properties over a pool of realistic hosts.
HOSTS = [
    host("linux", "550.54.14", "8.9"),
    host("linux", "580.65.06", "6.1"),
    host("linux", "535.104.05", "8.0", "8.6"),
    host("linux", "570.124.06", "12.0"),
    host("linux", "470.82.01", "7.5"),
    host("windows", "560.94", "8.6"),
    host("linux", "560.35.03", "7.0"),
    host("linux", "525.60.13", "9.0"),
]
CONSTRAINTS = ["torch>=2.4", "torch==2.5.1", "torch>=2.6,<2.9", "torchvision", "torch<2.8"]


def _plan_or_none(deps: list[str], docs: list[dict[str, Any]], **changes: Any) -> Any:
    try:
        return plan_for(deps, *[dict(d) for d in docs], **changes)
    except NoVariantError:
        return None


@hypothesis_settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(range(len(HOSTS))), min_size=1, max_size=3, unique=True),
    st.sampled_from(CONSTRAINTS),
    st.sampled_from(["newest", "native"]),
)
def test_selection_invariants(indices: list[int], constraint: str, policy: str) -> None:
    docs = [HOSTS[i] for i in indices]
    plan = _plan_or_none([constraint], docs, policy=policy)
    if plan is None:
        return
    torch = plan.choice("torch")
    family = KB.family_of("torch")
    assert family is not None
    plain = torch.version.split("+")[0]
    chosen = next(r for r in family.releases if plain in r.versions)
    variant = chosen.variant(torch.variant)
    assert variant is not None
    for doc in docs:
        target, _ = settle(profile_from_json(dict(doc), "t"), KB.nvidia)
        verdict = judge(variant, target, KB.nvidia)
        assert verdict.ok, verdict.detail
        if policy == "native":
            assert verdict.fit != "minor-compatible"
    # Adding a target never yields a newer release, nor a higher CUDA version of the same
    # release (an older release may have a higher one: its builds still covered sm_XY).
    for extra in HOSTS:
        more = _plan_or_none([constraint], [*docs, extra], policy=policy)
        if more is None or torch.cuda is None or more.choice("torch").cuda is None:
            continue
        version = Version(more.choice("torch").version.split("+")[0])
        assert version <= Version(plain)
        if version == Version(plain):
            assert more.choice("torch").cuda <= torch.cuda


# Which release, then which build: the expected answers are derived from the data.
TORCH = KB.family_of("torch")


def best_of_newest_release(
    constraint: str, doc: dict[str, Any], policy: str = "newest"
) -> tuple[Release, Variant]:
    """(release, variant) by the SPEC's rule, read off the knowledge base with `judge`."""
    assert TORCH is not None
    target, _ = settle(profile_from_json(dict(doc), "t"), KB.nvidia)
    spec = SpecifierSet(constraint.removeprefix("torch"))
    for release in reversed(TORCH.releases):
        if not any(v in spec for v in release.versions):
            continue
        fits = [
            (v.cuda, v)
            for v in release.variants
            if v.cuda is not None
            and judge(v, target, KB.nvidia).ok
            and (policy == "newest" or judge(v, target, KB.nvidia).fit == "native")
        ]
        if fits:
            return release, max(fits, key=lambda fit: fit[0])[1]
    raise AssertionError("no release fits")


def admitted_newer(constraint: str, than: Release) -> list[str]:
    """The series the constraint admits that are newer than `than`, oldest first."""
    assert TORCH is not None
    spec = SpecifierSet(constraint.removeprefix("torch"))
    return [
        r.series
        for r in TORCH.releases
        if r.series_key > than.series_key and any(v in spec for v in r.versions)
    ]


def release_after(release: Release) -> Release:
    assert TORCH is not None
    return TORCH.releases[TORCH.releases.index(release) + 1]


def test_the_newest_release_that_runs_beats_an_older_release_with_a_newer_cuda() -> None:
    release, variant = best_of_newest_release("torch>=2.5,<2.15", RTX4090_550)
    assert admitted_newer("torch>=2.5,<2.15", release) == []  # the newest admitted one runs
    plan = plan_for(["torch>=2.5,<2.15"], RTX4090_550)
    torch = plan.choice("torch")
    assert torch.version == f"{release.versions[-1]}+{variant.name}"
    assert torch.variant == variant.name
    # An older release has a higher CUDA build that runs there (the old rule's answer).
    assert TORCH is not None and variant.cuda is not None
    target, _ = settle(profile_from_json(dict(RTX4090_550), "t"), KB.nvidia)
    older = [
        v.cuda
        for r in TORCH.releases
        if r.series_key < release.series_key
        for v in r.variants
        if v.cuda is not None and judge(v, target, KB.nvidia).ok
    ]
    assert max(older) > variant.cuda
    # The newest admitted release was chosen: nothing passed over, nothing bound.
    assert not any("passed over" in w for w in map(str, plan.warnings))
    assert torch.bound == ""
    assert "not published" not in str(torch.reason)


@pytest.mark.parametrize(("gpu", "name"), [("6.0", "sm_60"), ("6.1", "sm_61")])
def test_pascal_gets_the_newest_release_that_still_ships_its_sass(gpu: str, name: str) -> None:
    doc = host("linux", "580.65.06", gpu)
    release, variant = best_of_newest_release("torch>=2.4", doc)
    assert [cc.sm for cc in variant.sass if cc.major == 6] == ["sm_60"]
    plan = plan_for(["torch>=2.4"], doc)
    torch = plan.choice("torch")
    assert torch.version == f"{release.versions[-1]}+{variant.name}"
    assert f"{name} has SASS in {variant.name}" in str(torch.reason)
    newer = admitted_newer("torch>=2.4", release)
    assert newer  # the knowledge base has newer releases without sm_6x
    (warning,) = [w for w in map(str, plan.warnings) if "passed over" in w]
    assert warning.startswith(f"torch {', '.join(newer)} passed over: no build runs on t (")
    assert f"no SASS for {name}" in warning
    assert torch.bound == f"<{release_after(release).versions[0]}"


def test_a_passed_over_release_is_named_with_each_of_its_builds() -> None:
    plan = plan_for(["torch>=2.5", "torchvision"], RTX4090_550)
    assert TORCH is not None
    newest = TORCH.releases[-1]
    release, variant = best_of_newest_release("torch>=2.5", RTX4090_550)
    assert release.series_key < newest.series_key
    (warning,) = [w for w in map(str, plan.warnings) if "passed over" in w]
    assert warning.startswith(f"torch {newest.series} passed over: no build runs on t (")
    for build in newest.variants:
        if build.cuda is not None:
            assert f"{build.name} needs a driver >=" in warning
    # The pins keep the package manager below the release that was passed over.
    after = release_after(release).pairs[0]
    assert plan.choice("torch").bound == f"<{after['torch']}"
    assert plan.choice("torchvision").bound == f"<{after['torchvision']}"
    pins = {pin.package: pin for pin in Managed.of(plan).pins}
    assert pins["torch"] == Pin("torch", f"pytorch-{variant.name}", f"<{after['torch']}")
    assert pins["torchvision"].version == f"<{after['torchvision']}"


def test_no_bound_when_the_newest_admitted_release_is_chosen() -> None:
    plan = plan_for(["torch==2.5.1", "torchvision"], RTX4090_550)
    assert {pin.version for pin in Managed.of(plan).pins} == {"*"}


def test_policy_native_names_the_releases_it_passes_over() -> None:
    release, variant = best_of_newest_release("torch>=2.4", RTX4090_550, "native")
    plan = plan_for(["torch>=2.4"], RTX4090_550, policy="native")
    assert plan.choice("torch").version == f"{release.versions[-1]}+{variant.name}"
    named = " ".join(
        w for w in map(str, plan.warnings) if "passed over: no build runs natively" in w
    )
    for series in admitted_newer("torch>=2.4", release):
        assert f" {series}" in named


@pytest.mark.parametrize(
    ("request_", "said"),
    [
        (CudaRequest.parse("cu128", key="--cuda"), "--cuda cu128"),
        (CudaRequest.parse("12.8"), 'cuda = "12.8"'),
        (apply_options(Settings(), Options(cuda="cu128")).cuda, "--cuda cu128"),
    ],
)
def test_a_narrowed_cuda_request_is_named_as_the_cause(request_: CudaRequest, said: str) -> None:
    rtx4090_570 = host("linux", "570.124.06", "8.9")
    torch = plan_for(["torch>=2.7,<2.9"], rtx4090_570, cuda=request_).choice("torch")
    assert torch.version == "2.8.0+cu128"
    assert str(torch.reason).endswith(f"cu129 excluded by {said}")
    assert "not published" not in str(torch.reason)


def test_releases_without_the_requested_cuda_are_passed_over_and_bound() -> None:
    request_ = CudaRequest.parse("cu124", key="--cuda")
    plan = plan_for(["torch>=2.5"], RTX4090_550, cuda=request_)
    torch = plan.choice("torch")
    assert TORCH is not None
    with_cu124 = [r for r in TORCH.releases if r.variant("cu124")]
    assert torch.version == f"{with_cu124[-1].versions[-1]}+cu124"
    assert "excluded by --cuda cu124" in str(torch.reason)
    (warning,) = [w for w in map(str, plan.warnings) if "passed over" in w]
    assert warning.endswith("passed over: no build matches --cuda cu124")
    after = release_after(with_cu124[-1])
    assert torch.bound == f"<{after.versions[0]}"


def test_a_constraint_repeated_in_several_places_is_said_once() -> None:
    dependencies = read_dependencies(
        {
            "project": {
                "dependencies": ["torch==2.5.1"],
                "optional-dependencies": {"a": ["torch==2.5.1"], "b": ["torch==2.5.1"]},
            }
        },
        READERS,
    )
    target, _ = settle(profile_from_json(host("linux", "570.124.06", "12.0"), "t"), KB.nvidia)
    with pytest.raises(NoVariantError) as caught:
        make_plan(dependencies, [target], Settings(), KB)
    assert caught.value.render().count("torch ==2.5.1") == 1


def test_a_family_without_members_gets_no_torch_advice() -> None:
    with pytest.raises(NoVariantError) as caught:
        plan_for(["paddlepaddle-gpu<1.0"], RTX4090_550)
    assert "torch" not in caught.value.render()
    assert "check the version constraints" in caught.value.fix


def test_companions_carry_the_label_only_where_the_index_gives_one() -> None:
    """/whl/cu124 serves triton and xformers unlabelled, torchao as 0.x+cu124."""
    plan = plan_for(["torch==2.5.1", "triton", "xformers", "torchao"], RTX4090_550)
    labels = {c.name: (c.variant, c.label, c.version) for c in plan.packages}
    assert labels == {
        "torch": ("cu124", "+cu124", "2.5.1+cu124"),
        "triton": ("cu124", "", None),
        "xformers": ("cu124", "", None),
        "torchao": ("cu124", "+cu124", None),
    }
    assert {c.source.name for c in plan.packages} == {"pytorch-cu124"}


def test_a_prerelease_the_data_does_not_list_gets_its_own_message() -> None:
    """paddlepaddle-gpu 3.0.0b2 was published on Paddle's cu118 and cu123 indexes only."""
    with pytest.raises(NoVariantError) as caught:
        plan_for(["paddlepaddle-gpu==3.0.0b2"], RTX4090_550)
    error = caught.value
    assert error.exit_code == 3
    assert "asks for 3.0.0b2, a pre-release the knowledge base does not list" in error.what
    assert "a pre-release may be published for other CUDA builds" in error.why
    assert "a known release of the 3.0 series (3.0.0) or a newer one" in error.fix
    assert "torch" not in error.render()


def test_a_prerelease_of_an_unknown_series_names_the_newest_release() -> None:
    """The data leaves paddle 2.5 out (find-links only), so its series is unknown."""
    with pytest.raises(NoVariantError) as caught:
        plan_for(["paddlepaddle-gpu==2.5.0rc0"], RTX4090_550)
    assert "asks for 2.5.0rc0" in caught.value.what
    assert caught.value.fix.startswith("allow a known release (newest known ")


# Stable-ABI members (a version that requires a range of torch versions): torchvision
# 0.29.2 (torch>=2.14.0) and torchaudio 2.11.1 (torch>=2.11) came with torch 2.15.0's builds.
ADA_580 = host("linux", "580.65.06", "8.9")


def test_torch_2_15_with_torchvision_plans_the_stable_abi_torchvision() -> None:
    plan = plan_for(["torch==2.15.0", "torchvision"], ADA_580)
    torch, vision = plan.choice("torch"), plan.choice("torchvision")
    assert torch.variant == vision.variant
    assert torch.version == f"2.15.0+{torch.variant}"
    # Its builds on the variant's index carry the label as torch's do.
    assert vision.version == f"0.29.2+{torch.variant}"
    assert vision.label == f"+{torch.variant}"


def test_torch_torchvision_and_torchaudio_get_the_newest_consistent_set() -> None:
    plan = plan_for(["torch", "torchvision", "torchaudio"], ADA_580)
    variant = plan.choice("torch").variant
    assert [(c.name, c.version) for c in plan.packages] == [
        ("torch", f"2.15.0+{variant}"),
        ("torchvision", f"0.29.2+{variant}"),
        ("torchaudio", f"2.11.1+{variant}"),
    ]
    assert {pin.version for pin in Managed.of(plan).pins} == {"*"}
    assert not plan.warnings


def test_a_stable_abi_member_serves_older_torch_releases_on_its_own_variants() -> None:
    # torch 2.14.1 came with torchvision 0.29.1; 0.29.2 also serves it on 2.15's variants.
    plan = plan_for(["torch==2.14.1", "torchvision", "torchaudio"], ADA_580)
    variant = plan.choice("torch").variant
    assert variant in {"cu130", "cu132"}
    assert plan.choice("torchvision").version == f"0.29.2+{variant}"
    assert plan.choice("torchaudio").version == f"2.11.1+{variant}"
    # The exact pair stays: the project may ask for it.
    plan = plan_for(["torch==2.14.1", "torchvision<0.29.2"], ADA_580)
    assert plan.choice("torchvision").version == f"0.29.1+{plan.choice('torch').variant}"


def test_torchaudio_below_2_11_keeps_torch_to_its_exact_pair() -> None:
    plan = plan_for(["torch", "torchaudio<2.11"], ADA_580)
    variant = plan.choice("torch").variant
    assert plan.choice("torch").version == f"2.10.0+{variant}"
    assert plan.choice("torchaudio").version == f"2.10.0+{variant}"
    # torchaudio 2.10.0 requires torch==2.10.0: nothing was passed over, nothing to bound.
    assert {pin.version for pin in Managed.of(plan).pins} == {"*"}


def test_a_variant_without_the_stable_abi_member_caps_torch_with_the_right_bounds() -> None:
    # Pascal needs cu126, which 2.15 (and so torchaudio 2.11.1) lacks; torchaudio 2.11.0, a
    # stable-ABI build for torch>=2.11 published on 2.11's variants, serves 2.14.1's cu126.
    plan = plan_for(["torch", "torchaudio"], GTX1080TI_580)
    torch, audio = plan.choice("torch"), plan.choice("torchaudio")
    assert (torch.version, audio.version) == ("2.14.1+cu126", "2.11.0+cu126")
    assert torch.bound == "<2.15.0"
    (newest,) = [w for w in map(str, plan.warnings) if "passed over" in w]
    assert newest.startswith("torch 2.15 passed over: no build runs on t (")
    # With torchvision only, 2.14's cu126 serves, below the stable-ABI 0.29.2.
    plan = plan_for(["torch", "torchvision"], GTX1080TI_580)
    assert plan.choice("torch").version == "2.14.1+cu126"
    assert plan.choice("torchvision").version == "0.29.1+cu126"
    pins = {pin.package: pin.version for pin in Managed.of(plan).pins}
    assert pins == {"torch": "<2.15.0", "torchvision": "<0.29.2"}


def test_macos_gets_pypis_plain_stable_abi_members() -> None:
    plan = plan_for(["torch", "torchvision", "torchaudio"], host("macos", machine="arm64"))
    assert [(c.name, c.version, c.source.is_pypi) for c in plan.packages] == [
        ("torch", "2.15.0", True),
        ("torchvision", "0.29.2", True),
        ("torchaudio", "2.11.1", True),
    ]


def test_a_gtx_1080_with_torch_2_8_gets_cu126() -> None:
    # 2.8's cu128 and cu129 start at sm_70; only cu126 ships Pascal SASS (sm_60 serves 6.1).
    plan = plan_for(["torch==2.8.0"], host("linux", "580.65.06", "6.1"))
    assert plan.choice("torch").variant == "cu126"


def test_a_v100_with_torch_2_9_on_a_580_driver_gets_a_cuda_12_build() -> None:
    # cu130 has no sm_70; 2.9's cu129 (Linux only) still lists 7.0, as cu128 does.
    plan = plan_for(["torch==2.9.0"], host("linux", "580.65.06", "7.0"))
    assert plan.choice("torch").variant == "cu129"
    plan = plan_for(
        ["torch==2.9.0"], host("linux", "580.65.06", "7.0"), cuda=CudaRequest.parse("<12.9")
    )
    assert plan.choice("torch").variant == "cu128"


def test_a_windows_host_known_by_its_driver_alone_reads_as_cuda_13() -> None:
    plan = plan_for(["torch==2.9.0"], host("windows", "581.29", "8.6"))
    torch = plan.choice("torch")
    assert torch.variant == "cu130"
    assert "581.29 supports CUDA <= 13.0" in str(torch.reason)


def test_a_windows_driver_below_the_13_x_floor_gets_no_cuda_13_build() -> None:
    plan = plan_for(["torch==2.9.0"], host("windows", "576.02", "8.6"))
    assert plan.choice("torch").variant == "cu128"


def test_onnxruntime_gpu_1_27_on_a_cuda_12_4_driver_names_the_cuda_13_need() -> None:
    with pytest.raises(NoVariantError, match=r"CUDA 13\.x.*CUDA <= 12\.4"):
        plan_for(["onnxruntime-gpu==1.27.0"], RTX4090_550)
    plan = plan_for(["onnxruntime-gpu==1.26.0"], RTX4090_550)
    assert plan.choice("onnxruntime-gpu").cuda is not None


def test_paddle_2_6_from_pypi_does_not_serve_a_p100() -> None:
    # libphi.so of 2.6.2 has sm_61 but no sm_60, and no PTX.
    with pytest.raises(NoVariantError):
        plan_for(
            ["paddlepaddle-gpu==2.6.2"],
            host("linux", "535.104.05", "6.0"),
            cuda=CudaRequest.parse("cu118"),
        )


def test_plain_tensorflow_needs_a_system_cuda_and_cudnn_and_and_cuda_does_not() -> None:
    plan = plan_for(["tensorflow==2.18.0"], RTX4090_550)
    assert {(r.kind, r.spec) for r in plan.system_requirements} == {
        ("cuda-runtime", ">=12.5,<13"),
        ("cudnn", ">=9.3,<10"),
    }
    plan = plan_for(["tensorflow[and-cuda]==2.18.0"], RTX4090_550)
    assert not plan.system_requirements
