"""A package index over HTTP on 127.0.0.1, serving a directory tree the way real indexes do.

`IndexServer(root)` serves every directory under `root` as an index level, whatever its depth, so one
server holds all the layouts the tests need side by side:

- PyPI style: `/simple/` (root listing) and `/simple/<project>/`;
- PyTorch style: `/whl/<variant>/` and `/whl/<variant>/<project>/`;
- Paddle style: `/packages/stable/<variant>/<project>/`.

Mirror views (`mount`) show a part of the tree in the layouts mirrors serve, under a prefix of their
own: `suffix` (`<prefix><variant>/simple/<project>/`, SEU's layout), `flat` (one listing of every file
of `<target><variant>/`, with `+` written as `&#43;` and no hashes, as Aliyun serves it) and
`elsewhere` (a project page whose file links point at another base URL, an upstream stand-in).

A directory holding distribution files (`.whl`, `.tar.gz`, `.zip`) is a project page; any other
directory is a root listing of its subdirectories. Pages are PEP 503 HTML, or PEP 691 JSON (api 1.1)
when the Accept header prefers `application/vnd.pypi.simple.v1+json`. Files are listed in name order
with `#sha256=` hashes, `data-requires-python` (read from the distribution's metadata) and, where a
PEP 658 `<file>.metadata` exists, `data-core-metadata` / `data-dist-info-metadata`. File downloads
honour a single HTTP Range (206 + Content-Range, suffix ranges included) and HEAD. A project name that
is not normalized is redirected (301) to its PEP 503 form, as PyPI does; so is a directory URL
without its trailing slash.

Every request is counted: requests and body bytes per path (what reached the socket, so a download cut
short counts only what was sent). Counters are read once no response is midway through being sent
(waiting at most SETTLE_SECONDS), so a client that has just got its reply finds it counted.

Faults can be armed per path prefix: an error status, a stall (bounded; cut short when the server
stops), or a connection dropped halfway through the body. Switches turn off metadata files, range
requests or the JSON API, to measure worst cases and to mimic HTML-only indexes (download.pytorch.org
serves HTML only). `refused_url()` gives a URL where nothing accepts connections.

The server is HTTP/1.1 with keep-alive, one daemon thread per connection, at most `max_connections`
at once; stopping it closes every open connection and joins every thread.
"""

from __future__ import annotations

import contextlib
import email.parser
import hashlib
import html
import itertools
import json
import re
import socket
import tarfile
import threading
import time
import zipfile

from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from socketserver import TCPServer
from typing import TYPE_CHECKING
from typing import Any
from typing import Literal
from urllib.parse import quote
from urllib.parse import unquote
from urllib.parse import urlsplit

from packaging.utils import canonicalize_name
from packaging.utils import parse_sdist_filename
from packaging.utils import parse_wheel_filename


if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path
    from types import TracebackType

    from typing_extensions import Self


MAX_STALL_SECONDS = 60.0
SETTLE_SECONDS = 10.0
JSON_TYPE = "application/vnd.pypi.simple.v1+json"
HTML_V1_TYPE = "application/vnd.pypi.simple.v1+html"
_HTML_TYPE = "text/html"
_DIST_SUFFIXES = (".whl", ".tar.gz", ".zip")
_CHUNK = 256 * 1024
_RANGE = re.compile(r"bytes=(\d*)-(\d*)")


ViewKind = Literal["suffix", "flat", "elsewhere"]


@dataclass(frozen=True)
class View:
    """A part of the tree (`target`, e.g. `/whl/`) shown in a mirror's layout (see `mount`)."""

    kind: ViewKind
    target: str
    links: str = (
        ""  # elsewhere: the base URL file links point at, e.g. `http://localhost:PORT/whl/`
    )


class HarnessError(RuntimeError):
    """The index server itself failed while handling a request."""


