"""`plan --check-index` against indexes that misbehave on purpose.

The check is the one command that reads what a server sends, so a server decides how it
answers: one byte every so often, headers that never end, silence, redirects to plain http,
to credentials or in a loop, a status line that is no HTTP. Each page has a total time
(connecting, headers and body together) and the check one for all its pages; whatever the
server does, the report says what happened to each page (timed out, redirected where, refused
why) and the command exits 1, never hanging and never with a traceback. No test measures
time: a drip that outlasts the deadline proves it by ending at all.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import threading
import time

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.doctor.index_check import MAX_REDIRECTS
from poetry_cuda.doctor.index_check import Page
from poetry_cuda.doctor.index_check import check
from poetry_cuda.doctor.index_check import fetch
from poetry_cuda.planning.plan import Choice
from poetry_cuda.planning.plan import Source
from poetry_cuda.request.settings import parse_settings
from tests.support.example import EXAMPLES


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterator
    from pathlib import Path

    from typing_extensions import Self

    from tests.support.cli import Cli


WHEEL = "torch-2.5.1+cu124-cp311-cp311-linux_x86_64.whl"
PAGE = f'<a href="{WHEEL}">{WHEEL}</a>'.encode()
SECRET = "s3cr3t"
DRIP = 0.05  # seconds between two bytes of a drip: far less than any deadline below


class Hostile:
    """An HTTP server on 127.0.0.1 that answers each path with a behaviour of its own.

    `routes` maps a path prefix to a function of (connection, path, server) that writes what
    it likes (the longest prefix answers); any other path is a 404. Stopping the server ends every drip and closes every
    connection.
    """

    def __init__(self, routes: dict[str, Callable[[socket.socket, str, Hostile], None]]) -> None:
        self.routes = routes
        self.stopping = threading.Event()
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.threads: list[threading.Thread] = []
        self.accepting = threading.Thread(target=self._accept, daemon=True)

    def __enter__(self) -> Self:
        self.accepting.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stopping.set()
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        self.accepting.join(timeout=10)
        for thread in self.threads:
            thread.join(timeout=10)

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            thread = threading.Thread(target=self._serve, args=(connection,), daemon=True)
            self.threads.append(thread)
            thread.start()

    def _serve(self, connection: socket.socket) -> None:
        with connection, contextlib.suppress(OSError):
            request = b""
            while b"\r\n\r\n" not in request and not self.stopping.is_set():
                chunk = connection.recv(4096)
                if not chunk:
                    return
                request += chunk
            path = request.split(b" ", 2)[1].decode()
            prefix = max((p for p in self.routes if path.startswith(p)), key=len, default="")
            self.routes.get(prefix, _not_found)(connection, path, self)

    def drip(self, connection: socket.socket, data: bytes) -> None:
        """Send `data` a byte at a time, until it is all sent or the server stops."""
        for byte in data:
            if self.stopping.wait(DRIP):
                return
            connection.sendall(bytes([byte]))


def _not_found(connection: socket.socket, path: str, server: Hostile) -> None:
    connection.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")


def _ok(connection: socket.socket, path: str, server: Hostile) -> None:
    head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(PAGE)}\r\n\r\n".encode()
    connection.sendall(head + PAGE)


def _drip_body(connection: socket.socket, path: str, server: Hostile) -> None:
    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n")
    server.drip(connection, b"<" * 1_000_000)


def _drip_headers(connection: socket.socket, path: str, server: Hostile) -> None:
    server.drip(connection, b"HTTP/1.1 200 OK\r\n" + b"X-Slow: " + b"a" * 60_000)


def _drip_chunks(connection: socket.socket, path: str, server: Hostile) -> None:
    connection.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
    while not server.stopping.wait(DRIP):
        connection.sendall(b"1\r\n<\r\n")


def _silent(connection: socket.socket, path: str, server: Hostile) -> None:
    server.stopping.wait(120)


def _redirect(location: str, status: int = 302) -> Callable[[socket.socket, str, Hostile], None]:
    def answer(connection: socket.socket, path: str, server: Hostile) -> None:
        connection.sendall(
            f"HTTP/1.1 {status} Moved\r\nLocation: {location}\r\nContent-Length: 0\r\n\r\n".encode()
        )

    return answer


def _raw(data: bytes) -> Callable[[socket.socket, str, Hostile], None]:
    def answer(connection: socket.socket, path: str, server: Hostile) -> None:
        connection.sendall(data)

    return answer


@contextlib.contextmanager
def hostile(**routes: Callable[[socket.socket, str, Hostile], None]) -> Iterator[Hostile]:
    """A server whose `/<name>/` answers with `routes[name]` (a name's `_` are `-`)."""
    paths = {f"/{name.replace('_', '-')}/": route for name, route in routes.items()}
    with Hostile(paths) as server:
        yield server


def soon(seconds: float = 1.0) -> float:
    return time.monotonic() + seconds


@pytest.mark.parametrize(
    "behaviour", [_drip_body, _drip_headers, _drip_chunks, _silent], ids=lambda b: b.__name__
)
def test_a_page_that_never_completes_times_out(
    behaviour: Callable[[socket.socket, str, Hostile], None],
) -> None:
    with hostile(slow=behaviour) as server:
        page = fetch(f"{server.url}/slow/", soon())
    assert page.problem is not None
    assert page.problem.startswith("timed out: no complete answer within 1 s"), page.problem
    assert page.links == ()


def test_a_redirect_to_plain_http_is_not_followed() -> None:
    # The rule is the index URLs' one: an https page may not hand over to plain http
    # either; loopback http is what these stand-ins can serve.
    target = "http://mirror.example/whl/cu124/torch/"
    with hostile(moved=_redirect(target)) as server:
        page = fetch(f"{server.url}/moved/", soon(10))
    assert page.problem == (
        f"redirected (HTTP 302) to {target}, which is not followed: '{target}' is not an https URL"
    )


@pytest.mark.parametrize(
    "location",
    [
        f"https://alice:{SECRET}@mirror.example/whl/",
        f"https://mirror.example/whl/?token={SECRET}",
        "https://[mirror.example/whl/",
        "https://mirror.example:99999/whl/",
        "file:///etc/passwd",
        "https://mirror.example/" + "x" * 10_000,
    ],
)
def test_a_redirect_the_index_url_rule_refuses_is_reported_not_followed(location: str) -> None:
    with hostile(moved=_redirect(location, 301)) as server:
        page = fetch(f"{server.url}/moved/", soon(10))
    assert page.problem is not None
    assert page.problem.startswith("redirected (HTTP 301) to "), page.problem
    assert "which is not followed: " in page.problem
    assert SECRET not in page.problem
    assert len(page.problem) < 1_000


def test_a_redirect_to_an_index_is_followed_and_reported() -> None:
    with hostile(moved=_redirect("/simple/"), simple=_ok) as server:
        page = fetch(f"{server.url}/moved/", soon(10))
        assert page.problem is None
        assert page.redirects == (f"{server.url}/simple/",)
        assert page.links == (WHEEL,)


def test_a_redirect_loop_ends() -> None:
    with hostile(loop=_redirect("/loop/", 307)) as server:
        page = fetch(f"{server.url}/loop/", soon(10))
    assert page.problem == f"redirected more than {MAX_REDIRECTS} times"
    assert len(page.redirects) == MAX_REDIRECTS


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"HTTP/1.1 302 Found\r\nContent-Length: 0\r\n\r\n", "HTTP 302 Found without a Location"),
        (b"SSH-2.0-OpenSSH_9.6\r\n", "a broken HTTP answer (BadStatusLine"),
        (b"", "closed connection without response"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 900\r\n\r\n<a href", "893 bytes short"),
        (b"HTTP/1.1 200 OK\r\nX: " + b"a" * 70_000 + b"\r\n\r\n", "(LineTooLong: "),
        (b"HTTP/1.1 500 " + b"\x1b[2K" * 10_000 + b"\r\n\r\n", "HTTP 500 \x1b[2K"),
    ],
    ids=["no-location", "not-http", "nothing", "cut-short", "long-header", "long-reason"],
)
def test_a_broken_answer_is_one_problem(data: bytes, said: str) -> None:
    with hostile(broken=_raw(data)) as server:
        page = fetch(f"{server.url}/broken/", soon(10))
    assert page.problem is not None
    assert said in page.problem, page.problem
    assert len(page.problem) < 1_000


