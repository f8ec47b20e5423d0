"""`plan --check-index`: whether each chosen index serves the chosen version, and from where.

The one check that goes online. For every package the plan puts on an index it fetches the
index's page of the package (a simple index: ``<url>/<package>/``; a flat mirror: its one
listing), each page once, within `TIMEOUT` seconds and `PAGE_LIMIT` bytes, and reads the
file links: whether one is the chosen version, and whether they point at the index's own
host or elsewhere (a mirror that copies upstream's pages unchanged links back to
download.pytorch.org, so every download still goes there). Fetching is `fetch`; judging a
page is pure (`judge`).
"""

from __future__ import annotations

import urllib.error
import urllib.request

from html.parser import HTMLParser
from typing import TYPE_CHECKING
from urllib.parse import unquote
from urllib.parse import urljoin
from urllib.parse import urlsplit

from packaging.utils import InvalidSdistFilename
from packaging.utils import InvalidWheelFilename
from packaging.utils import parse_sdist_filename
from packaging.utils import parse_wheel_filename
from packaging.version import Version

from poetry_cuda.display import redact_url
from poetry_cuda.files import MiB
from poetry_cuda.names import canonical_name
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.planning.plan import Choice
    from poetry_cuda.request.settings import Settings


TIMEOUT = 10.0  # seconds per page: a mirror slower than this is no help to a lock either
PAGE_LIMIT = 16 * MiB  # torch's page on download.pytorch.org is a few hundred KiB


@frozen
class Page:
    """What an index answered for one URL: the file links, or why there are none."""

    url: str
    links: tuple[str, ...] = ()
    problem: str | None = None


@frozen
class IndexReport:
    package: str
    version: str | None  # the version the plan expects; None: any
    page: str  # the URL asked
    layout: str
    problem: str | None  # the page could not be read
    serves: bool
    found: tuple[str, ...]  # the versions of the package the page lists
    elsewhere: tuple[str, ...]  # hosts the package's files are linked at, other than the page's
    upstream: str | None  # the family's own index host, when links point there

    @property
    def ok(self) -> bool:
        return self.problem is None and self.serves

    def to_json(self) -> dict[str, object]:
        return {
            "package": self.package,
            "version": self.version,
            "url": redact_url(self.page),
            "layout": self.layout,
            "serves": self.ok,
            "problem": self.problem,
            "links": "elsewhere" if self.elsewhere else "local",
            "link_hosts": list(self.elsewhere),
        }

    def lines(self) -> list[str]:
        wanted = f"{self.package} {self.version or '(any version)'}"
        where = redact_url(self.page)
        if self.problem is not None:
            return [f"{wanted}: cannot read {where}: {self.problem}"]
        if not self.serves:
            listed = ", ".join(self.found[-5:]) or "none"
            head = [f"{wanted}: NOT served by {where} (it lists: {listed})"]
        else:
            head = [f"{wanted}: served by {where}"]
        if self.elsewhere:
            upstream = " (upstream: downloads go to the family's own index)"
            hosts = ", ".join(self.elsewhere)
            head.append(
                f"  its file links point elsewhere: {hosts}{upstream if self.upstream else ''}"
            )
        elif self.serves:
            head.append("  its file links point at the index itself")
        return head


class _Links(HTMLParser):
    """The href of every <a>, entities decoded (`&#43;` is `+`)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.found.extend(value for name, value in attrs if name == "href" and value)


def links(text: str) -> tuple[str, ...]:
    parser = _Links()
    parser.feed(text)
    parser.close()
    return tuple(parser.found)


def page_url(url: str, package: str, layout: str) -> str:
    """The page that lists `package`'s files: its project page, or the flat listing."""
    base = url if url.endswith("/") else url + "/"
    return base if layout == "flat" else f"{base}{canonical_name(package)}/"


def _release(filename: str) -> tuple[str, str] | None:
    """(normalized name, version) of a distribution file name."""
    try:
        if filename.endswith(".whl"):
            name, version, _, _ = parse_wheel_filename(filename)
        else:
            name, version = parse_sdist_filename(filename)
    except (InvalidWheelFilename, InvalidSdistFilename):
        return None
    return str(name), str(version)


def judge(
    page: Page, package: str, version: str | None, layout: str, upstream: str | None
) -> IndexReport:
    """What `page` says about `package` `version` (pure)."""
    own = urlsplit(page.url).netloc
    found: dict[str, None] = {}
    hosts: dict[str, None] = {}
    wanted = canonical_name(package)
    for href in page.links:
        absolute = urljoin(page.url, href)
        parts = urlsplit(absolute)
        release = _release(unquote(parts.path.rsplit("/", 1)[-1]))
        if release is None or release[0] != wanted:
            continue
        found[release[1]] = None
        if parts.netloc != own:
            hosts[parts.netloc] = None
    serves = bool(found) if version is None else str(Version(version)) in found
    return IndexReport(
        package,
        version,
        page.url,
        layout,
        page.problem,
        serves,
        tuple(sorted(found, key=Version)),
        tuple(hosts),
        upstream if upstream in hosts else None,
    )


def fetch(url: str) -> Page:
    """The file links of the page at `url`, read within TIMEOUT and PAGE_LIMIT."""
    request = urllib.request.Request(url, headers={"Accept": "text/html"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            body = response.read(PAGE_LIMIT + 1)
            final = response.geturl()
    except urllib.error.HTTPError as error:
        return Page(url, problem=f"HTTP {error.code} {error.reason}")
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        return Page(url, problem=f"unreachable ({reason})")
    if len(body) > PAGE_LIMIT:
        return Page(url, problem=f"the page is larger than {PAGE_LIMIT // MiB} MiB")
    # Links are relative to where a redirect led, as a resolver reads them.
    return Page(final, links(body.decode("utf-8", errors="replace")))


def check(
    choices: Sequence[Choice],
    settings: Settings,
    families: Sequence[Family],
    get: Callable[[str], Page] = fetch,
) -> list[IndexReport]:
    """Ask the index of every choice on one whether it serves the chosen version."""
    pages: dict[str, Page] = {}
    reports = []
    for choice in choices:
        if choice.source.is_pypi:
            continue
        url = choice.source.url
        flat = any(m.layout == "flat" and m.serves(url) for m in settings.mirrors.values())
        layout = "flat" if flat else "simple"
        asked = page_url(url, choice.name, layout)
        if asked not in pages:
            pages[asked] = get(asked)
        family = next((f for f in families if f.name == choice.family), None)
        index = family.index_url("variant") if family is not None else None
        upstream = urlsplit(index).netloc if index else None
        reports.append(judge(pages[asked], choice.name, choice.version, layout, upstream))
    return reports
