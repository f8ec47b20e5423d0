"""The knowledge base's compiled form: shipped beside the TOML, read only when it is theirs.

Whatever the compiled file holds, `load` gives what the TOML gives: a stale, damaged or
crafted file is passed over and the TOML read instead, never a crash.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.errors import InputFileError
from poetry_cuda.knowledge.compiled import FILE
from poetry_cuda.knowledge.compiled import checksum
from poetry_cuda.knowledge.compiled import compile_data
from poetry_cuda.knowledge.loader import compiled_documents
from poetry_cuda.knowledge.loader import load_compiled
from poetry_cuda.knowledge.loader import load_compiled_nvidia
from poetry_cuda.knowledge.loader import read_data
from poetry_cuda.knowledge.loader import read_part
from poetry_cuda.knowledge.packaged import DATA
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.knowledge.packaged import load_directory
from poetry_cuda.knowledge.packaged import nvidia
from poetry_cuda.knowledge.tables import validate_installed
from poetry_cuda.knowledge.tables import validate_mirrors
from poetry_cuda.knowledge.tables import validate_toolkit_wheels


if TYPE_CHECKING:
    from collections.abc import Callable

    from poetry_cuda.knowledge.model import KnowledgeBase


ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "compile_knowledge.py"


@pytest.fixture(scope="module")
def from_toml() -> KnowledgeBase:
    return load_directory(DATA)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A copy of the packaged data files and their compiled form, free to edit."""
    return Path(shutil.copytree(DATA, tmp_path / "data"))


def _header(path: Path) -> dict[str, object]:
    head: dict[str, object] = json.loads(path.read_bytes().partition(b"\n")[0])
    return head


def _rewrite(path: Path, edit: Callable[[dict[str, object]], None]) -> None:
    """Change the compiled documents and fix up the header's CRC, as a crafted file would."""
    head, _, body = path.read_bytes().partition(b"\n")
    documents = json.loads(body)
    edit(documents)
    body = json.dumps(documents).encode() + b"\n"
    header = json.dumps({**json.loads(head), "crc32": checksum(body)}).encode()
    path.write_bytes(header + b"\n" + body)


def test_the_shipped_compiled_file_is_a_fresh_compile_of_the_toml() -> None:
    assert (DATA / FILE).read_bytes() == compile_data(read_data(DATA)), (
        f"{DATA / FILE} is out of date: run `python tools/compile_knowledge.py` and commit it"
    )


def test_the_packaged_base_is_the_tomls(from_toml: KnowledgeBase) -> None:
    assert load() == from_toml
    assert nvidia() == from_toml.nvidia


def test_the_compiled_file_is_what_is_read(data: Path) -> None:
    # An edit with its CRC fixed up is what a load reads: proof that the TOML is not parsed.
    def edit(documents: dict[str, object]) -> None:
        documents["nvidia.toml"]["toolkit"][0]["source"] = "read from the compiled file"  # type: ignore[index]

    _rewrite(data / FILE, edit)
    assert load_compiled(data).nvidia.toolkits[0].source == "read from the compiled file"
    assert load_compiled_nvidia(data).toolkits[0].source == "read from the compiled file"


def test_a_single_table_is_read_alone_from_the_compiled_form(data: Path) -> None:
    # A command that needs one table (`env` the mirrors known by name, the preferred package)
    # checks only its rows:
    # a family row that does not validate stops the whole base, which reads the TOML.
    def edit(documents: dict[str, object]) -> None:
        documents["torch.toml"]["release"][0]["series"] = "not a series"  # type: ignore[index]
        for file, table in (("mirrors.toml", "mirror"), ("toolkit_wheels.toml", "major")):
            documents[file][table][0]["source"] = "read from the compiled file"  # type: ignore[index]
        documents["torch.toml"]["family"]["installed"]["module"] = "read_from_compiled"  # type: ignore[index]

    def never() -> tuple[Any, ...]:
        raise AssertionError("read from the TOML")

    _rewrite(data / FILE, edit)
    documents = compiled_documents(data, read_data(data))
    for validate_table in (validate_mirrors, validate_toolkit_wheels):
        rows = read_part(documents, validate_table, never)
        assert rows[0].source == "read from the compiled file"
    assert read_part(documents, validate_installed, never)[1].module == "read_from_compiled"
    assert load_compiled(data) == load_directory(data)


def test_a_stale_compiled_file_gives_way_to_the_toml(data: Path) -> None:
    torch = data / "torch.toml"
    torch.write_bytes(torch.read_bytes().replace(b'name = "torch"', b'name = "Torch"', 1))
    assert "Torch" in [f.name for f in load_compiled(data).families]
    assert load_compiled(data) == load_directory(data)
    assert load_compiled_nvidia(data) == load_directory(data).nvidia


def test_a_new_data_file_makes_it_stale(data: Path) -> None:
    other = (data / "paddle.toml").read_text(encoding="utf-8").replace('"paddle"', '"other"', 1)
    (data / "other.toml").write_text(other, encoding="utf-8")
    assert "other" in [f.name for f in load_compiled(data).families]


def test_broken_toml_beside_a_stale_compiled_file_reads_as_the_toml(data: Path) -> None:
    nvidia_file = data / "nvidia.toml"
    nvidia_file.write_bytes(nvidia_file.read_bytes().replace(b"schema = 1", b"schema = 2", 1))
    for read in (load_compiled, load_compiled_nvidia):
        with pytest.raises(InputFileError) as compiled:
            read(data)
        with pytest.raises(InputFileError) as plain:
            load_directory(data)
        assert compiled.value.render() == plain.value.render()


def test_from_the_toml_even_the_driver_tables_check_every_row(data: Path) -> None:
    broken = data / "torch.toml"
    broken.write_text(broken.read_text() + "\nunknown-key = 1\n")
    with pytest.raises(InputFileError, match=r"torch\.toml"):
        load_compiled_nvidia(data)


