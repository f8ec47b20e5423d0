from __future__ import annotations

from pathlib import Path

import pytest

from hypothesis import given
from hypothesis import strategies as st

from poetry_cuda.host.procfs import parse_proc_driver_version
from poetry_cuda.host.procfs import parse_sys_module_version
from poetry_cuda.host.procfs import probe_procfs
from poetry_cuda.versions import DriverVersion


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "proc"


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("driver-version-proprietary-550.txt", "550.54.14"),
        ("driver-version-proprietary-470.txt", "470.182.03"),
        ("driver-version-open-565.txt", "565.57.01"),
        ("driver-version-open-590.txt", "590.48.01"),
        ("driver-version-aarch64-535.txt", "535.104.05"),
    ],
)
def test_proc_driver_version_fixtures(fixture: str, expected: str) -> None:
    text = (FIXTURES / fixture).read_text(encoding="utf-8")
    assert parse_proc_driver_version(text) == expected


def test_proc_driver_version_jetson_open_module() -> None:
    line = (
        "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  35.3.1  Release Build  "
        "(buildbrain@mobile-u64-6289-d7000)  Sun Mar 19 08:09:33 PDT 2023\n"
    )
    assert parse_proc_driver_version(line) == "35.3.1"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "GCC version:  gcc version 12.3.0\n",
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module\n",
        "Something else: 550.54.14\n",
    ],
)
def test_proc_driver_version_absent(text: str) -> None:
    assert parse_proc_driver_version(text) is None


def test_sys_module_version() -> None:
    text = (FIXTURES / "sys-module-nvidia-version.txt").read_text(encoding="utf-8")
    assert parse_sys_module_version(text) == "550.54.14"
    assert parse_sys_module_version("not loaded\n") is None
    assert parse_sys_module_version("") is None


@given(st.text())
def test_parsers_never_raise_and_return_driver_versions(text: str) -> None:
    for parse in (parse_proc_driver_version, parse_sys_module_version):
        version = parse(text)
        if version is not None:
            assert str(DriverVersion.parse(version)) == version


versions = st.lists(st.integers(0, 999), min_size=2, max_size=4).map(
    lambda parts: ".".join(str(part) for part in parts)
)


@given(
    version=versions,
    module=st.sampled_from(
        [
            "NVIDIA UNIX x86_64 Kernel Module",
            "NVIDIA UNIX aarch64 Kernel Module",
            "NVIDIA UNIX Open Kernel Module for x86_64",
            "NVIDIA UNIX Open Kernel x86_64 Kernel Module",
        ]
    ),
)
def test_proc_driver_version_round_trip(version: str, module: str) -> None:
    text = f"NVRM version: {module}  {version}  Thu Feb 22 01:44:30 UTC 2024\nGCC version: 12\n"
    assert parse_proc_driver_version(text) == version
    assert parse_sys_module_version(f"{version}\n") == version


def _tree(root: Path, *, sys_text: str | None = None, proc_text: str | None = None) -> None:
    if sys_text is not None:
        path = root / "sys" / "module" / "nvidia" / "version"
        path.parent.mkdir(parents=True)
        path.write_text(sys_text, encoding="utf-8")
    if proc_text is not None:
        path = root / "proc" / "driver" / "nvidia" / "version"
        path.parent.mkdir(parents=True)
        path.write_text(proc_text, encoding="utf-8")


def test_probe_prefers_sys_module(fake_root: Path) -> None:
    proc = (FIXTURES / "driver-version-proprietary-470.txt").read_text(encoding="utf-8")
    _tree(fake_root, sys_text="550.54.14\n", proc_text=proc)
    findings = probe_procfs(sys_root=fake_root / "sys", proc_root=fake_root / "proc")
    assert findings.driver == DriverVersion.parse("550.54.14")
    assert findings.cuda is None
    assert findings.gpus is None
    assert findings.report.result == "found"
    assert "sys/module/nvidia/version: 550.54.14" in findings.report.detail


def test_probe_falls_back_to_proc(fake_root: Path) -> None:
    proc = (FIXTURES / "driver-version-open-565.txt").read_text(encoding="utf-8")
    _tree(fake_root, sys_text="garbage\n", proc_text=proc)
    findings = probe_procfs(sys_root=fake_root / "sys", proc_root=fake_root / "proc")
    assert findings.driver == DriverVersion.parse("565.57.01")
    assert "proc/driver/nvidia/version" in findings.report.detail


def test_probe_without_module(fake_root: Path) -> None:
    findings = probe_procfs(sys_root=fake_root / "sys", proc_root=fake_root / "proc")
    assert findings.driver is None
    assert findings.report.result == "absent"
    assert "no NVIDIA kernel module" in findings.report.detail


def test_probe_with_unreadable_content(fake_root: Path) -> None:
    _tree(fake_root, proc_text="NVRM version: something new\n")
    findings = probe_procfs(sys_root=fake_root / "sys", proc_root=fake_root / "proc")
    assert findings.driver is None
    assert findings.report.result == "error"
    assert "no driver version in it" in findings.report.detail
