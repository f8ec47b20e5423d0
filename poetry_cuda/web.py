"""Opening an http(s) URL, the one way poetry-cuda does: for a locked wheel and its index
page (`wheelstore.fetch`), NVIDIA's redist files (`redist.fetch`) and an index's page
checked (`indexes.pages`).

Every redirect keeps to the rule of URLs (`urls.url_problem`), so an https server cannot
hand a download over to plain http, and at most MAX_REDIRECTS are followed: each is judged
here, none by urllib. The URL asked for is its caller's to check first, since each names
its own setting. Credentials (an Authorization header) go to the URL asked for only, never
on a redirect. A loopback host is reached without the environment's proxy. Every wait is
bounded: each by `timeout` seconds, or, given a `deadline` (`time.monotonic()`), all of them
together, from connecting to the last byte, however slowly a server sends. No answer is read
past its `limit` of bytes.

What went wrong is told as facts, one `WebError` class for each kind: each caller words them
for its own error or report. The standard library's network stack (urllib.request,
http.client, ssl, email: some thirty modules) is imported where a URL is opened, so that
the commands that find a toolkit already assembled (`env`, `run`) never load it.
"""

from __future__ import annotations

import hashlib
import io
import os
import time

from typing import TYPE_CHECKING
from typing import Any
from urllib.parse import urljoin
from urllib.parse import urlsplit

from poetry_cuda.records import frozen
from poetry_cuda.urls import is_loopback
from poetry_cuda.urls import url_problem


if TYPE_CHECKING:
    import socket
    import urllib.request

    from http.client import HTTPResponse
    from pathlib import Path

    from poetry_cuda.urls import UrlProblem


MAX_REDIRECTS = 5
TIMEOUT = 60.0  # seconds without a byte before a download is given up
USER_AGENT = "poetry-cuda"
_CHUNK = 1024 * 1024


class WebError(Exception):
    """Why a URL gave no answer, or not the whole of it; its kind says which. `redirects`:
    the URLs followed before it happened."""

    redirects: tuple[str, ...] = ()


class RedirectRefusedError(WebError):
    """A redirect (HTTP `code`, from `source`) to `target`, which the rule of URLs refuses."""

    def __init__(self, target: str, problem: UrlProblem, source: str, code: int) -> None:
        super().__init__(target, problem.what)
        self.target = target
        self.problem = problem
        self.source = source
        self.code = code


class TooManyRedirectsError(WebError):
    """More than MAX_REDIRECTS redirects, one after the other."""


class StatusError(WebError):
    """An error status (or a redirect without a Location): `code` and the server's `reason`."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(code, reason)
        self.code = code
        self.reason = reason


class UnreachableError(WebError):
    """No answer: `reason` (refused, no such host, TLS, timed out), `timed_out` if time ran out."""

    def __init__(self, reason: str, *, timed_out: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.timed_out = timed_out


class BrokenAnswerError(WebError):
    """An answer that is no HTTP (a status line or header no parser reads): `kind`, `said`."""

    def __init__(self, kind: str, said: str) -> None:
        super().__init__(kind, said)
        self.kind = kind
        self.said = said


class TooLargeError(WebError):
    """An answer of more than `limit` bytes, or one that announces more."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit


class CutShortError(WebError):
    """An answer that ended after `got` of the `expected` bytes (None: not announced):
    closed early (`error` None), or broken off by `error` (a reset, a timeout, a bad chunk)."""

    def __init__(self, got: int, expected: int | None, error: BaseException | None) -> None:
        super().__init__(got, expected, error)
        self.got = got
        self.expected = expected
        self.error = error


@frozen
class Body:
    """An answer read whole: its bytes, its media type, and the URLs it was redirected to."""

    data: bytes
    media: str
    redirects: tuple[str, ...] = ()


@frozen
class Downloaded:
    """A file written whole: its size and sha256 (hex)."""

    size: int
    sha256: str