def test_data_that_does_not_validate_is_not_compiled(data: Path) -> None:
    nvidia_file = data / "nvidia.toml"
    nvidia_file.write_bytes(b"checked = 2025-01-31\n" + nvidia_file.read_bytes())
    with pytest.raises(InputFileError, match=r"nvidia\.toml"):
        compile_data(read_data(data))


def _truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _garbage(path: Path) -> None:
    path.write_bytes(b"\x00\xff not json at all \n{{{")


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _missing(path: Path) -> None:
    path.unlink()


def _a_folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _wrong_shape(path: Path) -> None:
    head = _header(path)
    path.write_bytes(json.dumps(head).encode() + b"\n" + json.dumps([1, 2, 3]).encode())


def _consistent_wrong_shape(path: Path) -> None:
    body = json.dumps({"nvidia.toml": [], "other.toml": {}}).encode()
    head = {**_header(path), "crc32": checksum(body)}
    path.write_bytes(json.dumps(head).encode() + b"\n" + body)


def _crc_mismatch(path: Path) -> None:
    data = path.read_bytes()
    assert data.count(b'"schema":1') >= 1
    path.write_bytes(data.replace(b'"schema":1', b'"schema":7', 1))


def _header_only(path: Path) -> None:
    path.write_bytes(path.read_bytes().partition(b"\n")[0])


def _other_key(path: Path) -> None:
    head, _, body = path.read_bytes().partition(b"\n")
    path.write_bytes(head.replace(b'"key": "', b'"key": "0', 1) + b"\n" + body)


def _other_format(path: Path) -> None:
    head, _, body = path.read_bytes().partition(b"\n")
    path.write_bytes(head.replace(b'"format": 1', b'"format": 9', 1) + b"\n" + body)


def _a_row_that_does_not_validate(path: Path) -> None:
    def edit(documents: dict[str, object]) -> None:
        documents["torch.toml"]["family"]["index"] = "http://evil.example/{variant}"  # type: ignore[index]

    _rewrite(path, edit)


def _a_driver_row_that_does_not_validate(path: Path) -> None:
    def edit(documents: dict[str, object]) -> None:
        documents["nvidia.toml"]["toolkit"][0]["linux"] = "not a driver"  # type: ignore[index]

    _rewrite(path, edit)


def _null(path: Path) -> None:
    def edit(documents: dict[str, object]) -> None:
        documents["nvidia.toml"]["toolkit"][0]["windows"] = None  # type: ignore[index]

    _rewrite(path, edit)


def _not_a_number(path: Path) -> None:
    def edit(documents: dict[str, object]) -> None:
        documents["nvidia.toml"]["schema"] = float("nan")  # type: ignore[index]

    _rewrite(path, edit)


def _deep(path: Path) -> None:
    head, _, _ = path.read_bytes().partition(b"\n")
    body = b"[" * 100_000 + b"]" * 100_000
    header = json.dumps({**json.loads(head), "crc32": checksum(body)}).encode()
    path.write_bytes(header + b"\n" + body)


def _a_link_to_elsewhere(path: Path) -> None:
    elsewhere = path.parent.parent / "elsewhere.json"
    elsewhere.write_bytes(b"{}")
    path.unlink()
    path.symlink_to(elsewhere)


DAMAGE = [
    _truncated,
    _garbage,
    _empty,
    _missing,
    _a_folder,
    _wrong_shape,
    _consistent_wrong_shape,
    _crc_mismatch,
    _header_only,
    _other_key,
    _other_format,
    _a_row_that_does_not_validate,
    _a_driver_row_that_does_not_validate,
    _null,
    _not_a_number,
    _deep,
    _a_link_to_elsewhere,
]


@pytest.mark.parametrize("damage", DAMAGE, ids=lambda f: f.__name__.strip("_"))
def test_a_damaged_compiled_file_gives_way_to_the_toml(
    damage: Callable[[Path], None], data: Path, from_toml: KnowledgeBase
) -> None:
    damage(data / FILE)
    assert load_compiled(data) == from_toml
    assert load_compiled_nvidia(data) == from_toml.nvidia


def test_the_tool_writes_and_checks_the_compiled_file(data: Path) -> None:
    def tool(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(TOOL), "--data", str(data), *args],
            capture_output=True,
            text=True,
            check=False,
        )

    assert tool("--check").returncode == 0
    torch = data / "torch.toml"
    torch.write_bytes(torch.read_bytes().replace(b'name = "torch"', b'name = "Torch"', 1))
    stale = tool("--check")
    assert stale.returncode == 1
    assert "python tools/compile_knowledge.py" in stale.stderr
    assert tool().returncode == 0
    assert tool("--check").returncode == 0
    assert (data / FILE).read_bytes() == compile_data(read_data(data))
    torch.write_text(torch.read_text() + "\nunknown-key = 1\n")
    before = (data / FILE).read_bytes()
    refused = tool()
    assert refused.returncode == 2
    assert "torch.toml" in refused.stderr
    assert (data / FILE).read_bytes() == before  # nothing written for data that does not validate


def test_the_wheel_ships_the_compiled_file_beside_the_toml(tmp_path: Path) -> None:
    from poetry.core.factory import Factory
    from poetry.core.masonry.builders.wheel import WheelBuilder

    wheel = WheelBuilder(Factory().create_poetry(ROOT)).build(tmp_path)
    names = set(zipfile.ZipFile(wheel).namelist())
    data = "poetry_cuda/knowledge/data"
    assert f"{data}/{FILE}" in names
    assert {f"{data}/{p.name}" for p in DATA.glob("*.toml")} <= names
