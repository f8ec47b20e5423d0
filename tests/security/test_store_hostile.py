"""A hostile redist store, cuda.lock or CUDA_HOME never runs a foreign nvcc.

A `toolkit = "redist"` project of CUDA 12.4 whose archives come from a loopback stand-in:
its nvcc says "store nvcc". On PATH ahead of everything sits another nvcc, "system nvcc"
(this machine's own CUDA toolkit, if any, follows it), and outside the store lies an
"evil nvcc" that hostile markers and links point at. Whatever the store, the cuda.lock or
`<venv>/cuda` holds, `run -- nvcc` runs the store's nvcc, fetched again where needed, or
fails with one clear message (exit 1, or 2 for bad input); `env` and `doctor` agree.
Nothing outside the store is written, removed or run.
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import shutil
import sys

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest
import tomlkit

from poetry_cuda.locking import lockfile
from poetry_cuda.locking.lockfile import LockedToolkit
from poetry_cuda.locking.lockfile_toml import dumps
from poetry_cuda.redist.assemble import STAMP
from poetry_cuda.redist.manifest import nvcc_archives
from poetry_cuda.redist.manifest import parse_manifest
from poetry_cuda.redist.store import ENVIRONMENT
from poetry_cuda.redist.store import MARKER
from poetry_cuda.redist.store import TREE
from poetry_cuda.redist.store import Store
from tests.redist.standin import Layout
from tests.redist.standin import Link
from tests.redist.standin import Member
from tests.redist.standin import Server
from tests.redist.standin import top_folder
from tests.support.projects import TORCH
from tests.support.projects import make_project


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterator

    from poetry_cuda.redist.manifest import Archive
    from tests.support.cli import Cli
    from tests.support.cli import Result


pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or platform.machine() != "x86_64",
    reason="the stand-in's archives are linux-x86_64 ones",
)

HERE = "linux-x86_64"
STORE_NVCC = "store nvcc: Cuda compilation tools, release 12.4, V12.4.131"
SYSTEM_NVCC = "system nvcc"
EVIL_NVCC = "evil nvcc"


def _script(says: str) -> bytes:
    return f"#!/bin/sh\necho '{says}'\n".encode()


NVCC: list[Member] = [
    ("bin/nvcc", _script(STORE_NVCC)),
    ("bin/nvcc.profile", b"TOP = $(_HERE_)/..\n"),
    ("include/crt/host_config.h", b"/* crt */\n"),
    ("nvvm/libdevice/libdevice.10.bc", b"BC" * 100),
]
CUDART: list[Member] = [
    ("include/cuda_runtime.h", b"/* runtime */\n"),
    ("lib/libcudart.so.12", b"ELF" * 100),
    ("lib/libcudart.so", Link("libcudart.so.12")),
]
CCCL: list[Member] = [("include/cuda/std/version", b"// cccl\n")]


def _write_layout(root: Path, nvcc: list[Member]) -> Layout:
    layout = Layout(root)
    for where in (HERE, "linux-sbsa"):
        layout.add("cuda_nvcc", "12.4.131", nvcc, platform=where)
        layout.add("cuda_cudart", "12.4.127", CUDART, platform=where)
        layout.add("cuda_cccl", "12.4.127", CCCL, platform=where)
    layout.write()
    return layout


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> Layout:
    return _write_layout(tmp_path_factory.mktemp("redist"), NVCC)


def _archives(layout: Layout, where: str = HERE) -> tuple[Archive, ...]:
    return nvcc_archives(parse_manifest(layout.document(), layout.manifest_name), where)


@dataclasses.dataclass
class World:
    """One project, its store, the server of its archives and what lies around them."""

    project: Path
    store: Path
    server: Server
    archives: tuple[Archive, ...]
    evil: Path  # a copy of the stored nvcc entry whose nvcc is the evil one
    precious: Path  # a folder of the user's, outside the store
    env: dict[str, str]

    @property
    def entry(self) -> Path:
        return Store(self.store).folder(self.archives[0])

    @property
    def top(self) -> Path:
        return self.entry / TREE / top_folder("cuda_nvcc", "12.4.131")

    @property
    def marker(self) -> Path:
        return self.entry / MARKER

    @property
    def nvcc_path(self) -> str:
        return f"/{self.archives[0].relative_path}"

    def write_lock(self, archives: tuple[Archive, ...]) -> None:
        recorded = lockfile.read(self.project / lockfile.FILENAME)
        toolkit = LockedToolkit("12.4.1", archives)
        (self.project / lockfile.FILENAME).write_text(
            dumps(dataclasses.replace(recorded, toolkit=toolkit))
        )


def _world(tmp_path: Path, layout: Layout, server: Server) -> World:
    settings = f'toolkit = "redist"\n\n[tool.poetry-cuda.mirrors]\ncuda-redist = "{server.url}"'
    project = make_project(tmp_path / "app", settings=settings, **TORCH)  # type: ignore[arg-type]
    (project / ".venv" / "bin").mkdir(parents=True)
    system = tmp_path / "system" / "bin"
    system.mkdir(parents=True)
    (system / "nvcc").write_bytes(_script(SYSTEM_NVCC))
    (system / "nvcc").chmod(0o755)
    path = [str(system), "/usr/local/cuda/bin", os.environ.get("PATH", "")]
    precious = tmp_path / "precious"
    precious.mkdir()
    for name in ("notes.txt", ".bashrc", "cuda_nvcc-12.4.131-x.y.old", "a.b.c"):
        (precious / name).write_text(f"the user's {name}\n")
    world = World(
        project=project,
        store=tmp_path / "store",
        server=server,
        archives=_archives(layout),
        evil=tmp_path / "evil",
        precious=precious,
        env={ENVIRONMENT: str(tmp_path / "store"), "PATH": os.pathsep.join(path)},
    )
    world.write_lock(world.archives)
    return world


@pytest.fixture
def server(layout: Layout) -> Iterator[Server]:
    with Server(layout.root) as running:
        yield running


@pytest.fixture
def world(tmp_path: Path, layout: Layout, server: Server, cli: Cli) -> World:
    """The project with its toolkit fetched and assembled once, and the evil copy beside."""
    made = _world(tmp_path, layout, server)
    first = cli.run("run", "--", "nvcc", "--version", cwd=made.project, env=made.env)
    assert (first.code, first.stdout.strip()) == (0, STORE_NVCC), first
    shutil.copytree(made.entry, made.evil, symlinks=True)
    evil_nvcc = made.evil / TREE / made.top.name / "bin" / "nvcc"
    evil_nvcc.write_bytes(_script(EVIL_NVCC).ljust(evil_nvcc.stat().st_size, b" "))
    return made


def _snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every file's bytes and every link's target below `folder`."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            found[str(path.relative_to(folder))] = str(path.readlink())
        elif path.is_file():
            found[str(path.relative_to(folder))] = path.read_bytes()
    return found


def _ran(result: Result) -> str:
    return result.stdout + result.stderr


def _never_foreign(result: Result) -> None:
    assert EVIL_NVCC not in _ran(result), result
    assert SYSTEM_NVCC not in _ran(result), result
    assert "release 13." not in _ran(result), result  # this machine's own toolkit


def _run_nvcc(cli: Cli, world: World) -> Result:
    result = cli.run("run", "--", "nvcc", "--version", cwd=world.project, env=world.env)
    _never_foreign(result)
    return result


def _project_toolkit(cli: Cli, world: World) -> list[dict[str, Any]]:
    doctor = cli.run("doctor", "--json", cwd=world.project, env=world.env)
    return [f for f in json.loads(doctor.stdout)["findings"] if f["check"] == "project-toolkit"]


def _outside(world: World) -> dict[str, bytes | str]:
    """Everything of the test's folder but the store and the project."""
    root = world.store.parent
    return {
        path: value
        for path, value in _snapshot(root).items()
        if Path(path).parts[0] not in {world.store.name, world.project.name}
    }


