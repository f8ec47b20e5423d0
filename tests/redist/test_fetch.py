"""Downloads: https only (loopback excepted), bounded, hashed, no redirect to plain http."""

from __future__ import annotations

import hashlib

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import UnmetRequirementError
from poetry_cuda.redist.fetch import check_url
from poetry_cuda.redist.fetch import download
from poetry_cuda.redist.fetch import fetch
from poetry_cuda.redist.fetch import join
from tests.redist.standin import Server


if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Server, Path]]:
    root = tmp_path / "redist"
    root.mkdir()
    (root / "file.bin").write_bytes(b"x" * 300_000)
    with Server(root) as server:
        yield server, root


@pytest.mark.parametrize(
    "url",
    [
        "http://developer.download.nvidia.com/compute/cuda/redist",
        "ftp://mirror.example/redist",
        "http://10.0.0.1/redist",
        "https://user:secret@mirror.example/redist",
    ],
)
def test_a_url_that_is_neither_https_nor_loopback_is_refused(url: str) -> None:
    with pytest.raises(ConfigError):
        check_url(url)


def test_https_and_loopback_http_are_accepted() -> None:
    assert check_url("https://developer.download.nvidia.com/compute/cuda/redist/")
    assert check_url("http://127.0.0.1:8080/redist")


def test_join_puts_relative_paths_below_the_base() -> None:
    base = "https://mirror.example/cuda/redist"
    assert join(base, "cuda_nvcc/linux-x86_64/a.tar.xz") == (
        "https://mirror.example/cuda/redist/cuda_nvcc/linux-x86_64/a.tar.xz"
    )
    assert join(base + "/", "redistrib_12.4.1.json").endswith("/cuda/redist/redistrib_12.4.1.json")


def test_a_download_is_written_and_hashed(served: tuple[Server, Path], tmp_path: Path) -> None:
    server, _ = served
    got = download(f"{server.url}/file.bin", tmp_path / "out", limit=300_000)
    assert got.size == 300_000
    assert got.sha256 == hashlib.sha256(b"x" * 300_000).hexdigest()
    assert (tmp_path / "out").read_bytes() == b"x" * 300_000


def test_more_than_the_expected_size_is_refused(
    served: tuple[Server, Path], tmp_path: Path
) -> None:
    server, _ = served
    with pytest.raises(InputFileError, match="larger than the 1000 bytes expected"):
        download(f"{server.url}/file.bin", tmp_path / "out", limit=1000)
    assert not (tmp_path / "out").exists()
    with pytest.raises(InputFileError, match="larger than"):
        fetch(f"{server.url}/file.bin", limit=1000)


def test_a_connection_closed_halfway_is_an_error_and_leaves_nothing(
    served: tuple[Server, Path], tmp_path: Path
) -> None:
    server, root = served
    server.cut_once("/file.bin", root / "file.bin")
    with pytest.raises(UnmetRequirementError, match="ended after 150000 of 300000 bytes"):
        download(f"{server.url}/file.bin", tmp_path / "out", limit=300_000)
    assert not (tmp_path / "out").exists()


def test_a_redirect_to_plain_http_is_refused(served: tuple[Server, Path], tmp_path: Path) -> None:
    server, _ = served
    server.redirect("/moved.bin", "http://mirror.example/file.bin")
    with pytest.raises(UnmetRequirementError, match=r"redirected to http://mirror\.example"):
        download(f"{server.url}/moved.bin", tmp_path / "out", limit=300_000)


def test_a_redirect_within_loopback_is_followed(served: tuple[Server, Path]) -> None:
    server, _ = served
    server.redirect("/moved.bin", f"{server.url}/file.bin")
    assert len(fetch(f"{server.url}/moved.bin", limit=300_000)) == 300_000


def test_a_missing_file_names_the_status(served: tuple[Server, Path]) -> None:
    server, _ = served
    with pytest.raises(UnmetRequirementError, match="answered 404"):
        fetch(f"{server.url}/nothing.json", limit=1000)


def test_a_redirect_loop_ends_after_the_limit(served: tuple[Server, Path]) -> None:
    server, _ = served
    server.redirect("/loop.bin", f"{server.url}/loop.bin")
    with pytest.raises(UnmetRequirementError, match=r"redirected more than 5 times"):
        fetch(f"{server.url}/loop.bin", limit=1000)
