"""The builder writes valid wheels and sdists."""

from __future__ import annotations

import email.parser
import hashlib
import tarfile
import zipfile
import zlib

from typing import TYPE_CHECKING

import pytest

from packaging.utils import parse_sdist_filename
from packaging.utils import parse_wheel_filename
from packaging.version import Version

from tests.support.wheels import Metadata
from tests.support.wheels import SdistSpec
from tests.support.wheels import WheelSpec
from tests.support.wheels import build_sdist
from tests.support.wheels import build_wheel
from tests.support.wheels import escape_name
from tests.support.wheels import record_hash


if TYPE_CHECKING:
    from email.message import Message
    from pathlib import Path


TORCH = WheelSpec(
    Metadata(
        "torch",
        "2.5.1+cu124",
        requires_python=">=3.8.0",
        requires_dist=(
            "filelock",
            'nvidia-cuda-runtime-cu12==12.4.127; platform_system == "Linux"',
            'opt-einsum>=3.3; extra == "opt-einsum"',
        ),
        provides_extra=("opt-einsum",),
    ),
    "cp311-cp311-linux_x86_64",
    {"torch/__init__.py": '__version__ = "2.5.1+cu124"\n', "torch/version.py": 'cuda = "12.4"\n'},
)


def verify_wheel(path: Path) -> Message:
    """Check the wheel as an installer would: RECORD complete and correct. Return its METADATA."""
    name, version, _, tags = parse_wheel_filename(path.name)
    dist_info = f"{escape_name(name)}-{version}.dist-info"
    with zipfile.ZipFile(path) as archive:
        assert archive.testzip() is None
        members = [info.filename for info in archive.infolist()]
        assert members[-1] == f"{dist_info}/RECORD"
        rows = [line.split(",") for line in archive.read(members[-1]).decode().splitlines()]
        assert sorted(row[0] for row in rows) == sorted(members)
        for member, digest, size in rows:
            if member == members[-1]:
                assert digest == size == ""
                continue
            data = archive.read(member)
            assert (digest, int(size)) == (record_hash(data), len(data)), member
        wheel = email.parser.BytesParser().parsebytes(archive.read(f"{dist_info}/WHEEL"))
        assert sorted(wheel.get_all("Tag") or []) == sorted(str(tag) for tag in tags)
        assert wheel["Wheel-Version"] == "1.0"
        metadata = email.parser.BytesParser().parsebytes(archive.read(f"{dist_info}/METADATA"))
    assert Version(metadata["Version"]) == version
    return metadata


def test_wheel_is_complete_and_correct(tmp_path: Path) -> None:
    wheel = build_wheel(TORCH, tmp_path)
    assert wheel.name == "torch-2.5.1+cu124-cp311-cp311-linux_x86_64.whl"
    metadata = verify_wheel(wheel)
    assert metadata["Name"] == "torch"
    assert metadata["Version"] == "2.5.1+cu124"
    assert metadata["Requires-Python"] == ">=3.8.0"
    assert metadata.get_all("Requires-Dist") == list(TORCH.metadata.requires_dist)
    assert metadata.get_all("Provides-Extra") == ["opt-einsum"]
    with zipfile.ZipFile(wheel) as archive:
        assert archive.read("torch/version.py") == b'cuda = "12.4"\n'
        wheel_file = archive.read("torch-2.5.1+cu124.dist-info/WHEEL").decode()
    assert "Root-Is-Purelib: false" in wheel_file