def _heals(cli: Cli, world: World) -> None:
    """The damage is found: the entry is fetched again and the store's nvcc runs."""
    before = world.server.requests[world.nvcc_path]
    outside = _outside(world)
    result = _run_nvcc(cli, world)
    assert (result.code, result.stdout.strip()) == (0, STORE_NVCC), result
    assert world.server.requests[world.nvcc_path] == before + 1
    assert _outside(world) == outside  # neither run, written nor removed
    assert [f["status"] for f in _project_toolkit(cli, world)] == ["ok"]
    again = _run_nvcc(cli, world)
    assert again.code == 0
    assert world.server.requests[world.nvcc_path] == before + 1  # healed once, for good


# The mirror replaced, for this user only, by a port where nothing listens.
OFFLINE = {"POETRY_CUDA_MIRROR_CUDA_REDIST": "http://127.0.0.1:9/redist"}


def _fails_offline(cli: Cli, world: World) -> None:
    """Without the mirror, the damage is a failure: exit 1, one message, no other nvcc."""
    offline = dataclasses.replace(world, env={**world.env, **OFFLINE})
    outside = _outside(world)
    result = _run_nvcc(cli, offline)
    assert result.code == 1, result
    assert "cannot be fetched" in result.stderr
    assert result.stderr.count("Error") <= 1
    assert cli.run("env", cwd=world.project, env=offline.env).code == 1
    statuses = {f["status"] for f in _project_toolkit(cli, offline)}
    assert "fail" in statuses, statuses
    assert _outside(world) == outside


