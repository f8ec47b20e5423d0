"""Fetching locked wheels: found on the index's page, credentials only where they belong."""

from __future__ import annotations

import hashlib
import json
import threading

from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.errors import UnmetRequirementError
from poetry_cuda.wheelstore.fetch import Fetcher
from poetry_cuda.wheelstore.fetch import file_urls
from poetry_cuda.wheelstore.locked import LockedWheel
from poetry_cuda.wheelstore.locked import Origin
from poetry_cuda.wheelstore.store import Wheel


if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


WHEEL = b"PK\x05\x06" + bytes(18)  # an empty zip: what it holds does not matter here
FILENAME = "torch-2.5.1+cu124-cp311-cp311-linux_x86_64.whl"


def test_the_files_of_an_html_page_by_name() -> None:
    page = b"""<html><body>
    <a href="torch-2.5.1%2Bcu124-cp311-cp311-linux_x86_64.whl#sha256=abc">x</a>
    <a href="https://files.example/t/torch-2.4.1-cp311-none-any.whl">torch-2.4.1</a>
    </body></html>"""
    assert file_urls(page, "text/html", "https://download.example/whl/cu124/torch/") == {
        FILENAME: "https://download.example/whl/cu124/torch/torch-2.5.1%2Bcu124-cp311-cp311-linux_x86_64.whl",
        "torch-2.4.1-cp311-none-any.whl": "https://files.example/t/torch-2.4.1-cp311-none-any.whl",
    }


def test_the_files_of_a_json_page_by_name() -> None:
    page = json.dumps(
        {"files": [{"filename": "x-1-py3-none-any.whl", "url": "../../x/x-1-py3-none-any.whl"}]}
    ).encode()
    kind = "application/vnd.pypi.simple.v1+json"
    assert file_urls(page, kind, "https://pypi.example/simple/x/") == {
        "x-1-py3-none-any.whl": "https://pypi.example/x/x-1-py3-none-any.whl"
    }
    assert file_urls(b"{", kind, "https://pypi.example/simple/x/") == {}


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
