"""What an index page lists, read without the network: its file links and the wheels they name.

Four shapes of page, as the real indexes serve them:

- PEP 503 HTML (download.pytorch.org's `/whl/<variant>/<package>/`, PyPI's `/simple/<package>/`):
  one `<a>` per file, entities decoded (`&#43;` is `+`), `data-requires-python` HTML-escaped;
- PEP 691 JSON (`application/vnd.pypi.simple.v1+json`): `files[]` with `url` and
  `requires-python`;
- a flat listing (Paddle's `/packages/stable/<variant>/`, Aliyun's mirror): one HTML page of
  every package's files, read as PEP 503 HTML and filtered by name;
- PyPI's JSON API (`/pypi/<package>/json`): `urls[]` (the version asked) or `releases{}` (every
  version), each file with `url` and `requires_python`.

`anchors` reads a page's links; `wheels` turns them into `Wheel` facts (name, version, local
variant label, python, abi and platform tags, Requires-Python); `files` gives every file's URL
by its name (what the shared store looks up a locked file by). Links are read relative to the
page's final URL, after its redirects, as pip and uv read them. Pure: `indexes.pages` and the
wheel store fetch.
"""

from __future__ import annotations

import json

from html.parser import HTMLParser
from typing import TYPE_CHECKING
from urllib.parse import unquote
from urllib.parse import urljoin
from urllib.parse import urlsplit

from packaging.specifiers import InvalidSpecifier
from packaging.specifiers import SpecifierSet
from packaging.utils import InvalidWheelFilename
from packaging.utils import parse_wheel_filename
from packaging.version import Version

from poetry_cuda.names import canonical_name
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Iterable

    from poetry_cuda.request.settings import Mirror


JSON_TYPES = ("application/vnd.pypi.simple.v1+json", "application/json")


@frozen
class Anchor:
    """One file link of a page, and the Requires-Python the page gives for it."""

    href: str
    requires_python: str | None = None


@frozen
class Wheel:
    """One wheel an index lists: what its file name and the page say of it."""

    name: str  # canonical
    version: str  # as in the file name, label included: 2.5.1+cu124
    local: str  # the local label: cu124 ("" for none)
    pythons: tuple[str, ...]  # the python tags: cp311, py3
    abis: tuple[str, ...]  # cp311, abi3, none
    platforms: tuple[str, ...]  # manylinux_2_28_x86_64, linux_x86_64, win_amd64
    requires_python: str | None
    url: str  # absolute

    @property
    def public(self) -> str:
        """The version without its label: 2.5.1."""
        return self.version.partition("+")[0]

    def serves_platform(self, os: str, machine: str) -> bool:
        """Whether the wheel installs on `os` (linux, windows, macos) and `machine`
        (x86_64, aarch64: the canonical names)."""
        return any(_platform_fits(tag, os, machine) for tag in self.platforms)

    def serves_python(self, python: str) -> bool:
        """Whether CPython `python` (``3.11``) installs it: a tag for it (``cp311``,
        ``py3``, ``cp39-abi3`` from 3.9 on) and a Requires-Python that admits it."""
        major, minor = (int(part) for part in python.split(".")[:2])
        if self.requires_python:
            try:
                if not SpecifierSet(self.requires_python).contains(f"{python}.0"):
                    return False
            except InvalidSpecifier:
                pass  # an index's typo decides nothing
        stable = "abi3" in self.abis
        for tag in self.pythons:
            kind, digits = tag[:2], tag[2:]
            if not digits.isdigit() or kind not in ("cp", "py"):
                continue
            wanted = (major, minor) if len(digits) > 1 else (major,)
            have = (int(digits[0]), int(digits[1:])) if len(digits) > 1 else (int(digits),)
            if have == wanted or (kind == "py" and have <= wanted and have[0] == major):
                return True
            if stable and kind == "cp" and have[0] == major and have <= wanted:
                return True
        return False


def _platform_fits(tag: str, os: str, machine: str) -> bool:
    if tag == "any":
        return True
    if os == "linux":
        return "linux" in tag and tag.endswith(f"_{machine}")
    if os == "windows":
        return tag == {"x86_64": "win_amd64", "aarch64": "win_arm64"}.get(machine)
    if os == "macos":
        arch = "arm64" if machine in ("arm64", "aarch64") else "x86_64"
        return tag.startswith("macosx_") and (tag.endswith(f"_{arch}") or "universal" in tag)
    return False


