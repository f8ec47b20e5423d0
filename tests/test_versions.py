from __future__ import annotations

import contextlib

import pytest

from hypothesis import given
from hypothesis import strategies as st

from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("12.4", CudaVersion(12, 4)),
        ("12.4.131", CudaVersion(12, 4)),
        ("cu124", CudaVersion(12, 4)),
        ("cu118", CudaVersion(11, 8)),
        ("cu130", CudaVersion(13, 0)),
        ("cu92", CudaVersion(9, 2)),
        (" 11.0 ", CudaVersion(11, 0)),
    ],
)
def test_cuda_version_parses(text: str, expected: CudaVersion) -> None:
    assert CudaVersion.parse(text) == expected


@pytest.mark.parametrize("text", ["", "12", "cu", "cu1", "cuda12.4", "12.x", "rocm6.2", "cpu"])
def test_cuda_version_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="not a CUDA version"):
        CudaVersion.parse(text)


@pytest.mark.parametrize(
    ("value", "expected"), [(12040, "12.4"), (11080, "11.8"), (13000, "13.0"), (12090, "12.9")]
)
def test_nvml_encoding(value: int, expected: str) -> None:
    assert str(CudaVersion.from_nvml(value)) == expected


def test_nvml_encoding_rejects_zero() -> None:
    with pytest.raises(ValueError, match="NVML"):
        CudaVersion.from_nvml(0)


def test_variant_name_and_order() -> None:
    assert CudaVersion(12, 4).variant == "cu124"
    assert CudaVersion(11, 8) < CudaVersion(12, 0) < CudaVersion(12, 10)


@given(st.integers(1, 99), st.integers(0, 9))
def test_cuda_version_round_trips(major: int, minor: int) -> None:
    version = CudaVersion(major, minor)
    assert CudaVersion.parse(str(version)) == version
    if major >= 10:
        assert CudaVersion.parse(version.variant) == version


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("8.9", ComputeCapability(8, 9)),
        ("sm_89", ComputeCapability(8, 9)),
        ("sm_120", ComputeCapability(12, 0)),
        ("sm_90a", ComputeCapability(9, 0)),
        ("compute_75", ComputeCapability(7, 5)),
        ("12.0", ComputeCapability(12, 0)),
    ],
)
def test_compute_capability_parses(text: str, expected: ComputeCapability) -> None:
    assert ComputeCapability.parse(text) == expected


@pytest.mark.parametrize("text", ["", "89", "sm89", "8.9.1", "sm_8"])
def test_compute_capability_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="compute capability"):
        ComputeCapability.parse(text)


@given(st.integers(1, 20), st.integers(0, 9))
def test_compute_capability_round_trips(major: int, minor: int) -> None:
    cc = ComputeCapability(major, minor)
    assert ComputeCapability.parse(str(cc)) == cc
    assert ComputeCapability.parse(cc.sm) == cc


def test_driver_version_compares_numerically_and_prints_as_written() -> None:
    assert DriverVersion.parse("470.82.01") < DriverVersion.parse("470.141.03")
    assert DriverVersion.parse("580") == DriverVersion.parse("580.0.0")
    assert DriverVersion.parse("525.60.13") > DriverVersion.parse("525.60.2")
    assert str(DriverVersion.parse("470.82.01")) == "470.82.01"
    assert len({DriverVersion.parse("580"), DriverVersion.parse("580.0")}) == 1


@pytest.mark.parametrize("text", ["", "abc", "550.54.14.1.2", "550..14", "-1"])
def test_driver_version_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="driver version"):
        DriverVersion.parse(text)


@given(st.text())
def test_parsers_raise_only_value_error(text: str) -> None:
    for parser in (CudaVersion.parse, ComputeCapability.parse, DriverVersion.parse):
        with contextlib.suppress(ValueError):
            parser(text)
