"""The cache of the parsed data files: the same knowledge base, rebuilt whenever in doubt."""

from __future__ import annotations

import json
import shutil

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import InputFileError
from poetry_cuda.knowledge.cache import ENVIRONMENT
from poetry_cuda.knowledge.cache import FILE
from poetry_cuda.knowledge.cache import checksum
from poetry_cuda.knowledge.cache import folder
from poetry_cuda.knowledge.cache import load_cached
from poetry_cuda.knowledge.cache import load_cached_nvidia
from poetry_cuda.knowledge.packaged import DATA
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.knowledge.packaged import load_directory
from poetry_cuda.knowledge.packaged import nvidia


if TYPE_CHECKING:
    from collections.abc import Callable

    from poetry_cuda.knowledge.model import KnowledgeBase


PACKAGED = DATA


@pytest.fixture(scope="module")
def uncached() -> KnowledgeBase:
    return load_directory(PACKAGED)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A copy of the packaged data files, free to edit."""
    return Path(shutil.copytree(PACKAGED, tmp_path / "data"))


def _header(path: Path) -> dict[str, object]:
    head: dict[str, object] = json.loads(path.read_bytes().partition(b"\n")[0])
    return head


def test_a_hit_gives_the_uncached_knowledge_base(tmp_path: Path, uncached: KnowledgeBase) -> None:
    cache = tmp_path / "cache"
    assert load_cached(PACKAGED, cache) == uncached  # a miss, which writes the cache
    written = (cache / FILE).read_bytes()
    assert load_cached(PACKAGED, cache) == uncached  # a hit
    assert (cache / FILE).read_bytes() == written
    assert load() == uncached


def test_the_driver_tables_alone_are_the_whole_bases(
    tmp_path: Path, uncached: KnowledgeBase, data: Path
) -> None:
    cache = tmp_path / "cache"
    assert load_cached_nvidia(PACKAGED, cache) == uncached.nvidia  # a miss: all is checked
    assert (cache / FILE).is_file()
    assert load_cached_nvidia(PACKAGED, cache) == uncached.nvidia  # a hit
    assert nvidia() == uncached.nvidia
    broken = next(p for p in data.glob("*.toml") if p.name not in ("nvidia.toml", "fixed.toml"))
    broken.write_text(broken.read_text() + "\nunknown-key = 1\n")
    with pytest.raises(InputFileError):  # a bad family row is found even when only
        load_cached_nvidia(data, tmp_path / "other")  # the driver tables are asked for


def test_a_hit_reads_the_cache_and_not_the_toml(tmp_path: Path) -> None:
    # A cache edited with its digest fixed up is what a hit reads: proof that it is read.
    load_cached(PACKAGED, tmp_path)
    head, _, payload = (tmp_path / FILE).read_bytes().partition(b"\n")
    documents = json.loads(payload)
    documents["nvidia.toml"]["toolkit"][0]["source"] = "read from the cache"
    payload = json.dumps(documents).encode()
    header = json.dumps({**json.loads(head), "crc32": checksum(payload)}).encode()
    (tmp_path / FILE).write_bytes(header + b"\n" + payload)
    assert load_cached(PACKAGED, tmp_path).nvidia.toolkits[0].source == "read from the cache"


def test_the_cache_holds_the_parsed_documents(tmp_path: Path) -> None:
    load_cached(PACKAGED, tmp_path)
    documents = json.loads((tmp_path / FILE).read_bytes().partition(b"\n")[2])
    assert sorted(documents) == sorted(p.name for p in PACKAGED.glob("*.toml"))
    assert documents["nvidia.toml"]["schema"] == 1


def test_a_changed_byte_misses(data: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    before = load_cached(data, cache)
    key = _header(cache / FILE)["key"]
    torch = data / "torch.toml"
    torch.write_bytes(torch.read_bytes().replace(b'name = "torch"', b'name = "Torch"', 1))
    after = load_cached(data, cache)
    assert [f.name for f in after.families] == [
        "Torch" if f.name == "torch" else f.name for f in before.families
    ]
    assert after == load_directory(data)
    assert _header(cache / FILE)["key"] != key


def test_a_new_data_file_misses(data: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    load_cached(data, cache)
    other = (data / "paddle.toml").read_text(encoding="utf-8").replace('"paddle"', '"other"', 1)
    (data / "other.toml").write_text(other, encoding="utf-8")
    assert load_cached(data, cache) == load_directory(data)
    assert "other" in [f.name for f in load_cached(data, cache).families]


def test_broken_data_reads_as_it_does_uncached(data: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    load_cached(data, cache)
    key = _header(cache / FILE)["key"]
    nvidia = data / "nvidia.toml"
    nvidia.write_bytes(nvidia.read_bytes().replace(b"schema = 1", b"schema = 2", 1))
    for _ in range(2):  # a miss, then again: broken documents are never cached
        with pytest.raises(InputFileError) as cached:
            load_cached(data, cache)
        with pytest.raises(InputFileError) as plain:
            load_directory(data)
        assert cached.value.render() == plain.value.render()
        assert _header(cache / FILE)["key"] == key


def test_a_date_is_not_cached(data: Path, tmp_path: Path) -> None:
    # JSON has no dates: a document holding one is parsed again on every load.
    nvidia = data / "nvidia.toml"
    nvidia.write_bytes(b"checked = 2025-01-31\n" + nvidia.read_bytes())
    with pytest.raises(InputFileError) as cached:
        load_cached(data, tmp_path)
    with pytest.raises(InputFileError) as plain:
        load_directory(data)
    assert cached.value.render() == plain.value.render()
    assert not (tmp_path / FILE).exists()


def _truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _garbage(path: Path) -> None:
    path.write_bytes(b"\x00\xff not json at all \n{{{")


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _wrong_shape(path: Path) -> None:
    head = _header(path)
    path.write_bytes(json.dumps(head).encode() + b"\n" + json.dumps([1, 2, 3]).encode())


def _consistent_wrong_shape(path: Path) -> None:
    # A header whose digest matches a payload of the wrong shape.
    payload = json.dumps({"nvidia.toml": [], "other.toml": {}}).encode()
    head = {**_header(path), "crc32": checksum(payload)}
    path.write_bytes(json.dumps(head).encode() + b"\n" + payload)


def _digest_mismatch(path: Path) -> None:
    # Valid JSON of the right shape, one value changed: the digest no longer matches.
    data = path.read_bytes()
    assert data.count(b'"schema":1') >= 1
    path.write_bytes(data.replace(b'"schema":1', b'"schema":7', 1))


def _header_only(path: Path) -> None:
    path.write_bytes(path.read_bytes().partition(b"\n")[0])


def _other_key(path: Path) -> None:
    head, _, payload = path.read_bytes().partition(b"\n")
    path.write_bytes(head.replace(b'"key": "', b'"key": "0', 1) + b"\n" + payload)


DAMAGE = [
    _truncated,
    _garbage,
    _empty,
    _wrong_shape,
    _consistent_wrong_shape,
    _digest_mismatch,
    _header_only,
    _other_key,
]


@pytest.mark.parametrize("damage", DAMAGE, ids=lambda f: f.__name__.strip("_"))
def test_a_damaged_cache_is_rebuilt(
    damage: Callable[[Path], None], tmp_path: Path, uncached: KnowledgeBase
) -> None:
    load_cached(PACKAGED, tmp_path)
    good = (tmp_path / FILE).read_bytes()
    damage(tmp_path / FILE)
    assert load_cached(PACKAGED, tmp_path) == uncached
    assert (tmp_path / FILE).read_bytes() == good


def test_a_folder_in_place_of_the_cache_file(tmp_path: Path, uncached: KnowledgeBase) -> None:
    (tmp_path / FILE).mkdir()
    assert load_cached(PACKAGED, tmp_path) == uncached
    assert load_cached(PACKAGED, tmp_path) == uncached
    assert (tmp_path / FILE).is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == [FILE]  # no temporary file left


def test_a_cache_folder_that_cannot_be_made(tmp_path: Path, uncached: KnowledgeBase) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    assert load_cached(PACKAGED, blocker / "cache") == uncached
    assert blocker.read_text() == "not a folder"


def test_a_read_only_cache_folder(tmp_path: Path, uncached: KnowledgeBase) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o555)
    try:
        # Root writes there all the same; anyone else loads without a cache.
        assert load_cached(PACKAGED, cache) == uncached
        assert load_cached(PACKAGED, cache) == uncached
        assert {p.name for p in cache.iterdir()} <= {FILE}
    finally:
        cache.chmod(0o755)


def test_no_cache_folder(uncached: KnowledgeBase) -> None:
    assert load_cached(PACKAGED, None) == uncached


def test_the_write_is_atomic(tmp_path: Path) -> None:
    cache = tmp_path / "deep" / "cache"
    load_cached(PACKAGED, cache)
    assert [p.name for p in cache.iterdir()] == [FILE]
    _garbage(cache / FILE)
    load_cached(PACKAGED, cache)
    assert [p.name for p in cache.iterdir()] == [FILE]


def test_where_the_cache_lies() -> None:
    home = Path("/home/u")
    assert folder({}, "posix", home) == home / ".cache/poetry-cuda"
    xdg = {"XDG_CACHE_HOME": "/var/cache/u"}
    assert folder(xdg, "posix", home) == Path("/var/cache/u/poetry-cuda")
    assert folder({"XDG_CACHE_HOME": "rel"}, "posix", home) == home / ".cache/poetry-cuda"
    windows = {"LOCALAPPDATA": "C:/Users/u/AppData/Local"}
    assert folder(windows, "windows", home) == Path("C:/Users/u/AppData/Local/poetry-cuda")
    assert folder({ENVIRONMENT: "/srv/c", **xdg}, "posix", home) == Path("/srv/c")
    assert folder({ENVIRONMENT: "/srv/c"}, "posix", None) == Path("/srv/c")
    assert folder(xdg, "posix", None) is None  # no home folder: no cache
