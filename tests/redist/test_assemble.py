"""A project's CUDA_HOME: real top folders, links into the store, rebuilt only on change
(of the archives, or of the tree since it was made)."""

from __future__ import annotations

import shutil

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.redist.assemble import assemble
from poetry_cuda.redist.assemble import is_current


if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


def _archive(root: Path, name: str, files: dict[str, str]) -> Path:
    top = root / f"{name}-linux-x86_64-12.4.0-archive"
    for relative, text in files.items():
        path = top / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return top


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {
        p.relative_to(root).as_posix(): (p.lstat().st_mtime_ns, p.lstat().st_size)
        for p in root.rglob("*")
    }


def _trees(store: Path) -> list[Path]:
    nvcc = _archive(
        store,
        "cuda_nvcc",
        {"bin/nvcc": "nvcc", "bin/nvcc.profile": "TOP", "include/crt/h.h": "", "nvvm/bin/cicc": ""},
    )
    cudart = _archive(
        store, "cuda_cudart", {"include/cuda_runtime.h": "", "lib/libcudart_static.a": ""}
    )
    (cudart / "lib" / "libcudart.so.12").write_text("so")
    (cudart / "lib" / "libcudart.so").symlink_to("libcudart.so.12")
    cccl = _archive(store, "cuda_cccl", {"include/cuda/std/version": ""})
    return [nvcc, cudart, cccl]


def test_the_tree_has_real_top_folders_of_links_into_the_store(tmp_path: Path) -> None:
    store = tmp_path / "store"
    trees = _trees(store)
    before = _snapshot(store)
    home = tmp_path / "project" / ".venv" / "cuda"
    assert assemble(home, trees)
    for part in ("bin", "include", "lib", "nvvm"):
        assert (home / part).is_dir()
        assert not (home / part).is_symlink()  # nvcc's TOP is bin/.. as started
    assert (home / "lib64").readlink().as_posix() == "lib"
    assert (home / "bin" / "nvcc").resolve() == (trees[0] / "bin" / "nvcc").resolve()
    assert (home / "include" / "crt").resolve() == trees[0] / "include" / "crt"
    assert (home / "include" / "cuda_runtime.h").resolve() == trees[1] / "include/cuda_runtime.h"
    assert (home / "include" / "cuda").resolve() == trees[2] / "include" / "cuda"
    assert (home / "lib64" / "libcudart.so").read_text() == "so"
    assert _snapshot(store) == before  # the store is only read


def test_assembling_again_changes_nothing(tmp_path: Path) -> None:
    trees = _trees(tmp_path / "store")
    home = tmp_path / "cuda"
    assert assemble(home, trees)
    before = _snapshot(home)
    inode = home.stat().st_ino
    assert not assemble(home, trees)
    assert _snapshot(home) == before
    assert home.stat().st_ino == inode


def test_a_stale_tree_is_replaced_whole(tmp_path: Path) -> None:
    trees = _trees(tmp_path / "store")
    home = tmp_path / "cuda"
    assemble(home, trees)
    newer = _archive(tmp_path / "store2", "cuda_nvcc", {"bin/nvcc": "newer"})
    assert assemble(home, [newer, *trees[1:]])
    assert (home / "bin" / "nvcc").read_text() == "newer"
    assert not (home / "nvvm" / "bin").exists()  # nothing of the old tree is left
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".cuda")] == []


def test_windows_keeps_lib_without_lib64(tmp_path: Path) -> None:
    home = tmp_path / "cuda"
    assemble(home, _trees(tmp_path / "store"), windows=True)
    assert (home / "lib").is_dir()
    assert not (home / "lib64").exists()


def _link_removed(home: Path) -> None:
    (home / "bin" / "nvcc").unlink()


def _link_elsewhere(home: Path) -> None:
    (home / "bin" / "nvcc").unlink()
    (home / "bin" / "nvcc").symlink_to("/bin/false")


def _link_added(home: Path) -> None:
    (home / "bin" / "gcc").symlink_to("/bin/false")


def _folder_made_a_link(home: Path) -> None:
    shutil.rmtree(home / "bin")
    (home / "bin").symlink_to("/usr/bin")


def _file_added(home: Path) -> None:
    (home / "include" / "evil.h").write_text("#error\n")


@pytest.mark.parametrize(
    "change", [_link_removed, _link_elsewhere, _link_added, _folder_made_a_link, _file_added]
)
def test_a_tree_changed_since_is_assembled_again(
    tmp_path: Path, change: Callable[[Path], None]
) -> None:
    trees = _trees(tmp_path / "store")
    home = tmp_path / "project" / ".venv" / "cuda"
    assemble(home, trees)
    assert is_current(home, trees)
    change(home)
    assert not is_current(home, trees)
    assert assemble(home, trees)
    assert is_current(home, trees)
    assert (home / "bin" / "nvcc").resolve() == (trees[0] / "bin" / "nvcc").resolve()
