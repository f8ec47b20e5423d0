"""Fetching locked wheels: found on the index's page, credentials only where they belong."""

from __future__ import annotations

import hashlib
import threading

from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.errors import UnmetRequirementError
from poetry_cuda.wheelstore.fetch import Fetcher
from poetry_cuda.wheelstore.locked import LockedWheel
from poetry_cuda.wheelstore.locked import Origin
from poetry_cuda.wheelstore.store import Wheel


if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


WHEEL = b"PK\x05\x06" + bytes(18)  # an empty zip: what it holds does not matter here
FILENAME = "torch-2.5.1+cu124-cp311-cp311-linux_x86_64.whl"


class _Index(BaseHTTPRequestHandler):
    """A project page whose file link points at `files_host`, and the file."""

    seen: list[tuple[str, str | None]]
    files_host: str

    def do_GET(self) -> None:
        self.seen.append((f"{self.headers['Host']}{self.path}", self.headers.get("Authorization")))
        if self.path == "/simple/torch/":
            link = f"http://{self.files_host}/files/{FILENAME.replace('+', '%2B')}"
            body = f'<a href="{link}">{FILENAME}</a>'.encode()
            self._answer(200, "text/html", body)
        elif self.path == f"/files/{FILENAME.replace('+', '%2B')}":
            self._answer(200, "application/octet-stream", WHEEL)
        elif self.path == "/moved/torch/":
            self.send_response(302)
            self.send_header("Location", "/simple/torch/")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/old/simple/torch/":  # moved to a page that links relatively
            self.send_response(301)
            self.send_header("Location", "/mirror/torch/")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/mirror/torch/":
            body = f'<a href="../../files/{FILENAME.replace("+", "%2B")}">x</a>'.encode()
            self._answer(200, "text/html", body)
        elif self.path == "/unsafe/torch/":
            self._answer(200, "text/html", f'<a href="file:///tmp/{FILENAME}">x</a>'.encode())
        elif self.path == "/away":
            self.send_response(302)
            self.send_header("Location", "http://example.org/elsewhere")
            self.end_headers()
        else:
            self._answer(404, "text/plain", b"not here")

    def _answer(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def index() -> Iterator[tuple[str, list[tuple[str, str | None]]]]:
    seen: list[tuple[str, str | None]] = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Index)
    port = server.server_address[1]
    handler = type("Handler", (_Index,), {"seen": seen, "files_host": f"localhost:{port}"})
    server.RequestHandlerClass = handler
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _locked(index: str) -> LockedWheel:
    sha256 = hashlib.sha256(WHEEL).hexdigest()
    origin = Origin("index", f"{index}/simple/", "private")
    return LockedWheel("torch", "2.5.1+cu124", Wheel(FILENAME, sha256), origin, None)


def test_credentials_go_to_the_index_host_only(
    index: tuple[str, list[tuple[str, str | None]]], tmp_path: Path
) -> None:
    url, seen = index
    fetcher = Fetcher(credentials={f"{url}/simple/": ("user", "secret")})
    locked = _locked(url)
    got = fetcher.fetch(locked)(tmp_path / "torch.whl")
    assert got == locked.wheel.sha256
    assert (tmp_path / "torch.whl").read_bytes() == WHEEL
    page, download = seen
    assert page == (f"{url.removeprefix('http://')}/simple/torch/", "Basic dXNlcjpzZWNyZXQ=")
    assert download[0].startswith("localhost:")
    assert download[1] is None  # another host: no credentials


def test_a_mirror_replaces_the_index_by_source_name(
    index: tuple[str, list[tuple[str, str | None]]],
) -> None:
    url, seen = index
    locked = _locked("https://unreachable.example")
    fetcher = Fetcher(indexes={"private": f"{url}/simple/"})
    assert fetcher.url_of(locked).endswith(f"/files/{FILENAME.replace('+', '%2B')}")
    assert seen[0][0].endswith("/simple/torch/")


def test_a_file_the_page_no_longer_lists_is_reported(
    index: tuple[str, list[tuple[str, str | None]]],
) -> None:
    url, _ = index
    locked = _locked(url)
    gone = LockedWheel(
        "torch", "2.5.0", Wheel("torch-2.5.0-py3-none-any.whl", "0" * 64), locked.origin, None
    )
    with pytest.raises(UnmetRequirementError, match=r"not on .*/simple/torch/") as refused:
        Fetcher().url_of(gone)
    assert "poetry lock" in refused.value.fix


def test_plain_http_is_refused_off_loopback_and_on_a_redirect(
    index: tuple[str, list[tuple[str, str | None]]], tmp_path: Path
) -> None:
    url, seen = index
    with pytest.raises(UnmetRequirementError, match="refused"):
        Fetcher().download("http://example.org/x.whl", tmp_path / "x.whl")
    with pytest.raises(UnmetRequirementError, match="refused"):
        Fetcher().download(f"{url}/away", tmp_path / "y.whl")
    assert not (tmp_path / "x.whl").exists()
    assert not (tmp_path / "y.whl").exists()
    assert [path for path, _ in seen] == [f"{url.removeprefix('http://')}/away"]


def test_a_server_error_names_the_url_without_credentials(
    index: tuple[str, list[tuple[str, str | None]]], tmp_path: Path
) -> None:
    url, _ = index
    fetcher = Fetcher(credentials={url: ("user", "secret")})
    with pytest.raises(UnmetRequirementError) as failed:
        fetcher.download(f"{url}/missing.whl", tmp_path / "m.whl")
    assert failed.value.what == f"{url}/missing.whl: the server answered 404 Not Found"
    assert "secret" not in str(failed.value)


def test_credentials_are_not_sent_on_a_redirect(
    index: tuple[str, list[tuple[str, str | None]]],
) -> None:
    url, seen = index
    locked = _locked(url)
    fetcher = Fetcher(indexes={"private": f"{url}/moved/"}, credentials={url: ("user", "s")})
    assert fetcher.url_of(locked).endswith(f"/files/{FILENAME.replace('+', '%2B')}")
    moved, followed = seen
    assert moved == (f"{url.removeprefix('http://')}/moved/torch/", "Basic dXNlcjpz")
    assert followed == (f"{url.removeprefix('http://')}/simple/torch/", None)


def test_relative_links_are_read_from_where_the_page_was_found(
    index: tuple[str, list[tuple[str, str | None]]], tmp_path: Path
) -> None:
    """After a redirect, a relative link is read against the final URL, as pip and uv read it."""
    url, seen = index
    locked = _locked(url)
    fetcher = Fetcher(indexes={"private": f"{url}/old/simple/"})
    assert fetcher.fetch(locked)(tmp_path / "torch.whl") == locked.wheel.sha256
    assert [path for path, _ in seen][1:] == [
        f"{url.removeprefix('http://')}/mirror/torch/",
        f"{url.removeprefix('http://')}/files/{FILENAME.replace('+', '%2B')}",
    ]


def test_a_listed_link_to_a_local_file_is_not_followed(
    index: tuple[str, list[tuple[str, str | None]]], tmp_path: Path
) -> None:
    url, _ = index
    fetcher = Fetcher(indexes={"private": f"{url}/unsafe/"})
    with pytest.raises(UnmetRequirementError, match=r"^file:///tmp/torch.*: refused"):
        fetcher.fetch(_locked(url))(tmp_path / "torch.whl")
    assert not (tmp_path / "torch.whl").exists()
