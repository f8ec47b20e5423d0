"""Reading one page of a package index, bounded in size and time, whatever the server does.

An index is trusted with nothing: a page is read within `PAGE_LIMIT` bytes and a total of
`REQUEST_TIMEOUT` seconds, from connecting to its last byte, whatever the server sends and
however slowly (every read gets only the time left). (Resolving the host's name is left to
the system's resolver, which keeps its own limits.) A redirect is followed only to a URL the
rule of index URLs accepts (`request.settings.url_problem`, which the redist downloads follow
too): never from https to plain http off loopback, never to credentials or a query. A page
says where it was redirected, or which redirect was refused, or that it ran out of time.

`fetch` reads one page; `fetch_all` reads several at once, one thread each, all within one
limit. What a page lists is `indexes.listing`'s to read. The standard library's network stack
is imported where a page is read, as in `redist.fetch`.
"""

from __future__ import annotations

import io
import time

from typing import TYPE_CHECKING
from typing import Any
from urllib.parse import urljoin
from urllib.parse import urlsplit

from poetry_cuda.display import redact_url
from poetry_cuda.files import MiB
from poetry_cuda.indexes.listing import Anchor
from poetry_cuda.indexes.listing import anchors
from poetry_cuda.records import frozen
from poetry_cuda.request.settings import is_loopback
from poetry_cuda.request.settings import url_problem


if TYPE_CHECKING:
    import socket
    import urllib.request

    from collections.abc import Callable
    from collections.abc import Iterable
    from http.client import HTTPResponse


# Seconds for one page, from connecting to its last byte, redirects included: a mirror
# slower than this is no help to a lock either.
REQUEST_TIMEOUT = 10.0
CHECK_TIMEOUT = 60.0  # seconds for every page of one check together
PAGE_LIMIT = 16 * MiB  # torch's page on download.pytorch.org is a few hundred KiB
MAX_REDIRECTS = 5
_QUOTED = 200  # the most characters of what a server said that a report quotes
# Every form an index may answer in; HTML first, the one every index serves.
ACCEPT = "text/html, application/vnd.pypi.simple.v1+html;q=0.9, application/json;q=0.8"


@frozen
class Page:
    """What an index answered for one URL: the file links, or why there are none.

    `redirects` are the URLs the index redirected to, in order; links are read relative to
    the last of them (`base`), as a resolver reads them. `anchors` are the links with what
    the page says of each (its Requires-Python).
    """

    url: str
    links: tuple[str, ...] = ()
    problem: str | None = None
    redirects: tuple[str, ...] = ()
    anchors: tuple[Anchor, ...] = ()

    @property
    def base(self) -> str:
        return self.redirects[-1] if self.redirects else self.url


def read_page(url: str, body: bytes, media: str, redirects: tuple[str, ...] = ()) -> Page:
    """The page `body` (of type `media`) says it is, read at `url`."""
    found = anchors(body.decode("utf-8", errors="replace"), media)
    return Page(url, tuple(a.href for a in found), None, redirects, found)


def fetch_all(
    urls: Iterable[str],
    get: Callable[[str, float], Page] | None = None,
    *,
    limit: float = CHECK_TIMEOUT,
) -> dict[str, Page]:
    """Every page of `urls` (each once), read at the same time, one thread each: each gets
    REQUEST_TIMEOUT seconds and none more than `limit` from now."""
    from concurrent.futures import ThreadPoolExecutor

    reader = fetch if get is None else get
    wanted = list(dict.fromkeys(urls))
    if not wanted:
        return {}
    end = time.monotonic() + limit
    deadline = min(time.monotonic() + REQUEST_TIMEOUT, end)
    with ThreadPoolExecutor(max_workers=min(len(wanted), 16)) as pool:
        answers = pool.map(lambda url: reader(url, deadline), wanted)
        return dict(zip(wanted, answers, strict=True))


class _MovedError(Exception):
    """A redirect, for `fetch` to judge: its status and Location."""

    def __init__(self, code: int, location: str) -> None:
        super().__init__(code, location)
        self.code = code
        self.location = location