class _Links(HTMLParser):
    """Every <a>'s href and data-requires-python, entities decoded."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[Anchor] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "a":
            return
        values = dict(attrs)
        href = values.get("href")
        if href:
            self.found.append(Anchor(href, values.get("data-requires-python") or None))


def html_anchors(text: str) -> tuple[Anchor, ...]:
    """The links of a PEP 503 page or a flat listing."""
    parser = _Links()
    parser.feed(text)
    parser.close()
    return tuple(parser.found)


def links(text: str) -> tuple[str, ...]:
    """The href of every <a> of an HTML page."""
    return tuple(anchor.href for anchor in html_anchors(text))


def json_anchors(text: str) -> tuple[Anchor, ...]:
    """The files of a PEP 691 page, or of PyPI's JSON API (one version's `urls`, or every
    version's under `releases`); () for JSON of any other shape."""
    try:
        document = json.loads(text)
    except ValueError:
        return ()
    if not isinstance(document, dict):
        return ()
    files: list[object] = []
    for key in ("files", "urls"):
        if isinstance(document.get(key), list):
            files += document[key]
    releases = document.get("releases")
    if isinstance(releases, dict):
        files += [f for entries in releases.values() if isinstance(entries, list) for f in entries]
    found: dict[Anchor, None] = {}
    for entry in files:
        if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
            continue
        requires = entry.get("requires-python", entry.get("requires_python"))
        found[
            Anchor(entry["url"], requires if isinstance(requires, str) and requires else None)
        ] = None
    return tuple(found)


def anchors(text: str, media: str = "text/html") -> tuple[Anchor, ...]:
    """The links of a page whose Content-Type is `media` (JSON by its type, else HTML)."""
    if media.split(";")[0].strip().lower() in JSON_TYPES:
        return json_anchors(text)
    return html_anchors(text)


def file_link(anchor: Anchor, base: str) -> tuple[str, str]:
    """The file `anchor` links to: its name, and its URL read relative to `base`, without
    the fragment (a hash the lock checks on its own)."""
    url = urljoin(base, anchor.href).partition("#")[0]
    return unquote(urlsplit(url).path.rsplit("/", 1)[-1]), url


def files(found: Iterable[Anchor], base: str) -> dict[str, str]:
    """The URL of every file among `found` (read relative to `base`), by its name; the first
    link of a name wins. Whatever the scheme: fetching a URL is judged by the rule of URLs."""
    named: dict[str, str] = {}
    for anchor in found:
        filename, url = file_link(anchor, base)
        named.setdefault(filename, url)
    return named


def wheel_of(anchor: Anchor, base: str) -> Wheel | None:
    """The wheel `anchor` links to (read relative to `base`), if it names one."""
    filename, url = file_link(anchor, base)
    if not filename.endswith(".whl"):
        return None
    try:
        name, version, _, tags = parse_wheel_filename(filename)
    except InvalidWheelFilename:
        return None
    # The file name's own spelling: packaging normalizes `+cu124` as it is, but keep the
    # text the package manager will see.
    text = filename.split("-")[1]
    return Wheel(
        name=str(name),
        version=text if Version(text) == version else str(version),
        local=version.local or "",
        pythons=tuple(sorted({t.interpreter for t in tags})),
        abis=tuple(sorted({t.abi for t in tags})),
        platforms=tuple(sorted({t.platform for t in tags})),
        requires_python=anchor.requires_python,
        url=url,
    )


def wheels(found: Iterable[Anchor], base: str, package: str | None = None) -> tuple[Wheel, ...]:
    """The wheels among `found` (of `package` alone, when given: a flat listing holds many)."""
    wanted = None if package is None else canonical_name(package)
    listed = (wheel_of(anchor, base) for anchor in found)
    return tuple(w for w in listed if w is not None and wanted in (None, w.name))


def layout_of(url: str, mirrors: Iterable[Mirror]) -> str:
    """ "flat" for an index configured as one listing of wheels (`mirrors`), else "simple"."""
    flat = any(m.layout == "flat" and m.serves(url) for m in mirrors)
    return "flat" if flat else "simple"


def page_url(url: str, package: str, layout: str) -> str:
    """The page that lists `package`'s files: its project page, or the flat listing."""
    base = url if url.endswith("/") else url + "/"
    return base if layout == "flat" else f"{base}{canonical_name(package)}/"
