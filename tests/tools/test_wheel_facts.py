"""tools/wheel_facts.py: its parsers on real bytes, its range reads against a local index, and
(marked network) its facts about real releases on PyPI against the data files."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.knowledge.packaged import load
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from tests.support.index import IndexServer
from tests.support.index import refused_url


if TYPE_CHECKING:
    from collections.abc import Iterator


TOOL = Path(__file__).resolve().parents[2] / "tools" / "wheel_facts.py"
KERNEL = (
    "__global__ void twice(float *x) { x[threadIdx.x] *= 2; }\n"
    "void launch(float *x) { twice<<<1, 32>>>(x); }\n"
)
TORCH_VERSION_PY = (
    "from typing import Optional\n"
    "__version__ = '2.5.1'\n"
    "debug = False\n"
    "cuda: Optional[str] = '12.4'\n"
    "hip: Optional[str] = None\n"
)
TORCH_METADATA = (
    "Metadata-Version: 2.1\n"
    "Name: torch\n"
    "Version: 2.5.1\n"
    'Requires-Dist: nvidia-cuda-runtime-cu12==12.4.127; platform_system == "Linux" and'
    ' platform_machine == "x86_64"\n'
    "Requires-Dist: filelock\n"
    'Requires-Dist: nvidia-cuda-runtime-cu13==13.0.96; extra == "cu13"\n'
)


def _tool() -> Any:
    spec = importlib.util.spec_from_file_location("wheel_facts", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


facts = _tool()


def _nvcc() -> str | None:
    found = shutil.which("nvcc")
    if found is None and Path("/usr/local/cuda/bin/nvcc").exists():
        found = "/usr/local/cuda/bin/nvcc"
    return found


@pytest.fixture(scope="module")
def kernels(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A shared library with sm_75 SASS and compute_90 PTX, built by the real nvcc."""
    nvcc = _nvcc()
    if nvcc is None:
        pytest.skip("needs nvcc (a CUDA toolkit) to build a library with fat binaries")
    folder = tmp_path_factory.mktemp("kernels")
    (folder / "k.cu").write_text(KERNEL)
    library = folder / "libk.so"
    subprocess.run(
        [
            nvcc,
            "-gencode",
            "arch=compute_75,code=sm_75",
            "-gencode",
            "arch=compute_90,code=compute_90",
            "-shared",
            "-Xcompiler",
            "-fPIC",
            "k.cu",
            "-o",
            str(library),
        ],
        cwd=folder,
        check=True,
        capture_output=True,
        timeout=300,
    )
    return library.read_bytes()


def _pieces(data: bytes, size: int) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


# --- fat binaries and ELF ----------------------------------------------------------------------


@pytest.mark.parametrize("piece", [7, 4096, 1 << 30], ids=["7-byte pieces", "4 KiB", "whole"])
def test_the_scanner_finds_the_sass_and_ptx_nvcc_wrote(kernels: bytes, piece: int) -> None:
    containers = facts.scan_library(_pieces(kernels, piece))
    found = facts.arches(containers)
    assert found.sass == (ComputeCapability(7, 5),)
    assert found.ptx == (ComputeCapability(9, 0),)
    assert found.containers == len(containers) >= 1


def test_the_elf_section_table_names_the_fatbin_section(kernels: bytes) -> None:
    header = kernels[:64]
    offset, length = facts.section_table_place(header)
    table = kernels[offset : offset + length]
    names_offset, names_size = facts.name_table_place(header, table)
    sections = facts.elf_sections(table, kernels[names_offset : names_offset + names_size])
    fatbin = next(section for section in sections if section.name == ".nv_fatbin")
    assert kernels[fatbin.offset : fatbin.offset + 4] == facts.FATBIN_MAGIC
    containers = facts.scan_library([kernels])
    assert all(fatbin.offset <= c.offset < fatbin.offset + fatbin.size for c in containers)


def test_containers_outside_the_fatbin_section_do_not_count(kernels: bytes) -> None:
    """A copy of a container in other bytes (a library's data) is not the library's code."""
    header = kernels[:64]
    offset, length = facts.section_table_place(header)
    table = kernels[offset : offset + length]
    names_offset, names_size = facts.name_table_place(header, table)
    sections = facts.elf_sections(table, kernels[names_offset : names_offset + names_size])
    fatbin = next(section for section in sections if section.name == ".nv_fatbin")
    comment = next(section for section in sections if section.name == ".comment")
    container = kernels[fatbin.offset : fatbin.offset + fatbin.size]
    # Put one container in .comment's place, where no loader looks for kernels.
    size = min(comment.size, len(container))
    patched = kernels[: comment.offset] + container[:size] + kernels[comment.offset + size :]
    assert len(patched) == len(kernels)
    assert facts.scan_library([patched]) == facts.scan_library([kernels])


