"""Downloads from the redist base URL: https only (plain http for loopback hosts), every
read under a timeout, never more bytes than expected, sha256 computed while writing.

A redirect is followed only to a URL the same rule accepts, so an https server cannot hand
the download over to plain http. Loopback URLs bypass any proxy the environment sets.
"""

from __future__ import annotations

import hashlib
import os

from typing import TYPE_CHECKING
from urllib.parse import urljoin
from urllib.parse import urlsplit

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import UnmetRequirementError
from poetry_cuda.records import frozen
from poetry_cuda.request.settings import check_index_url
from poetry_cuda.request.settings import is_loopback


if TYPE_CHECKING:
    import urllib.request

    from http.client import HTTPMessage
    from http.client import HTTPResponse
    from pathlib import Path
    from typing import IO


TIMEOUT = 60.0  # seconds without a byte before a download is given up
_CHUNK = 1024 * 1024
_BINARY = getattr(os, "O_BINARY", 0)
KEY = "[tool.poetry-cuda.mirrors] cuda-redist"


@frozen
class Downloaded:
    size: int
    sha256: str


def check_url(url: str, key: str = KEY) -> str:
    """`url` if it is https, or http on a loopback host (the rule of index URLs)."""
    return check_index_url(url, key)


def join(base: str, relative: str) -> str:
    """`relative` (a manifest's relative_path, or a file name) below the base URL."""
    return urljoin(base if base.endswith("/") else base + "/", relative)


# The network stack (urllib.request, http.client, ssl, email: some thirty modules) is
# imported where a download happens, so that the commands that find a toolkit already
# assembled (`env`, `run`) never load it.


def _redirects() -> urllib.request.HTTPRedirectHandler:
    """A redirect handler that follows only redirects to URLs the index rule accepts."""
    import urllib.request

    class Redirects(urllib.request.HTTPRedirectHandler):
        def redirect_request(
            self,
            req: urllib.request.Request,
            fp: IO[bytes],
            code: int,
            msg: str,
            headers: HTTPMessage,
            newurl: str,
        ) -> urllib.request.Request | None:
            try:
                check_url(newurl, f"the redirect from {req.full_url}")
            except ConfigError as error:
                raise UnmetRequirementError(
                    f"{req.full_url}: redirected to {newurl}, which is refused",
                    why=error.why,
                    fix="use a mirror that serves the files over https itself",
                ) from None
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    return Redirects()


def _open(url: str, timeout: float) -> HTTPResponse:
    import urllib.error
    import urllib.request

    check_url(url)
    handlers: list[urllib.request.BaseHandler] = [_redirects()]
    if is_loopback(urlsplit(url).hostname or ""):
        handlers.append(urllib.request.ProxyHandler({}))
    opener = urllib.request.build_opener(*handlers)
    request = urllib.request.Request(url, headers={"User-Agent": "poetry-cuda"})
    try:
        response: HTTPResponse = opener.open(request, timeout=timeout)
    except urllib.error.HTTPError as error:
        raise UnmetRequirementError(
            f"{url}: the server answered {error.code} {error.reason}",
            fix="check the redist base URL (the cuda-redist mirror) and that it holds the release",
        ) from None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise UnmetRequirementError(
            f"{url}: cannot download ({reason})",
            fix="check the network connection, or set a cuda-redist mirror",
        ) from None
    return response


def _too_large(url: str, limit: int) -> InputFileError:
    return InputFileError(
        f"{url}: larger than the {limit} bytes expected",
        why="the manifest gives each archive's size; anything more is not NVIDIA's archive",
        fix="check that the redist base URL (or its mirror) serves NVIDIA's own files",
    )


def _cut(url: str, got: int, expected: int | str) -> UnmetRequirementError:
    return UnmetRequirementError(
        f"{url}: the download ended after {got} of {expected} bytes",
        why="the connection closed before the whole file came",
        fix="run the command again; the download is redone from the start",
    )


def download(url: str, destination: Path, *, limit: int, timeout: float = TIMEOUT) -> Downloaded:
    """Write `url` to the new file `destination`: at most `limit` bytes, with its sha256.

    The file must not exist (it is created exclusively); on any failure it is removed.
    """
    descriptor = os.open(destination, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _BINARY, 0o600)
    digest = hashlib.sha256()
    size = 0
    try:
        with os.fdopen(descriptor, "wb") as out, _open(url, timeout) as response:
            length = response.headers.get("Content-Length")
            if length is not None and length.isdigit() and int(length) > limit:
                raise _too_large(url, limit)
            while chunk := _read(response, url, size, length or "?"):
                size += len(chunk)
                if size > limit:
                    raise _too_large(url, limit)
                digest.update(chunk)
                out.write(chunk)
            if length is not None and length.isdigit() and size != int(length):
                raise _cut(url, size, length)
    except BaseException:
        destination.unlink(missing_ok=True)
        raise
    return Downloaded(size, digest.hexdigest())


def _read(response: HTTPResponse, url: str, got: int, expected: str) -> bytes:
    import http.client

    try:
        return response.read(_CHUNK)
    except (OSError, http.client.HTTPException) as error:  # a reset, a timeout, IncompleteRead
        raise _cut(url, got, expected) from error


def fetch(url: str, *, limit: int, timeout: float = TIMEOUT) -> bytes:
    """The body of `url` (a manifest, a directory listing), at most `limit` bytes."""
    data = bytearray()
    with _open(url, timeout) as response:
        while chunk := _read(response, url, len(data), "?"):
            data += chunk
            if len(data) > limit:
                raise _too_large(url, limit)
    return bytes(data)
