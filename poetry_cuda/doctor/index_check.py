"""`plan --check-index`: whether each chosen index serves the chosen version, and from where.

The one check that goes online. For every package the plan puts on an index it fetches the
index's page of the package (a simple index: ``<url>/<package>/``; a flat mirror: its one
listing), each page once, and reads the file links: whether one is the chosen version, and
whether they point at the index's own host or elsewhere (a mirror that copies upstream's
pages unchanged links back to download.pytorch.org, so every download still goes there).
Fetching is `fetch`; judging a page is pure (`judge`).

An index is trusted with nothing: a page is read within `PAGE_LIMIT` bytes and a total of
`REQUEST_TIMEOUT` seconds, from connecting to its last byte, whatever the server sends and
however slowly (every read gets only the time left); the whole check ends within
`CHECK_TIMEOUT`. (Resolving the host's name is left to the system's resolver, which
keeps its own limits.) A redirect is followed only to a URL the rule of index URLs accepts
(`request.settings.url_problem`, which the redist downloads follow too): never from https
to plain http off loopback, never to credentials or a query. The report says where each
page was redirected, or which redirect was refused, and which page ran out of time.
"""

from __future__ import annotations

import io
import time

from html.parser import HTMLParser
from typing import TYPE_CHECKING
from typing import Any
from urllib.parse import unquote
from urllib.parse import urljoin
from urllib.parse import urlsplit

from packaging.utils import InvalidSdistFilename
from packaging.utils import InvalidWheelFilename
from packaging.utils import parse_sdist_filename
from packaging.utils import parse_wheel_filename
from packaging.version import Version

from poetry_cuda.display import redact_url
from poetry_cuda.files import MiB
from poetry_cuda.names import canonical_name
from poetry_cuda.records import frozen
from poetry_cuda.request.settings import is_loopback
from poetry_cuda.request.settings import url_problem


if TYPE_CHECKING:
    import socket
    import urllib.request

    from collections.abc import Callable
    from collections.abc import Sequence
    from http.client import HTTPResponse

    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.planning.plan import Choice
    from poetry_cuda.request.settings import Settings


# Seconds for one page, from connecting to its last byte, redirects included: a mirror
# slower than this is no help to a lock either.
REQUEST_TIMEOUT = 10.0
CHECK_TIMEOUT = 60.0  # seconds for the whole check, every page together
PAGE_LIMIT = 16 * MiB  # torch's page on download.pytorch.org is a few hundred KiB
MAX_REDIRECTS = 5
_QUOTED = 200  # the most characters of what a server said that a report quotes


@frozen
class Page:
    """What an index answered for one URL: the file links, or why there are none.

    `redirects` are the URLs the index redirected to, in order; links are read relative to
    the last of them (`base`), as a resolver reads them.
    """

    url: str
    links: tuple[str, ...] = ()
    problem: str | None = None
    redirects: tuple[str, ...] = ()

    @property
    def base(self) -> str:
        return self.redirects[-1] if self.redirects else self.url


@frozen
class IndexReport:
    package: str
    version: str | None  # the version the plan expects; None: any
    page: str  # the URL asked
    layout: str
    problem: str | None  # the page could not be read
    serves: bool
    found: tuple[str, ...]  # the versions of the package the page lists
    elsewhere: tuple[str, ...]  # hosts the package's files are linked at, other than the page's
    upstream: str | None  # the family's own index host, when links point there
    redirects: tuple[str, ...] = ()  # where the index redirected the page, in order

    @property
    def ok(self) -> bool:
        return self.problem is None and self.serves

    def to_json(self) -> dict[str, object]:
        return {
            "package": self.package,
            "version": self.version,
            "url": redact_url(self.page),
            "layout": self.layout,
            "serves": self.ok,
            "problem": self.problem,
            "links": "elsewhere" if self.elsewhere else "local",
            "link_hosts": list(self.elsewhere),
            "redirects": [redact_url(url) for url in self.redirects],
        }

    def lines(self) -> list[str]:
        wanted = f"{self.package} {self.version or '(any version)'}"
        where = redact_url(self.page)
        redirected = [f"  redirected to {redact_url(url)}" for url in self.redirects]
        if self.problem is not None:
            return [f"{wanted}: cannot read {where}: {self.problem}", *redirected]
        if not self.serves:
            listed = ", ".join(self.found[-5:]) or "none"
            head = [f"{wanted}: NOT served by {where} (it lists: {listed})", *redirected]
        else:
            head = [f"{wanted}: served by {where}", *redirected]
        if self.elsewhere:
            upstream = " (upstream: downloads go to the family's own index)"
            hosts = ", ".join(self.elsewhere)
            head.append(
                f"  its file links point elsewhere: {hosts}{upstream if self.upstream else ''}"
            )
        elif self.serves:
            head.append("  its file links point at the index itself")
        return head


