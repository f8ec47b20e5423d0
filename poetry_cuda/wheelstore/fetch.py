"""Fetching the wheels poetry.lock records: from the URL it records, or from the simple page
of the index it records, with the credentials Poetry would send.

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
import html.parser
import json
import os
import threading

from typing import TYPE_CHECKING
from urllib.parse import unquote
from urllib.parse import urljoin
from urllib.parse import urlsplit

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import UnmetRequirementError
from poetry_cuda.names import canonical_name
from poetry_cuda.request.settings import check_index_url
from poetry_cuda.request.settings import is_loopback


if TYPE_CHECKING:
    import urllib.request

    from collections.abc import Callable
    from collections.abc import Mapping
    from http.client import HTTPMessage
    from http.client import HTTPResponse
    from pathlib import Path
    from typing import IO

    from poetry_cuda.wheelstore.locked import LockedWheel


TIMEOUT = 60.0  # seconds without a byte before a download is given up
PAGE_LIMIT = 64 * 1024 * 1024  # torch's page on download.pytorch.org is a few MiB
WHEEL_LIMIT = 16 * 1024**3
_CHUNK = 1024 * 1024
_ACCEPT = "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.1"


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            href = dict(attrs).get("href")
            if href:
                self.hrefs.append(href)


def file_urls(body: bytes, content_type: str, page: str) -> dict[str, str]:
    """The files a simple page lists, by file name: their absolute URLs, without fragment."""
    urls: list[str] = []
    if "json" in content_type:
        try:
            document = json.loads(body)
        except ValueError:
            return {}
        files = document.get("files") if isinstance(document, dict) else None
        for item in files if isinstance(files, list) else []:
            if isinstance(item, dict) and isinstance(item.get("url"), str):
                urls.append(item["url"])
    else:
        parser = _Links()
        parser.feed(body.decode("utf-8", errors="replace"))
        urls = parser.hrefs
    found: dict[str, str] = {}
    for url in urls:
        absolute = urljoin(page, url).split("#", 1)[0]
        found.setdefault(unquote(absolute.rsplit("/", 1)[-1]), absolute)
    return found


class Fetcher:
    """Finds and downloads locked wheels; pages are read once per run."""

    def __init__(
        self,
        *,
        indexes: Mapping[str, str] | None = None,
        credentials: Mapping[str, tuple[str, str]] | None = None,
        timeout: float = TIMEOUT,
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
            body, kind = self._read(page)
            listed = file_urls(body, kind, page)
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
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
        descriptor = os.open(destination, flags, 0o600)
        digest = hashlib.sha256()
        size = 0
        try:
            with os.fdopen(descriptor, "wb") as out, self._open(url) as response:
                while chunk := _read(response, url):
                    size += len(chunk)
                    if size > WHEEL_LIMIT:
                        raise _failed(url, "larger than any wheel (16 GiB)")
                    digest.update(chunk)
                    out.write(chunk)
                length = response.headers.get("Content-Length")
                if length is not None and length.isdigit() and size != int(length):
                    raise _failed(url, f"the download ended after {size} of {length} bytes")
        except BaseException:
            destination.unlink(missing_ok=True)
            raise
        return digest.hexdigest()

    def _read(self, url: str) -> tuple[bytes, str]:
        data = bytearray()
        with self._open(url, accept=_ACCEPT) as response:
            while chunk := _read(response, url):
                data += chunk
                if len(data) > PAGE_LIMIT:
                    raise _failed(url, "a page larger than 64 MiB")
            return bytes(data), response.headers.get("Content-Type", "")

    def _open(self, url: str, accept: str = "*/*") -> HTTPResponse:
        import urllib.error
        import urllib.request

        _checked(url, "a wheel's URL")
        handlers: list[urllib.request.BaseHandler] = [_redirects()]
        if is_loopback(urlsplit(url).hostname or ""):
            handlers.append(urllib.request.ProxyHandler({}))
        request = urllib.request.Request(
            url, headers={"User-Agent": "poetry-cuda", "Accept": accept}
        )
        authorization = self._authorization(url)
        if authorization is not None:
            request.add_unredirected_header("Authorization", authorization)
        try:
            response: HTTPResponse = urllib.request.build_opener(*handlers).open(
                request, timeout=self.timeout
            )
        except urllib.error.HTTPError as error:
            error.close()
            hint = (
                " (check the credentials Poetry holds for it)" if error.code in (401, 403) else ""
            )
            raise _failed(url, f"the server answered {error.code} {error.reason}{hint}") from None
        except (urllib.error.URLError, OSError) as error:
            raise _failed(url, f"cannot connect ({getattr(error, 'reason', error)})") from None
        return response

    def _authorization(self, url: str) -> str | None:
        import base64

        host = urlsplit(url).netloc
        for index, (user, password) in self.credentials.items():
            if urlsplit(index).netloc == host:
                token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
                return f"Basic {token}"
        return None


def _checked(url: str, what: str) -> str:
    try:
        return check_index_url(url, what)
    except ConfigError as error:
        raise UnmetRequirementError(
            f"{_shown(url)}: refused ({error.what.split(': ', 1)[-1]})",
            why=error.why,
            fix="use an https index (or a mirror of it) for the packages of this project",
        ) from None


def _shown(url: str) -> str:
    """`url` without user information or query, for messages."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


def _failed(url: str, problem: str) -> UnmetRequirementError:
    return UnmetRequirementError(
        f"{_shown(url)}: {problem}",
        fix="check the network connection and the index, then run again",
    )


def _read(response: HTTPResponse, url: str) -> bytes:
    import http.client

    try:
        return response.read(_CHUNK)
    except (OSError, http.client.HTTPException) as error:
        raise _failed(url, f"the download broke off ({error.__class__.__name__})") from error


def _redirects() -> urllib.request.HTTPRedirectHandler:
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
                _checked(newurl, f"the redirect from {_shown(req.full_url)}")
            except UnmetRequirementError:
                fp.close()
                raise
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    return Redirects()


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