# -- the marker -------------------------------------------------------------------------------


def _set(key: str, value: object) -> Callable[[dict[str, Any], World], object]:
    def edit(record: dict[str, Any], world: World) -> object:
        record[key] = value
        return record

    return edit


def _drop(key: str) -> Callable[[dict[str, Any], World], object]:
    def edit(record: dict[str, Any], world: World) -> object:
        del record[key]
        return record

    return edit


def _root_to_evil(record: dict[str, Any], world: World) -> object:
    record["root"] = str(world.evil / TREE / world.top.name)
    return record


def _root_climbing(record: dict[str, Any], world: World) -> object:
    record["root"] = os.path.relpath(world.evil / TREE / world.top.name, world.entry / TREE)
    return record


def _link_out(record: dict[str, Any], world: World) -> object:
    target = world.evil / TREE / world.top.name / "bin" / "nvcc"
    record["links"][f"{world.top.name}/bin/nvcc"] = str(target)
    del record["files"][f"{world.top.name}/bin/nvcc"]
    return record


def _climbing_link(record: dict[str, Any], world: World) -> object:
    record["links"][f"{world.top.name}/bin/cc"] = "../../../../../../../../usr/bin/cc"
    return record


def _other_size(record: dict[str, Any], world: World) -> object:
    path = f"{world.top.name}/bin/nvcc"
    record["files"][path] = [record["files"][path][0] + 1, record["files"][path][1]]
    return record


MARKERS: dict[str, Callable[[dict[str, Any], World], object]] = {
    "root-absolute-outside": _root_to_evil,
    "root-climbing-out": _root_climbing,
    "root-dot-dot": _set("root", ".."),
    "root-empty": _set("root", ""),
    "root-not-a-folder-of-it": _set("root", "somewhere-else"),
    "root-a-number": _set("root", 7),
    "size-lots": _set("size", "lots"),
    "size-negative": _set("size", -1),
    "size-true": _set("size", True),
    "size-float": _set("size", 1.5),
    "size-wrong": _set("size", 1),
    "no-component": _drop("component"),
    "component-null": _set("component", None),
    "component-number": _set("component", 5),
    "component-climbing": _set("component", "../cuda_nvcc"),
    "component-other": _set("component", "cuda_cudart"),
    "no-version": _drop("version"),
    "version-other": _set("version", "12.4.999"),
    "version-climbing": _set("version", "12.4.131/../.."),
    "platform-foreign": _set("platform", "linux-sbsa"),
    "platform-malformed": _set("platform", "Linux x86_64"),
    "platform-climbing": _set("platform", "linux-x86_64/../../x"),
    "sha256-other": _set("sha256", "0" * 64),
    "sha256-short": _set("sha256", "abc"),
    "layout-old": _set("layout", 1),
    "layout-text": _set("layout", "2"),
    "layout-float": _set("layout", 2.0),
    "an-extra-field": _set("command", "rm -rf ~"),
    "no-files": _drop("files"),
    "files-a-list": _set("files", []),
    "folders-climbing": lambda r, w: r["folders"].append("../../x") or r,
    "a-file-of-another-size": _other_size,
    "a-link-out-of-the-store": _link_out,
    "a-link-climbing-out": _climbing_link,
    "a-list": lambda r, w: [r],
    "a-string": lambda r, w: "complete",
    "null": lambda r, w: None,
}
RAW: dict[str, bytes] = {
    "empty": b"",
    "garbage": b"\x00\xff{{{ not json",
    "truncated": b'{"layout": 2, "component": "cuda_nvcc", ',
    "deep": b"[" * 100_000 + b"]" * 100_000,
    "huge-number": b'{"size": ' + b"9" * 5000 + b"}",
}


