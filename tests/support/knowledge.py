"""Finding rows of the shipped knowledge base by name, for the data tests."""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.knowledge.packaged import load


if TYPE_CHECKING:
    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.knowledge.model import Release
    from poetry_cuda.knowledge.model import Variant


KB = load()


def family(name: str) -> Family:
    return next(f for f in KB.families if f.name == name)


def release(family_name: str, series: str) -> Release:
    return next(r for r in family(family_name).releases if r.series == series)


def variant(family_name: str, series: str, name: str) -> Variant:
    found = release(family_name, series).variant(name)
    assert found is not None, f"{family_name} {series} has no {name}"
    return found
