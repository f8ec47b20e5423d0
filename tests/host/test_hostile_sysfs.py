"""Issue 40 item 4: detection reads every system file bounded, and skips what it cannot parse.

AMD detection read ``/sys`` with plain reads: a KFD ``properties`` file that is a FIFO hung
`detect` (and every command that detects this machine), one linked to ``/dev/zero`` filled
the memory, a 5,000-digit value or a node folder named ``²`` (a digit to `str.isdigit`)
crashed it, and ``$ROCM_PATH/.info/version`` linked to ``/dev/zero`` filled the memory. The
PCI attributes (AMD and Intel) and the NVIDIA kernel module's version were read the same way.

The commands run the real `poetry-cuda detect` on a fake root (`POETRY_CUDA_SYSFS_ROOT`),
with a time limit and an address-space limit, so that a hang or a runaway read fails the
test instead of the machine.
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys

from typing import TYPE_CHECKING
from typing import Any

import pytest

from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from poetry_cuda.host.amd import detect_amd
from poetry_cuda.host.amd import parse_kfd_properties
from poetry_cuda.host.amd import read_kfd_nodes
from poetry_cuda.host.pci import read_pci_devices
from poetry_cuda.host.procfs import probe_procfs
from poetry_cuda.host.system_files import SMALL_FILE_LIMIT
from poetry_cuda.host.system_files import SYSFS_ROOT_ENV
from poetry_cuda.host.system_files import read_small
from tests.support import fake_sysfs
from tests.support.cli import BIN
from tests.support.fake_sysfs import KFD
from tests.support.fake_sysfs import MI300X_GPU_NODE
from tests.support.fake_sysfs import FakeSysfs
from tests.support.fake_sysfs import environ


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Cli


pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero are POSIX")
WAIT = 120  # a hang fails the test after this many seconds; a pass takes a few
MEMORY = 2 * 1024**3  # far above what detect needs, far below /dev/zero read whole


@pytest.fixture
def sysfs(tmp_path: Path) -> FakeSysfs:
    return FakeSysfs(tmp_path / "root")


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def detect(cli: Cli, sysfs: FakeSysfs, **env: str) -> dict[str, Any]:
    """`poetry-cuda detect --json` on the fake root, bounded in time and memory."""
    completed = subprocess.run(
        [str(BIN / "poetry-cuda"), "detect", "--json"],
        cwd=sysfs.root,
        env={**cli.env, "PATH": "", SYSFS_ROOT_ENV: str(sysfs.root), **env},
        capture_output=True,
        text=True,
        timeout=WAIT,
        preexec_fn=_limited,  # no thread of the test process runs meanwhile
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert "Traceback" not in completed.stderr
    document: dict[str, Any] = json.loads(completed.stdout)
    return document


def probes(document: dict[str, Any]) -> str:
    return "\n".join(f"{p['probe']}: {p['detail']}" for p in document["probes"])


def replace_with_fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def replace_with_dev_zero(path: Path) -> None:
    path.unlink()
    path.symlink_to("/dev/zero")


GPU_PROPERTIES = f"{KFD}/1/properties"


# --- through the real command -------------------------------------------------------------


def test_the_sysfs_root_variable_moves_detection(cli: Cli, sysfs: FakeSysfs) -> None:
    fake_sysfs.mi300x(sysfs)
    document = detect(cli, sysfs)
    [gpu] = document["gpus"]
    assert (gpu["vendor"], gpu["gfx"]) == ("amd", "gfx942")
    assert document["rocm"]["version"] == "6.4.0"


def test_a_kfd_properties_fifo_does_not_hang_detect(cli: Cli, sysfs: FakeSysfs) -> None:
    fake_sysfs.mi300x(sysfs)
    replace_with_fifo(sysfs.root / GPU_PROPERTIES)
    document = detect(cli, sysfs)
    said = probes(document)
    assert "properties: not a regular file but a named pipe (FIFO), skipped" in said
    # The card is still on the PCI bus: a GPU of unknown architecture, left out.
    assert document["gpus"] == []
    assert "amd-pci: 0000:05:00.0 1002:74a1 (architecture unknown)" in said


def test_a_kfd_properties_linked_to_dev_zero_is_skipped(cli: Cli, sysfs: FakeSysfs) -> None:
    fake_sysfs.mi300x(sysfs)
    replace_with_dev_zero(sysfs.root / GPU_PROPERTIES)
    said = probes(detect(cli, sysfs))
    assert "properties: not a regular file but a character device, skipped" in said


def test_a_rocm_version_linked_to_dev_zero_is_no_version(cli: Cli, sysfs: FakeSysfs) -> None:
    fake_sysfs.mi300x(sysfs)
    sysfs.rocm_version("6.2.0", home="opt/rocm-6.2")
    replace_with_dev_zero(sysfs.root / "opt/rocm-6.2/.info/version")
    document = detect(cli, sysfs, ROCM_PATH="/opt/rocm-6.2")
    assert [gpu["gfx"] for gpu in document["gpus"]] == ["gfx942"]
    assert document["rocm"]["version"] is None


def test_pci_and_nvidia_module_files_that_are_fifos_do_not_hang_detect(
    cli: Cli, sysfs: FakeSysfs
) -> None:
    fake_sysfs.arc_a770(sysfs)
    replace_with_fifo(sysfs.root / "sys/bus/pci/devices/0000:03:00.0/class")
    version = sysfs.write("sys/module/nvidia/version", "550.54.14\n")
    replace_with_fifo(version)
    document = detect(cli, sysfs)
    assert document["gpus"] == []  # the Arc's class cannot be read: not listed as a device
    assert "procfs: " in probes(document)
    assert "not a regular file but a named pipe (FIFO)" in probes(document)


# --- the probes ---------------------------------------------------------------------------


def test_a_value_of_5000_digits_is_skipped(sysfs: FakeSysfs) -> None:
    fake_sysfs.mi300x(sysfs)
    huge = MI300X_GPU_NODE.replace("gfx_target_version 90402", "gfx_target_version " + "9" * 5000)
    sysfs.kfd_node(2, huge.replace("location_id 18176", "location_id 1"))
    found = detect_amd(root=sysfs.root, environ=environ())
    # The node without a target version reads as no GPU; the other one is found.
    assert [gpu.gfx for gpu in found.gpus] == ["gfx942"]
    assert parse_kfd_properties("simd_count " + "1" * 5000) == {}
    assert parse_kfd_properties("simd_count " + "1" * 20) == {"simd_count": int("1" * 20)}


@pytest.mark.parametrize("name", ["²", "١", "12x", "-1", "1" * 10])
def test_a_node_folder_that_is_no_number_is_skipped_with_a_note(
    sysfs: FakeSysfs, name: str
) -> None:
    fake_sysfs.mi300x(sysfs)
    try:
        (sysfs.root / KFD / name).mkdir()
    except OSError:  # a name longer than the file system allows
        pytest.skip("the file system refuses this name")
    (sysfs.root / KFD / name / "properties").write_text(MI300X_GPU_NODE)
    nodes, _, notes = read_kfd_nodes(sysfs.root)
    assert [node.node for node in nodes] == [0, 1]
    assert tuple(map(str, notes)) == (f"{name!a}: not a node number, skipped",)
    found = detect_amd(root=sysfs.root, environ=environ())
    assert [gpu.gfx for gpu in found.gpus] == ["gfx942"]
    assert "not a node number, skipped" in found.reports[0].detail


def test_an_oversized_attribute_is_not_read(sysfs: FakeSysfs) -> None:
    fake_sysfs.amd_without_kfd(sysfs)
    vendor = sysfs.root / "sys/bus/pci/devices/0000:03:00.0/vendor"
    vendor.write_text("0x1002\n" + " " * SMALL_FILE_LIMIT)
    assert read_pci_devices(sysfs.root / "sys") == ()
    with pytest.raises(OSError, match="larger than 256 KiB"):
        read_small(vendor)


def test_read_small_never_opens_what_is_no_regular_file(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    for path, kind in ((pipe, "a named pipe"), (tmp_path, "a folder")):
        with pytest.raises(OSError, match=f"not a regular file but {kind}"):
            read_small(path)
    with pytest.raises(FileNotFoundError):
        read_small(tmp_path / "absent")


def test_procfs_notes_a_version_file_that_is_a_device(sysfs: FakeSysfs) -> None:
    version = sysfs.write("sys/module/nvidia/version", "550.54.14\n")
    replace_with_dev_zero(version)
    found = probe_procfs(sys_root=sysfs.root / "sys", proc_root=sysfs.root / "proc")
    assert found.report.result == "error"
    assert "not a regular file but a character device" in found.report.detail


# --- the KFD topology reader, fuzzed ------------------------------------------------------

VALUES = st.one_of(
    st.integers(min_value=0, max_value=2**64 - 1).map(str),
    st.text(alphabet="0123456789²³¹١٢߀", min_size=1, max_size=30),
    st.integers(min_value=21, max_value=5000).map(lambda n: "9" * n),
    st.text(max_size=20),
)
LINES = st.tuples(st.sampled_from(["gfx_target_version", "simd_count", "x"]), VALUES).map(" ".join)
NAMES = st.one_of(
    st.integers(min_value=0, max_value=10**9).map(str),
    st.text(alphabet="0123456789²١-x", min_size=1, max_size=12),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(NAMES, st.lists(LINES, max_size=6).map("\n".join)), max_size=5))
@example([("²", "simd_count 1"), ("1", "gfx_target_version " + "9" * 5000)])
def test_the_kfd_topology_reader_reads_any_tree(
    tmp_path_factory: pytest.TempPathFactory, tree: list[tuple[str, str]]
) -> None:
    root = tmp_path_factory.mktemp("kfd")
    base = root / KFD
    base.mkdir(parents=True)
    for name, text in tree:
        folder = base / name
        if folder.exists():
            continue
        folder.mkdir()
        (folder / "properties").write_text(text, encoding="utf-8")
    nodes, topology, notes = read_kfd_nodes(root)
    assert topology == str(base)
    numbers = {int(name) for name, _ in tree if re.fullmatch("[0-9]{1,9}", name)}
    assert {node.node for node in nodes} == numbers
    assert len(nodes) + len(notes) == len({name for name, _ in tree})
    for node in nodes:
        assert 0 <= node.gfx_target_version < 10**20
    detect_amd(root=root, environ=environ(), programs=False)


@given(st.text())
def test_kfd_properties_parse_to_bounded_numbers(text: str) -> None:
    for value in parse_kfd_properties(text).values():
        assert 0 <= value < 10**20