@pytest.mark.parametrize("name", sorted(MARKERS))
def test_a_crafted_marker_is_never_trusted(name: str, cli: Cli, world: World) -> None:
    record = json.loads(world.marker.read_text())
    world.marker.write_text(json.dumps(MARKERS[name](record, world)))
    _heals(cli, world)


@pytest.mark.parametrize("name", sorted(RAW))
def test_a_marker_that_is_not_one_is_never_trusted(name: str, cli: Cli, world: World) -> None:
    world.marker.write_bytes(RAW[name])
    _heals(cli, world)


@pytest.mark.parametrize("name", ["root-absolute-outside", "size-lots", "no-component"])
def test_a_crafted_marker_offline_is_a_failure(name: str, cli: Cli, world: World) -> None:
    record = json.loads(world.marker.read_text())
    world.marker.write_text(json.dumps(MARKERS[name](record, world)))
    _fails_offline(cli, world)


def test_the_store_command_lists_no_crafted_entry_and_prunes_it(cli: Cli, world: World) -> None:
    record = json.loads(world.marker.read_text())
    world.marker.write_text(json.dumps(_root_to_evil(record, world)))
    evil = _snapshot(world.evil)
    listed = cli.run("store", "--json", cwd=world.project, env=world.env)
    assert listed.code == 0, listed
    components = [a["component"] for a in json.loads(listed.stdout)["archives"]]
    assert components == ["cuda_cccl", "cuda_cudart"]
    pruned = cli.run("store", "--prune", cwd=world.project, env=world.env)
    assert pruned.code == 0, pruned
    assert not world.entry.exists()
    assert _snapshot(world.evil) == evil


# -- links and missing files in the store ----------------------------------------------------


