"""The readers of what a clone or a store holds, on random structures: cuda.lock's toolkit
table and the store's ``complete.json`` give a valid value or one clear error (exit 2),
never another exception; what they accept is of the types and forms they promise.
"""

from __future__ import annotations

import contextlib
import json

from pathlib import Path
from typing import Any

import tomlkit

from hypothesis import HealthCheck
from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.locking import lockfile
from poetry_cuda.locking.lockfile import CudaLock
from poetry_cuda.locking.lockfile import LockedToolkit
from poetry_cuda.locking.lockfile_toml import dumps
from poetry_cuda.redist.manifest import REDIST_PLATFORMS
from poetry_cuda.redist.manifest import Archive
from poetry_cuda.redist.manifest import check_component
from poetry_cuda.redist.manifest import check_relative_path
from poetry_cuda.redist.manifest import check_sha256
from poetry_cuda.redist.manifest import check_version
from poetry_cuda.redist.store import MARKER
from poetry_cuda.redist.store import Entry
from poetry_cuda.redist.store import Inventory
from poetry_cuda.redist.store import Store
from poetry_cuda.redist.store import parse_marker
from poetry_cuda.redist.store import read_marker
from poetry_cuda.redist.store import render_marker


FAST = settings(max_examples=200, deadline=None)
FILES = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
SHA = "ab" * 32
FOLDER = Path("/store/cuda_nvcc/12.4.131/linux-x86_64-abababababababab")
TOP = "cuda_nvcc-linux-x86_64-12.4.131-archive"

# Values as JSON and TOML hold them, and strings near the valid ones.
near = st.sampled_from(
    [
        "cuda_nvcc",
        "12.4.131",
        "linux-x86_64",
        "linux-sbsa",
        "Linux x86_64",
        "linux-x86_64/../../x",
        "../x",
        "/etc/passwd",
        "",
        " ",
        ".",
        "..",
        TOP,
        SHA,
        SHA.upper(),
        "a" * 63,
        "cuda_nvcc/x.tar.xz",
        "C:\\x",
        "\x00",
    ]
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    near,
)
# What a field's neighbours are: numbers of the right value and the wrong type among them.
numbers = st.sampled_from([3, 3.0, True, False, -1, 0, 1024, 1024.0, 2**64, "3", "lots"])
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8) | near, inner, max_size=4)
    ),
    max_leaves=20,
)


def _valid_marker() -> dict[str, Any]:
    entry = Entry(
        "cuda_nvcc",
        "12.4.131",
        "linux-x86_64",
        SHA,
        3,
        FOLDER,
        TOP,
        Inventory(
            frozenset({TOP, f"{TOP}/bin"}),
            {f"{TOP}/bin/nvcc": (3, SHA)},
            {f"{TOP}/bin/cc": "nvcc"},
        ),
    )
    record: dict[str, Any] = json.loads(render_marker(entry))
    return record


def _check_entry(entry: Entry) -> None:
    """What a marker that reads promises: the forms the store relies on."""
    check_component(entry.component)
    check_version(entry.version)
    assert entry.platform in REDIST_PLATFORMS
    check_sha256(entry.sha256)
    assert type(entry.size) is int
    assert entry.size == sum(size for size, _ in entry.inventory.files.values())
    assert entry.top == "." or "/" not in entry.top
    for path in (*entry.inventory.folders, *entry.inventory.files, *entry.inventory.links):
        assert not path.startswith("/")
        assert ".." not in path.split("/")


def _read(document: object) -> None:
    try:
        entry = parse_marker(document, FOLDER)
    except InputFileError as error:
        assert error.exit_code == 2
        assert str(FOLDER) in error.what
    else:
        _check_entry(entry)


def test_a_valid_marker_reads() -> None:
    entry = parse_marker(_valid_marker(), FOLDER)
    assert entry.key == ("cuda_nvcc", "12.4.131", "linux-x86_64", SHA)


@FAST
@given(json_values)
def test_any_json_as_a_marker(document: object) -> None:
    _read(document)


@FAST
@given(
    st.sampled_from(sorted(_valid_marker())),
    st.one_of(near, numbers, json_values, st.just("__drop__")),
)
@example("root", "../../../../evil")
@example("root", "/usr/local/cuda")
@example("size", "lots")
@example("size", 3.0)
@example("size", True)
@example("layout", 2.0)
@example("layout", True)
@example("component", "__drop__")
@example("platform", "Linux x86_64")
@example("platform", "linux-x86_64/../../x")
def test_a_marker_with_one_field_changed(key: str, value: object) -> None:
    document = _valid_marker()
    if value == "__drop__":
        del document[key]
    else:
        document[key] = value
    _read(document)