@dataclass(frozen=True)
class Fault:
    """A failure to inject into responses whose path starts with a prefix.

    `times=None` fires on every matching request; a number fires that often, then disarms.
    """

    kind: Literal["error", "stall", "drop"]
    status: int = 500
    seconds: float = 0.0
    times: int | None = None

    @classmethod
    def error(cls, status: int = 500, *, times: int | None = None) -> Fault:
        """Answer with `status` and a short body instead of the real response."""
        return cls("error", status=status, times=times)

    @classmethod
    def stall(cls, seconds: float, *, times: int | None = None) -> Fault:
        """Wait `seconds` (at most MAX_STALL_SECONDS) before answering normally."""
        if not 0 < seconds <= MAX_STALL_SECONDS:
            raise ValueError(f"stall must be in (0, {MAX_STALL_SECONDS}] seconds")
        return cls("stall", seconds=seconds, times=times)

    @classmethod
    def drop(cls, *, times: int | None = None) -> Fault:
        """Send the headers and half the body, then close the connection."""
        return cls("drop", times=times)


@dataclass(frozen=True)
class RequestRecord:
    """One request as the server saw and answered it."""

    method: str
    path: str
    status: int
    bytes_sent: int
    range: str | None
    accept: str | None
    content_type: str | None


@dataclass(frozen=True)
class _FileInfo:
    sha256: str
    size: int
    requires_python: str | None
    metadata_sha256: str | None


@dataclass(frozen=True)
class _Response:
    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes = b""
    file: Path | None = None
    offset: int = 0
    length: int = 0

    @property
    def body_length(self) -> int:
        return self.length if self.file is not None else len(self.body)


@dataclass
class _ArmedFault:
    prefix: str
    fault: Fault
    remaining: int | None