def _replace_by_link(path: Path, target: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()
    path.symlink_to(target)


def _entry_links_to_evil(world: World) -> None:
    _replace_by_link(world.entry, world.evil)


def _tree_links_to_evil(world: World) -> None:
    _replace_by_link(world.entry / TREE, world.evil / TREE)


def _top_links_to_evil(world: World) -> None:
    _replace_by_link(world.top, world.evil / TREE / world.top.name)


def _bin_links_to_evil(world: World) -> None:
    _replace_by_link(world.top / "bin", world.evil / TREE / world.top.name / "bin")


def _nvcc_links_to_evil(world: World) -> None:
    _replace_by_link(world.top / "bin" / "nvcc", world.evil / TREE / world.top.name / "bin/nvcc")


def _marker_links_to_a_copy(world: World) -> None:
    copy = world.evil / "copied.json"
    shutil.copy(world.marker, copy)
    _replace_by_link(world.marker, copy)


def _component_links_out(world: World) -> None:
    outside = world.evil.parent / "components"
    version = outside / "12.4.131"
    version.mkdir(parents=True)
    shutil.copytree(world.evil, version / world.entry.name, symlinks=True)
    shutil.copy(world.marker, version / world.entry.name / MARKER)
    _replace_by_link(world.entry.parent.parent, outside)


def _version_links_out(world: World) -> None:
    outside = world.evil.parent / "versions"
    outside.mkdir()
    shutil.copytree(world.evil, outside / world.entry.name, symlinks=True)
    shutil.copy(world.marker, outside / world.entry.name / MARKER)
    _replace_by_link(world.entry.parent, outside)


def _no_tree(world: World) -> None:
    shutil.rmtree(world.entry / TREE)


def _no_top(world: World) -> None:
    shutil.rmtree(world.top)


def _no_nvcc(world: World) -> None:
    (world.top / "bin" / "nvcc").unlink()


def _no_bin(world: World) -> None:
    shutil.rmtree(world.top / "bin")


def _nvcc_truncated(world: World) -> None:
    (world.top / "bin" / "nvcc").write_bytes(b"#!")


def _nvcc_rewritten_in_place(world: World) -> None:
    """The evil script in the stored nvcc, its size and modification time kept."""
    nvcc = world.top / "bin" / "nvcc"
    before = nvcc.stat()
    nvcc.write_bytes(_script(EVIL_NVCC).ljust(before.st_size, b" ")[: before.st_size])
    os.utime(nvcc, ns=(before.st_atime_ns, before.st_mtime_ns))


def _nvcc_a_folder(world: World) -> None:
    (world.top / "bin" / "nvcc").unlink()
    (world.top / "bin" / "nvcc").mkdir()


def _a_file_added(world: World) -> None:
    (world.top / "bin" / "ptxas").write_bytes(_script(EVIL_NVCC))


def _a_fifo_added(world: World) -> None:
    os.mkfifo(world.top / "bin" / "ptxas")


def _the_tree_a_file(world: World) -> None:
    shutil.rmtree(world.entry / TREE)
    (world.entry / TREE).write_text("not a folder")


def _the_entry_a_file(world: World) -> None:
    shutil.rmtree(world.entry)
    world.entry.write_text("not a folder")


DAMAGE: dict[str, Callable[[World], None]] = {
    "entry-links-to-evil": _entry_links_to_evil,
    "tree-links-to-evil": _tree_links_to_evil,
    "top-links-to-evil": _top_links_to_evil,
    "bin-links-to-evil": _bin_links_to_evil,
    "nvcc-links-to-evil": _nvcc_links_to_evil,
    "marker-links-to-a-copy": _marker_links_to_a_copy,
    "component-links-out-of-the-store": _component_links_out,
    "version-links-out-of-the-store": _version_links_out,
    "no-tree": _no_tree,
    "no-top-folder": _no_top,
    "no-nvcc": _no_nvcc,
    "no-bin": _no_bin,
    "nvcc-truncated": _nvcc_truncated,
    "nvcc-rewritten-in-place": _nvcc_rewritten_in_place,
    "nvcc-a-folder": _nvcc_a_folder,
    "a-file-added": _a_file_added,
    "a-fifo-added": _a_fifo_added,
    "tree-a-file": _the_tree_a_file,
    "entry-a-file": _the_entry_a_file,
}


@pytest.mark.parametrize("name", sorted(DAMAGE))
def test_a_damaged_or_linked_entry_is_found_and_fetched_again(
    name: str, cli: Cli, world: World
) -> None:
    DAMAGE[name](world)
    _heals(cli, world)


@pytest.mark.parametrize(
    "name", ["no-nvcc", "no-tree", "nvcc-links-to-evil", "entry-links-to-evil"]
)
def test_a_damaged_entry_offline_is_a_failure(name: str, cli: Cli, world: World) -> None:
    DAMAGE[name](world)
    _fails_offline(cli, world)


@pytest.mark.parametrize(
    "name", ["no-tree", "no-top-folder", "no-nvcc", "nvcc-truncated", "nvcc-rewritten-in-place"]
)
def test_a_toolkit_entry_whose_tree_is_gone_or_incomplete_is_not_trusted(
    name: str, cli: Cli, world: World
) -> None:
    # Issue 40, item 2: the completion marker alone proves nothing; doctor fails before the
    # next `run` fetches the archive again.
    DAMAGE[name](world)
    found = _project_toolkit(cli, world)
    assert "fail" in [f["status"] for f in found], found
    _heals(cli, world)


def test_same_sized_changes_are_found_before_a_new_project_links_them(
    cli: Cli, world: World, layout: Layout, tmp_path: Path
) -> None:
    # Changed in place, size kept: only the sha256 tells, checked when the entry is linked.
    nvcc = world.top / "bin" / "nvcc"
    nvcc.write_bytes(_script(EVIL_NVCC).ljust(nvcc.stat().st_size, b" "))
    other = _world(tmp_path / "second", layout, world.server)
    second = dataclasses.replace(other, store=world.store, env={**other.env, **world.env})
    before = world.server.requests[world.nvcc_path]
    result = _run_nvcc(cli, second)
    assert (result.code, result.stdout.strip()) == (0, STORE_NVCC), result
    assert world.server.requests[world.nvcc_path] == before + 1


def _link_to_precious(world: World, name: str) -> None:
    target = world.store / name
    if target.is_dir():
        shutil.rmtree(target)
    target.symlink_to(world.precious, target_is_directory=True)


@pytest.mark.parametrize("name", [".tmp", ".locks", ".projects"])
def test_the_stores_own_folders_are_never_links_out(name: str, cli: Cli, world: World) -> None:
    _link_to_precious(world, name)
    precious = _snapshot(world.precious)
    (world.top / "bin" / "nvcc").unlink()  # so that the entry is fetched again
    result = _run_nvcc(cli, world)
    assert (result.code, result.stdout.strip()) == (0, STORE_NVCC), result
    pruned = cli.run("store", "--prune", cwd=world.project, env=world.env)
    assert pruned.code == 0, pruned
    assert _snapshot(world.precious) == precious
    assert not (world.store / name).is_symlink()


def test_a_lock_file_or_usage_record_that_links_out_is_not_written(cli: Cli, world: World) -> None:
    precious = world.precious / "notes.txt"
    for link in (*(world.store / ".locks").iterdir(), *(world.store / ".projects").iterdir()):
        link.unlink()
        link.symlink_to(precious)
    before = precious.read_bytes()
    (world.top / "bin" / "nvcc").unlink()
    result = _run_nvcc(cli, world)
    assert result.code == 0, result
    assert precious.read_bytes() == before


def test_a_store_behind_a_link_is_a_store(cli: Cli, world: World, tmp_path: Path) -> None:
    linked = tmp_path / "linked-store"
    linked.symlink_to(world.store, target_is_directory=True)
    before = world.server.requests[world.nvcc_path]
    result = _run_nvcc(cli, dataclasses.replace(world, env={**world.env, ENVIRONMENT: str(linked)}))
    assert (result.code, result.stdout.strip()) == (0, STORE_NVCC), result
    assert world.server.requests[world.nvcc_path] == before


# -- the assembled CUDA_HOME ------------------------------------------------------------------


def _home(world: World) -> Path:
    return world.project / ".venv" / "cuda"


HOME_DAMAGE: dict[str, Callable[[World], object]] = {
    "nvcc-link-removed": lambda w: (_home(w) / "bin" / "nvcc").unlink(),
    "nvcc-link-to-evil": lambda w: _replace_by_link(
        _home(w) / "bin" / "nvcc", w.evil / TREE / w.top.name / "bin" / "nvcc"
    ),
    "bin-a-link-to-evil": lambda w: _replace_by_link(
        _home(w) / "bin", w.evil / TREE / w.top.name / "bin"
    ),
    "a-link-added": lambda w: (_home(w) / "bin" / "gcc").symlink_to("/bin/false"),
    "stamp-edited": lambda w: (_home(w) / STAMP).write_text("{}"),
    "stamp-removed": lambda w: (_home(w) / STAMP).unlink(),
}


@pytest.mark.parametrize("name", sorted(HOME_DAMAGE))
def test_an_assembled_home_changed_since_is_assembled_again(
    name: str, cli: Cli, world: World
) -> None:
    HOME_DAMAGE[name](world)
    result = _run_nvcc(cli, world)
    assert (result.code, result.stdout.strip()) == (0, STORE_NVCC), result
    resolve = 'readlink -f "$(command -v nvcc)"'
    where = cli.run("run", "--", "sh", "-c", resolve, cwd=world.project, env=world.env)
    assert Path(where.stdout.strip()).is_relative_to(world.store.resolve())
    bins = [sorted(p.name for p in (tree / "bin").iterdir()) for tree in (_home(world), world.top)]
    assert bins[0] == bins[1]  # assembled again: nothing left of the change


def test_archives_without_nvcc_fail_and_never_fall_back(cli: Cli, tmp_path: Path) -> None:
    layout = _write_layout(tmp_path / "redist", [m for m in NVCC if m[0] != "bin/nvcc"])
    with Server(layout.root) as running:
        world = _world(tmp_path, layout, running)
        result = _run_nvcc(cli, world)
        assert result.code == 1, result
        assert "hold no bin/nvcc" in result.stderr
        env = cli.run("env", cwd=world.project, env=world.env)
        assert env.code == 1, env
        findings = _project_toolkit(cli, world)
        assert "fail" in {f["status"] for f in findings}, findings
        assert any("has no nvcc" in f["message"] for f in findings), findings


# -- POETRY_CUDA_STORE and the platforms of cuda.lock ------------------------------------------


@pytest.mark.parametrize("value", ["store", "./store", "../store", "~/store", "store/../x"])
def test_a_relative_store_is_a_usage_error(
    value: str, cli: Cli, tmp_path: Path, layout: Layout, server: Server
) -> None:
    world = _world(tmp_path, layout, server)
    env = {**world.env, ENVIRONMENT: value}
    for args in (("run", "--", "nvcc", "--version"), ("env",), ("doctor",), ("store",)):
        result = cli.run(*args, cwd=world.project, env=env)
        _never_foreign(result)
        assert result.code == 2, (args, result)
        assert f"{ENVIRONMENT}={value!r} is not an absolute path" in result.stderr, result
    assert not (world.project / value).exists()
    assert sum(server.requests.values()) == 0


def test_archives_of_another_platform_only_fail_naming_both(
    cli: Cli, tmp_path: Path, layout: Layout, server: Server
) -> None:
    world = _world(tmp_path, layout, server)
    world.write_lock(_archives(layout, "linux-sbsa"))
    result = _run_nvcc(cli, world)
    assert result.code == 1, result
    assert "records the toolkit archives for linux-sbsa, and this machine is linux-x86_64" in (
        result.stderr
    )
    assert cli.run("env", cwd=world.project, env=world.env).code == 1
    findings = _project_toolkit(cli, world)
    assert [f["status"] for f in findings] == ["fail"]
    assert "linux-sbsa" in findings[0]["message"]
    assert "linux-x86_64" in findings[0]["message"]
    assert sum(server.requests.values()) == 0


def test_archives_of_several_platforms_use_this_ones(
    cli: Cli, tmp_path: Path, layout: Layout, server: Server
) -> None:
    world = _world(tmp_path, layout, server)
    world.write_lock(_archives(layout, "linux-sbsa") + _archives(layout))
    result = _run_nvcc(cli, world)
    assert (result.code, result.stdout.strip()) == (0, STORE_NVCC), result


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("platform", "Linux x86_64"),
        ("platform", "linux-x86_64/../../x"),
        ("platform", "../linux-x86_64"),
        ("platform", "linux-x86_64 "),
        ("platform", "LINUX-X86_64"),
        ("platform", "linux_x86_64"),
        ("platform", "linux-riscv64"),
        ("platform", ""),
        ("platform", 64),
        ("component", "../cuda_nvcc"),
        ("component", "cuda_nvcc/../../x"),
        ("component", "CUDA NVCC"),
        ("version", "12.4.131/../../x"),
        ("version", "../12.4"),
        ("sha256", "../" + "a" * 61),
        ("relative-path", "../../etc/passwd"),
        ("size", 0),
        ("size", 1 << 40),
        ("size", "lots"),
    ],
)
def test_a_malformed_archive_in_cuda_lock_is_bad_input(
    key: str, value: object, cli: Cli, tmp_path: Path, layout: Layout, server: Server
) -> None:
    world = _world(tmp_path, layout, server)
    path = world.project / lockfile.FILENAME
    document = tomlkit.parse(path.read_text())
    document["toolkit"]["archives"][0][key] = value
    path.write_text(tomlkit.dumps(document))
    for args in (("run", "--", "nvcc", "--version"), ("env",)):
        result = cli.run(*args, cwd=world.project, env=world.env)
        _never_foreign(result)
        assert result.code == 2, result
        assert "cuda.lock" in result.stderr
        assert f"toolkit.archives[0].{key}" in result.stderr, result
    assert sum(server.requests.values()) == 0
    assert not world.store.exists()
