from __future__ import annotations

import time

from pathlib import Path

import pytest

from hypothesis import given
from hypothesis import strategies as st

from poetry_cuda.host.probe import GpuFacts
from poetry_cuda.host.probe import ProbeResult
from poetry_cuda.host.smi import FIELDS
from poetry_cuda.host.smi import find_nvidia_smi
from poetry_cuda.host.smi import parse_header_cuda
from poetry_cuda.host.smi import parse_query
from poetry_cuda.host.smi import probe_smi
from poetry_cuda.host.smi import query_arguments
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion
from tests.support.fake_nvml import FakeSmi


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "nvidia-smi"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def test_query_arguments() -> None:
    assert query_arguments(FIELDS) == [
        "--query-gpu=index,name,uuid,memory.total,compute_cap,driver_version",
        "--format=csv,noheader,nounits",
    ]


def test_parse_single_rtx_4090() -> None:
    gpus, driver = parse_query(fixture("query-rtx4090.csv"))
    assert driver == DriverVersion.parse("550.54.14")
    assert gpus == (
        GpuFacts(
            index=0,
            name="NVIDIA GeForce RTX 4090",
            uuid="GPU-5a3c9e1f-0b7d-4c2a-9e84-1f6b2d3c4a50",
            memory_mib=24564,
            compute_capability=ComputeCapability(8, 9),
        ),
    )


def test_parse_eight_a100() -> None:
    gpus, driver = parse_query(fixture("query-8xa100.csv"))
    assert driver == DriverVersion.parse("535.129.03")
    assert [gpu.index for gpu in gpus] == list(range(8))
    assert {gpu.compute_capability for gpu in gpus} == {ComputeCapability(8, 0)}
    assert {gpu.memory_mib for gpu in gpus} == {81920}
    assert len({gpu.uuid for gpu in gpus}) == 8


def test_parse_mixed_gpus() -> None:
    gpus, _ = parse_query(fixture("query-rtx4090-gtx1080ti.csv"))
    assert [(gpu.name, gpu.compute_capability) for gpu in gpus] == [
        ("NVIDIA GeForce RTX 4090", ComputeCapability(8, 9)),
        ("NVIDIA GeForce GTX 1080 Ti", ComputeCapability(6, 1)),
    ]


def test_parse_old_driver_without_compute_cap() -> None:
    gpus, driver = parse_query(fixture("query-470-without-compute-cap.csv"), with_compute_cap=False)
    assert driver == DriverVersion.parse("470.182.03")
    assert [(gpu.name, gpu.memory_mib, gpu.compute_capability) for gpu in gpus] == [
        ("Tesla T4", 15109, None),
        ("Tesla T4", 15109, None),
    ]


def test_parse_error_text_gives_nothing() -> None:
    assert parse_query(fixture("query-470-compute-cap-error.txt")) == ((), None)
    assert parse_query(fixture("no-driver.txt")) == ((), None)


def test_parse_name_with_comma_and_unknown_values() -> None:
    text = "3, NVIDIA Foo, Bar Edition, [N/A], [N/A], [N/A], 550.54.14\n"
    gpus, driver = parse_query(text)
    assert gpus == (GpuFacts(index=3, name="NVIDIA Foo, Bar Edition"),)
    assert driver == DriverVersion.parse("550.54.14")


@pytest.mark.parametrize(
    ("name", "cuda"),
    [
        ("table-550-rtx4090.txt", CudaVersion(12, 4)),
        ("table-470-t4.txt", CudaVersion(11, 4)),
        ("table-580-a100.txt", CudaVersion(13, 0)),
    ],
)
def test_parse_header_cuda(name: str, cuda: CudaVersion) -> None:
    assert parse_header_cuda(fixture(name)) == cuda


def test_parse_header_cuda_absent() -> None:
    assert parse_header_cuda(fixture("no-driver.txt")) is None
    assert parse_header_cuda("CUDA Version : 12.8\n") == CudaVersion(12, 8)


@given(st.text())
def test_parsers_never_raise(text: str) -> None:
    parse_query(text)
    parse_query(text, with_compute_cap=False)
    parse_header_cuda(text)


names = (
    st.text(
        st.characters(codec="ascii", categories=["L", "N", "Zs"], include_characters="-_,()"),
        min_size=1,
        max_size=40,
    )
    .map(str.strip)
    .filter(lambda name: bool(name) and not name.startswith("[") and name != "N/A")
)
gpu_rows = st.builds(
    GpuFacts,
    index=st.integers(0, 63),
    name=names,
    uuid=st.uuids().map(lambda uuid: f"GPU-{uuid}"),
    memory_mib=st.integers(1, 10**6),
    compute_capability=st.builds(ComputeCapability, st.integers(1, 12), st.integers(0, 9)),
)


@given(st.lists(gpu_rows, max_size=8), st.booleans())
def test_parse_query_round_trip(gpus: list[GpuFacts], with_compute_cap: bool) -> None:
    rows = []
    for gpu in gpus:
        cells = [str(gpu.index), str(gpu.name), str(gpu.uuid), str(gpu.memory_mib)]
        if with_compute_cap:
            cells.append(str(gpu.compute_capability))
        rows.append(", ".join([*cells, "550.54.14"]))
    parsed, driver = parse_query("\n".join(rows) + "\n", with_compute_cap=with_compute_cap)
    expected = [
        gpu if with_compute_cap else GpuFacts(gpu.index, gpu.name, gpu.uuid, gpu.memory_mib)
        for gpu in gpus
    ]
    assert list(parsed) == expected
    assert driver == (DriverVersion.parse("550.54.14") if gpus else None)


