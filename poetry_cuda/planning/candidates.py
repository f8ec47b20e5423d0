"""A family's builds the project's constraints admit: the candidates a choice is made among.

For each release of a family, each of its variants (``cu124``, ``cpu``) is a candidate at
the newest member versions the project's constraints allow with it: torchvision 0.29.2,
published with torch 2.15.0's builds, serves torch 2.14.1 on cu130 (a stable-ABI build)
but not on cu126. A release none of whose builds the constraints admit drops out. When
the constraints admit only versions newer than the knowledge base, the newest release's
variants are assumed (`assumed_builds`).

A variant published for some lead versions only (torch 2.12's cu129, with 2.12.1) is a
candidate for those only. A build the caller knows an index lacks (`Unavailable`: lock
read the index page) is no candidate: the next lead version of that variant, another
variant or an older release is.
A release whose Requires-Python excludes a Python the project allows stays a candidate,
marked with those Pythons (`FamilyBuild.python_gap`), so the choice can name why it passed
it over.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from packaging.specifiers import InvalidSpecifier
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion
from packaging.version import Version

from poetry_cuda.records import frozen
from poetry_cuda.request import constraints


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Collection
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.knowledge.model import Release
    from poetry_cuda.knowledge.model import Variant
    from poetry_cuda.request.dependencies import Dependency

    # The family members the project asks for, each with its dependencies (the lead always).
    Requests = dict[str, list[Dependency]]


Unavailable = tuple[str, str, str]
"""A build an index does not serve: (family name, plain lead version, variant)."""


# The minor versions of Python 3 a project's requires-python is read for.
_PYTHON_MINORS = range(6, 20)


def python_gap(requires_python: str | None, project_python: str | None) -> tuple[str, ...]:
    """The Python versions (``3.10``) `project_python` admits that `requires_python` excludes.

    Either may be absent (nothing known, nothing excluded). A minor counts as admitted by the
    project when the project admits any of its releases, and by a package when it admits
    the minor's first release: Poetry locks only what every Python the project allows can
    install.
    """
    if requires_python is None or project_python is None:
        return ()
    package = SpecifierSet(requires_python)
    return tuple(
        f"3.{minor}"
        for minor in _PYTHON_MINORS
        if constraints.overlaps(project_python, f">=3.{minor},<3.{minor + 1}")
        and not package.contains(f"3.{minor}.0", prereleases=True)
    )


@frozen
class FamilyBuild:
    """One build of a family's release, at the member versions the project allows."""

    release: Release
    variant: Variant
    members: dict[str, str]  # plain version of every family member, lead first
    assumed: bool = False  # the admitted versions are newer than the knowledge base
    # The Pythons the project allows that the lead version's Requires-Python excludes.
    python_gap: tuple[str, ...] = ()

    @property
    def lead_version(self) -> str:
        return next(iter(self.members.values()))

    def sort_key(self) -> tuple[object, ...]:
        cuda = self.variant.cuda
        return (cuda is not None, cuda, self.release.series_key)


def family_requests(family: Family, deps: Sequence[Dependency]) -> Requests:
    """The family members the project asks for; the lead is always among them."""
    requests: Requests = {family.lead: []}
    for dep in deps:
        if dep.name in family.members:
            requests.setdefault(dep.name, []).append(dep)
    return requests


def version_label(family: Family, release: Release, variant: Variant) -> str:
    """How `variant` shows in a version: ``+cu124``, ``.post120`` or nothing."""
    form = release.version_form or family.version_form
    if form == "local":
        return f"+{variant.name}"
    if form == "post" and variant.name not in release.pypi.values():
        return f".post{variant.name.removeprefix('cu')}"
    return ""


def _member_versions(
    family: Family,
    release: Release,
    variant: Variant,
    pair: dict[str, str],
    name: str,
) -> list[str]:
    """The versions of `name` that go with `pair`'s lead version on `variant`, newest first.

    Its pair's own version, and every stable-ABI version whose range admits the lead
    version, from any release that publishes `variant` (torchvision 0.29.2, published
    with torch 2.15.0's builds, serves torch 2.14.1 on cu130 but not on cu126).
    """
    lead = pair[family.lead]
    found = {pair[name]} if name in pair else set()
    for other in family.releases:
        published = other.variant(variant.name)
        if published is None:
            continue
        found.update(
            ranged.version
            for ranged in other.ranges
            if ranged.member == name
            and SpecifierSet(ranged.requires).contains(lead, prereleases=True)
            and _published_with(other, published, ranged.version, name)
        )
    return sorted(found, key=Version, reverse=True)


def _published_with(release: Release, variant: Variant, version: str, name: str) -> bool:
    """Whether `variant` of `release` was built with member `name` at `version`."""
    return any(
        pair.get(name) == version and variant.publishes(pair[next(iter(pair))])
        for pair in release.pairs
    )


def member_origin(family: Family, variant: str, name: str, version: str) -> Release | None:
    """The release whose `variant` builds publish member `name` at `version`."""
    for release in family.releases:
        published = release.variant(variant)
        if published is not None and _published_with(release, published, version, name):
            return release
    return None


def _members(family: Family) -> tuple[str, ...]:
    """The family's members, lead first."""
    return (family.lead, *(m for m in family.members if m != family.lead))


def _admitted_sets(
    family: Family,
    release: Release,
    variant: Variant,
    requests: Requests,
    unavailable: Collection[Unavailable] = (),
) -> list[dict[str, str]]:
    """Per lead version of `release`, oldest first, the newest member versions the project allows.

    A lead version drops out when a member the project asks for has no allowed version with it.
    """
    found = (
        _members_at(family, release, variant, pair, requests, unavailable) for pair in release.pairs
    )
    return [members for members in found if isinstance(members, dict)]


