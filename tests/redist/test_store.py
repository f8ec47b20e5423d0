"""The shared store: verified before unpacking, unpacked safely, once per machine."""

from __future__ import annotations

import hashlib
import json
import os
import threading

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import UnmetRequirementError
from poetry_cuda.redist import usage
from poetry_cuda.redist.assemble import assemble
from poetry_cuda.redist.manifest import nvcc_archives
from poetry_cuda.redist.manifest import parse_manifest
from poetry_cuda.redist.store import ENVIRONMENT
from poetry_cuda.redist.store import MARKER
from poetry_cuda.redist.store import Store
from poetry_cuda.redist.store import default_root
from poetry_cuda.redist.store import read_marker
from tests.redist.standin import PLATFORM
from tests.redist.standin import Layout
from tests.redist.standin import Link
from tests.redist.standin import Member
from tests.redist.standin import Server


if TYPE_CHECKING:
    from collections.abc import Iterator

    from poetry_cuda.redist.manifest import Archive
    from tests.support.cli import Cli


NVCC: list[Member] = [
    ("bin/nvcc", b"#!/bin/sh\necho nvcc\n"),
    ("bin/nvcc.profile", b"TOP = $(_HERE_)/..\n"),
    ("include/crt/host_config.h", b"/* crt */\n"),
    ("nvvm/libdevice/libdevice.10.bc", b"BC" * 1000),
]
CUDART: list[Member] = [
    ("include/cuda_runtime.h", b"/* runtime */\n"),
    ("lib/libcudart.so.12", b"ELF" * 1000),
    ("lib/libcudart.so", Link("libcudart.so.12")),
    ("lib/libcudart_static.a", b"!<arch>\n"),
]
CCCL: list[Member] = [("include/cuda/std/version", b"// cccl\n")]


def _layout(root: Path) -> Layout:
    layout = Layout(root)
    layout.add("cuda_nvcc", "12.4.131", NVCC)
    layout.add("cuda_cudart", "12.4.127", CUDART)
    layout.add("cuda_cccl", "12.4.127", CCCL)
    layout.write()
    return layout


def _archives(layout: Layout) -> tuple[Archive, ...]:
    return nvcc_archives(parse_manifest(layout.document(), layout.manifest_name), PLATFORM)


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    return _layout(tmp_path / "redist")


@pytest.fixture
def server(layout: Layout) -> Iterator[Server]:
    with Server(layout.root) as running:
        yield running


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    monkeypatch.setenv(ENVIRONMENT, str(tmp_path / "store"))
    return Store.default()


def _size(root: Path) -> int:
    return sum(p.lstat().st_size for p in root.rglob("*") if not p.is_dir() or p.is_symlink())


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")} if root.exists() else set()


def test_default_root() -> None:
    home = Path("/home/u")
    assert default_root({}, "posix", home) == home / ".cache/poetry-cuda/redist"
    xdg = {"XDG_CACHE_HOME": "/var/cache/u"}
    assert default_root(xdg, "posix", home) == Path("/var/cache/u/poetry-cuda/redist")
    assert (
        default_root({"XDG_CACHE_HOME": "rel"}, "posix", home) == home / ".cache/poetry-cuda/redist"
    )
    windows = {"LOCALAPPDATA": "C:/Users/u/AppData/Local"}
    assert default_root(windows, "windows", home) == Path(
        "C:/Users/u/AppData/Local/poetry-cuda/redist"
    )
    assert default_root({ENVIRONMENT: "/srv/store", **xdg}, "posix", home) == Path("/srv/store")


@pytest.mark.parametrize("value", ["store", "./store", "~/store", "../store"])
def test_a_relative_store_is_refused(value: str) -> None:
    with pytest.raises(ConfigError) as raised:
        default_root({ENVIRONMENT: value}, "posix", Path("/home/u"))
    assert raised.value.exit_code == 2
    assert f"{ENVIRONMENT}={value!r} is not an absolute path" in raised.value.what
    assert "/home/u/.cache/poetry-cuda/redist" in raised.value.fix


