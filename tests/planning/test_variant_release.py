"""Which known variant release a project's torch constraint admits."""

from __future__ import annotations

import pytest

from poetry_cuda.planning.variant_release import pick_release
from poetry_cuda.planning.variant_release import series_range
from poetry_cuda.request.dependencies import Dependency


KNOWN = ["2.10.0", "2.9.0", "2.8.0"]


def _torch(constraint: str, name: str = "torch") -> Dependency:
    return Dependency(name, constraint, frozenset(), "[project] dependencies")


def test_series_range() -> None:
    assert series_range("2.9.0") == ">=2.9,<2.10"
    assert series_range("2.10.1") == ">=2.10,<2.11"


@pytest.mark.parametrize(
    ("constraints", "version"),
    [
        ((), "2.10.0"),
        (("*",), "2.10.0"),
        ((">=2.4",), "2.10.0"),
        (("<2.10",), "2.9.0"),
        (("==2.9.1",), "2.9.0"),  # a patch release: the series' metadata
        (("^2.8", "<2.9"), "2.8.0"),  # every constraint must admit it
        (("==2.9.0+cu128",), "2.9.0"),  # a local label is a variant request, not a version
        (("~2.8.0",), "2.8.0"),
    ],
)
def test_the_newest_admitted_release(constraints: tuple[str, ...], version: str) -> None:
    pick = pick_release("torch", KNOWN, [_torch(c) for c in constraints])
    assert pick.version == version
    assert pick.warning is None


def test_other_packages_constraints_do_not_count() -> None:
    pick = pick_release("torch", KNOWN, [_torch("<2.9", "torchvision")])
    assert pick.version == "2.10.0"
    assert "no torch constraint" in str(pick.reason)


def test_no_admitted_release_falls_back_to_the_newest_with_a_warning() -> None:
    pick = pick_release("torch", KNOWN, [_torch("==2.5.1")])
    assert pick.version == "2.10.0"
    assert pick.warning is not None
    assert "torch ==2.5.1 ([project] dependencies) admits no torch release" in str(pick.warning)
    assert "--variants FILE" in str(pick.warning)
