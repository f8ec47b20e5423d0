"""ROCm knowledge: invariants of the shipped rocm.toml, its sourced facts, and its checks.

The expected facts come from the sources the data cites (pytorch/test-infra's build matrix,
measured get_arch_list() lists, AMD's compatibility matrix), not from the data itself.
"""

from __future__ import annotations

import shutil
import zipfile

from pathlib import Path

import pytest

from packaging.version import Version

from poetry_cuda.errors import InputFileError
from poetry_cuda.host.amd import is_gfx
from poetry_cuda.host.profiles import INTEGRATED_GFX
from poetry_cuda.knowledge import packaged
from poetry_cuda.knowledge.rocm import DATA
from poetry_cuda.knowledge.rocm import FILE
from poetry_cuda.knowledge.rocm import load_rocm


KB = packaged.rocm()
ROOT = Path(__file__).resolve().parents[2]
CONFIDENCES = {"verified", "third-party", "uncertain"}


def test_every_row_has_a_source_and_a_confidence() -> None:
    rows = [
        KB.index,
        *KB.releases,
        *(build for release in KB.releases for build in release.builds),
        *KB.library_gaps,
        *KB.kernel_drivers,
        *KB.module_versions,
        *KB.unserved,
        *KB.triton,
    ]
    for row in rows:
        source, confidence = getattr(row, "source", ""), getattr(row, "confidence", "")
        assert source.strip(), row
        assert confidence in CONFIDENCES, row


def test_gfx_names_are_well_formed_and_listed_once() -> None:
    for release in KB.releases:
        for build in release.builds:
            assert all(is_gfx(gfx) for gfx in build.gfx), build
            assert len(set(build.gfx)) == len(build.gfx)
    for row in KB.unserved:
        assert is_gfx(row.gfx)


def test_releases_and_their_builds_are_ordered_and_parse() -> None:
    releases = [Version(release.torch) for release in KB.releases]
    assert releases == sorted(releases)
    for release in KB.releases:
        builds = [Version(build.rocm) for build in release.builds]
        assert builds == sorted(builds), release.torch
        assert release.platform_tag.startswith(("linux_x86_64", "manylinux_"))
    for driver in KB.kernel_drivers:
        assert Version(driver.rocm_min) <= Version(driver.rocm_max)


def test_no_release_drops_a_gfx_an_older_one_had() -> None:
    # Up to 2.13 PyTorch only added targets (gfx900/gfx906 leave with ROCm 7.14 builds).
    for older, newer in zip(KB.releases[:-1], KB.releases[1:], strict=True):
        before = set(older.builds[-1].gfx)
        assert before <= set(newer.builds[0].gfx), (older.torch, newer.torch)


# pytorch/test-infra generate_binary_build_matrix.py, ROCM_ARCHES of each release.
BUILDS = {
    "2.0": ("5.3", "5.4.2"),
    "2.1": ("5.5", "5.6"),
    "2.2": ("5.6", "5.7"),
    "2.3": ("5.7", "6.0"),
    "2.4": ("6.0", "6.1"),
    "2.5": ("6.1", "6.2"),
    "2.6": ("6.1", "6.2.4"),
    "2.7": ("6.2.4", "6.3"),
    "2.8": ("6.3", "6.4"),
    "2.9": ("6.3", "6.4"),
    "2.10": ("7.0", "7.1"),
    "2.11": ("7.1", "7.2"),
    "2.12": ("7.1", "7.2"),
    "2.13": ("7.1", "7.2"),
}


def test_rocm_builds_per_release() -> None:
    assert {r.torch: tuple(b.rocm for b in r.builds) for r in KB.releases} == BUILDS


def test_release_lookup_and_variant_names() -> None:
    release = KB.release("2.9.1+rocm6.4")
    assert release is not None
    assert [build.variant for build in release.builds] == ["rocm6.3", "rocm6.4"]
    assert KB.release("2.14.0") is None
    assert KB.index.url.format(variant="rocm6.4") == "https://download.pytorch.org/whl/rocm6.4"
    assert KB.index.platforms == ("linux-x86_64",)


def served(torch: str, gfx: str) -> list[str]:
    release = KB.release(torch)
    assert release is not None
    return [build.rocm for build in release.builds if gfx in KB.usable_gfx(build)]


@pytest.mark.parametrize(
    ("torch", "gfx", "builds"),
    [
        ("2.9.1", "gfx942", ["6.3", "6.4"]),  # MI300X
        ("2.3.1", "gfx942", ["6.0"]),  # gfx942 only in ROCm 6 builds
        ("2.4.1", "gfx1100", ["6.0", "6.1"]),  # RX 7900 XTX
        ("2.5.1", "gfx1201", []),  # RX 9070 XT: gfx12 from 2.7 (pytorch PR 148562)
        ("2.7.1", "gfx1201", ["6.2.4", "6.3"]),
        ("2.9.1", "gfx950", []),  # MI355X: from 2.10 (pytorch PR 163860)
        ("2.10.0", "gfx950", ["7.0", "7.1"]),
        ("2.9.1", "gfx1151", []),  # Strix Halo
        ("2.13.0", "gfx1151", ["7.1", "7.2"]),
        ("2.12.0", "gfx1103", []),  # Radeon 780M: not on release/2.12 (unsloth PR 9829)
        ("2.0.1", "gfx90a", ["5.3", "5.4.2"]),  # MI250X
        ("2.5.1", "gfx1101", []),  # RX 7800 XT: from 2.6 (pytorch PR 141667)
        ("2.13.0", "gfx1036", []),  # Raphael iGPU: in no build
    ],
)
def test_which_builds_serve_a_gpu(torch: str, gfx: str, builds: list[str]) -> None:
    assert served(torch, gfx) == builds