def _choice(name: str, url: str) -> Choice:
    return Choice(
        name=name,
        family="torch",
        variant="cu124",
        cuda=None,
        source=Source("hostile", url),
        version=None,
        reason="",
        arches=(),
    )


def test_the_whole_check_has_one_limit() -> None:
    """Three dripping pages and a limit that covers about one: the rest are not asked."""
    with hostile(slow=_drip_body) as server:
        choices = [_choice(name, f"{server.url}/slow/") for name in ("a", "b", "c")]
        asked: list[str] = []

        def get(url: str, deadline: float) -> Page:
            asked.append(url)
            return fetch(url, deadline)

        settings = parse_settings({})
        reports = check(choices, settings, (), get, limit=1.0)
    assert [r.package for r in reports] == ["a", "b", "c"]
    assert len(asked) < 3
    assert reports[-1].problem == "not asked: the check's 1 s were spent on the pages before it"
    assert all(not r.ok for r in reports)


def _mirrored_project(tmp_path: Path, template: str) -> Path:
    project = tmp_path / "torch_project"
    shutil.copytree(EXAMPLES / "torch_project", project)
    with (project / "pyproject.toml").open("a") as pyproject:
        pyproject.write(f'\n[tool.poetry-cuda.mirrors]\npytorch = "{template}"\n')
    return project