class _Links(HTMLParser):
    """The href of every <a>, entities decoded (`&#43;` is `+`)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.found.extend(value for name, value in attrs if name == "href" and value)


def links(text: str) -> tuple[str, ...]:
    parser = _Links()
    parser.feed(text)
    parser.close()
    return tuple(parser.found)


def page_url(url: str, package: str, layout: str) -> str:
    """The page that lists `package`'s files: its project page, or the flat listing."""
    base = url if url.endswith("/") else url + "/"
    return base if layout == "flat" else f"{base}{canonical_name(package)}/"


def _release(filename: str) -> tuple[str, str] | None:
    """(normalized name, version) of a distribution file name."""
    try:
        if filename.endswith(".whl"):
            name, version, _, _ = parse_wheel_filename(filename)
        else:
            name, version = parse_sdist_filename(filename)
    except (InvalidWheelFilename, InvalidSdistFilename):
        return None
    return str(name), str(version)


def judge(
    page: Page, package: str, version: str | None, layout: str, upstream: str | None
) -> IndexReport:
    """What `page` says about `package` `version` (pure)."""
    own = urlsplit(page.base).netloc
    found: dict[str, None] = {}
    hosts: dict[str, None] = {}
    wanted = canonical_name(package)
    for href in page.links:
        absolute = urljoin(page.base, href)
        parts = urlsplit(absolute)
        release = _release(unquote(parts.path.rsplit("/", 1)[-1]))
        if release is None or release[0] != wanted:
            continue
        found[release[1]] = None
        if parts.netloc != own:
            hosts[parts.netloc] = None
    serves = bool(found) if version is None else str(Version(version)) in found
    return IndexReport(
        package,
        version,
        page.url,
        layout,
        page.problem,
        serves,
        tuple(sorted(found, key=Version)),
        tuple(hosts),
        upstream if upstream in hosts else None,
        page.redirects,
    )


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
            answer = _answer(current, deadline, given)
            if isinstance(answer, bytes):
                break
            code, location = answer
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
    if len(answer) > PAGE_LIMIT:
        problem = f"the page is larger than {PAGE_LIMIT // MiB} MiB"
        return Page(url, problem=problem, redirects=tuple(redirects))
    return Page(url, links(answer.decode("utf-8", errors="replace")), None, tuple(redirects))


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


def _answer(url: str, deadline: float, given: float) -> bytes | tuple[int, str]:
    """The body at `url`, or the status and Location of a redirect; `_PageError` otherwise
    (`given`: the seconds the page had, for the message of a timeout)."""
    import http.client
    import urllib.error
    import urllib.request

    try:
        opener = _opener(deadline, is_loopback(urlsplit(url).hostname or ""))
        request = urllib.request.Request(
            url, headers={"Accept": "text/html", "User-Agent": "poetry-cuda"}
        )
        with opener.open(request, timeout=_left(deadline)) as response:
            body: bytes = response.read(PAGE_LIMIT + 1)
            short = response.length  # what Content-Length promised and did not come
    except urllib.error.HTTPError as error:
        with error:
            location = error.headers.get("Location") if error.headers else None
            if 300 <= error.code < 400 and location:
                return error.code, location
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
    return body


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


def check(
    choices: Sequence[Choice],
    settings: Settings,
    families: Sequence[Family],
    get: Callable[[str, float], Page] = fetch,
    *,
    limit: float = CHECK_TIMEOUT,
) -> list[IndexReport]:
    """Ask the index of every choice on one whether it serves the chosen version.

    `get(url, deadline)` reads one page; each gets REQUEST_TIMEOUT seconds, and none
    more than the `limit` of the whole check leaves it.
    """
    end = time.monotonic() + limit
    pages: dict[str, Page] = {}
    reports = []
    for choice in choices:
        if choice.source.is_pypi:
            continue
        url = choice.source.url
        flat = any(m.layout == "flat" and m.serves(url) for m in settings.mirrors.values())
        layout = "flat" if flat else "simple"
        asked = page_url(url, choice.name, layout)
        if asked not in pages:
            now = time.monotonic()
            if now < end:
                pages[asked] = get(asked, min(now + REQUEST_TIMEOUT, end))
            else:
                spent = f"not asked: the check's {limit:g} s were spent on the pages before it"
                pages[asked] = Page(asked, problem=spent)
        family = next((f for f in families if f.name == choice.family), None)
        index = family.index_url("variant") if family is not None else None
        upstream = urlsplit(index).netloc if index else None
        reports.append(judge(pages[asked], choice.name, choice.version, layout, upstream))
    return reports
