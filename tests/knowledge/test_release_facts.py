"""Facts per point release, platform and Python: how they read, and invariants they keep."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from poetry_cuda.errors import InputFileError
from poetry_cuda.knowledge.packaged import load_directory
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion
from tests.knowledge.test_loader import edit
from tests.knowledge.test_loader import write_minimal
from tests.support.knowledge import KB
from tests.support.knowledge import family


if TYPE_CHECKING:
    from pathlib import Path

    from poetry_cuda.knowledge.model import Release


def _lowest_python(release: Release) -> Version:
    assert release.requires_python is not None
    spec = SpecifierSet(release.requires_python)
    return next(Version(f"3.{m}") for m in range(30) if spec.contains(f"3.{m}.0"))


# -- reading -------------------------------------------------------------------------------


def test_a_variant_may_name_the_lead_versions_it_is_published_for(tmp_path: Path) -> None:
    data = write_minimal(tmp_path)
    edit(
        data,
        "torch.toml",
        'pairs = [{torch = "2.5.1"',
        'pairs = [{torch = "2.5.0"}, {torch = "2.5.1"',
    )
    edit(data, "torch.toml", 'name = "cu124"\n', 'name = "cu124"\nversions = ["2.5.1"]\n')
    edit(data, "torch.toml", 'series = "2.5"\n', 'series = "2.5"\nrequires_python = ">=3.9"\n')
    (release,) = load_directory(data).families[0].releases
    cu124 = release.variant("cu124")
    assert cu124 is not None and cu124.versions == ("2.5.1",)
    assert cu124.publishes("2.5.1") and not cu124.publishes("2.5.0")
    cpu = release.variant("cpu")
    assert cpu is not None and cpu.publishes("2.5.0")  # no list: every lead version
    assert release.requires_python == ">=3.9"


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ('name = "cu124"\n', 'name = "cu124"\nversions = ["2.5.7"]\n', "2.5.7 is not a torch"),
        ('series = "2.5"\n', 'series = "2.5"\nrequires_python = "3.9+"\n', "requires_python"),
    ],
)
def test_stray_release_facts_are_refused(tmp_path: Path, old: str, new: str, problem: str) -> None:
    data = write_minimal(tmp_path)
    edit(data, "torch.toml", old, new)
    with pytest.raises(InputFileError) as caught:
        load_directory(data)
    assert problem in caught.value.what


# -- invariants of the shipped data --------------------------------------------------------


def test_requires_python_is_known_from_torch_2_5_and_never_loosens() -> None:
    releases = [r for r in family("torch").releases if r.series_key >= (2, 5)]
    lowest = [_lowest_python(r) for r in releases]
    assert lowest == sorted(lowest)
    assert all("requires_python" in r.source for r in releases)


def test_a_variant_limited_to_some_versions_names_them_and_says_so_in_its_source() -> None:
    for fam in (family("torch"), family("paddle")):
        for rel in fam.releases:
            for var in rel.variants:
                if var.versions:
                    assert set(var.versions) < set(rel.versions), (rel.series, var.name)


def test_every_torch_after_2_11_has_a_torchaudio_on_some_cuda_build() -> None:
    # torchaudio stopped at 2.11: its stable-ABI builds (2.11.0, 2.11.1) serve later torch.
    torch = family("torch")
    ranged = [(rel, r) for rel in torch.releases for r in rel.ranges if r.member == "torchaudio"]
    for rel in torch.releases:
        if rel.series_key <= (2, 11):
            continue
        for version in rel.versions:
            serving = [
                var.name
                for var in rel.variants
                if not var.is_cpu and var.publishes(version)
                for origin, r in ranged
                if SpecifierSet(r.requires).contains(version) and origin.variant(var.name)
            ]
            assert serving, version


def test_ranged_members_are_published_on_cuda_builds() -> None:
    for fam in (family("torch"),):
        for rel in fam.releases:
            if rel.ranges:
                assert any(not v.is_cpu for v in rel.variants), rel.series


def test_no_2_8_cuda_12_8_wheel_for_linux_aarch64() -> None:
    # pytorch/test-infra release/2.8: CUDA_AARCH64_ARCHES = ["12.9-aarch64"].
    rel = next(r for r in family("torch").releases if r.series == "2.8")
    aarch64 = [v.name for v in rel.variants if not v.is_cpu and "linux-aarch64" in v.platforms]
    assert aarch64 == ["cu129"]


# -- NVIDIA's tables: CUDA 13.3 to 13.5 ------------------------------------------------------


def test_cuda_13_4_and_13_5_exist_without_a_known_driver() -> None:
    rows = {str(r.cuda): r for r in KB.nvidia.toolkits}
    # mesonbuild/meson's copy of Table 3: 13.3.0 and 13.3.1 both need 610.43.02.
    assert str(rows["13.3"].linux) == "610.43.02"
    for cuda in ("13.4", "13.5"):
        row = rows[cuda]
        assert (row.linux, row.windows, row.confidence) == (None, None, "uncertain")
        assert KB.nvidia.toolkit_driver(row.cuda, "linux") is None
    # No driver maps to them: a newer driver reads as the newest CUDA whose minimum is known.
    assert str(KB.nvidia.max_cuda(DriverVersion.parse("640.10"), "linux")) == "13.3"


def test_a_driverless_toolkit_row_must_say_it_is_uncertain(tmp_path: Path) -> None:
    data = write_minimal(tmp_path)
    edit(data, "nvidia.toml", 'linux = "550.54.14"\nwindows = "551.61"\n', "")
    with pytest.raises(InputFileError, match="linux"):
        load_directory(data)


def test_the_cuda_13_toolkit_wheels_pin_cccl_on_its_own_line() -> None:
    row = next(r for r in KB.toolkit_wheels if r.cuda == 13)
    # pypi.org/simple/nvidia-cuda-cccl/: 13.3.3.x for CUDA 13.3, 13.3.4.x for 13.4, 13.3.5.x
    # for 13.5; the other wheels keep the CUDA version (13.4.92, 13.5.37).
    for minor, cccl in (("13.3", "==13.3.3.*"), ("13.4", "==13.3.4.*"), ("13.5", "==13.3.5.*")):
        cuda = CudaVersion.parse(minor)
        assert cuda in row.minors
        assert row.spec("nvidia-cuda-cccl", cuda) == cccl
        assert row.spec("nvidia-cuda-nvcc", cuda) == f"=={minor}.*"
    assert row.spec("nvidia-cuda-cccl", CudaVersion.parse("13.2")) == "==13.2.*"
    # Every toolkit minor of the wheels is a CUDA release the driver table knows.
    known = {r.cuda for r in KB.nvidia.toolkits}
    assert all(minor in known for r in KB.toolkit_wheels for minor in r.minors)


def test_fixed_kernels_are_compilable_by_the_cuda_they_were_built_with() -> None:
    for row in KB.fixed:
        if not (row.sass or row.ptx):
            continue
        assert row.built is not None, row.versions  # PTX JIT needs the build's CUDA
        oldest = KB.nvidia.oldest_arch(row.built.major)
        assert oldest is not None and min(row.sass + row.ptx) >= oldest, row
        assert list(row.sass) == sorted(row.sass) and list(row.ptx) == sorted(row.ptx), row


def test_a_platform_limited_flavour_names_the_platforms_its_wheels_serve() -> None:
    # TensorFlow after 2.10 and the jax CUDA plugins have no Windows GPU build.
    for row in KB.fixed:
        if row.package == "tensorflow" and SpecifierSet(row.versions).contains("2.11.0"):
            assert "windows-x86_64" not in row.platforms and row.platforms, row.versions
        if row.package == "jax" and row.extra in ("cuda12", "cuda13"):
            assert "windows-x86_64" not in row.platforms and row.platforms, row.extra
