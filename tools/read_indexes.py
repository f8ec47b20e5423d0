"""Regenerate the availability table from the indexes' own listings.

For every family of the knowledge base, every variant its releases name and every member, the
tool reads the variant index's page of the member (``<index>/<variant>/<member>/``, PEP 503 or
PEP 691) through the mirror given for the family, if any, and tables each wheel of a version the
knowledge base knows: package, version, variant, platform, the Pythons its wheels install on,
the page's Requires-Python, the page read (`source`) and the day (`read`).

    .venv/bin/python tools/read_indexes.py
    .venv/bin/python tools/read_indexes.py --mirror pytorch=http://127.0.0.1:8000/whl/{variant}

Pages are read at the same time, each within the limits `plan --check-index` keeps. A page that
cannot be read is named on stderr and its rows are kept as they were; a page the index does
not have (HTTP 404) serves nothing. Exit status: 0 when every
page was read, 1 when one was not, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys

from pathlib import Path

from packaging.version import Version

from poetry_cuda.display import redact_url
from poetry_cuda.indexes.availability import Available
from poetry_cuda.indexes.availability import load as load_table
from poetry_cuda.indexes.availability import rows_of
from poetry_cuda.indexes.listing import page_url
from poetry_cuda.indexes.listing import wheels
from poetry_cuda.indexes.pages import fetch_all
from poetry_cuda.knowledge.packaged import load


ROOT = Path(__file__).resolve().parents[1]
# Beside its reader; not shipped until the tool has read the real indexes into it and the
# knowledge base loads it (its loader reads every other TOML of knowledge/data/ as a family).
TABLE = ROOT / "poetry_cuda" / "indexes" / "availability.toml"
HEADER = """\
# Which wheels the indexes served, read from their own listings by tools/read_indexes.py:
# one row per (package, version, variant, platform), with the Pythons its wheels install on
# ("3.11"; "3.13t" free-threaded; "abi3>=3.9"; "py3"), the page's Requires-Python, the page
# read (`source`) and the day (`read`). Regenerate it; do not edit rows by hand.

schema = 1
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", action="append", default=[], help="KEY=URL-TEMPLATE")
    parser.add_argument("--family", action="append", default=[], help="only these families")
    parser.add_argument("--out", type=Path, default=TABLE)
    parser.add_argument("--date", default=datetime.date.today().isoformat())
    args = parser.parse_args(argv)
    mirrors = dict(item.partition("=")[::2] for item in args.mirror)
    day = datetime.date.fromisoformat(args.date).isoformat()
    kb = load()
    asked: dict[str, tuple[str, str, set[str]]] = {}  # page -> (package, variant, versions)
    for family in kb.families:
        if args.family and family.name not in args.family:
            continue
        for release in family.releases:
            for variant in release.variants:
                index = family.index_url(variant.name, mirrors.get(family.mirror_key or ""))
                if index is None:
                    continue
                for member in family.members:
                    known = {pair[member] for pair in release.pairs if member in pair}
                    url = page_url(index, member, "simple")
                    entry = asked.setdefault(url, (member, variant.name, set()))
                    entry[2].update(known)
    pages = fetch_all(asked)
    old = load_table(args.out) if args.out.exists() else ()
    rows: dict[tuple[str, str, str, str], Available] = {
        (r.package, r.version, r.variant, r.platform): r for r in old
    }
    failed = 0
    for url, (package, name, known) in asked.items():
        page = pages[url]
        if page.problem is not None and page.problem.startswith("HTTP 404"):
            continue  # the index has no such page: it serves none of these wheels
        if page.problem is not None:
            failed += 1
            print(f"{redact_url(url)}: {page.problem}; its rows kept", file=sys.stderr)
            continue
        listed = [
            w
            for w in wheels(page.anchors, page.base, package)
            if Version(w.public) in {Version(v) for v in known}
        ]
        for row in rows_of(listed, name, redact_url(url), day):
            rows[row.package, row.version, row.variant, row.platform] = row
    args.out.write_text(HEADER + "".join(_table(r) for r in sorted(rows.values(), key=_order)))
    print(f"{len(rows)} rows from {len(pages) - failed} of {len(pages)} pages -> {args.out}")
    return 1 if failed else 0


def _order(row: Available) -> tuple[object, ...]:
    return (row.package, Version(row.version), row.variant, row.platform)


def _table(row: Available) -> str:
    """One row as TOML (JSON's strings are TOML's basic strings for this text)."""
    fields = {
        "package": row.package,
        "version": row.version,
        "variant": row.variant,
        "platform": row.platform,
        "python": list(row.python),
        "requires_python": row.requires_python,
        "source": row.source,
        "read": row.read,
    }
    lines = [f"{key} = {json.dumps(value)}" for key, value in fields.items()]
    return "\n[[availability]]\n" + "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
