"""Downloads from the redist base URL: https only (plain http for loopback hosts), every
read under a timeout, never more bytes than expected, sha256 computed while writing.

The network itself is `web`'s: a redirect is followed only to a URL the same rule accepts,
so an https server cannot hand the download over to plain http, and loopback URLs bypass
any proxy the environment sets. Here its failures are worded for the redist mirror.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urljoin

from poetry_cuda import web
from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import UnmetRequirementError
from poetry_cuda.messages import message
from poetry_cuda.urls import check_index_url


if TYPE_CHECKING:
    from pathlib import Path

    from poetry_cuda.messages import Localized


TIMEOUT = web.TIMEOUT
KEY = "[tool.poetry-cuda.mirrors] cuda-redist"


def check_url(url: str, key: str = KEY) -> str:
    """`url` if it is https, or http on a loopback host (the rule of index URLs)."""
    return check_index_url(url, key)


def join(base: str, relative: str) -> str:
    """`relative` (a manifest's relative_path, or a file name) below the base URL."""
    return urljoin(base if base.endswith("/") else base + "/", relative)


def download(
    url: str, destination: Path, *, limit: int, timeout: float = TIMEOUT
) -> web.Downloaded:
    """Write `url` to the new file `destination`: at most `limit` bytes, with its sha256.

    The file must not exist (it is created exclusively); on any failure it is removed.
    """
    check_url(url)
    try:
        return web.download(url, destination, limit=limit, timeout=timeout)
    except web.WebError as failure:
        raise _worded(url, failure) from failure.__cause__


def fetch(url: str, *, limit: int, timeout: float = TIMEOUT) -> bytes:
    """The body of `url` (a manifest, a directory listing), at most `limit` bytes."""
    check_url(url)
    try:
        return web.read(url, limit=limit, timeout=timeout).data
    except web.WebError as failure:
        raise _worded(url, failure) from failure.__cause__


def _worded(url: str, failure: web.WebError) -> InputFileError | UnmetRequirementError:
    """`failure` said for the redist mirror: what happened at `url`, why, how to fix it."""
    if isinstance(failure, web.RedirectRefusedError):
        return UnmetRequirementError(
            message("redist.redirect-refused", source=failure.source, target=failure.target),
            why=failure.problem.why,
            fix=message("redist.redirect-refused-fix"),
        )
    if isinstance(failure, web.TooLargeError):
        return InputFileError(
            message("redist.too-large", url=url, limit=failure.limit),
            why=message("redist.too-large-why"),
            fix=message("redist.check-mirror"),
        )
    if isinstance(failure, web.CutShortError):
        expected = "?" if failure.expected is None else failure.expected
        return UnmetRequirementError(
            message("redist.cut-short", url=url, got=failure.got, expected=expected),
            why=message("redist.cut-short-why"),
            fix=message("redist.cut-short-fix"),
        )
    if isinstance(failure, web.StatusError):
        return UnmetRequirementError(
            message("redist.status", url=url, code=failure.code, reason=failure.reason),
            fix=message("redist.status-fix"),
        )
    problem: Localized
    if isinstance(failure, web.UnreachableError):
        problem = failure.reason
    elif isinstance(failure, web.BrokenAnswerError):
        problem = message("redist.broken-answer", kind=failure.kind)
    else:  # web.TooManyRedirectsError, the one kind left
        problem = message("redist.too-many-redirects", count=web.MAX_REDIRECTS)
    return UnmetRequirementError(
        message("redist.cannot-download", url=url, problem=problem),
        fix=message("redist.cannot-download-fix"),
    )
