"""Fetching the wheels poetry.lock records: from the URL it records, or from the simple page
of the index it records, with the credentials Poetry would send. What a page lists is
`indexes.listing`'s to read, as for every index page.

poetry.lock records each file's name and sha256, not its URL (except for a dependency given
by URL). A wheel from an index is found on the project's page of that index (PEP 691 JSON
where the index offers it, else PEP 503 HTML), the way Poetry finds it; PyPI's packages on
https://pypi.org/simple/. Per-user mirrors replace an index's URL (`indexes`, by source
name), as they do inside Poetry. Every URL must be https, or http on a loopback host (the
rule of index URLs); a redirect must keep to it too.

Credentials stay with the caller: `credentials` maps an index's URL to the user name and
password Poetry holds for it (``poetry config http-basic.<source>``, its keyring), read by
the Poetry backend. They are sent, as HTTP basic authentication, only to the host of that
index, never on a redirect, and appear in no message.

The download is hashed as it is written: the store keeps a wheel only when the sha256 is
the one the lock records.
"""

from __future__ import annotations

import hashlib
import threading

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from poetry_cuda import web
from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import UnmetRequirementError
from poetry_cuda.indexes.listing import anchors
from poetry_cuda.indexes.listing import files
from poetry_cuda.names import canonical_name
from poetry_cuda.urls import url_problem


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping
    from pathlib import Path

    from poetry_cuda.urls import UrlProblem
    from poetry_cuda.wheelstore.locked import LockedWheel


PAGE_LIMIT = 64 * 1024 * 1024  # torch's page on download.pytorch.org is a few MiB
WHEEL_LIMIT = 16 * 1024**3
_CHUNK = 1024 * 1024
_ACCEPT = "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.1"


class Fetcher:
    """Finds and downloads locked wheels; pages are read once per run."""

    def __init__(
        self,
        *,
        indexes: Mapping[str, str] | None = None,
        credentials: Mapping[str, tuple[str, str]] | None = None,
        timeout: float = web.TIMEOUT,
    ) -> None:
        self.indexes = dict(indexes or {})
        self.credentials = dict(credentials or {})
        self.timeout = timeout
        self._pages: dict[str, dict[str, str]] = {}
        self._lock = threading.Lock()

    def fetch(self, locked: LockedWheel) -> Callable[[Path], str]:
        """A fetch for `Store.ensure`: writes `locked`'s wheel to a new file, returns its
        sha256."""

        def run(destination: Path) -> str:
            if locked.origin.kind == "file":
                return _copy(locked.origin.url, destination)
            return self.download(self.url_of(locked), destination)

        return run

    def url_of(self, locked: LockedWheel) -> str:
        """The URL of `locked`'s wheel."""
        if locked.origin.kind == "url":
            return locked.origin.url
        index = self.indexes.get(locked.origin.source, locked.origin.url)
        page = f"{index.rstrip('/')}/{canonical_name(locked.name)}/"
        with self._lock:
            listed = self._pages.get(page)
        if listed is None:
            answer = self._read(page)
            # Links are read relative to where the page was found, after its redirects.
            base = answer.redirects[-1] if answer.redirects else page
            listed = files(
                anchors(answer.data.decode("utf-8", errors="replace"), answer.media), base
            )
            with self._lock:
                self._pages[page] = listed
        url = listed.get(locked.wheel.filename)
        if url is None:
            raise UnmetRequirementError(
                f"{locked.wheel.filename}: not on {page}",
                why="poetry.lock records this file, and the index no longer lists it",
                fix='run `poetry lock` to lock what the index offers now, or use install = "copy"',
            )
        return url

    def download(self, url: str, destination: Path) -> str:
        """Write `url` to the new file `destination`; return its sha256 (hex). On failure
        the file is removed."""
        _checked(url)
        try:
            written = web.download(
                url,
                destination,
                limit=WHEEL_LIMIT,
                authorization=self._authorization(url),
                timeout=self.timeout,
            )
        except web.WebError as failure:
            raise _worded(url, failure, "larger than any wheel (16 GiB)") from failure.__cause__
        return written.sha256

    def _read(self, url: str) -> web.Body:
        _checked(url)
        try:
            return web.read(
                url,
                limit=PAGE_LIMIT,
                accept=_ACCEPT,
                authorization=self._authorization(url),
                timeout=self.timeout,
            )
        except web.WebError as failure:
            raise _worded(url, failure, "a page larger than 64 MiB") from failure.__cause__

    def _authorization(self, url: str) -> str | None:
        import base64

        host = urlsplit(url).netloc
        for index, (user, password) in self.credentials.items():
            if urlsplit(index).netloc == host:
                token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
                return f"Basic {token}"
        return None


def _checked(url: str) -> None:
    problem = url_problem(url)
    if problem is not None:
        raise _refused(url, problem)


def _refused(url: str, problem: UrlProblem) -> UnmetRequirementError:
    return UnmetRequirementError(
        f"{_shown(url)}: refused ({problem.what})",
        why=problem.why,
        fix="use an https index (or a mirror of it) for the packages of this project",
    )


def _shown(url: str) -> str:
    """`url` without user information or query, for messages."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


def _worded(url: str, failure: web.WebError, too_large: str) -> UnmetRequirementError:
    """`failure` said for a wheel or its page at `url` (`too_large`: what more than its limit is)."""
    if isinstance(failure, web.RedirectRefusedError):
        return _refused(failure.target, failure.problem)
    if isinstance(failure, web.StatusError):
        hint = " (check the credentials Poetry holds for it)" if failure.code in (401, 403) else ""
        problem = f"the server answered {failure.code} {failure.reason}{hint}"
    elif isinstance(failure, web.UnreachableError):
        problem = f"cannot connect ({failure.reason})"
    elif isinstance(failure, web.BrokenAnswerError):
        problem = f"cannot connect (a broken HTTP answer: {failure.kind})"
    elif isinstance(failure, web.TooLargeError):
        problem = too_large
    elif isinstance(failure, web.CutShortError) and failure.error is not None:
        problem = f"the download broke off ({failure.error.__class__.__name__})"
    elif isinstance(failure, web.CutShortError):
        problem = f"the download ended after {failure.got} of {failure.expected} bytes"
    else:  # web.TooManyRedirectsError, the one kind left
        problem = f"redirected more than {web.MAX_REDIRECTS} times"
    return UnmetRequirementError(
        f"{_shown(url)}: {problem}",
        fix="check the network connection and the index, then run again",
    )


def _copy(path: str, destination: Path) -> str:
    """A wheel from a file on this machine (a file dependency)."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as source, destination.open("xb") as target:  # noqa: PTH123
            while chunk := source.read(_CHUNK):
                digest.update(chunk)
                target.write(chunk)
    except FileNotFoundError:
        destination.unlink(missing_ok=True)
        raise InputFileError(
            f"{path}: the wheel poetry.lock records is not there",
            fix="put it back, or run `poetry lock` again",
        ) from None
    return digest.hexdigest()
