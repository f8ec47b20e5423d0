"""Text as poetry-cuda shows it: no terminal control sequence, no credential.

Messages quote files (cuda.lock, target profiles, pyproject.toml) and the package
manager's output, any of which may hold an escape sequence (an OSC 52 that writes the
clipboard, an erase-line that hides a FAIL) or a URL with a password. Everything a
command prints passes `shown` once, at the output edge.

`shown` takes time linear in the length of its text, whatever the text: a value read from
a clone (a mirror URL, a variant in cuda.lock) cannot make a command hang on its way out.
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
# What a value echoed from input may not hold inside a line: every control character,
# the tab and the line breaks included (a newline in a node name would print a line of its
# own: "Fix: run ..."). Carriage return, NEL and the line and paragraph separators are
# in CONTROL.
ECHO_CONTROL = re.compile(f"[\t\n{CONTROL.pattern[1:-1]}]")
# An echoed value longer than this shows its head and tail: a 100 kB value in a file is
# named, not printed whole.
ECHO_LIMIT = 200
REDACTED = "***"

# The pieces of the two shapes `shown` redacts, each a single character class: a URL,
# `scheme://rest`, and `user:password@host` outside one, as Poetry's connection errors
# print it (`user` without `:`, the password without `@`, then a word character or `[`).
_SCHEME = "A-Za-z0-9+.\\-"
_SCHEME_RUN = re.compile(f"[{_SCHEME}]*")
_LETTER = re.compile("[A-Za-z]")
_URL_RUN = re.compile("[^\\s<>\"'`]+")
_USER_RUN = re.compile("[^\\s<>\"'`/@:]+")
_PASSWORD_RUN = re.compile("[^\\s<>\"'`/@]*")
_HOST_START = re.compile("[\\w\\[]")


def shown(text: str) -> str:
    """`text` with credentials in URLs redacted and control characters escaped.

    Linear in `len(text)` by construction: each step below either looks for a fixed string
    (`str.find`) or matches one character class repeated, which `re` does in one forward
    pass with nothing to backtrack into, and each starts where the previous one stopped or
    reads a stretch no other step reads (see `_redact_urls` and `_redact_user_passwords`).
    So every character is read a bounded number of times, where the patterns this replaces
    (`scheme://...` and `user:pw@` as single regular expressions) read a long run once per
    position they tried to start at.
    """
    redacted = _redact_user_passwords(_redact_urls(text))
    return CONTROL.sub(_escape, redacted)


def _redact_urls(text: str) -> str:
    """Every `scheme://rest` in `text` passed through `redact_url`.

    The scheme is the longest run of scheme characters before a `://`, from its first
    letter on; `rest` runs to the first space, quote or angle bracket. Each `://` is
    found once, the scheme read backwards (in the reversed text) only as far as the
    previous `://` or URL, and each URL's rest read once; so no character is read twice.
    """
    if "://" not in text:
        return text
    reverse = text[::-1]
    size = len(text)
    pieces: list[str] = []
    done = 0  # the end of the last URL (what follows it is still to copy)
    floor = 0  # where the next scheme may begin: after the last `://` or URL
    mark = text.find("://")
    while mark >= 0:
        run = _SCHEME_RUN.match(reverse, size - mark, size - floor)
        start = size - run.end() if run else mark
        letter = _LETTER.search(text, start, mark)
        rest = _URL_RUN.match(text, mark + 3) if letter else None
        if letter is None or rest is None:
            floor = mark + 1
            mark = text.find("://", mark + 1)
            continue
        pieces += [text[done : letter.start()], redact_url(text[letter.start() : rest.end()])]
        done = floor = rest.end()
        mark = text.find("://", done)
    pieces.append(text[done:])
    return "".join(pieces)


def _redact_user_passwords(text: str) -> str:
    """Every `user:password@` before a host in `text` as `***@`.

    A user is a run of user characters, so each is matched once, from where the last one
    ended. The password runs from the `:` after it to the first character it cannot hold;
    that end only moves forward (`stop`), so the passwords of many `user:` candidates in
    one long run are read once between them.
    """
    if "@" not in text or ":" not in text:
        return text
    pieces: list[str] = []
    done = 0
    position = 0
    stop = -1  # the end of the password run read last, or -1
    while (user := _USER_RUN.search(text, position)) is not None:
        colon = user.end()
        position = colon
        if not text.startswith(":", colon):
            continue
        if stop <= colon:
            run = _PASSWORD_RUN.match(text, colon + 1)
            stop = run.end() if run else colon + 1
        if text.startswith("@", stop) and _HOST_START.match(text, stop + 1):
            pieces += [text[done : user.start()], f"{REDACTED}@"]
            done = position = stop + 1
    pieces.append(text[done:])
    return "".join(pieces)


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


def echoed(value: str, limit: int = ECHO_LIMIT) -> str:
    """`value`, read from input, as a message shows it within one line.

    The one way values from files, the environment and the command line are quoted into
    messages: every control character escaped (``\\x0a``, ``\\x1b``, ``\\u2028``), so a value
    cannot print a line of its own or move the cursor, and a value over `limit` characters
    cut to its head and tail with its length (``abc...xyz (100000 characters)``).
    """
    if len(value) > limit:
        half = limit // 2
        value = f"{value[:half]}...{value[-half:]} ({len(value)} characters)"
    return ECHO_CONTROL.sub(_escape, value)


def quoted(value: object, limit: int = 120) -> str:
    """`value` as a message quotes it: a text's repr (which escapes every control
    character), credentials and query values redacted, cut to its head and tail with its
    length where it is longer than `limit`; another value's repr, cut short."""
    if not isinstance(value, str):
        return echoed(repr(value), limit)
    text = redact_url(value) if "://" in value else value
    if len(text) <= limit:
        return repr(text)
    half = limit // 2
    return f"{text[:half]!r}...{text[-half:]!r} ({len(value)} characters)"


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