def test_gfx906_is_compiled_but_not_usable_from_rocm_6_4() -> None:
    # rocBLAS in ROCm >= 6.4 ships no gfx906 kernels (ollama PR 12481, unsloth PR 7354).
    release = KB.release("2.9.1")
    assert release is not None
    assert all("gfx906" in build.gfx for build in release.builds)
    assert served("2.9.1", "gfx906") == ["6.3"]
    assert served("2.13.0", "gfx906") == []


def test_kernel_driver_matrix() -> None:
    # /sys/module/amdgpu/version 6.12.12 is the DKMS driver of ROCm 6.4.
    driver = KB.driver_release("6.12.12")
    assert driver is not None
    assert driver.release == "6.4"
    assert driver.admits("6.1")
    assert driver.admits("7.0")
    assert not driver.admits("7.1")
    assert not driver.admits("5.7")
    assert driver.admits("6.2.4")
    newest = next(row for row in KB.kernel_drivers if row.release == "30.30")
    assert newest.admits("7.2")
    assert KB.driver_release("5.19.0") is None


def test_unserved_gpus_explain_themselves() -> None:
    apu = KB.unserved_gpu("gfx1103")
    assert apu is not None
    assert (apu.integrated, apu.served_from, apu.override) == (True, "2.13", "11.0.0")
    assert apu.warning is not None
    assert "page faults" in apu.warning
    steam_deck = KB.unserved_gpu("gfx1033")
    assert steam_deck is not None
    assert steam_deck.override is None  # wrong answers, not a workaround
    assert KB.unserved_gpu("gfx1100") is None
    for row in KB.unserved:
        assert row.integrated == (row.gfx in INTEGRATED_GFX), row.gfx


def test_triton_companion_by_release() -> None:
    old = KB.triton_for("2.9.1")
    new = KB.triton_for("2.10.0")
    assert old is not None
    assert new is not None
    assert (old.name, new.name) == ("pytorch-triton-rocm", "triton-rocm")


@pytest.fixture
def data(tmp_path: Path) -> Path:
    shutil.copy(DATA / FILE, tmp_path / FILE)
    return tmp_path


def edit(data: Path, old: str, new: str, count: int = 1) -> None:
    text = (data / FILE).read_text(encoding="utf-8")
    assert old in text
    (data / FILE).write_text(text.replace(old, new, count), encoding="utf-8")


def test_the_copy_loads_like_the_shipped_file(data: Path) -> None:
    assert load_rocm(data) == KB


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('"gfx90a", "gfx1030"]', '"gfx90A", "gfx1030"]', "is not a gfx name"),
        ('rocm = "5.3"', 'rocm = "5.9"', "ascending order"),
        ('torch = "2.1"\n', 'torch = "2.0"\n', "lists a version twice"),
        ('rocm = ["5.1", "5.5"]', 'rocm = ["5.5", "5.1"]', "is empty"),
        ('rocm = ["5.1", "5.5"]', 'rocm = ["5.1"]', "expected [lowest, highest]"),
        ('module = "6.8"\nrelease = "6.2"', 'module = "6.8"\nrelease = "9.9"', "9.9 has no"),
        ('served_from = "2.13"', 'served_from = "2.12"', "torch 2.12 does not list gfx1103"),
        ('platforms = ["linux-x86_64"]', 'platforms = ["linux-riscv"]', "not one of"),
        (
            'platform_tag = "linux_x86_64"\n',
            'platform_tag = "linux_x86_64"\nextra = 1\n',
            "unknown key",
        ),
    ],
)
def test_bad_rows_are_refused_naming_the_key(data: Path, old: str, new: str, message: str) -> None:
    edit(data, old, new)
    with pytest.raises(InputFileError, match=r"rocm\.toml") as error:
        load_rocm(data)
    assert message in str(error.value)


def test_a_row_without_a_source_is_refused(data: Path) -> None:
    edit(data, 'source = "ROCm/amdgpu-docs PR 97', 'sourcE = "ROCm/amdgpu-docs PR 97')
    with pytest.raises(InputFileError, match=r"kernel_driver\[30.30\]\.source"):
        load_rocm(data)


def test_an_override_without_a_warning_is_refused(data: Path) -> None:
    edit(
        data,
        'warning = "HSA_OVERRIDE_GFX_VERSION=11.0.0',
        'note = "HSA_OVERRIDE_GFX_VERSION=11.0.0',
    )
    with pytest.raises(InputFileError):
        load_rocm(data)


def test_an_uncertain_row_needs_a_note(data: Path) -> None:
    edit(data, 'note = "Module 6.14.14', 'hint = "Module 6.14.14')
    with pytest.raises(InputFileError, match="needs a note"):
        load_rocm(data)


def test_the_wheel_ships_the_accelerator_tables(tmp_path: Path) -> None:
    from poetry.core.factory import Factory
    from poetry.core.masonry.builders.wheel import WheelBuilder

    wheel = WheelBuilder(Factory().create_poetry(ROOT)).build(tmp_path)
    names = set(zipfile.ZipFile(wheel).namelist())
    folder = "poetry_cuda/knowledge/data/accelerators"
    assert {f"{folder}/rocm.toml", f"{folder}/xpu.toml"} <= names


def test_the_index_agrees_with_the_torch_family_the_plan_uses() -> None:
    # Plans take a ROCm/XPU build's index from the torch family (assemble.family_index);
    # the ROCm and XPU knowledge names the same index, and must not drift from it.
    (torch,) = (family for family in packaged.load().families if family.name == "torch")
    for release in KB.releases:
        for build in release.builds:
            assert torch.index_url(build.variant) == KB.index.url.format(variant=build.variant)
    xpu = packaged.xpu()
    assert torch.index_url(xpu.index.variant) == xpu.index.url
