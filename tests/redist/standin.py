"""A loopback stand-in of NVIDIA's redist directory, built by the tests.

`Layout` writes what https://developer.download.nvidia.com/compute/cuda/redist/ holds:
``<component>/<platform>/<component>-<platform>-<version>-archive.tar.xz`` (each unpacking
to ``<component>-<platform>-<version>-archive/``), a ``redistrib_<release>.json`` listing
them as NVIDIA does (sizes as decimal strings), and the directory's own listing page.
`Server` serves a folder on 127.0.0.1 (directory listings included), counts requests per
path, and can cut a download halfway or answer with a redirect.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import socket
import tarfile
import threading

from collections import Counter
from dataclasses import dataclass
from dataclasses import field
from functools import partial
from http.server import SimpleHTTPRequestHandler
from http.server import ThreadingHTTPServer
from typing import TYPE_CHECKING
from typing import Any


if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from types import TracebackType

    from typing_extensions import Self


PLATFORM = "linux-x86_64"
# One archive member: its path below the archive's top folder and what it is.
Member = tuple[str, "bytes | Link | Path"]


@dataclass(frozen=True)
class Link:
    target: str
    hard: bool = False


def top_folder(component: str, version: str, platform: str = PLATFORM) -> str:
    return f"{component}-{platform}-{version}-archive"


def write_archive(path: Path, top: str, members: list[Member]) -> None:
    """A .tar.xz whose members lie below `top`; a member path starting with '/' or '../'
    is written as given (for the hostile archives). xz's fastest preset keeps the real
    toolkit's archives quick to build."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:xz", preset=0) as tar:
        for name, what in members:
            full = name if name.startswith(("/", "../")) else f"{top}/{name}"
            info = tarfile.TarInfo(full)
            info.mtime = 1_700_000_000
            if isinstance(what, Link):
                info.type = tarfile.LNKTYPE if what.hard else tarfile.SYMTYPE
                info.linkname = what.target
                tar.addfile(info)
            elif isinstance(what, bytes):
                info.size = len(what)
                info.mode = 0o755 if "/bin/" in f"/{name}" else 0o644
                tar.addfile(info, io.BytesIO(what))
            else:
                tar.add(str(what), arcname=full, recursive=False)


@dataclass
class Layout:
    """A redist directory under `root`, one release at a time."""

    root: Path
    release: str = "12.4.1"
    date: str = "2024-04-11"
    components: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add(
        self,
        component: str,
        version: str,
        members: list[Member],
        *,
        platform: str = PLATFORM,
    ) -> Path:
        top = top_folder(component, version, platform)
        relative = f"{component}/{platform}/{top}.tar.xz"
        path = self.root / relative
        write_archive(path, top, members)
        data = path.read_bytes()
        entry = self.components.setdefault(
            component, {"name": component, "license": "CUDA Toolkit", "version": version}
        )
        entry[platform] = {
            "relative_path": relative,
            "sha256": hashlib.sha256(data).hexdigest(),
            "md5": hashlib.md5(data).hexdigest(),
            "size": str(len(data)),
        }
        return path

    @property
    def manifest_name(self) -> str:
        return f"redistrib_{self.release}.json"

    def document(self) -> dict[str, Any]:
        return {
            "release_date": self.date,
            "release_label": self.release,
            "release_product": "cuda",
            **self.components,
        }

    def write(self, extra: tuple[str, ...] = ()) -> None:
        """The manifest and an index.html listing it, other releases' names and the folders."""
        (self.root / self.manifest_name).write_text(json.dumps(self.document(), indent=4))
        names = sorted({*extra, self.manifest_name, *(p.name for p in self.root.iterdir())})
        anchors = "\n".join(f'<a href="{n}">{n}</a>' for n in names if n != "index.html")
        (self.root / "index.html").write_text(f"<html><body><pre>\n{anchors}\n</pre></body></html>")


class _Handler(SimpleHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the server's own record is `Server.requests`."""

    def do_GET(self) -> None:
        path = self.path.split("?")[0]
        self.server.owner.requests[path] += 1
        action = self.server.owner.take(path)
        if action is not None:
            action(self)
            return
        super().do_GET()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: Server


class Server:
    """Serve `root` on 127.0.0.1 while used as a context manager."""

    def __init__(self, root: Path) -> None:
        self.requests: Counter[str] = Counter()
        self._actions: dict[str, list[Callable[[SimpleHTTPRequestHandler], None]]] = {}
        self._lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), partial(_Handler, directory=str(root)))
        self._httpd.owner = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def take(self, path: str) -> Callable[[SimpleHTTPRequestHandler], None] | None:
        with self._lock:
            queue = self._actions.get(path)
            return queue.pop(0) if queue else None

    def cut_once(self, path: str, file: Path) -> None:
        """The next GET of `path` sends the headers and half of `file`, then closes."""
        data = file.read_bytes()

        def cut(handler: SimpleHTTPRequestHandler) -> None:
            handler.send_response(200)
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data[: len(data) // 2])
            handler.wfile.flush()
            handler.close_connection = True
            with contextlib.suppress(OSError):
                handler.connection.shutdown(socket.SHUT_RDWR)

        self._queue(path, cut)

    def redirect(self, path: str, location: str) -> None:
        """Every GET of `path` is answered with a 302 to `location`."""

        def move(handler: SimpleHTTPRequestHandler) -> None:
            # Queued again before answering: the client's next request (a loop's, to this
            # path) may reach another handler thread as soon as the 302 is sent.
            self._queue(path, move)
            handler.send_response(302)
            handler.send_header("Location", location)
            handler.send_header("Content-Length", "0")
            handler.end_headers()

        self._queue(path, move)

    def _queue(self, path: str, action: Callable[[SimpleHTTPRequestHandler], None]) -> None:
        with self._lock:
            self._actions.setdefault(path, []).append(action)
