"""A minimal HTTP client for the harness tests: no redirects followed, connections always closed."""

from __future__ import annotations

import http.client

from dataclasses import dataclass
from html.parser import HTMLParser
from typing import TYPE_CHECKING
from urllib.parse import quote
from urllib.parse import urlsplit


if TYPE_CHECKING:
    from collections.abc import Mapping


@dataclass(frozen=True)
class Reply:
    status: int
    headers: Mapping[str, str]
    body: bytes


def fetch(
    url: str,
    *,
    method: str = "GET",
    headers: Mapping[str, str] | None = None,
    timeout: float = 10.0,
) -> Reply:
    """One request on a fresh connection; header names in the reply are lower case."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=timeout)
    try:
        connection.request(method, quote(parts.path, safe="/%+"), headers=dict(headers or {}))
        response = connection.getresponse()
        body = response.read()
        return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, body)
    finally:
        connection.close()


def anchors(page: bytes) -> list[dict[str, str | None]]:
    """The attributes of every `<a>` of an HTML page, values unescaped, plus its text as `text`."""
    parser = _AnchorParser()
    parser.feed(page.decode())
    parser.close()
    return parser.found


class _AnchorParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[dict[str, str | None]] = []
        self._open: dict[str, str | None] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._open = dict(attrs)
            self._open["text"] = ""

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._open["text"] = (self._open["text"] or "") + data

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._open is not None:
            self.found.append(self._open)
            self._open = None