@given(st.integers(1, 99), st.integers(0, 9))
def test_parse_header_round_trip(major: int, minor: int) -> None:
    header = (
        f"| NVIDIA-SMI 550.54.14   Driver Version: 550.54.14   CUDA Version: {major}.{minor}  |"
    )
    assert parse_header_cuda(header) == CudaVersion(major, minor)


def _executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def test_find_on_path_and_in_wsl(tmp_path: Path) -> None:
    wsl = tmp_path / "wsl"
    on_path = _executable(tmp_path / "bin" / "nvidia-smi")
    environ = {"PATH": str(on_path.parent)}
    assert find_nvidia_smi(environ, os_name="linux", wsl_lib=wsl) == str(on_path)
    assert find_nvidia_smi({"PATH": ""}, os_name="linux", wsl_lib=wsl) is None
    in_wsl = _executable(wsl / "nvidia-smi")
    assert find_nvidia_smi({"PATH": ""}, os_name="linux", wsl_lib=wsl) == str(in_wsl)


def test_find_in_windows_locations(tmp_path: Path) -> None:
    environ = {"PATH": "", "WINDIR": str(tmp_path / "Windows"), "ProgramFiles": str(tmp_path)}
    wsl = tmp_path / "wsl"
    nvsmi = _executable(tmp_path / "NVIDIA Corporation" / "NVSMI" / "nvidia-smi.exe")
    assert find_nvidia_smi(environ, os_name="windows", wsl_lib=wsl) == str(nvsmi)
    system32 = _executable(tmp_path / "Windows" / "System32" / "nvidia-smi.exe")
    assert find_nvidia_smi(environ, os_name="windows", wsl_lib=wsl) == str(system32)


def _probe(
    tmp_path: Path, smi: FakeSmi, *, timeout: float = 10, want_cuda: bool = True
) -> ProbeResult:
    script = smi.write(tmp_path / "bin")
    return probe_smi(
        environ={"PATH": str(script.parent)},
        os_name="linux",
        wsl_lib=tmp_path / "no-wsl",
        timeout=timeout,
        want_cuda=want_cuda,
    )


def test_probe_current_driver(tmp_path: Path) -> None:
    smi = FakeSmi(
        query=fixture("query-rtx4090-gtx1080ti.csv"), table=fixture("table-550-rtx4090.txt")
    )
    findings = _probe(tmp_path, smi)
    assert findings.report.result == "found"
    assert findings.driver == DriverVersion.parse("550.54.14")
    assert findings.cuda == CudaVersion(12, 4)
    assert findings.gpus is not None
    assert [gpu.compute_capability for gpu in findings.gpus] == [
        ComputeCapability(8, 9),
        ComputeCapability(6, 1),
    ]


def test_probe_skips_the_table_when_cuda_is_known(tmp_path: Path) -> None:
    findings = _probe(tmp_path, FakeSmi(query=fixture("query-rtx4090.csv")), want_cuda=False)
    assert findings.cuda is None
    assert findings.report.result == "found"
    assert "CUDA Version" not in findings.report.detail


def test_probe_old_driver_retries_without_compute_cap(tmp_path: Path) -> None:
    smi = FakeSmi(
        old_query=fixture("query-470-without-compute-cap.csv"), table=fixture("table-470-t4.txt")
    )
    findings = _probe(tmp_path, smi)
    assert findings.report.result == "found"
    assert "cannot report compute_cap" in findings.report.detail
    assert findings.driver == DriverVersion.parse("470.182.03")
    assert findings.cuda == CudaVersion(11, 4)
    assert findings.gpus is not None
    assert [gpu.compute_capability for gpu in findings.gpus] == [None, None]


def test_probe_version_mismatch(tmp_path: Path) -> None:
    findings = _probe(tmp_path, FakeSmi(query=fixture("version-mismatch.txt"), exit_code=18))
    assert findings.report.result == "error"
    assert "Driver/library version mismatch" in findings.report.detail
    assert findings.gpus is None


def test_probe_without_driver(tmp_path: Path) -> None:
    findings = _probe(tmp_path, FakeSmi(query=fixture("no-driver.txt"), exit_code=9))
    assert findings.report.result == "absent"
    assert "couldn't communicate with the NVIDIA driver" in findings.report.detail


def test_probe_hanging_nvidia_smi_is_stopped(tmp_path: Path) -> None:
    started = time.monotonic()
    findings = _probe(tmp_path, FakeSmi(query=fixture("query-rtx4090.csv"), sleep=30), timeout=1)
    assert time.monotonic() - started < 5
    assert findings.report.result == "timeout"
    assert "did not answer within 1 s" in findings.report.detail


def test_probe_not_installed(tmp_path: Path) -> None:
    findings = probe_smi(
        environ={"PATH": str(tmp_path)},
        os_name="linux",
        wsl_lib=tmp_path / "no-wsl",
        timeout=1,
        want_cuda=True,
    )
    assert findings.report.result == "absent"
    assert findings.report.detail == "nvidia-smi not found"
