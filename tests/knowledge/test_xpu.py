"""XPU knowledge: invariants of the shipped xpu.toml, its sourced facts, and its checks.

The expected facts come from the sources the data cites (pytorch/test-infra's build matrix,
intel/torch-xpu-ops BuildFlags.cmake per release branch, PyTorch's XPU docs).
"""

from __future__ import annotations

import shutil

from typing import TYPE_CHECKING

import pytest

from packaging.version import Version

from poetry_cuda.errors import InputFileError
from poetry_cuda.host.intel import FAMILIES
from poetry_cuda.host.intel import FIRST_SUPPORTED_IP
from poetry_cuda.knowledge import packaged
from poetry_cuda.knowledge.rocm import DATA
from poetry_cuda.knowledge.xpu import FILE
from poetry_cuda.knowledge.xpu import device_ip
from poetry_cuda.knowledge.xpu import load_xpu


if TYPE_CHECKING:
    from pathlib import Path


KB = packaged.xpu()


def test_every_row_has_a_source_and_a_confidence() -> None:
    rows: list[object] = [KB.index, KB.requirement, *KB.releases, *KB.aot_targets, *KB.triton]
    for row in rows:
        source, confidence = getattr(row, "source", ""), getattr(row, "confidence", "")
        assert source.strip(), row
        assert confidence in {"verified", "third-party", "uncertain"}, row


def test_the_triton_package_follows_the_release() -> None:
    # torch 2.10 moved from pytorch-triton-xpu to triton-xpu (xpu.toml [[triton]]).
    rows = [KB.triton_for(version) for version in ("2.7.1", "2.10.0+xpu", "2.13.0")]
    assert [row.name if row else None for row in rows] == [
        "pytorch-triton-xpu",
        "triton-xpu",
        "triton-xpu",
    ]


def test_releases_are_ordered_from_2_5() -> None:
    releases = [Version(release.torch) for release in KB.releases]
    assert releases == sorted(releases)
    # XPU entered the build matrix after the 2.4 cut (pytorch/test-infra 788059361c9d).
    assert KB.releases[0].torch == "2.5"
    assert KB.release("2.4.1") is None


def test_every_release_builds_linux_and_windows() -> None:
    for release in KB.releases:
        assert release.platforms == ("linux-x86_64", "windows-x86_64")
    first = KB.release("2.5.1")
    assert first is not None
    assert first.windows_members == ("torch",)  # docs 2.5: vision/audio from source


def test_the_host_needs_level_zero_and_an_arc_class_gpu() -> None:
    assert KB.requirement.libraries == ("libze_loader.so.1", "libze_intel_gpu.so.1")
    assert device_ip(KB.requirement.min_device_ip) == FIRST_SUPPORTED_IP
    assert KB.supported("12.55.8")  # Arc A770
    assert KB.supported("20.1.0")  # Arc B580
    assert not KB.supported("12.2.0")  # UHD 770


@pytest.mark.parametrize(
    ("torch", "ip", "windows", "native"),
    [
        ("2.6.0", "20.1.0", False, False),  # B580: not in 2.6's Linux AOT list, JIT
        ("2.7.0", "20.1.4", False, True),  # B0 stepping of BMG-G21, native from 2.7
        ("2.5.1", "12.60.7", False, True),  # Max 1550: pvc in every Linux list
        ("2.13.0", "12.60.7", False, True),
        ("2.6.0", "20.4.4", False, False),  # Lunar Lake: lnl-m from 2.7 on Linux
        ("2.6.0", "20.4.4", True, True),  # xe2-lpg on Windows in 2.6
        ("2.13.0", "12.71.4", True, True),  # Meteor Lake-H on Windows
        ("2.9.0", "12.55.8", False, True),  # Arc A770: dg2
    ],
)
def test_native_or_jit(torch: str, ip: str, windows: bool, native: bool) -> None:
    release = KB.release(torch)
    assert release is not None
    assert KB.native(release, ip, windows=windows) is native


def test_the_host_tables_ips_are_the_knowledges() -> None:
    known = {ip for target in KB.aot_targets for ip in target.device_ips}
    for family in FAMILIES.values():
        if family.device_ip and device_ip(family.device_ip) >= FIRST_SUPPORTED_IP:
            assert ".".join(family.device_ip.split(".")[:2]) in known, family.key


@pytest.fixture
def data(tmp_path: Path) -> Path:
    shutil.copy(DATA / FILE, tmp_path / FILE)
    return tmp_path


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('aot_linux = ["pvc", "xe-lpg"', 'aot_linux = ["pvc", "xe-lqg"', "has no aot_target row"),
        ('torch = "2.6"', 'torch = "2.5"', "ascending order"),
        ('min_device_ip = "12.55"', 'min_device_ip = "Arc"', "is not a device IP"),
        ('windows_members = ["torch"]', 'windows_members = ["torchtext"]', "not one of"),
        ("platforms = [", 'platforms = ["linux-ppc64le", ', "not one of"),
    ],
)
def test_bad_rows_are_refused(data: Path, old: str, new: str, message: str) -> None:
    text = (data / FILE).read_text(encoding="utf-8")
    assert old in text
    (data / FILE).write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(InputFileError, match=r"xpu\.toml") as error:
        load_xpu(data)
    assert message in str(error.value)


def test_the_copy_loads_like_the_shipped_file(data: Path) -> None:
    assert load_xpu(data) == KB