TARGET = ("--target", "hosts/workstation-rtx4090.json")


def test_plan_check_index_ends_on_a_dripping_index(cli: Cli, tmp_path: Path) -> None:
    """The reviewer's index: one byte every so often, for ever. The command ends (after its
    per-page limit) and says which page timed out."""
    with hostile(**{"whl/cu124/torch": _drip_body}) as server:
        project = _mirrored_project(tmp_path, f"{server.url}/whl/{{variant}}")
        result = cli.run("plan", *TARGET, "--check-index", cwd=project, timeout=120)
    assert result.code == 1, result
    assert f"torch 2.5.1+cu124: cannot read {server.url}/whl/cu124/torch/: timed out" in (
        result.stdout
    )
    assert "torchvision 0.20.1+cu124: cannot read" in result.stdout  # a 404 here


def test_plan_check_index_reports_a_redirect(cli: Cli, tmp_path: Path) -> None:
    with hostile(
        **{
            "whl/cu124/torch": _redirect("/elsewhere/torch/"),
            "elsewhere/torch": _ok,
            "whl/cu124/torchvision": _redirect(f"http://mirror.example/{SECRET}/"),
        }
    ) as server:
        project = _mirrored_project(tmp_path, f"{server.url}/whl/{{variant}}")
        result = cli.run("plan", *TARGET, "--check-index", cwd=project, timeout=120)
        as_json = cli.run("plan", *TARGET, "--check-index", "--json", cwd=project, timeout=120)
    assert result.code == 1, result
    lines = result.stdout.splitlines()
    assert (
        "Index check (online: at most 10 s a page, redirects included, and 60 s in all):" in lines
    )
    served = lines.index(f"  torch 2.5.1+cu124: served by {server.url}/whl/cu124/torch/")
    assert lines[served + 1] == f"    redirected to {server.url}/elsewhere/torch/"
    assert (
        f"  torchvision 0.20.1+cu124: cannot read {server.url}/whl/cu124/torchvision/: "
        "redirected (HTTP 302) to http://mirror.example/"
    ) in result.stdout
    assert "is not an https URL" in result.stdout
    reports = {r["package"]: r for r in json.loads(as_json.stdout)["index_check"]}
    assert reports["torch"]["redirects"] == [f"{server.url}/elsewhere/torch/"]
    assert reports["torch"]["serves"] is True
    assert reports["torchvision"]["serves"] is False
    assert "redirected (HTTP 302)" in reports["torchvision"]["problem"]