class IndexServer:
    """Serve `root` on 127.0.0.1 (a free port) while used as a context manager."""

    def __init__(self, root: Path, *, max_connections: int = 128) -> None:
        self.root = root.resolve()
        self.metadata_enabled = True
        self.ranges_enabled = True
        self.json_enabled = True
        self._lock = threading.Lock()
        self._settled = threading.Condition(self._lock)
        self._answering = 0
        self._requests: Counter[str] = Counter()
        self._bytes: Counter[str] = Counter()
        # (arrival number, record): a handler may finish after a later request's handler.
        self._log: list[tuple[int, RequestRecord]] = []
        self._arrivals = itertools.count()
        self._faults: list[_ArmedFault] = []
        self._views: dict[str, View] = {}
        self._file_info: dict[Path, tuple[tuple[int, int], _FileInfo]] = {}
        self._errors: list[BaseException] = []
        self._stopping = threading.Event()
        self._released = threading.Event()  # ends the stalls under way
        self._httpd = _Server(self, max_connections)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    # --- lifecycle -------------------------------------------------------------------------------

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._stop()
        if exc is None and self._errors:
            raise HarnessError("the index server failed") from self._errors[0]

    def _stop(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.close_connections()
        self._httpd.server_close()
        self._thread.join()

    # --- addresses -------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:<port>`, without a trailing slash."""
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        """The absolute URL of `path` (which starts with `/`)."""
        return self.base_url + path

    # --- counters --------------------------------------------------------------------------------

    def bytes_sent(self, prefix: str = "/") -> int:
        """Body bytes sent for paths starting with `prefix`."""
        with self._quiet():
            return sum(count for path, count in self._bytes.items() if path.startswith(prefix))

    def request_count(self, prefix: str = "/") -> int:
        """Requests received for paths starting with `prefix`."""
        with self._quiet():
            return sum(count for path, count in self._requests.items() if path.startswith(prefix))

    @property
    def requests(self) -> tuple[RequestRecord, ...]:
        """Every answered request since the last reset, in order."""
        with self._quiet():
            return tuple(record for _, record in sorted(self._log, key=lambda entry: entry[0]))

    def reset_counters(self) -> None:
        with self._quiet():
            self._requests.clear()
            self._bytes.clear()
            self._log.clear()

    # --- mirror views ----------------------------------------------------------------------------

    def mount(self, prefix: str, view: View) -> None:
        """Serve `view` under `prefix` (`/mirror-flat/`), a path the tree itself does not hold."""
        self._views[prefix] = view

    # --- faults ----------------------------------------------------------------------------------

    def inject(self, prefix: str, fault: Fault) -> None:
        """Arm `fault` for request paths starting with `prefix` (first armed match wins)."""
        with self._lock:
            self._released.clear()
            self._faults.append(_ArmedFault(prefix, fault, fault.times))

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def release_stalls(self) -> None:
        """Disarm every fault and answer the stalled requests now."""
        with self._lock:
            self._faults.clear()
            self._released.set()

    def _take_fault(self, path: str) -> Fault | None:
        with self._lock:
            for armed in self._faults:
                if path.startswith(armed.prefix) and armed.remaining != 0:
                    if armed.remaining is not None:
                        armed.remaining -= 1
                    return armed.fault
        return None

    # --- bookkeeping used by the handler ---------------------------------------------------------

    @contextlib.contextmanager
    def _quiet(self) -> Iterator[None]:
        """Hold the lock once no response is midway through being sent and recorded."""
        with self._settled:
            self._settled.wait_for(lambda: self._answering == 0, timeout=SETTLE_SECONDS)
            yield

    @contextlib.contextmanager
    def _answer(self) -> Iterator[None]:
        with self._lock:
            self._answering += 1
        try:
            yield
        finally:
            with self._settled:
                self._answering -= 1
                self._settled.notify_all()

    def _count_request(self, path: str) -> int:
        """Count a request on arrival; returns its arrival number."""
        with self._lock:
            self._requests[path] += 1
            return next(self._arrivals)

    def _count_bytes(self, path: str, count: int) -> None:
        with self._lock:
            self._bytes[path] += count

    def _record(self, arrival: int, record: RequestRecord) -> None:
        with self._lock:
            self._log.append((arrival, record))

    def _record_error(self, error: BaseException) -> None:
        if not self._stopping.is_set():
            with self._lock:
                self._errors.append(error)

    def _stall(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not (self._stopping.is_set() or self._released.is_set()):
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self._released.wait(min(left, 0.05))

    # --- resolution ------------------------------------------------------------------------------

    def _resolve(self, path: str, accept: str | None, range_header: str | None) -> _Response:
        for prefix, view in self._views.items():
            if path.startswith(prefix):
                return self._view_response(prefix, view, path, accept, range_header)
        parts = [part for part in path.split("/") if part]
        if any(part.startswith(".") for part in parts):
            return _plain(404, "not found")
        target = self.root.joinpath(*parts)
        if target.is_file():
            if target.name.endswith(".metadata") and not self.metadata_enabled:
                return _plain(404, "not found")
            return self._file_response(target, range_header)
        if target.is_dir():
            if not path.endswith("/"):
                return _redirect(path + "/")
            return self._page_response(target, accept)
        normalized = canonicalize_name(parts[-1]) if parts else ""
        if normalized and normalized != parts[-1] and (target.parent / normalized).is_dir():
            return _redirect("/" + "/".join([*parts[:-1], normalized]) + "/")
        return _plain(404, "not found")

    def _view_response(
        self, prefix: str, view: View, path: str, accept: str | None, range_header: str | None
    ) -> _Response:
        parts = [part for part in path[len(prefix) :].split("/") if part]
        if not parts or any(part.startswith(".") for part in parts):
            return _plain(404, "not found")
        variant = self.root.joinpath(*view.target.strip("/").split("/"), parts[0])
        if view.kind == "suffix":
            if len(parts) < 2 or parts[1] != "simple":
                return _plain(404, "not found")
            inner = view.target + "/".join([parts[0], *parts[2:]])
            response = self._resolve(
                inner + ("/" if path.endswith("/") else ""), accept, range_header
            )
            location = dict(response.headers).get("Location")
            if location is None:
                return response
            back = location.removeprefix(view.target + parts[0] + "/")
            return _redirect(f"{prefix}{parts[0]}/simple/{back}")
        if view.kind == "flat":
            files = sorted(f for f in variant.glob("*/*") if f.is_file() and _is_dist(f.name))
            if len(parts) == 1:
                if not path.endswith("/"):
                    return _redirect(path + "/")
                anchors = [
                    f'<a href="{html.escape(f.name).replace("+", "&#43;")}">'
                    f"{html.escape(f.name)}</a><br/>"
                    for f in files
                ]
                body = _html_document(f"Index of {path}", anchors)
                return _Response(
                    200,
                    (("Content-Type", "text/html"), ("Content-Length", str(len(body)))),
                    body=body,
                )
            found = next((f for f in files if len(parts) == 2 and f.name == parts[1]), None)
            if found is None:
                return _plain(404, "not found")
            return self._file_response(found, range_header)
        directory = variant.joinpath(*parts[1:])
        if not path.endswith("/") or not directory.is_dir():
            return _plain(404, "not found")
        page = self._page_response(directory, None)  # HTML only, as download.pytorch.org serves
        base = f"{view.links}{parts[0]}/{'/'.join(parts[1:])}/"
        body = page.body.replace(b'href="', f'href="{base}'.encode())
        headers = tuple(
            (name, str(len(body)) if name == "Content-Length" else value)
            for name, value in page.headers
        )
        return _Response(200, headers, body=body)

    def _file_response(self, target: Path, range_header: str | None) -> _Response:
        size = target.stat().st_size
        headers: list[tuple[str, str]] = [("Content-Type", "application/octet-stream")]
        if self.ranges_enabled:
            headers.append(("Accept-Ranges", "bytes"))
            if range_header is not None:
                wanted = _parse_range(range_header, size)
                if wanted == "unsatisfiable":
                    headers.append(("Content-Range", f"bytes */{size}"))
                    return _Response(416, (*headers, ("Content-Length", "0")))
                if wanted is not None:
                    start, end = wanted
                    headers.append(("Content-Range", f"bytes {start}-{end}/{size}"))
                    headers.append(("Content-Length", str(end - start + 1)))
                    return _Response(
                        206, tuple(headers), file=target, offset=start, length=end - start + 1
                    )
        headers.append(("Content-Length", str(size)))
        return _Response(200, tuple(headers), file=target, length=size)

    def _page_response(self, directory: Path, accept: str | None) -> _Response:
        entries = sorted(child for child in directory.iterdir() if not child.name.startswith("."))
        dists = [entry for entry in entries if entry.is_file() and _is_dist(entry.name)]
        media = _negotiate(accept, json_enabled=self.json_enabled)
        if dists:
            infos = [(dist.name, self._info(dist)) for dist in dists]
            body = (
                _project_json(directory.name, infos, metadata=self.metadata_enabled)
                if media == JSON_TYPE
                else _project_html(directory.name, infos, metadata=self.metadata_enabled)
            )
        else:
            names = [entry.name for entry in entries if entry.is_dir()]
            body = _root_json(names) if media == JSON_TYPE else _root_html(names)
        content_type = media if media == JSON_TYPE else f"{media}; charset=utf-8"
        return _Response(
            200,
            (
                ("Content-Type", content_type),
                ("Content-Length", str(len(body))),
                ("Vary", "Accept"),
            ),
            body=body,
        )

    def _info(self, dist: Path) -> _FileInfo:
        stat = dist.stat()
        key = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            cached = self._file_info.get(dist)
        if cached is not None and cached[0] == key:
            return cached[1]
        sidecar = dist.with_name(dist.name + ".metadata")
        metadata = sidecar.read_bytes() if sidecar.is_file() else _embedded_metadata(dist)
        info = _FileInfo(
            sha256=_sha256_file(dist),
            size=stat.st_size,
            requires_python=email.parser.BytesHeaderParser().parsebytes(metadata)[
                "Requires-Python"
            ],
            metadata_sha256=hashlib.sha256(metadata).hexdigest() if sidecar.is_file() else None,
        )
        with self._lock:
            self._file_info[dist] = (key, info)
        return info


class _Server(ThreadingHTTPServer):
    request_queue_size = 128

    def __init__(self, index: IndexServer, max_connections: int) -> None:
        self.index = index
        self._slots = threading.BoundedSemaphore(max_connections)
        self._open_lock = threading.Lock()
        self._open: dict[socket.socket, threading.Thread] = {}
        super().__init__(("127.0.0.1", 0), _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind resolves the host name (getfqdn), which can stall on DNS.
        TCPServer.server_bind(self)
        self.server_name = "127.0.0.1"
        self.server_port = int(self.server_address[1])

    def process_request(self, request: Any, client_address: Any) -> None:
        while not self._slots.acquire(timeout=0.1):
            if self.index._stopping.is_set():
                self.shutdown_request(request)
                return
        thread = threading.Thread(
            target=self._serve_connection, args=(request, client_address), daemon=True
        )
        with self._open_lock:
            self._open[request] = thread
        thread.start()

    def _serve_connection(self, request: socket.socket, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except (ConnectionError, TimeoutError):
            pass
        except Exception as error:  # noqa: BLE001 - reported when the server stops
            self.index._record_error(error)
        finally:
            self.shutdown_request(request)
            with self._open_lock:
                self._open.pop(request, None)
            self._slots.release()

    def close_connections(self) -> None:
        with self._open_lock:
            open_now = dict(self._open)
        for connection in open_now:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        for thread in open_now.values():
            thread.join(timeout=10)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    timeout = 30

    def do_GET(self) -> None:
        self._serve(head=False)

    def do_HEAD(self) -> None:
        self._serve(head=True)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep the test output clean; the server's own log is `IndexServer.requests`."""

    def _serve(self, *, head: bool) -> None:
        index = self.server.index
        path = unquote(urlsplit(self.path).path) or "/"
        accept = self.headers.get("Accept")
        range_header = self.headers.get("Range")
        arrival = index._count_request(path)
        fault = index._take_fault(path)
        if fault is not None and fault.kind == "stall":
            index._stall(fault.seconds)
        if fault is not None and fault.kind == "error":
            response = _plain(fault.status, f"injected failure {fault.status}")
        else:
            response = index._resolve(path, accept, range_header)
        limit = response.body_length // 2 if fault is not None and fault.kind == "drop" else None
        content_type = dict(response.headers).get("Content-Type")
        with index._answer():
            sent = self._send(response, path, head=head, limit=limit)
            index._record(
                arrival,
                RequestRecord(
                    self.command, path, response.status, sent, range_header, accept, content_type
                ),
            )

    def _send(self, response: _Response, path: str, *, head: bool, limit: int | None) -> int:
        self.send_response(response.status)
        for name, value in response.headers:
            self.send_header(name, value)
        self.end_headers()
        if head:
            return 0
        budget = response.body_length if limit is None else limit
        sent = 0
        try:
            for chunk in _body_chunks(response, budget):
                self.wfile.write(chunk)
                sent += len(chunk)
                self.server.index._count_bytes(path, len(chunk))
        except (ConnectionError, TimeoutError):
            self.close_connection = True
        if limit is not None:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
        return sent


@contextlib.contextmanager
def refused_url() -> Iterator[str]:
    """Yield `http://127.0.0.1:<port>` for a port that is bound but not listening.

    Holding the port bound keeps anything else from taking it, so connections are refused for as
    long as the context lasts.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{holder.getsockname()[1]}"


def _body_chunks(response: _Response, budget: int) -> Iterator[bytes]:
    if response.file is None:
        yield response.body[:budget]
        return
    with response.file.open("rb") as handle:
        handle.seek(response.offset)
        while budget > 0:
            chunk = handle.read(min(_CHUNK, budget))
            if not chunk:
                return
            budget -= len(chunk)
            yield chunk


def _parse_range(header: str, size: int) -> tuple[int, int] | Literal["unsatisfiable"] | None:
    """A single byte range as (first, last), "unsatisfiable", or None to ignore the header."""
    match = _RANGE.fullmatch(header.strip())
    if match is None or match.group(1) == match.group(2) == "":
        return None
    first, last = match.group(1), match.group(2)
    if first == "":
        suffix = int(last)
        if suffix == 0 or size == 0:
            return "unsatisfiable"
        return max(0, size - suffix), size - 1
    start = int(first)
    if last != "" and int(last) < start:
        return None
    if start >= size:
        return "unsatisfiable"
    return start, size - 1 if last == "" else min(int(last), size - 1)


def _negotiate(accept: str | None, *, json_enabled: bool) -> str:
    """Pick JSON, v1 HTML or text/html from an Accept header, by q-value, first wins on ties."""
    best, best_q = _HTML_TYPE, 0.0
    for item in (accept or "").split(","):
        media, *params = (piece.strip() for piece in item.split(";"))
        quality = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip() == "q":
                with contextlib.suppress(ValueError):
                    quality = float(value)
        offered = {
            JSON_TYPE: JSON_TYPE if json_enabled else None,
            HTML_V1_TYPE: HTML_V1_TYPE,
            _HTML_TYPE: _HTML_TYPE,
            "text/*": _HTML_TYPE,
            "*/*": _HTML_TYPE,
        }.get(media.lower())
        if offered is not None and quality > best_q:
            best, best_q = offered, quality
    return best


def _is_dist(name: str) -> bool:
    return name.endswith(_DIST_SUFFIXES)


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _embedded_metadata(dist: Path) -> bytes:
    """METADATA of a wheel or PKG-INFO of an sdist, read from the archive."""
    if dist.name.endswith(".whl"):
        with zipfile.ZipFile(dist) as archive:
            for name in archive.namelist():
                if re.fullmatch(r"[^/]+\.dist-info/METADATA", name):
                    return archive.read(name)
    elif dist.name.endswith(".tar.gz"):
        with tarfile.open(dist) as archive:
            for member in archive.getmembers():
                if re.fullmatch(r"[^/]+/PKG-INFO", member.name):
                    extracted = archive.extractfile(member)
                    if extracted is not None:
                        with extracted:
                            return extracted.read()
    return b""


def _version_of(filename: str) -> str | None:
    try:
        if filename.endswith(".whl"):
            return str(parse_wheel_filename(filename)[1])
        return str(parse_sdist_filename(filename)[1])
    except ValueError:
        return None


def _project_html(project: str, files: list[tuple[str, _FileInfo]], *, metadata: bool) -> bytes:
    anchors = []
    for filename, info in files:
        attributes = [f'href="{quote(filename)}#sha256={info.sha256}"']
        if info.requires_python is not None:
            attributes.append(f'data-requires-python="{html.escape(info.requires_python)}"')
        if metadata and info.metadata_sha256 is not None:
            value = f"sha256={info.metadata_sha256}"
            attributes.append(f'data-dist-info-metadata="{value}" data-core-metadata="{value}"')
        anchors.append(f"<a {' '.join(attributes)}>{html.escape(filename)}</a><br/>")
    return _html_document(f"Links for {project}", anchors)


def _project_json(project: str, files: list[tuple[str, _FileInfo]], *, metadata: bool) -> bytes:
    entries: list[dict[str, Any]] = []
    versions: set[str] = set()
    for filename, info in files:
        if (version := _version_of(filename)) is not None:
            versions.add(version)
        core: dict[str, str] | bool = False
        if metadata and info.metadata_sha256 is not None:
            core = {"sha256": info.metadata_sha256}
        entry: dict[str, Any] = {
            "filename": filename,
            "url": quote(filename),
            "hashes": {"sha256": info.sha256},
            "size": info.size,
            "yanked": False,
            "core-metadata": core,
            "dist-info-metadata": core,
        }
        if info.requires_python is not None:
            entry["requires-python"] = info.requires_python
        entries.append(entry)
    document = {
        "meta": {"api-version": "1.1"},
        "name": project,
        "files": entries,
        "versions": sorted(versions),
    }
    return json.dumps(document).encode()


def _root_html(names: list[str]) -> bytes:
    anchors = [f'<a href="{quote(name)}/">{html.escape(name)}</a><br/>' for name in names]
    return _html_document("Simple index", anchors)


def _root_json(names: list[str]) -> bytes:
    document = {"meta": {"api-version": "1.1"}, "projects": [{"name": name} for name in names]}
    return json.dumps(document).encode()


def _html_document(title: str, anchors: list[str]) -> bytes:
    lines = [
        "<!DOCTYPE html>",
        "<html>",
        "<head>",
        '<meta name="pypi:repository-version" content="1.1">',
        f"<title>{html.escape(title)}</title>",
        "</head>",
        "<body>",
        f"<h1>{html.escape(title)}</h1>",
        *anchors,
        "</body>",
        "</html>",
    ]
    return ("\n".join(lines) + "\n").encode()


def _plain(status: int, text: str) -> _Response:
    body = (text + "\n").encode()
    return _Response(
        status,
        (("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body)))),
        body=body,
    )


def _redirect(location: str) -> _Response:
    return _Response(301, (("Location", location), ("Content-Length", "0")))
