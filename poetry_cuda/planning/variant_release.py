"""Which known variant release a project's constraints admit, when no metadata file is given.

A release's wheel-variant metadata (its labels and their properties) is the same across its
patch releases as far as anyone has published, so a release series (``2.9``) is admitted when
every constraint the project declares on the package admits some version of it; the newest
admitted one is taken, as the plan takes the newest admitted release.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.messages import message
from poetry_cuda.records import frozen
from poetry_cuda.request.constraints import overlaps


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.knowledge.model import Release
    from poetry_cuda.messages import Localized
    from poetry_cuda.request.dependencies import Dependency


@frozen
class ReleasePick:
    """The version whose metadata is used, and why (one line for stderr)."""

    version: str
    reason: Localized
    warning: Localized | None = None  # the constraints admit no known release


def series_range(version: str) -> str:
    """``>=2.9,<2.10`` for ``2.9.0``: every version of its series."""
    major, minor = version.split(".")[:2]
    return f">={major}.{minor},<{major}.{int(minor) + 1}"


def pick_release(
    package: str, versions: Sequence[str], declared: Sequence[Dependency]
) -> ReleasePick:
    """The newest of `versions` (newest first) whose series every constraint on `package`
    in `declared` admits; the newest outright when the project declares none.

    When constraints are declared and none admits a known release, the newest is taken
    with a warning: the providers' answers the file holds are the host's, whatever the
    release, but its labels describe wheels the project never installs.
    """
    constraints = [
        d for d in declared if d.name == package and d.constraint.strip() not in ("", "*")
    ]
    if not constraints:
        return ReleasePick(versions[0], message("release.newest-unconstrained", package=package))
    for version in versions:
        if all(overlaps(d.constraint, series_range(version)) for d in constraints):
            spelled = "; ".join(f"{d.constraint} ({d.origin})" for d in constraints)
            admits = message("release.newest-admitted", package=package, constraints=spelled)
            return ReleasePick(version, admits)
    spelled = "; ".join(f"{package} {d.constraint} ({d.origin})" for d in constraints)
    known = ", ".join(".".join(v.split(".")[:2]) for v in reversed(versions))
    return ReleasePick(
        versions[0],
        message("release.fallback"),
        warning=message(
            "release.none-admitted",
            constraints=spelled,
            package=package,
            known=known,
            newest=versions[0],
        ),
    )


def known_release(family: Family | None, version: str) -> Release | None:
    """The knowledge base's release series of `family` that `version` (``2.9.1``) is in."""
    if family is None or not version:
        return None
    return next((r for r in family.releases if version.startswith(f"{r.series}.")), None)