def test_metadata_file_is_the_wheels_metadata(tmp_path: Path) -> None:
    wheel = build_wheel(TORCH, tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        inside = archive.read("torch-2.5.1+cu124.dist-info/METADATA")
    assert (tmp_path / f"{wheel.name}.metadata").read_bytes() == inside
    bare = build_wheel(TORCH, tmp_path / "bare", metadata_file=False)
    assert [path.name for path in bare.parent.iterdir()] == [wheel.name]


@pytest.mark.parametrize(
    ("name", "version", "tag", "filename"),
    [
        (
            "paddlepaddle-gpu",
            "2.6.2.post120",
            "cp311-cp311-linux_x86_64",
            "paddlepaddle_gpu-2.6.2.post120-cp311-cp311-linux_x86_64.whl",
        ),
        (
            "torch",
            "2.5.1+cu124",
            "cp311-cp311-win_amd64",
            "torch-2.5.1+cu124-cp311-cp311-win_amd64.whl",
        ),
        (
            "torch",
            "2.5.1",
            "cp311-none-macosx_11_0_arm64",
            "torch-2.5.1-cp311-none-macosx_11_0_arm64.whl",
        ),
        (
            "Typing.Extensions",
            "4.12.2",
            "py3-none-any",
            "typing_extensions-4.12.2-py3-none-any.whl",
        ),
        (
            "nvidia-cuda-runtime-cu12",
            "12.4.127",
            "py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64",
            "nvidia_cuda_runtime_cu12-12.4.127-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
        ),
    ],
)
def test_names_versions_and_tags(
    tmp_path: Path, name: str, version: str, tag: str, filename: str
) -> None:
    wheel = build_wheel(WheelSpec(Metadata(name, version), tag), tmp_path)
    assert wheel.name == filename
    verify_wheel(wheel)


def test_pure_wheels_are_purelib(tmp_path: Path) -> None:
    wheel = build_wheel(WheelSpec(Metadata("filelock", "3.16.1")), tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        assert "Root-Is-Purelib: true" in archive.read("filelock-3.16.1.dist-info/WHEEL").decode()


def test_padding_is_stored_incompressible_and_reproducible(tmp_path: Path) -> None:
    size = 8 << 20
    spec = WheelSpec(TORCH.metadata, TORCH.tag, TORCH.files, padding_bytes=size)
    first = build_wheel(spec, tmp_path / "a")
    second = build_wheel(spec, tmp_path / "b")
    assert first.stat().st_size > size
    assert first.read_bytes() == second.read_bytes()
    verify_wheel(first)
    with zipfile.ZipFile(first) as archive:
        info = archive.getinfo("torch/_padding.bin")
        assert info.compress_type == zipfile.ZIP_STORED
        assert info.file_size == size
        sample = archive.open(info).read(1 << 20)
    assert len(zlib.compress(sample, 9)) > 0.99 * len(sample)


def test_sdist_has_static_metadata(tmp_path: Path) -> None:
    spec = SdistSpec(
        Metadata("flash-attn", "2.7.4.post1", requires_python=">=3.9", requires_dist=("torch",)),
        {"flash_attn/__init__.py": "\n"},
    )
    sdist = build_sdist(spec, tmp_path)
    assert sdist.name == "flash_attn-2.7.4.post1.tar.gz"
    assert str(parse_sdist_filename(sdist.name)[1]) == "2.7.4.post1"
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
        pkg_info = archive.extractfile("flash_attn-2.7.4.post1/PKG-INFO")
        assert pkg_info is not None
        with pkg_info:
            metadata = email.parser.BytesParser().parsebytes(pkg_info.read())
    assert sorted(names) == [
        "flash_attn-2.7.4.post1/PKG-INFO",
        "flash_attn-2.7.4.post1/flash_attn/__init__.py",
        "flash_attn-2.7.4.post1/pyproject.toml",
    ]
    assert metadata["Metadata-Version"] == "2.2"
    assert metadata.get_all("Requires-Dist") == ["torch"]
    assert metadata["Dynamic"] is None
    again = build_sdist(spec, tmp_path / "again")
    assert (
        hashlib.sha256(again.read_bytes()).digest() == hashlib.sha256(sdist.read_bytes()).digest()
    )


def test_sdists_refuse_extras(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="extras"):
        build_sdist(SdistSpec(Metadata("x", "1", provides_extra=("a",))), tmp_path)