def read(
    url: str,
    *,
    limit: int,
    accept: str = "*/*",
    authorization: str | None = None,
    timeout: float = TIMEOUT,
    deadline: float | None = None,
) -> Body:
    """The answer at `url` (a page, a manifest), at most `limit` bytes."""
    response, redirects = _open(url, accept, authorization, timeout, deadline)
    with response:
        promised = response.length
        data = bytearray()
        try:
            while chunk := _chunk(response, len(data), promised):
                data += chunk
                if len(data) > limit:
                    raise TooLargeError(limit)
            if response.length:  # what Content-Length promised and did not come
                raise CutShortError(len(data), promised, None)
        except WebError as failure:
            failure.redirects = redirects
            raise
        return Body(bytes(data), response.headers.get_content_type(), redirects)


def download(
    url: str,
    destination: Path,
    *,
    limit: int,
    authorization: str | None = None,
    timeout: float = TIMEOUT,
) -> Downloaded:
    """Write `url` to the new file `destination`: at most `limit` bytes, with its sha256.

    The file must not exist (it is created exclusively); on any failure it is removed.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    descriptor = os.open(destination, flags, 0o600)
    digest = hashlib.sha256()
    size = 0
    try:
        with os.fdopen(descriptor, "wb") as out:
            response, _ = _open(url, "*/*", authorization, timeout, None)
            with response:
                promised = response.length
                if promised is not None and promised > limit:
                    raise TooLargeError(limit)
                while chunk := _chunk(response, size, promised):
                    size += len(chunk)
                    if size > limit:
                        raise TooLargeError(limit)
                    digest.update(chunk)
                    out.write(chunk)
                if response.length:
                    raise CutShortError(size, promised, None)
    except BaseException:
        destination.unlink(missing_ok=True)
        raise
    return Downloaded(size, digest.hexdigest())


def _chunk(response: HTTPResponse, got: int, expected: int | None) -> bytes:
    import http.client

    try:
        return response.read(_CHUNK)
    except (OSError, ValueError, http.client.HTTPException) as error:
        raise CutShortError(got, expected, error) from error


def _open(
    url: str, accept: str, authorization: str | None, timeout: float, deadline: float | None
) -> tuple[HTTPResponse, tuple[str, ...]]:
    """The response at `url`, after the redirects the rule of URLs accepts (returned too)."""
    redirects: list[str] = []
    try:
        return _follow(url, accept, authorization, timeout, deadline, redirects)
    except WebError as failure:
        failure.redirects = tuple(redirects)
        raise


def _follow(
    url: str,
    accept: str,
    authorization: str | None,
    timeout: float,
    deadline: float | None,
    redirects: list[str],
) -> tuple[HTTPResponse, tuple[str, ...]]:
    current = url
    while True:
        headers = {"User-Agent": USER_AGENT, "Accept": accept}
        if authorization is not None and not redirects:
            headers["Authorization"] = authorization
        moved = _answer(current, headers, timeout, deadline)
        if not isinstance(moved, tuple):
            return moved, tuple(redirects)
        code, location = moved
        try:
            target = urljoin(current, location)
        except ValueError:  # a Location no parser can join: judged as it is
            target = location
        problem = url_problem(target)
        if problem is not None:
            raise RedirectRefusedError(target, problem, current, code)
        if len(redirects) == MAX_REDIRECTS:
            raise TooManyRedirectsError
        redirects.append(target)
        current = target


def _answer(
    url: str, headers: dict[str, str], timeout: float, deadline: float | None
) -> HTTPResponse | tuple[int, str]:
    """The response at `url`, or the status and Location of its redirect."""
    import http.client
    import urllib.error
    import urllib.request

    try:
        opener = _opener(deadline, is_loopback(urlsplit(url).hostname or ""))
        request = urllib.request.Request(url, headers=headers)
        wait = timeout if deadline is None else _left(deadline)
        response: HTTPResponse = opener.open(request, timeout=wait)
    except urllib.error.HTTPError as error:
        with error:
            location = error.headers.get("Location") if error.headers else None
            if 300 <= error.code < 400 and location:
                return error.code, location
            raise StatusError(error.code, str(error.reason)) from None
    except (OSError, ValueError, http.client.HTTPException) as error:
        raise failure_of(error) from None
    return response


def failure_of(error: BaseException) -> UnreachableError | BrokenAnswerError:
    """The failure an error of the socket, urllib or http.client is: a `CutShortError`'s
    `error` said as the same kind as if the answer had not begun."""
    import http.client
    import urllib.error

    if isinstance(error, TimeoutError):
        return UnreachableError(str(error), timed_out=True)
    if isinstance(error, urllib.error.URLError):
        timed_out = isinstance(error.reason, TimeoutError)
        return UnreachableError(str(error.reason), timed_out=timed_out)
    if isinstance(error, http.client.HTTPException):  # a status line or header no parser reads
        return BrokenAnswerError(type(error).__name__, str(error))
    return UnreachableError(str(error) or type(error).__name__)


def _left(deadline: float) -> float:
    """The seconds left until `deadline`; TimeoutError when none are."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the time for this answer is spent")
    return left


