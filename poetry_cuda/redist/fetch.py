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
from poetry_cuda.urls import check_index_url


if TYPE_CHECKING:
    from pathlib import Path


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
            f"{failure.source}: redirected to {failure.target}, which is refused",
            why=failure.problem.why,
            fix="use a mirror that serves the files over https itself",
        )
    if isinstance(failure, web.TooLargeError):
        return InputFileError(
            f"{url}: larger than the {failure.limit} bytes expected",
            why="the manifest gives each archive's size; anything more is not NVIDIA's archive",
            fix="check that the redist base URL (or its mirror) serves NVIDIA's own files",
        )
    if isinstance(failure, web.CutShortError):
        expected = "?" if failure.expected is None else failure.expected
        return UnmetRequirementError(
            f"{url}: the download ended after {failure.got} of {expected} bytes",
            why="the connection closed before the whole file came",
            fix="run the command again; the download is redone from the start",
        )
    if isinstance(failure, web.StatusError):
        return UnmetRequirementError(
            f"{url}: the server answered {failure.code} {failure.reason}",
            fix="check the redist base URL (the cuda-redist mirror) and that it holds the release",
        )
    if isinstance(failure, web.UnreachableError):
        problem = failure.reason
    elif isinstance(failure, web.BrokenAnswerError):
        problem = f"a broken HTTP answer ({failure.kind})"
    else:  # web.TooManyRedirectsError, the one kind left
        problem = f"redirected more than {web.MAX_REDIRECTS} times"
    return UnmetRequirementError(
        f"{url}: cannot download ({problem})",
        fix="check the network connection, or set a cuda-redist mirror",
    )