def lacking_members(
    family: Family,
    release: Release,
    variant: Variant,
    requests: Requests,
    unavailable: Collection[Unavailable] = (),
) -> list[str]:
    """The members the project asks for that drop every lead version of `release` from
    `variant` (no allowed version of theirs is built for it), lead first; empty where
    `variant` has an admitted version."""
    found = [
        _members_at(family, release, variant, pair, requests, unavailable) for pair in release.pairs
    ]
    if any(isinstance(members, dict) for members in found):
        return []
    lacking = {name for name in found if isinstance(name, str)}
    return [name for name in _members(family) if name in lacking]


def _members_at(
    family: Family,
    release: Release,
    variant: Variant,
    pair: dict[str, str],
    requests: Requests,
    unavailable: Collection[Unavailable],
) -> dict[str, str] | str | None:
    """The newest member versions the project allows with `pair`'s lead version on `variant`;
    else the member the project asks for that has none (the lead, where its own version
    is excluded); None where `variant` is not published, or not served, at that version."""
    lead = pair[family.lead]
    if not variant.publishes(lead) or (family.name, lead, variant.name) in unavailable:
        return None
    label = version_label(family, release, variant)
    members: dict[str, str] = {}
    for name in _members(family):
        deps = requests.get(name, [])
        allowed = (
            v
            for v in _member_versions(family, release, variant, pair, name)
            if all(constraints.allows(dep.constraint, v + label) for dep in deps)
        )
        version = next(allowed, None)
        if version is not None:
            members[name] = version
        elif name in requests:
            return name
    return members


def release_builds(
    family: Family,
    release: Release,
    requests: Requests,
    *,
    python: str | None = None,
    unavailable: Collection[Unavailable] = (),
) -> list[FamilyBuild]:
    """The builds of `release` the constraints admit, each at its newest admitted version;
    `python` is the project's requires-python."""
    gap = python_gap(release.requires_python, python)
    found = []
    for variant in release.variants:
        sets = _admitted_sets(family, release, variant, requests, unavailable)
        if sets:
            found.append(FamilyBuild(release, variant, sets[-1], python_gap=gap))
    return sorted(found, key=FamilyBuild.sort_key, reverse=True)


def admitted_releases(
    family: Family,
    requests: Requests,
    *,
    python: str | None = None,
    unavailable: Collection[Unavailable] = (),
) -> list[list[FamilyBuild]]:
    """The builds of every release the constraints admit, newest release first."""
    found = (
        release_builds(family, r, requests, python=python, unavailable=unavailable)
        for r in reversed(family.releases)
    )
    return [builds for builds in found if builds]


def newest_build(family: Family, requests: Requests, variant: str) -> FamilyBuild | None:
    """The `variant` build of the newest release the constraints admit that publishes it."""
    for builds in admitted_releases(family, requests):
        for build in builds:
            if build.variant.name == variant:
                return build
    return None


def assumed_builds(family: Family, requests: Requests) -> list[FamilyBuild]:
    """Admitted versions newer than the data: assume the newest release's variants."""
    newest = family.releases[-1]
    found = []
    for variant in newest.variants:
        top = _newest_members(family, newest, variant)
        if all(
            constraints.is_open_above(dep.constraint, top[name])
            for name, deps in requests.items()
            if name in top
            for dep in deps
        ):
            found.append(FamilyBuild(newest, variant, top, assumed=True))
    return sorted(found, key=FamilyBuild.sort_key, reverse=True)


def pinned_prerelease(
    family: Family, requests: Requests, pinned: Callable[[Variant], bool]
) -> tuple[str, list[FamilyBuild]]:
    """The pre-release the project pins its lead to exactly (`==3.0.0b2`) on an index of its
    own, and the builds of the known release of its series (or the oldest after it) that
    such an index serves (`pinned`): a pre-release the data does not list, used as pinned.
    ("", []) where the lead has no such pin, or another member asks for a version too."""
    if any(deps for name, deps in requests.items() if name != family.lead):
        return "", []
    exact = {_exact(dep.constraint) for dep in requests[family.lead]} - {None}
    if len(exact) != 1:
        return "", []
    [version] = exact
    assert version is not None
    if not version.is_prerelease:
        return "", []
    later = [r for r in family.releases if r.series_key >= version.release[:2]]
    if not later:
        return "", []
    release = later[0]
    builds = [
        FamilyBuild(release, variant, {family.lead: str(version)}, assumed=True)
        for variant in release.variants
        if pinned(variant)
    ]
    return str(version), sorted(builds, key=FamilyBuild.sort_key, reverse=True)


def _exact(constraint: str) -> Version | None:
    """The one version a constraint pins exactly (`==3.0.0b2`), if it is one such pin."""
    try:
        [specifier] = SpecifierSet(constraint)
        version = Version(specifier.version)
    except (InvalidSpecifier, InvalidVersion, ValueError):
        return None
    return version if specifier.operator in ("==", "===") else None


def _newest_members(family: Family, release: Release, variant: Variant) -> dict[str, str]:
    """The newest version of every member that goes with `release`'s newest lead version."""
    pair = release.pairs[-1]
    found = {}
    for name in _members(family):
        versions = _member_versions(family, release, variant, pair, name)
        if versions:
            found[name] = versions[0]
    return found