@FAST
@given(
    st.sampled_from(["folders", "files", "links"]),
    st.one_of(st.text(max_size=20), near),
    json_values,
)
def test_a_marker_with_one_inventory_item_changed(part: str, path: str, value: object) -> None:
    document = _valid_marker()
    if part == "folders":
        document["folders"].append(path)
    else:
        document[part][path] = value
    _read(document)


@FILES
@given(st.binary(max_size=300) | json_values.map(lambda v: json.dumps(v).encode()))
def test_any_bytes_in_a_stores_marker(tmp_path: Path, data: bytes) -> None:
    store = Store(tmp_path / "store")
    folder = store.root / FOLDER.relative_to("/store")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MARKER).write_bytes(data)
    with contextlib.suppress(InputFileError):
        _check_entry(read_marker(folder))
    assert store.entries() == []  # no tree: never an entry, never an exception
    archive = Archive("cuda_nvcc", "12.4.131", "linux-x86_64", "cuda_nvcc/x.tar.xz", SHA, 10)
    assert not store.holds(archive)


# -- cuda.lock's toolkit table ------------------------------------------------------------------

ARCHIVE = Archive(
    "cuda_nvcc",
    "12.4.131",
    "linux-x86_64",
    "cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-12.4.131-archive.tar.xz",
    SHA,
    1024,
)
LOCK = CudaLock(
    content_hash="sha256:0",
    backend="poetry",
    policy="newest",
    cuda="12.4",
    targets=(),
    packages=(),
    system_requirements=(),
    managed_sources=(),
    toolkit=LockedToolkit("12.4.1", (ARCHIVE,)),
)
toml_values = json_values.filter(lambda v: v is not None and not _holds_none(v))


def _holds_none(value: object) -> bool:
    if isinstance(value, dict):
        return any(v is None or _holds_none(v) for v in value.values())
    if isinstance(value, list):
        return any(v is None or _holds_none(v) for v in value)
    return False


def _read_lock(path: Path, document: tomlkit.TOMLDocument) -> None:
    try:
        text = tomlkit.dumps(document)
    except (ValueError, TypeError):  # what TOML cannot hold: no file to read
        return
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        read = lockfile.read(path)
    except PoetryCudaError as error:
        assert error.exit_code == 2, error
        return
    for archive in read.toolkit.archives if read.toolkit else ():
        check_component(archive.component)
        check_version(archive.version)
        assert archive.platform in REDIST_PLATFORMS
        check_sha256(archive.sha256)
        check_relative_path(archive.relative_path)
        assert type(archive.size) is int
        assert 0 < archive.size <= 8 * 1024**3


def test_the_lock_reads() -> None:
    assert tomlkit.parse(dumps(LOCK))["toolkit"]["archives"][0]["platform"] == "linux-x86_64"


@FILES
@given(
    st.sampled_from(["component", "version", "platform", "relative-path", "sha256", "size"]),
    st.one_of(near, numbers, toml_values, st.just("__drop__")),
)
@example("platform", "linux-sbsa")
@example("platform", "Linux x86_64")
@example("platform", "linux-x86_64/../../x")
@example("component", "../cuda_nvcc")
@example("version", "../12.4")
@example("size", True)
@example("size", 1024.0)
@example("size", 2**64)
def test_a_lock_with_one_archive_field_changed(tmp_path: Path, key: str, value: object) -> None:
    document = tomlkit.parse(dumps(LOCK))
    archive = document["toolkit"]["archives"][0]
    if value == "__drop__":
        del archive[key]
    else:
        archive[key] = value
    _read_lock(tmp_path / "cuda.lock", document)


@FILES
@given(
    st.sampled_from(["mode", "release", "archives"]), st.one_of(toml_values, st.just("__drop__"))
)
def test_a_lock_with_its_toolkit_table_changed(tmp_path: Path, key: str, value: object) -> None:
    document = tomlkit.parse(dumps(LOCK))
    toolkit = document["toolkit"]
    if value == "__drop__":
        del toolkit[key]
    else:
        toolkit[key] = value
    _read_lock(tmp_path / "cuda.lock", document)


@FILES
@given(toml_values)
def test_any_structure_as_the_toolkit_table(tmp_path: Path, value: object) -> None:
    document = tomlkit.parse(dumps(LOCK))
    document["toolkit"] = value
    _read_lock(tmp_path / "cuda.lock", document)