def test_a_file_that_is_not_elf_is_refused() -> None:
    with pytest.raises(facts.FormatError, match="not an ELF file"):
        facts.scan_library([b"MZ" + bytes(200)])


def test_arches_keep_what_most_fat_binaries_hold() -> None:
    sm = facts.Entry
    common = frozenset({sm("sass", ComputeCapability(8, 0)), sm("sass", ComputeCapability(9, 0))})
    extra = common | {sm("sass", ComputeCapability(8, 9))}
    containers = [facts.Container(i, common) for i in range(3)] + [facts.Container(9, extra)]
    found = facts.arches(containers)
    assert found.sass == (ComputeCapability(8, 0), ComputeCapability(9, 0))
    assert found.fewer == ((sm("sass", ComputeCapability(8, 9)), 1),)


# --- what a build records ----------------------------------------------------------------------


def test_the_cuda_version_is_read_from_the_build_files() -> None:
    assert facts.assigned_string(TORCH_VERSION_PY, "cuda") == "12.4"
    assert facts.assigned_string("cuda = None\n", "cuda") is None
    assert facts.assigned_string("x = 1\n", "cuda") is None
    paddle = "full_version = '2.6.2'\ncuda_version = '11.8'\ndef cuda():\n    return cuda_version\n"
    assert facts.assigned_string(paddle, "cuda_version") == "11.8"
    with pytest.raises(facts.FormatError):
        facts.assigned_string("cuda = (", "cuda")


def test_runtime_pins_apply_on_their_platform_only() -> None:
    pins = facts.runtime_pins(TORCH_METADATA)
    assert len(pins) == 2
    assert facts.pinned_cuda(pins, "linux-x86_64") == CudaVersion(12, 4)
    assert facts.pinned_cuda(pins, "linux-aarch64") is None  # the marker; the extra never
    assert facts.pinned_cuda(("nvidia-cuda-runtime-cu13~=13.0",), "linux-x86_64") is None


@pytest.mark.parametrize(
    ("filename", "platform"),
    [
        ("torch-2.5.1-cp312-cp312-manylinux1_x86_64.whl", "linux-x86_64"),
        ("torch-2.8.0-cp310-cp310-manylinux_2_28_aarch64.whl", "linux-aarch64"),
        ("torch-2.5.1-cp312-cp312-win_amd64.whl", "windows-x86_64"),
        ("torch-2.5.1-cp312-none-macosx_11_0_arm64.whl", "macos-arm64"),
        ("torch-2.2.0-cp39-none-macosx_10_9_x86_64.whl", "macos-x86_64"),
        ("torch-1.0.0-cp27-cp27mu-linux_ppc64le.whl", None),
        ("torch-2.5.1.tar.gz", None),
    ],
)
def test_wheel_platforms_use_the_data_files_names(filename: str, platform: str | None) -> None:
    assert facts.platform_of(filename) == platform


# --- zip -----------------------------------------------------------------------------------------


def _zip(files: dict[str, bytes], *, stored: tuple[str, ...] = (), comment: bytes = b"") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            method = zipfile.ZIP_STORED if name in stored else zipfile.ZIP_DEFLATED
            archive.writestr(name, data, compress_type=method)
        archive.comment = comment
    return buffer.getvalue()


def _read_member(archive: bytes, member: Any) -> bytes:
    start = facts.data_offset(archive[member.header_offset :], member)
    compressed = archive[start : start + member.compressed_size]
    return b"".join(facts.inflate(member, _pieces(compressed, 5)))


def test_the_central_directory_and_members_are_read_from_the_end() -> None:
    files = {"a/version.py": b"cuda = '12.4'\n" * 50, "b.bin": os.urandom(3000), "c/": b""}
    archive = _zip(files, stored=("b.bin",), comment=b"a comment")
    tail_offset = len(archive) - 200
    place = facts.central_directory(archive[tail_offset:], tail_offset)
    listed = facts.members(archive[place.offset : place.offset + place.size])
    assert [m.name for m in listed] == list(files)
    for member in listed:
        assert _read_member(archive, member) == files[member.name]


def test_a_damaged_member_fails_its_crc() -> None:
    archive = bytearray(_zip({"x.txt": b"hello " * 100}, stored=("x.txt",)))
    (member,) = facts.members(archive[facts.central_directory(bytes(archive), 0).offset :])
    start = facts.data_offset(bytes(archive[member.header_offset :]), member)
    archive[start] ^= 0xFF
    with pytest.raises(facts.FormatError, match="CRC"):
        _read_member(bytes(archive), member)


def test_bytes_that_are_not_a_zip_are_refused() -> None:
    with pytest.raises(facts.FormatError, match="end-of-central-directory"):
        facts.central_directory(b"not a zip at all", 0)


# --- range reads against a local index -----------------------------------------------------------

WHEEL = "torch-2.5.1-cp312-cp312-manylinux1_x86_64.whl"