def _opener(deadline: float | None, loopback: bool) -> urllib.request.OpenerDirector:
    """urllib's opener that follows no redirect itself (each is `_open`'s to judge), without
    proxy for a loopback host, and, given a `deadline`, whose every connection ends by it."""
    import urllib.request

    class NoRedirects(urllib.request.HTTPRedirectHandler):
        # Not even read here (urllib's handler parses the Location before it asks): the
        # 3xx reaches `_answer` as an HTTPError, Location and all.
        def http_error_302(self, *_: Any) -> None:
            return None

        http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302  # type: ignore[assignment]

    handlers: list[urllib.request.BaseHandler] = [NoRedirects()]
    if deadline is not None:
        handlers += _bounded_handlers(deadline)
    if loopback:
        handlers.append(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener(*handlers)


def _bounded_handlers(deadline: float) -> list[urllib.request.BaseHandler]:
    """http and https handlers whose connections, TLS handshakes and reads all end by
    `deadline`."""
    import http.client
    import socket
    import urllib.request

    def connected(address: tuple[str, int], *_: object) -> socket.socket:
        # socket.create_connection gives each address the whole timeout: here all of them
        # share what is left, and the TLS handshake gets what the connection left.
        failure: OSError = OSError(f"cannot resolve {address[0]}")
        for family, kind, protocol, _name, where in socket.getaddrinfo(
            *address, 0, socket.SOCK_STREAM
        ):
            sock = socket.socket(family, kind, protocol)
            try:
                sock.settimeout(_left(deadline))
                sock.connect(where)
                sock.settimeout(_left(deadline))
            except OSError as error:
                sock.close()
                failure = error
                continue
            return sock
        raise failure

    class Response(http.client.HTTPResponse):
        def __init__(self, sock: socket.socket, *args: Any, **kwargs: Any) -> None:
            super().__init__(sock, *args, **kwargs)
            self.fp = io.BufferedReader(_Bounded(self.fp.detach(), sock, deadline))

    class Plain(http.client.HTTPConnection):
        response_class = Response

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._create_connection = connected

    class Secure(http.client.HTTPSConnection):
        response_class = Response

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._create_connection = connected

    class PlainHandler(urllib.request.HTTPHandler):
        def http_open(self, req: urllib.request.Request) -> HTTPResponse:
            return self.do_open(Plain, req)

    class SecureHandler(urllib.request.HTTPSHandler):
        def https_open(self, req: urllib.request.Request) -> HTTPResponse:
            return self.do_open(Secure, req)

    return [PlainHandler(), SecureHandler()]


class _Bounded(io.RawIOBase):
    """A response's socket reads, each allowed only the time left until `deadline`, so a
    server that sends one byte at a time cannot keep the answer open past it."""

    def __init__(self, raw: io.RawIOBase, sock: socket.socket, deadline: float) -> None:
        super().__init__()
        self._raw = raw
        self._sock = sock
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        self._sock.settimeout(_left(self._deadline))
        return self._raw.readinto(buffer)

    def close(self) -> None:
        self._raw.close()
        super().close()
