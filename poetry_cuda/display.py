"""Text as poetry-cuda shows it: no terminal control sequence, no credential.

Messages quote files (cuda.lock, target profiles, pyproject.toml) and the package
manager's output, any of which may hold an escape sequence (an OSC 52 that writes the
clipboard, an erase-line that hides a FAIL) or a URL with a password. Everything a
command prints passes `shown` once, at the output edge.
"""

from __future__ import annotations

import re


# C0 controls but tab and newline (which messages use for their layout), DEL, C1
# controls (0x9b is a CSI of its own), and the invisible characters that reorder or hide
# text: bidirectional marks, overrides and isolates, zero-width ones, line and paragraph
# separators, the byte order mark.
CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]"
)
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s<>\"'`]+")
# `user:password@host` outside a URL, as Poetry's connection errors print it.
_USER_PASSWORD = re.compile(r"[^\s<>\"'`/@:]+:[^\s<>\"'`/@]*@(?=[\w\[])")
REDACTED = "***"


def shown(text: str) -> str:
    """`text` with credentials in URLs redacted and control characters escaped."""
    redacted = _USER_PASSWORD.sub(f"{REDACTED}@", _URL.sub(_redact, text))
    return CONTROL.sub(_escape, redacted)


def redact_url(url: str) -> str:
    """`url` without its user name, password and query values."""
    scheme, separator, rest = url.partition("://")
    end = min((i for i in map(rest.find, "/?#") if i >= 0), default=len(rest))
    authority, tail = rest[:end], rest[end:]
    if "@" in authority:
        authority = f"{REDACTED}@{authority.rpartition('@')[2]}"
    path, query_mark, query = tail.partition("?")
    if query_mark:
        query, fragment_mark, fragment = query.partition("#")
        query = "&".join(_redact_parameter(item) for item in query.split("&"))
        tail = f"{path}?{query}{fragment_mark}{fragment}"
    return f"{scheme}{separator}{authority}{tail}"


def _redact_parameter(item: str) -> str:
    name, equals, _ = item.partition("=")
    return f"{name}={REDACTED}" if equals else REDACTED if item else item


def _redact(match: re.Match[str]) -> str:
    return redact_url(match.group())


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
