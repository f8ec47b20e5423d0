"""`plan --check-index`: whether each chosen index serves the chosen version, and from where.

The one check `plan` makes online. For every package the plan puts on an index it fetches
the index's page of the package (a simple index: ``<url>/<package>/``; a flat mirror: its
one listing), each page once, and reads the file links: whether one is the chosen version,
and whether they point at the index's own host or elsewhere (a mirror that copies
upstream's pages unchanged links back to download.pytorch.org, so every download still
goes there). Fetching is `indexes.pages` (its limits: a page's bytes and seconds, the
redirects it follows); judging a page is pure (`judge`). The whole check ends within
`CHECK_TIMEOUT`.
"""

from __future__ import annotations

import time

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
from poetry_cuda.indexes.listing import layout_of
from poetry_cuda.indexes.listing import links
from poetry_cuda.indexes.listing import page_url
from poetry_cuda.indexes.pages import CHECK_TIMEOUT
from poetry_cuda.indexes.pages import REQUEST_TIMEOUT
from poetry_cuda.indexes.pages import Page
from poetry_cuda.indexes.pages import fetch
from poetry_cuda.messages import message
from poetry_cuda.names import canonical_name
from poetry_cuda.records import frozen
from poetry_cuda.web import MAX_REDIRECTS


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.messages import Language
    from poetry_cuda.messages import Localized
    from poetry_cuda.messages import Message
    from poetry_cuda.planning.plan import Choice
    from poetry_cuda.request.settings import Settings


# The names `plan --check-index` and its tests have always read here.
__all__ = [
    "CHECK_TIMEOUT",
    "MAX_REDIRECTS",
    "REQUEST_TIMEOUT",
    "IndexReport",
    "Page",
    "check",
    "fetch",
    "judge",
    "layout_of",
    "links",
    "page_url",
]


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
    redirects: tuple[str, ...] = ()  # where the index redirected the page, in order

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
            "redirects": [redact_url(url) for url in self.redirects],
        }

    def lines(self, language: Language = "en") -> list[str]:
        wanted = f"{self.package} {self.version}" if self.version else self.package
        what: Localized = wanted if self.version else message("index.any-version", name=wanted)
        where = redact_url(self.page)
        said: list[Message] = []
        if self.problem is not None:
            said.append(message("index.unreadable", what=what, url=where, problem=self.problem))
        elif not self.serves:
            listed = ", ".join(self.found[-5:]) or "-"
            said.append(message("index.not-served", what=what, url=where, listed=listed))
        else:
            said.append(message("index.served", what=what, url=where))
        said += [message("index.redirected", url=redact_url(url)) for url in self.redirects]
        hosts = ", ".join(self.elsewhere)
        if self.problem is None and self.elsewhere:
            said.append(
                message("index.links-upstream", hosts=hosts)
                if self.upstream
                else message("index.links-elsewhere", hosts=hosts)
            )
        elif self.problem is None and self.serves:
            said.append(message("index.links-local"))
        return [line.text(language) for line in said]


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
    own = urlsplit(page.base).netloc
    found: dict[str, None] = {}
    hosts: dict[str, None] = {}
    wanted = canonical_name(package)
    for href in page.links:
        absolute = urljoin(page.base, href)
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
        page.redirects,
    )


def check(
    choices: Sequence[Choice],
    settings: Settings,
    families: Sequence[Family],
    get: Callable[[str, float], Page] = fetch,
    *,
    limit: float = CHECK_TIMEOUT,
) -> list[IndexReport]:
    """Ask the index of every choice on one whether it serves the chosen version.

    `get(url, deadline)` reads one page; each gets REQUEST_TIMEOUT seconds, and none
    more than the `limit` of the whole check leaves it.
    """
    end = time.monotonic() + limit
    pages: dict[str, Page] = {}
    reports = []
    for choice in choices:
        if choice.source.is_pypi:
            continue
        url = choice.source.url
        layout = layout_of(url, settings.mirrors.values())
        asked = page_url(url, choice.name, layout)
        if asked not in pages:
            now = time.monotonic()
            if now < end:
                pages[asked] = get(asked, min(now + REQUEST_TIMEOUT, end))
            else:
                spent = f"not asked: the check's {limit:g} s were spent on the pages before it"
                pages[asked] = Page(asked, problem=spent)
        family = next((f for f in families if f.name == choice.family), None)
        index = family.index_url("variant") if family is not None else None
        upstream = urlsplit(index).netloc if index else None
        reports.append(judge(pages[asked], choice.name, choice.version, layout, upstream))
    return reports
