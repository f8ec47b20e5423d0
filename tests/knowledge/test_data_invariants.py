"""Invariants of the shipped knowledge base, and spot checks of known facts.

The facts in the table tests come from the sources the data cites (NVIDIA's release
notes, PyTorch's build scripts and release matrix), not from the data itself.
"""

from __future__ import annotations

import itertools

from typing import TYPE_CHECKING

import pytest

from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from poetry_cuda.knowledge.model import PLATFORMS
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from tests.support.knowledge import KB
from tests.support.knowledge import family
from tests.support.knowledge import variant


if TYPE_CHECKING:
    from collections.abc import Iterator

    from poetry_cuda.host.profiles import OperatingSystem
    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.knowledge.model import LeadRange
    from poetry_cuda.knowledge.model import Release
    from poetry_cuda.knowledge.model import Variant


CONFIDENCES = {"verified", "third-party", "uncertain"}


def all_variants() -> Iterator[tuple[Family, Release, Variant]]:
    for fam in KB.families:
        for rel in fam.releases:
            for var in rel.variants:
                yield fam, rel, var


def cc(text: str) -> ComputeCapability:
    return ComputeCapability.parse(text)


def test_every_row_is_sourced_with_a_confidence() -> None:
    nvidia = KB.nvidia
    rows: list[tuple[str, str, str]] = [
        *((f"toolkit {r.cuda}", r.source, r.confidence) for r in nvidia.toolkits),
        *((f"floor {r.major}", r.source, r.confidence) for r in nvidia.floors),
        *((f"arch {r.major}", r.source, r.confidence) for r in nvidia.arches),
        *((f"flavour {r.package}", r.source, r.confidence) for r in KB.fixed),
        *((f"nvcc {name}", r.source, r.confidence) for name, r in KB.builds_with_nvcc),
    ]
    for fam in KB.families:
        rows.append((f"family {fam.name}", fam.source, fam.confidence))
        rows.extend((f"{fam.name} {c.name}", c.source, c.confidence) for c in fam.companion_rows)
        for rel in fam.releases:
            rows.append((f"{fam.name} {rel.series}", rel.source, rel.confidence))
    for fam, rel, var in all_variants():
        label = f"{fam.name} {rel.series} {var.name}"
        rows.append((label, var.source, var.confidence))
        rows.extend((f"{label} {b.platform}", b.source, b.confidence) for b in var.platform_arches)
        rows.extend((f"{label} {r.kind}", r.source, r.confidence) for r in var.requirements)
    for row in KB.fixed:
        rows.extend((f"{row.package} {r.kind}", r.source, r.confidence) for r in row.requirements)
    for label, source, confidence in rows:
        assert source.strip(), f"{label} has no source"
        assert confidence in CONFIDENCES, f"{label}: {confidence!r}"


@pytest.mark.parametrize("os", ["linux", "windows"])
def test_toolkit_drivers_never_decrease_as_cuda_increases(os: OperatingSystem) -> None:
    rows = KB.nvidia.toolkits
    assert [r.cuda for r in rows] == sorted({r.cuda for r in rows}), "sorted, no duplicates"
    drivers = [r.linux if os == "linux" else r.windows for r in rows]
    known = [d for d in drivers if d is not None]
    assert known == sorted(known)
    assert len(known) >= 18


def test_windows_drivers_stop_where_nvidia_lists_none() -> None:
    # The 13.x rows say "N/A" for Windows; 13.0 stands on the 13.x floor, so that a
    # Windows R580 driver reads as CUDA 13.0: nothing after the first gap.
    windows = [r.windows for r in KB.nvidia.toolkits]
    first_gap = windows.index(None)
    assert all(w is None for w in windows[first_gap:])
    assert KB.nvidia.toolkits[first_gap].cuda == CudaVersion(13, 1)
    assert KB.nvidia.toolkit_driver(CudaVersion(13, 0), "windows") == KB.nvidia.floor(13, "windows")


def test_compat_floors_are_monotonic_by_major() -> None:
    floors = KB.nvidia.floors
    assert [f.major for f in floors] == [11, 12, 13]
    for older, newer in itertools.pairwise(floors):
        assert older.linux < newer.linux
        assert older.windows < newer.windows