def _index(root: Path, kernels: bytes) -> Path:
    """PyPI's layout on disk: the JSON API document and a wheel with a large unrelated member."""
    wheel = _zip(
        {
            "torch/version.py": TORCH_VERSION_PY.encode(),
            "torch/lib/libtorch_cpu.so": os.urandom(4 << 20),  # never read
            "torch/lib/libtorch_cuda.so": kernels,
            "torch-2.5.1.dist-info/METADATA": TORCH_METADATA.encode(),
        }
    )
    (root / "files").mkdir(parents=True)
    (root / "files" / WHEEL).write_bytes(wheel)
    release = [
        {
            "filename": WHEEL,
            "url": f"../../files/{WHEEL}",
            "size": len(wheel),
            "upload_time_iso_8601": "2024-10-29T17:37:26.693532Z",
            "core-metadata": False,
            "yanked": False,
        }
    ]
    document = {"info": {"name": "torch"}, "releases": {"2.5.0": [], "2.5.1": release}}
    (root / "pypi" / "torch").mkdir(parents=True)
    (root / "pypi" / "torch" / "json").write_text(json.dumps(document))
    return root / "files" / WHEEL


def test_a_build_is_read_by_ranges_without_the_rest_of_the_wheel(
    tmp_path: Path, kernels: bytes
) -> None:
    wheel = _index(tmp_path, kernels)
    with IndexServer(tmp_path) as server:
        http = facts.Http()
        project = facts.read_project(http, "torch", "2.5.1", server.base_url)
        assert project.uploaded == {"2.5.1": "2024-10-29"}
        wheels = facts.one_wheel_per_platform(project.files)
        build = facts.read_build(
            http, facts.LAYOUTS["torch"], "linux-x86_64", wheels["linux-x86_64"]
        )
        wheel_bytes = server.bytes_sent("/files/")
        assert http.bytes_read == server.bytes_sent()
        ranges = [r.range for r in server.requests if r.path.startswith("/files/")]
    assert build.cuda == CudaVersion(12, 4)
    assert build.variant == "cu124"
    assert facts.pinned_cuda(build.pins, "linux-x86_64") == CudaVersion(12, 4)
    assert build.arches.sass == (ComputeCapability(7, 5),)
    assert build.arches.ptx == (ComputeCapability(9, 0),)
    # The library, the small members and the central directory, but not libtorch_cpu.so.
    with zipfile.ZipFile(wheel) as archive:
        library = archive.getinfo("torch/lib/libtorch_cuda.so").compress_size
        unrelated = archive.getinfo("torch/lib/libtorch_cpu.so")
    assert library < wheel_bytes < library + 100_000
    skipped = range(
        unrelated.header_offset + 100, unrelated.header_offset + unrelated.compress_size
    )
    for header in ranges:
        assert header is not None and header.startswith("bytes="), ranges
        first, last = (int(end) for end in header.removeprefix("bytes=").split("-"))
        assert last < skipped.start or first >= skipped.stop, ranges


def test_the_command_prints_both_rows_and_their_differences(
    tmp_path: Path, kernels: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    _index(tmp_path, kernels)
    with IndexServer(tmp_path) as server:
        code = facts.main(["torch", "2.5.1", "--pypi", server.base_url, "--no-index"])
    out = capsys.readouterr().out
    assert code == 1, out
    # The local wheel's kernels are sm_75 and compute_90, the data's cu124 row is torch's own list.
    derived, recorded = out.split("# the data files (torch.toml, series 2.5)")
    assert 'sass = ["7.5"]\nptx = ["9.0"]' in derived
    assert 'sass = ["5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"]' in recorded
    assert "cu124 linux-x86_64 sass: the data says" in out
    assert "series 2.5: on PyPI but not in the data" not in out
    assert "bytes over the network" in out


def test_an_unreachable_index_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    with refused_url() as url:
        code = facts.main(["torch", "2.5.1", "--pypi", url])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("wheel_facts: 127.0.0.1:") and "unreachable" in err
    assert "Traceback" not in err


def test_a_package_without_a_known_layout_is_bad_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        facts.main(["numpy", "2.0.0"])
    assert exited.value.code == 2
    assert "no wheel layout known for numpy" in capsys.readouterr().err


# --- the real releases on PyPI -------------------------------------------------------------------


@pytest.mark.network
@pytest.mark.slow
@pytest.mark.parametrize(
    ("package", "version"),
    [("torch", "2.5.1"), ("torch", "2.8.0"), ("onnxruntime-gpu", "1.27.0")],
)
def test_the_wheels_on_pypi_agree_with_the_data_files(
    package: str, version: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The PyPI build's CUDA version and its SASS/PTX lists are the data files' rows."""
    http = facts.Http()
    code = facts.report(http, load(), package, version, index=False)
    out = capsys.readouterr().out
    assert code == 0, out
