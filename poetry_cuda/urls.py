"""The rule of the URLs poetry-cuda reads packages and toolkits from: index URLs, mirrors
(URL templates with "{variant}" in them), the redist base URL, and every redirect a server
answers with (`web` follows only those the rule accepts).

One rule, so that a URL a setting accepts is a URL a download follows, and the other way
round: https, or plain http on a loopback host; one clear address; no credentials or query,
which would be committed with it.
"""

from __future__ import annotations

import ipaddress
import re

from typing import Literal
from urllib.parse import urlsplit

from poetry_cuda.display import quoted
from poetry_cuda.errors import ConfigError
from poetry_cuda.records import frozen


URL_LIMIT = 2048  # an index URL or URL template: more than any real one


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@frozen
class UrlProblem:
    """Why a URL is no index URL: what is wrong with it, why that matters, how to fix it."""

    kind: Literal["length", "characters", "scheme", "malformed", "credentials", "query"]
    what: str
    why: str
    fix: str


NOT_HTTPS_WHY = (
    "package indexes are fetched without any other integrity check than TLS and the lock's "
    "hashes; plain http is accepted only for loopback hosts (127.0.0.0/8, ::1, localhost)"
)
HTTPS_FIX = "use an https:// URL for the mirror"
CREDENTIALS_FIX = (
    "remove them from the URL and give them to the package manager, for the source name that "
    "`poetry cuda plan` prints: Poetry: `poetry config http-basic.<source-name> <user> "
    "<token>`; uv: the environment variables UV_INDEX_<NAME>_USERNAME and "
    "UV_INDEX_<NAME>_PASSWORD, NAME being the source name in upper case with '-' as '_'"
)


def url_problem(url: str) -> UrlProblem | None:
    """What makes `url` no index URL poetry-cuda accepts, or None: the one rule of index URLs,
    mirrors (with "{variant}" in them) and the redirects an index answers with.

    Index URLs must be https; plain http is allowed for loopback hosts only. A URL longer
    than any real one, with whitespace or control characters, or with an authority that URL
    parsers may read differently (a stray bracket, backslash or port) is refused whatever
    its scheme; so is one with credentials or a query, which would be committed with it.
    Total: any text gets an answer, never an exception.
    """
    said = quoted(url)
    if len(url) > URL_LIMIT:
        return UrlProblem(
            "length",
            f"the URL is {len(url)} characters long, more than the {URL_LIMIT} any index URL needs",
            "poetry-cuda copies an index URL into pyproject.toml, cuda.lock and its messages",
            "use the index's base URL",
        )
    odd = next((c for c in url if c.isspace() or not c.isprintable()), None)
    if odd is not None:
        return UrlProblem(
            "characters",
            f"{said} holds {'whitespace' if odd.isspace() else 'a control character'} ({odd!a})",
            "URL parsers strip, split or keep such characters each in their own way",
            "write the URL without them",
        )
    scheme, separator, _ = url.partition("://")
    if not separator or scheme.lower() not in ("https", "http"):
        return UrlProblem("scheme", f"{said} is not an https URL", NOT_HTTPS_WHY, HTTPS_FIX)
    candidate = url.replace("{variant}", "variant")
    flaw = _malformed(candidate)
    if flaw is not None:
        return UrlProblem(
            "malformed",
            f"{said} is not a well-formed URL: {flaw}",
            "Poetry, uv and pip could each read such an address differently, or not at all",
            "write it as https://host[:port]/path (an IPv6 host in brackets: https://[::1]/)",
        )
    parts = urlsplit(candidate)
    if "@" in parts.netloc:
        return UrlProblem(
            "credentials",
            "the URL holds credentials (user name or password before '@')",
            "pyproject.toml and cuda.lock are committed, and poetry-cuda copies the mirror "
            "URL into both",
            CREDENTIALS_FIX,
        )
    if parts.query or parts.fragment or "?" in url or "#" in url:
        return UrlProblem(
            "query",
            "the URL has a query string or a fragment ('?' or '#')",
            "a package index is a base URL that the variant and package names extend; "
            "a token in a query would be committed, and the variant would land in the query",
            "use the index's base URL; give a token as credentials to the package manager "
            "(`poetry config http-basic.<source-name> ...`, or uv's "
            "UV_INDEX_<NAME>_USERNAME / UV_INDEX_<NAME>_PASSWORD)",
        )
    if parts.scheme.lower() == "http" and not is_loopback(parts.hostname or ""):
        return UrlProblem("scheme", f"{said} is not an https URL", NOT_HTTPS_WHY, HTTPS_FIX)
    return None


def check_index_url(url: str, key: str) -> str:
    """`url` if `url_problem` finds none; else ConfigError (exit 2) naming `key`."""
    problem = url_problem(url)
    if problem is None:
        return url
    raise ConfigError(f"{key}: {problem.what}", why=problem.why, fix=problem.fix)


# [userinfo@]host[:port], the host a bracketed IPv6 address or a name without delimiters.
_AUTHORITY = re.compile(
    r"(?:[^@/?#\[\]\\]*@)?(?:\[[0-9A-Fa-f:.]+\]|[^@:/?#\[\]\\]+)(?::[0-9]{1,5})?"
)


def _malformed(url: str) -> str | None:
    """What keeps `url` (printable, without whitespace) from being one clear address."""
    try:
        parts = urlsplit(url)
    except ValueError:  # urllib's "Invalid IPv6 URL"
        return "a '[' or ']' that does not enclose an IPv6 address"
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port == 0:
        return "the port is not a number from 1 to 65535"
    if not parts.hostname:
        return "it has no host"
    if not _AUTHORITY.fullmatch(parts.netloc):
        return "its host is written with a '\\', '[', ']', '@' or ':' out of place"
    if parts.netloc.rpartition("@")[2].startswith("["):
        try:
            ipaddress.IPv6Address(parts.hostname)
        except ValueError:
            return f"[{parts.hostname}] is not an IPv6 address"
    return None