def test_arch_ranges_rise_with_the_cuda_major() -> None:
    oldest = [(r.major, r.oldest) for r in KB.nvidia.arches]
    assert oldest == [(11, cc("3.5")), (12, cc("5.0")), (13, cc("7.5"))]


def test_cuda_variants_have_an_index_a_floor_and_a_toolkit_row() -> None:
    for fam, rel, var in all_variants():
        if var.cuda is None:
            continue
        label = f"{fam.name} {rel.series} {var.name}"
        assert fam.index_url(var.name), label
        assert KB.nvidia.floor(var.cuda.major, "linux") is not None, label
        assert KB.nvidia.toolkit_driver(var.cuda, "linux") is not None, label


def test_variant_names_match_their_cuda_version() -> None:
    for fam, rel, var in all_variants():
        label = f"{fam.name} {rel.series} {var.name}"
        if var.cuda is None:
            assert var.name == "cpu", label
        else:
            assert CudaVersion.parse(var.name) == var.cuda, label
            assert var.cuda.variant == var.name, label


def test_variants_of_a_release_are_unique_and_ordered_by_cuda() -> None:
    for fam in KB.families:
        for rel in fam.releases:
            names = [v.name for v in rel.variants]
            assert len(names) == len(set(names)), f"{fam.name} {rel.series}"
            cudas = [v.cuda for v in rel.variants if v.cuda is not None]
            assert cudas == sorted(cudas), f"{fam.name} {rel.series}"


def test_pairs_name_the_lead_first_and_only_members() -> None:
    for fam in KB.families:
        for rel in fam.releases:
            for pair in rel.pairs:
                assert next(iter(pair)) == fam.lead, f"{fam.name} {rel.series}"
                assert set(pair) <= set(fam.members)
                assert pair[fam.lead].startswith(rel.series + "."), f"{rel.series}: {pair}"


def _ranged(rel: Release, member: str, version: str) -> LeadRange | None:
    return next((r for r in rel.ranges if (r.member, r.version) == (member, version)), None)


def test_torchvision_minor_is_torch_minor_plus_15() -> None:
    # Until the stable-ABI builds: torchvision 0.29.2 requires torch>=2.14.0 and came with 2.15.0.
    for rel in family("torch").releases:
        for pair in rel.pairs:
            torch, vision = Version(pair["torch"]), Version(pair["torchvision"])
            assert torch.major == 2
            if _ranged(rel, "torchvision", pair["torchvision"]) is not None:
                continue
            assert (vision.major, vision.minor) == (0, torch.minor + 15), pair
            assert vision.micro == torch.micro or rel.series == "2.0", pair


def test_torchaudio_is_paired_up_to_2_11_then_serves_through_its_range() -> None:
    for rel in family("torch").releases:
        for pair in rel.pairs:
            if Version(pair["torch"]) <= Version("2.11.0"):
                audio = Version(pair["torchaudio"])
                assert (audio.major, audio.minor) == Version(pair["torch"]).release[:2]
            elif "torchaudio" in pair:
                assert _ranged(rel, "torchaudio", pair["torchaudio"]) is not None, pair


def test_every_range_is_a_member_version_of_its_release_and_admits_its_leads() -> None:
    for fam in KB.families:
        for rel in fam.releases:
            for ranged in rel.ranges:
                label = f"{fam.name} {rel.series}: {ranged}"
                assert ranged.member in fam.members and ranged.member != fam.lead, label
                assert any(p.get(ranged.member) == ranged.version for p in rel.pairs), label
                # Published with this release's builds, it serves each of its lead versions.
                spec = SpecifierSet(ranged.requires)
                assert all(spec.contains(v) for v in rel.versions), label


def test_series_are_sorted_and_versions_unique() -> None:
    for fam in KB.families:
        keys = [r.series_key for r in fam.releases]
        assert keys == sorted(set(keys)), fam.name
        versions = [v for r in fam.releases for v in r.versions]
        assert [Version(v) for v in versions] == sorted({Version(v) for v in versions}), fam.name


