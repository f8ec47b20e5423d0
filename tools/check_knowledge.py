"""Compare the knowledge base with the package indexes it describes (for maintainers).

For every family with per-variant indexes, the script reads the PEP 503 page of each
member on each variant's index (``https://download.pytorch.org/whl/cu124/torch/``, or
the same path under a mirror given with ``--base``) and reports

* versions the data lists for a variant that the index lacks, and
* versions the index offers for a variant that the data lacks (older than the oldest
  version the data knows are left out: the data starts where it starts).

Builds that PyPI serves (paddlepaddle-gpu 2.6.2 is the cu118 build) are not checked.
Exit status: 0 when data and indexes agree, 1 when they differ, 2 when an index could
not be read.

    .venv/bin/python tools/check_knowledge.py [--family torch] [--base URL] [--data DIR]

(with the project's environment, where poetry_cuda is importable).
"""

from __future__ import annotations

import argparse
import sys
import urllib.error
import urllib.request

from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion
from packaging.version import Version

from poetry_cuda.knowledge.packaged import load
from poetry_cuda.knowledge.packaged import load_directory
from poetry_cuda.planning.candidates import version_label


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import Family


TIMEOUT_S = 30


class UnreadableIndexError(Exception):
    """An index page that exists but could not be read."""


class _Links(HTMLParser):
    """The text of every <a> on a PEP 503 project page: one file name each."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []
        self._inside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._inside = tag == "a"
        if self._inside:
            self.names.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            self._inside = False

    def handle_data(self, data: str) -> None:
        if self._inside:
            self.names[-1] += data.strip()


def file_version(filename: str, project: str) -> Version | None:
    """The version in a wheel or sdist name of `project`, None for other files."""
    name = unquote(filename)
    if name.endswith(".whl"):
        parts = name[: -len(".whl")].split("-")
        stem, version = parts[0], parts[1] if len(parts) > 1 else ""
    elif name.endswith((".tar.gz", ".zip")):
        stem, _, version = name.removesuffix(".tar.gz").removesuffix(".zip").rpartition("-")
    else:
        return None
    if canonicalize_name(stem) != canonicalize_name(project):
        return None
    try:
        return Version(version)
    except InvalidVersion:
        return None


def index_versions(url: str, project: str) -> set[Version] | None:
    """The versions on a project page; None when the index has no such page."""
    request = urllib.request.Request(url, headers={"Accept": "text/html"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            page = response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return None
        raise UnreadableIndexError(f"{url}: HTTP {error.code}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        raise UnreadableIndexError(f"{url}: {getattr(error, 'reason', error)}") from None
    links = _Links()
    links.feed(page)
    return {v for v in (file_version(n, project) for n in links.names) if v is not None}


@dataclass(frozen=True)
class Finding:
    family: str
    variant: str
    message: str

    def __str__(self) -> str:
        return f"{self.family} {self.variant}: {self.message}"


def expected(family: Family) -> dict[tuple[str, str], set[Version]]:
    """(variant, member) -> the versions the data says that variant's index serves."""
    found: dict[tuple[str, str], set[Version]] = {}
    for release in family.releases:
        for variant in release.variants:
            label = version_label(family, release, variant)
            if not label and variant.name in release.pypi.values():
                continue  # PyPI's own upload, not on the variant's index
            for pair in release.pairs:
                for member, version in pair.items():
                    found.setdefault((variant.name, member), set()).add(Version(version + label))
    return found


def check_family(family: Family, base: str | None) -> list[Finding]:
    findings: list[Finding] = []
    data = expected(family)
    oldest: dict[str, Version] = {}
    for (_, member), versions in data.items():
        oldest[member] = min(versions | ({oldest[member]} if member in oldest else set()))
    for (variant, member), wanted in sorted(data.items(), key=lambda item: item[0]):
        index = family.index_url(variant, base)
        if index is None:
            continue
        url = f"{index.rstrip('/')}/{member}/"
        offered = index_versions(url, member)
        if offered is None:
            listed = ", ".join(str(v) for v in sorted(wanted))
            findings.append(
                Finding(family.name, variant, f"{url} is missing; the data lists {listed}")
            )
            continue
        # A wheel may come without the variant's label (PyTorch's aarch64 torchvision).
        public = {v.public for v in offered}
        for version in sorted(wanted - offered):
            if version.public not in public:
                findings.append(
                    Finding(family.name, variant, f"{member} {version} is not on {url}")
                )
        known = {v.public for v in wanted}
        for version in sorted(offered):
            if version.public in known or version.is_prerelease or version < oldest[member]:
                continue
            findings.append(Finding(family.name, variant, f"{member} {version} is not in the data"))
    return findings


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", action="append", help="check only this family (repeatable)")
    parser.add_argument(
        "--base",
        help="a mirror to read instead of the family's index: '{variant}' is replaced, "
        "else '/<variant>' is appended",
    )
    parser.add_argument("--data", type=Path, help="a data directory instead of the packaged one")
    args = parser.parse_args(argv)
    kb = load_directory(args.data) if args.data else load()
    families = [f for f in kb.families if f.index and (not args.family or f.name in args.family)]
    if not families:
        print("no family with a package index matches", file=sys.stderr)
        return 2
    findings: list[Finding] = []
    try:
        for family in families:
            findings.extend(check_family(family, args.base))
    except UnreadableIndexError as error:
        print(f"cannot read the index: {error}", file=sys.stderr)
        return 2
    for finding in findings:
        print(finding)
    checked = ", ".join(f.name for f in families)
    print(f"{len(findings)} difference(s) between the data and the indexes ({checked})")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
