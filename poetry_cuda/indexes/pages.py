"""Reading one page of a package index, bounded in size and time, whatever the server does.

An index is trusted with nothing: a page is read within `PAGE_LIMIT` bytes and a total of
`REQUEST_TIMEOUT` seconds, from connecting to its last byte, whatever the server sends and
however slowly (every read gets only the time left). (Resolving the host's name is left to
the system's resolver, which keeps its own limits.) The network is `web`'s, as for every
download: a redirect is followed only to a URL the rule of URLs accepts (`urls.url_problem`),
never from https to plain http off loopback, never to credentials or a query, and at most
`web.MAX_REDIRECTS` of them. A page says where it was redirected, or which redirect was
refused, or that it ran out of time.

`fetch` reads one page; `fetch_all` reads several at once, one thread each, all within one
limit. What a page lists is `indexes.listing`'s to read.
"""

from __future__ import annotations

import time

from typing import TYPE_CHECKING

from poetry_cuda import web
from poetry_cuda.display import redact_url
from poetry_cuda.files import MiB
from poetry_cuda.indexes.listing import Anchor
from poetry_cuda.indexes.listing import anchors
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterable


# Seconds for one page, from connecting to its last byte, redirects included: a mirror
# slower than this is no help to a lock either.
REQUEST_TIMEOUT = 10.0
CHECK_TIMEOUT = 60.0  # seconds for every page of one check together
PAGE_LIMIT = 16 * MiB  # torch's page on download.pytorch.org is a few hundred KiB
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


def fetch(url: str, deadline: float) -> Page:
    """The file links of the page at `url`, read within PAGE_LIMIT bytes by `deadline`
    (`time.monotonic()`), following at most MAX_REDIRECTS redirects the rule of index URLs
    accepts; any failure is the page's problem."""
    given = deadline - time.monotonic()
    try:
        answer = web.read(url, limit=PAGE_LIMIT, accept=ACCEPT, deadline=deadline)
    except web.WebError as failure:
        return Page(url, problem=problem_of(failure, given), redirects=failure.redirects)
    return read_page(url, answer.data, answer.media, answer.redirects)


def problem_of(failure: web.WebError, given: float) -> str:
    """What a report says of `failure` (`given`: the seconds the page had, for a timeout)."""
    if isinstance(failure, web.RedirectRefusedError):
        return (
            f"redirected (HTTP {failure.code}) to {_said(redact_url(failure.target))}, which is "
            f"not followed: {failure.problem.what}"
        )
    if isinstance(failure, web.TooManyRedirectsError):
        return f"redirected more than {web.MAX_REDIRECTS} times"
    if isinstance(failure, web.TooLargeError):
        return f"the answer is larger than {failure.limit // MiB} MiB"
    if isinstance(failure, web.StatusError):
        missing = " without a Location" if 300 <= failure.code < 400 else ""
        return f"HTTP {failure.code} {_said(failure.reason)}{missing}"
    if isinstance(failure, web.CutShortError):
        if failure.error is None:
            short = (failure.expected or 0) - failure.got
            return f"the answer ended {short} bytes short of the length it announced"
        failure = web.failure_of(failure.error)
    if isinstance(failure, web.BrokenAnswerError):
        return f"a broken HTTP answer ({failure.kind}: {_said(repr(failure.said))})"
    assert isinstance(failure, web.UnreachableError)  # the one kind left
    if failure.timed_out:
        return (
            f"timed out: no complete answer within {given:.3g} s (the time a page is given, "
            "from connecting to its last byte, redirects included)"
        )
    return f"unreachable ({_said(failure.reason)})"


def _said(text: str) -> str:
    """What a server said (a reason, a Location), cut to what a report quotes."""
    return text if len(text) <= _QUOTED else f"{text[:_QUOTED]}... ({len(text)} characters)"