def test_pypi_names_variants_of_the_release_on_known_platforms() -> None:
    for fam in KB.families:
        for rel in fam.releases:
            for platform, name in rel.pypi.items():
                assert platform in PLATFORMS
                found = rel.variant(name)
                assert found is not None, f"{fam.name} {rel.series}: {name}"
                assert platform in found.platforms, f"{fam.name} {rel.series}: {name}"


def test_platforms_are_known_and_overrides_belong_to_the_variant() -> None:
    for fam, rel, var in all_variants():
        label = f"{fam.name} {rel.series} {var.name}"
        assert var.platforms, label
        assert set(var.platforms) <= set(PLATFORMS), label
        assert len(var.platforms) == len(set(var.platforms)), label
        for build in var.platform_arches:
            assert build.platform in var.platforms, label
            assert (build.sass, build.ptx) != (var.sass, var.ptx), f"{label}: redundant override"


def _check_arches(label: str, cuda: CudaVersion, arches: tuple[ComputeCapability, ...]) -> None:
    assert list(arches) == sorted(set(arches)), f"{label}: sorted, no duplicates"
    oldest = KB.nvidia.oldest_arch(cuda.major)
    assert oldest is not None, label
    assert all(a >= oldest for a in arches), f"{label}: below {oldest} for CUDA {cuda.major}"


def test_arch_lists_are_sorted_and_compilable_by_the_cuda_major() -> None:
    for fam, rel, var in all_variants():
        label = f"{fam.name} {rel.series} {var.name}"
        if var.cuda is None:
            assert var.sass == var.ptx == () and not var.platform_arches, label
            assert not var.requirements, label
            continue
        assert var.sass, label
        for arches in (
            var.sass,
            var.ptx,
            *(a for b in var.platform_arches for a in (b.sass, b.ptx)),
        ):
            _check_arches(label, var.cuda, arches)


def test_the_on_helper_swaps_in_the_platform_arches() -> None:
    cu130 = variant("torch", "2.12", "cu130")
    arm = cu130.on("linux-aarch64")
    assert cc("7.5") in cu130.sass
    assert cc("7.5") not in arm.sass
    assert cc("11.0") in arm.sass
    assert cu130.on("windows-x86_64").ptx == ()
    assert cu130.on("linux-x86_64") is cu130


def _lower_bound(spec: SpecifierSet) -> Version:
    bounds = [Version(s.version) for s in spec if s.operator in (">=", ">", "==")]
    return max(bounds, default=Version("0"))


def test_fixed_rows_parse_and_are_ordered_oldest_first() -> None:
    seen: dict[tuple[str, str | None], list[Version]] = {}
    platforms: dict[tuple[str, str | None, str], list[str]] = {}
    for row in KB.fixed:
        # Rows of the same versions differ by platform, and no platform is claimed twice.
        claimed = platforms.setdefault((row.package, row.extra, row.versions), [])
        assert not set(claimed) & set(row.platforms or PLATFORMS), row
        claimed.extend(row.platforms or PLATFORMS)
        assert canonicalize_name(row.package) == row.package
        assert row.extra is None or canonicalize_name(row.extra) == row.extra
        versions = SpecifierSet(row.versions)
        assert str(versions), f"{row.package}: versions must not be empty"
        assert str(SpecifierSet(row.cuda)), f"{row.package}: cuda must not be empty"
        seen.setdefault((row.package, row.extra), []).append(_lower_bound(versions))
    assert len(seen) < len(KB.fixed), "some flavours have several version ranges"
    for key, bounds in seen.items():
        # Oldest first, each version range's rows together.
        assert bounds == sorted(bounds), key


def test_nvcc_rows_mean_the_major_of_torch() -> None:
    names = [name for name, _ in KB.builds_with_nvcc]
    assert set(names) >= {
        "flash-attn", "mmcv", "mmcv-full", "detectron2", "sam2", "apex", "deepspeed",
        "xformers", "llama-cpp-python", "pycuda",
    }  # fmt: skip
    assert len(names) == len(set(names))
    for _, requirement in KB.builds_with_nvcc:
        assert requirement.kind == "nvcc"
        assert requirement.spec == ""