def test_the_marker_records_what_was_unpacked(layout: Layout, server: Server, store: Store) -> None:
    cudart = _archives(layout)[1]
    tree = store.ensure(cudart, server.url)
    entry = read_marker(store.folder(cudart))
    assert entry.key == ("cuda_cudart", "12.4.127", PLATFORM, cudart.sha256)
    assert entry.tree == tree
    top = tree.name
    assert entry.inventory.links == {f"{top}/lib/libcudart.so": "libcudart.so.12"}
    assert entry.inventory.folders == {top, f"{top}/include", f"{top}/lib"}
    runtime = entry.inventory.files[f"{top}/lib/libcudart.so.12"]
    assert runtime == (3000, hashlib.sha256(b"ELF" * 1000).hexdigest())
    assert entry.size == sum(size for size, _ in entry.inventory.files.values())
    assert store.entries() == [entry]


def test_a_file_written_in_place_is_found_on_every_use_and_fetched_again(
    layout: Layout, server: Server, store: Store
) -> None:
    # Issue 40, item 2: the size and modification time kept, the inode change time tells;
    # the bytes confirm it, on every use, not only before linking.
    nvcc = _archives(layout)[0]
    tree = store.ensure(nvcc, server.url)
    profile = tree / "bin" / "nvcc.profile"
    before = profile.stat()
    profile.write_bytes(profile.read_bytes().replace(b"..", b"/x"))  # same size
    os.utime(profile, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert not store.holds(nvcc)
    assert store.ensure(nvcc, server.url) == tree
    assert server.requests[f"/{nvcc.relative_path}"] == 2
    assert profile.read_bytes() == b"TOP = $(_HERE_)/..\n"
    profile.write_bytes(b"TOP = /elsewhere\n")  # another size: found on every use
    assert not store.holds(nvcc)


def test_a_chmod_is_read_whole_once_and_sealed(
    layout: Layout, server: Server, store: Store
) -> None:
    nvcc = _archives(layout)[0]
    tree = store.ensure(nvcc, server.url)
    (tree / "bin" / "nvcc").chmod(0o700)
    assert store.holds(nvcc)  # the same bytes: kept, and sealed anew
    [entry] = [e for e in store.entries() if e.component == nvcc.component]
    path = f"{tree.name}/bin/nvcc"
    assert entry.inventory.sealed[path][0] == (tree / "bin" / "nvcc").stat().st_ctime_ns
    assert server.requests[f"/{nvcc.relative_path}"] == 1


def test_prune_removes_damaged_entries_unless_a_run_holds_them(
    layout: Layout, server: Server, store: Store
) -> None:
    nvcc, cudart, _ = _archives(layout)
    for archive in (nvcc, cudart):
        store.ensure(archive, server.url)
    (store.folder(nvcc) / MARKER).write_text("{}")
    (store.ensure(cudart, server.url) / "lib" / "libcudart.so.12").unlink()
    key = ("cuda_nvcc", "12.4.131", PLATFORM, nvcc.sha256)
    with store._locked(key):
        assert store.prune([nvcc, cudart]) == []  # nothing listed: both fail their checks
        assert store.folder(nvcc).exists()  # a run holds it: it may be making it right now
        assert not store.folder(cudart).exists()
    store.prune([nvcc, cudart])
    assert not store.folder(nvcc).exists()
    assert _files(store.root / "cuda_nvcc") == {"12.4.131"}


def test_ensure_fetches_verifies_unpacks_and_then_reuses(
    layout: Layout, server: Server, store: Store
) -> None:
    nvcc = _archives(layout)[0]
    tree = store.ensure(nvcc, server.url)
    assert tree.name == "cuda_nvcc-linux-x86_64-12.4.131-archive"
    assert (tree / "bin" / "nvcc").read_bytes().startswith(b"#!/bin/sh")
    assert os.access(tree / "bin" / "nvcc", os.X_OK)
    assert (tree.parent.parent / "complete.json").is_file()
    assert store.ensure(nvcc, server.url) == tree
    assert server.requests[f"/{nvcc.relative_path}"] == 1
    assert not any((store.root / ".tmp").iterdir())


def test_two_projects_share_one_stored_copy(
    layout: Layout, server: Server, store: Store, tmp_path: Path
) -> None:
    trees = [store.ensure(a, server.url) for a in _archives(layout)]
    assemble(tmp_path / "one" / ".venv" / "cuda", trees)
    after_one = _size(store.root)
    trees = [store.ensure(a, server.url) for a in _archives(layout)]
    assemble(tmp_path / "two" / ".venv" / "cuda", trees)
    assert _size(store.root) == after_one
    assert sum(server.requests.values()) == 3
    assert [e.component for e in store.entries()] == ["cuda_cccl", "cuda_cudart", "cuda_nvcc"]


def test_a_sha256_mismatch_is_refused_and_nothing_is_unpacked(
    layout: Layout, server: Server, store: Store
) -> None:
    nvcc = _archives(layout)[0]
    path = layout.root / nvcc.relative_path
    data = bytearray(path.read_bytes())
    data[-20] ^= 0xFF  # same size, other bytes
    path.write_bytes(bytes(data))
    with pytest.raises(InputFileError, match="does not match the manifest") as raised:
        store.ensure(nvcc, server.url)
    assert "nothing was unpacked" in raised.value.why
    assert not store.folder(nvcc).exists()
    assert not any((store.root / ".tmp").iterdir())


@pytest.mark.parametrize(
    ("members", "problem"),
    [
        ([("../escape.txt", b"x")], "an absolute path or one with '..'"),
        ([("/etc/evil", b"x")], "an absolute path or one with '..'"),
        ([("bin/sh", Link("/bin/sh"))], "a link to the absolute path '/bin/sh'"),
        ([("lib/up", Link("../../../outside"))], "a link out of the archive"),
        ([("lib/x", Link("../../cuda_cudart-archive/lib/y"))], "a link out of the archive"),
        ([("lib/hard", Link("/etc/passwd", hard=True))], "a hard link"),
        (
            [("lib/a", Link("..")), ("lib/b", Link("a/.."))],
            "a link that resolves out of the archive",
        ),
        (
            [("lib/d", Link(".")), ("lib/d/f", b"through the link")],
            "written through the link",
        ),
    ],
)
def test_an_archive_that_reaches_out_of_its_tree_is_refused(
    tmp_path: Path, store: Store, members: list[Member], problem: str
) -> None:
    layout = Layout(tmp_path / "hostile")
    layout.add("cuda_nvcc", "12.4.131", [("bin/nvcc", b"x"), *members])
    layout.add("cuda_cudart", "12.4.127", CUDART)
    layout.add("cuda_cccl", "12.4.127", CCCL)
    layout.write()
    nvcc = _archives(layout)[0]
    with Server(layout.root) as server, pytest.raises(InputFileError) as raised:
        store.ensure(nvcc, server.url)
    assert problem in str(raised.value)
    assert not store.folder(nvcc).exists()
    assert not any((store.root / ".tmp").iterdir())
    assert not (tmp_path / "escape.txt").exists()


def test_a_fifo_in_an_archive_is_refused(tmp_path: Path, store: Store) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    layout = Layout(tmp_path / "hostile")
    layout.add("cuda_nvcc", "12.4.131", [("bin/nvcc", b"x"), ("bin/pipe", fifo)])
    layout.write()
    nvcc = parse_manifest(layout.document(), layout.manifest_name).components["cuda_nvcc"]
    with Server(layout.root) as server, pytest.raises(InputFileError, match="FIFO"):
        store.ensure(nvcc.archives[PLATFORM], server.url)


def test_an_interrupted_download_is_redone(layout: Layout, server: Server, store: Store) -> None:
    nvcc = _archives(layout)[0]
    server.cut_once(f"/{nvcc.relative_path}", layout.root / nvcc.relative_path)
    with pytest.raises(UnmetRequirementError, match="the download ended after"):
        store.ensure(nvcc, server.url)
    assert not store.folder(nvcc).exists()
    tree = store.ensure(nvcc, server.url)
    assert (tree / "bin" / "nvcc").is_file()
    assert server.requests[f"/{nvcc.relative_path}"] == 2


def test_what_a_killed_run_left_is_removed_and_redone(
    layout: Layout, server: Server, store: Store
) -> None:
    nvcc = _archives(layout)[0]
    tree = store.ensure(nvcc, server.url)
    folder = store.folder(nvcc)
    # A run killed after renaming the tree into place, before the marker: incomplete.
    (folder / "complete.json").unlink()
    (tree / "bin" / "nvcc").write_bytes(b"half")
    flat = f"cuda_nvcc-12.4.131-{PLATFORM}-{nvcc.sha256[:16]}"
    (store.root / ".tmp" / f"{flat}.dead.download").write_bytes(b"partial")
    (store.root / ".tmp" / f"{flat}.dead.unpack" / "tree").mkdir(parents=True)
    assert store.entries() == []
    again = store.ensure(nvcc, server.url)
    assert (again / "bin" / "nvcc").read_bytes().startswith(b"#!/bin/sh")
    assert not any((store.root / ".tmp").iterdir())


def test_concurrent_runs_fetch_an_archive_once(
    layout: Layout, server: Server, store: Store
) -> None:
    nvcc = _archives(layout)[0]
    results: list[Path] = []
    threads = [
        threading.Thread(target=lambda: results.append(store.ensure(nvcc, server.url)))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(set(results)) == 1
    assert len(results) == 4
    assert server.requests[f"/{nvcc.relative_path}"] == 1


def test_a_base_url_that_is_not_https_is_refused_before_anything(
    layout: Layout, store: Store
) -> None:
    with pytest.raises(Exception, match="not an https URL"):
        store.ensure(_archives(layout)[0], "http://mirror.example/redist")
    assert _files(store.root) <= {".locks"}


def test_entries_and_prune(layout: Layout, server: Server, store: Store) -> None:
    nvcc, cudart, cccl = _archives(layout)
    for archive in (nvcc, cudart, cccl):
        store.ensure(archive, server.url)
    entries = store.entries()
    assert [(e.component, e.version, e.platform) for e in entries] == [
        ("cuda_cccl", "12.4.127", PLATFORM),
        ("cuda_cudart", "12.4.127", PLATFORM),
        ("cuda_nvcc", "12.4.131", PLATFORM),
    ]
    assert all(e.size > 0 for e in entries)
    removed = store.prune([nvcc, cudart])
    assert [e.component for e in removed] == ["cuda_cccl"]
    assert [e.component for e in store.entries()] == ["cuda_cudart", "cuda_nvcc"]
    assert not store.folder(cccl).exists()
    flat = f"cuda_cccl-12.4.127-{PLATFORM}-{cccl.sha256[:16]}"
    left = store.root / ".tmp" / f"{flat}.dead.download"
    left.write_bytes(b"left over")
    with store._locked(("cuda_cccl", "12.4.127", PLATFORM, cccl.sha256)):
        assert store.prune([nvcc, cudart]) == []
        assert left.exists()  # a run holding the archive may still be writing it
    assert store.prune([nvcc, cudart]) == []
    assert not any((store.root / ".tmp").iterdir())


def test_the_store_command_lists_what_projects_use_and_prunes_the_rest(
    layout: Layout, server: Server, store: Store, tmp_path: Path, cli: Cli
) -> None:
    """A project's record keeps its archives while it has a cuda.lock; `store --prune` drops
    the others (here: a project that re-assembled without cuda_cccl, and one deleted)."""
    nvcc, cudart, cccl = _archives(layout)
    for archive in (nvcc, cudart, cccl):
        store.ensure(archive, server.url)
    kept, gone = tmp_path / "kept", tmp_path / "gone"
    for project in (kept, gone):
        project.mkdir()
        (project / "cuda.lock").write_text("")
    usage.record(store.root, kept, [nvcc, cudart])
    usage.record(store.root, gone, [nvcc, cudart, cccl])
    (gone / "cuda.lock").unlink()
    env = {ENVIRONMENT: str(store.root)}

    listed = cli.run("store", "--json", cwd=tmp_path, env=env)
    assert listed.code == 0, listed.stderr
    projects = {a["component"]: a["projects"] for a in json.loads(listed.stdout)["archives"]}
    assert projects == {"cuda_cccl": [], "cuda_cudart": [str(kept)], "cuda_nvcc": [str(kept)]}

    pruned = cli.run("store", "--prune", cwd=tmp_path, env=env)
    assert pruned.code == 0, pruned.stderr
    assert "Removed cuda_cccl 12.4.127" in pruned.stdout
    assert [e.component for e in store.entries()] == ["cuda_cudart", "cuda_nvcc"]


def test_an_entry_of_layout_2_is_read_whole_once_and_sealed(
    layout: Layout, server: Server, store: Store
) -> None:
    nvcc = _archives(layout)[0]
    store.ensure(nvcc, server.url)
    marker_path = store.folder(nvcc) / MARKER
    marker = json.loads(marker_path.read_text())
    marker["layout"] = 2
    marker["files"] = {path: value[:2] for path, value in marker["files"].items()}
    marker_path.write_text(json.dumps(marker))
    assert store.holds(nvcc)  # not fetched again: read whole, then sealed
    assert json.loads(marker_path.read_text())["layout"] == 3
    assert server.requests[f"/{nvcc.relative_path}"] == 1
