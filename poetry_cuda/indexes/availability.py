"""The availability table: which wheels the indexes served, read from their own listings.

One row per (package, version, variant, platform): the Pythons its wheels install on, the
Requires-Python the page gave, the page it was read from (`source`) and the day (`read`).
`tools/read_indexes.py` writes it; `load` reads it back as `Available` rows, checked.
"""

from __future__ import annotations

import datetime
import re

from typing import TYPE_CHECKING

from poetry_cuda.errors import InputFileError
from poetry_cuda.files import read_toml
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from poetry_cuda.indexes.listing import Wheel


SCHEMA = 1
# How each platform's wheels are tagged; a wheel of none of them is not tabled.
PLATFORMS = ("linux-x86_64", "linux-aarch64", "windows-x86_64", "windows-arm64", "macos-arm64")
# A Python as the table writes it: "3.11", "3.13t" (free-threaded), "abi3>=3.9", "py3".
_PYTHON = re.compile(r"3\.\d+t?|abi3>=3\.\d+|py3")


@frozen
class Available:
    package: str
    version: str  # label included: 2.5.1+cu124
    variant: str  # the index's variant: cu124, cpu
    platform: str  # one of PLATFORMS
    python: tuple[str, ...]
    requires_python: str  # "" where the page gives none
    source: str  # the page read
    read: str  # the day it was read, ISO


def platform_of(wheel: Wheel) -> str | None:
    """The table's platform of `wheel`, if it has one."""
    for name in PLATFORMS:
        os, _, machine = name.partition("-")
        if wheel.serves_platform(os, machine):
            return name
    return None


def pythons_of(wheel: Wheel) -> tuple[str, ...]:
    """The Pythons `wheel`'s tags name, as the table writes them."""
    found = []
    for tag in wheel.pythons:
        digits = tag[2:]
        if tag.startswith("py3"):
            found.append("py3")
        elif tag.startswith("cp3") and digits.isdigit():
            minor = f"3.{digits[1:]}"
            if "abi3" in wheel.abis:
                found.append(f"abi3>={minor}")
            found += [minor + "t" for abi in wheel.abis if abi == f"cp{digits}t"]
            if f"cp{digits}" in wheel.abis:
                found.append(minor)
    return tuple(found)


def rows_of(wheels: Iterable[Wheel], variant: str, source: str, day: str) -> list[Available]:
    """The rows `wheels` of one page make: one per version and platform, Pythons merged."""
    merged: dict[tuple[str, str, str], tuple[set[str], str]] = {}
    for wheel in wheels:
        platform = platform_of(wheel)
        if platform is None:
            continue
        python, requires = merged.setdefault((wheel.name, wheel.version, platform), (set(), ""))
        python.update(pythons_of(wheel))
        merged[wheel.name, wheel.version, platform] = (
            python,
            requires or wheel.requires_python or "",
        )
    return [
        Available(
            name,
            version,
            variant,
            platform,
            tuple(sorted(python, key=_python_key)),
            rp,
            source,
            day,
        )
        for (name, version, platform), (python, rp) in merged.items()
    ]


def _python_key(python: str) -> tuple[int, str]:
    digits = re.sub(r"\D", "", python.partition(">=")[2] or python)
    return (int(digits[1:] or 0), python)


def load(path: Path) -> tuple[Available, ...]:
    """The table at `path`, every row checked; InputFileError naming the row otherwise."""
    document = read_toml(path)
    if document.get("schema") != SCHEMA:
        raise InputFileError(f"{path.name}: schema is not {SCHEMA}", fix="regenerate it")
    rows = document.get("availability", [])
    found: dict[tuple[str, str, str, str], Available] = {}
    for number, row in enumerate(rows if isinstance(rows, list) else [None], 1):
        try:
            item = _row(row)
        except (KeyError, TypeError, ValueError) as error:
            raise InputFileError(
                f"{path.name}: availability row {number} is malformed ({error})",
                fix="regenerate it with tools/read_indexes.py",
            ) from None
        key = (item.package, item.version, item.variant, item.platform)
        if key in found:
            raise InputFileError(
                f"{path.name}: availability row {number} repeats {' '.join(key)}",
                fix="regenerate it with tools/read_indexes.py",
            )
        found[key] = item
    return tuple(found.values())


def _row(row: object) -> Available:
    if not isinstance(row, dict):
        raise TypeError("not a table")
    text = {k: row[k] for k in ("package", "version", "variant", "platform", "source", "read")}
    if not all(isinstance(v, str) and v for v in text.values()):
        raise TypeError("a field is not a non-empty string")
    python = row.get("python", [])
    if not isinstance(python, list) or not all(
        isinstance(p, str) and _PYTHON.fullmatch(p) for p in python
    ):
        raise ValueError(f"python {python!r}")
    if text["platform"] not in PLATFORMS:
        raise ValueError(f"platform {text['platform']!r}")
    if not text["source"].startswith(("https://", "http://")):
        raise ValueError(f"source {text['source']!r} is no URL")
    datetime.date.fromisoformat(text["read"])
    label = text["version"].partition("+")[2]
    if label and label != text["variant"]:
        raise ValueError(f"version {text['version']} on the {text['variant']} index")
    requires = row.get("requires_python", "")
    if not isinstance(requires, str):
        raise TypeError("requires_python is not a string")
    return Available(
        text["package"],
        text["version"],
        text["variant"],
        text["platform"],
        tuple(python),
        requires,
        text["source"],
        text["read"],
    )