class _PageError(Exception):
    """A page that could not be read, and why (a report's problem)."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def fetch(url: str, deadline: float) -> Page:
    """The file links of the page at `url`, read within PAGE_LIMIT bytes by `deadline`
    (`time.monotonic()`), following at most MAX_REDIRECTS redirects the rule of index URLs
    accepts; any failure is the page's problem."""
    given = deadline - time.monotonic()
    redirects: list[str] = []
    current = url
    try:
        while True:
            try:
                answer = _answer(current, deadline, given)
            except _MovedError as moved:
                code, location = moved.code, moved.location
            else:
                break
            try:
                target = urljoin(current, location)
            except ValueError:  # a Location no parser can join: judged as it is
                target = location
            refused = url_problem(target)
            if refused is not None:
                raise _PageError(
                    f"redirected (HTTP {code}) to {_said(redact_url(target))}, which is not "
                    f"followed: {refused.what}"
                )
            if len(redirects) == MAX_REDIRECTS:
                raise _PageError(f"redirected more than {MAX_REDIRECTS} times")
            redirects.append(target)
            current = target
    except _PageError as failed:
        return Page(url, problem=failed.problem, redirects=tuple(redirects))
    body, media = answer
    if len(body) > PAGE_LIMIT:
        problem = f"the page is larger than {PAGE_LIMIT // MiB} MiB"
        return Page(url, problem=problem, redirects=tuple(redirects))
    return read_page(url, body, media, tuple(redirects))


def _said(text: str) -> str:
    """What a server said (a reason, a Location), cut to what a report quotes."""
    return text if len(text) <= _QUOTED else f"{text[:_QUOTED]}... ({len(text)} characters)"


def _late(given: float) -> _PageError:
    return _PageError(
        f"timed out: no complete answer within {given:.3g} s (the time a page is given, from "
        "connecting to its last byte, redirects included)"
    )


def _left(deadline: float) -> float:
    """The seconds left until `deadline`; TimeoutError when none are."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the time for this page is spent")
    return left


def _answer(url: str, deadline: float, given: float) -> tuple[bytes, str]:
    """The body at `url` and its media type; `_MovedError` for a redirect, `_PageError` otherwise
    (`given`: the seconds the page had, for the message of a timeout)."""
    import http.client
    import urllib.error
    import urllib.request

    try:
        opener = _opener(deadline, is_loopback(urlsplit(url).hostname or ""))
        request = urllib.request.Request(
            url, headers={"Accept": ACCEPT, "User-Agent": "poetry-cuda"}
        )
        with opener.open(request, timeout=_left(deadline)) as response:
            body: bytes = response.read(PAGE_LIMIT + 1)
            short = response.length  # what Content-Length promised and did not come
            media = response.headers.get_content_type()
    except urllib.error.HTTPError as error:
        with error:
            location = error.headers.get("Location") if error.headers else None
            if 300 <= error.code < 400 and location:
                raise _MovedError(error.code, location) from None
            reason = f"HTTP {error.code} {_said(str(error.reason))}"
            missing = " without a Location" if 300 <= error.code < 400 else ""
            raise _PageError(reason + missing) from None
    except TimeoutError:
        raise _late(given) from None
    except urllib.error.URLError as error:
        if isinstance(error.reason, TimeoutError):
            raise _late(given) from None
        raise _PageError(f"unreachable ({_said(str(error.reason))})") from None
    except http.client.HTTPException as error:  # a status line or header that is no HTTP
        said = _said(repr(str(error)))
        raise _PageError(f"a broken HTTP answer ({type(error).__name__}: {said})") from None
    except (OSError, ValueError) as error:
        raise _PageError(f"unreachable ({_said(str(error) or type(error).__name__)})") from None
    if short and len(body) <= PAGE_LIMIT:
        raise _PageError(f"the answer ended {short} bytes short of the length it announced")
    return body, media


# The network stack is imported where a check runs, as in `redist.fetch`.


def _opener(deadline: float, loopback: bool) -> urllib.request.OpenerDirector:
    """urllib's opener whose every connection ends by `deadline`, following no redirect
    itself (each is `fetch`'s to judge), and without proxy for a loopback host."""
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

    class NoRedirects(urllib.request.HTTPRedirectHandler):
        # Not even read here (urllib's handler parses the Location before it asks): the
        # 3xx reaches `_answer` as an HTTPError, Location and all.
        def http_error_302(self, *_: Any) -> None:
            return None

        http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302  # type: ignore[assignment]

    handlers: list[urllib.request.BaseHandler] = [PlainHandler(), SecureHandler(), NoRedirects()]
    if loopback:
        handlers.append(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener(*handlers)


class _Bounded(io.RawIOBase):
    """A response's socket reads, each allowed only the time left until `deadline`, so a
    server that sends one byte at a time cannot keep the page open past it."""

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
