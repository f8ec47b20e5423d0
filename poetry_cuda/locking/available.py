"""Before the package manager runs: whether the indexes serve the chosen builds.

`lock` reads, for every package the plan puts on an index of its own, the page the package
manager is about to read anyway (one request per page, all pages at once, through the
configured mirror, and through this user's mirror where `POETRY_CUDA_MIRROR_<FAMILY>` redirects
Poetry, within `plan --check-index`'s limits). A chosen build is served when the
page lists a wheel of the chosen version for every target's platform that the project's
oldest admitted Python installs. A build that is not is left out and the project planned
again (`unavailable`): the next candidate, said as a fallback, instead of a lock the package
manager fails. A page that cannot be read decides nothing: it is said, and the lock goes on
as planned (the package manager reports what it finds). `plan` itself stays offline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from packaging.version import InvalidVersion
from packaging.version import Version

from poetry_cuda.display import redact_url
from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.host.profiles import canonical_machine
from poetry_cuda.indexes.listing import layout_of
from poetry_cuda.indexes.listing import page_url
from poetry_cuda.indexes.listing import wheels
from poetry_cuda.indexes.pages import CHECK_TIMEOUT
from poetry_cuda.indexes.pages import fetch_all
from poetry_cuda.locking.duplicates import pythons
from poetry_cuda.messages import message
from poetry_cuda.planning.planner import replanned
from poetry_cuda.planning.user_mirrored import through_mirrors
from poetry_cuda.planning.user_mirrored import user_redirects
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping
    from collections.abc import Sequence
    from typing import Any

    from poetry_cuda.indexes.pages import Page
    from poetry_cuda.messages import Localized
    from poetry_cuda.messages import Message
    from poetry_cuda.planning.plan import Choice
    from poetry_cuda.planning.planner import Planned


# How many times one lock plans again: each round leaves out at least one build.
MAX_ROUNDS = 5


@frozen
class Missing:
    """A chosen build an index does not serve, and what it lacks."""

    choice: Choice
    lead: str  # the family's lead version of the build, plain: 2.5.1
    lacks: Message  # "no wheel for linux-x86_64 and Python 3.11", "it lists no 2.5.1+cu124 wheel"

    @property
    def key(self) -> tuple[str, str, str]:
        """The build, as the planner's `unavailable` names it."""
        return (self.choice.family, self.lead, self.choice.variant)


def confirm_available(
    planned: Planned,
    notify: Callable[[Localized], None],
    environ: Mapping[str, str],
    get: Callable[[str, float], Page] | None = None,
) -> Planned:
    """`planned`, or the plan made without the chosen builds its indexes do not serve;
    every fallback and every page that could not be read said through `notify`.

    `environ` holds this user's mirrors (`POETRY_CUDA_MIRROR_<FAMILY>`): a redirected
    source's page is read from the mirror, as the package manager reads it.
    """
    said: set[str] = set()
    for _ in range(MAX_ROUNDS):
        missing = _missing(planned, environ, get, notify, said)
        if not missing:
            return planned
        excluded = planned.unavailable | {m.key for m in missing}
        try:
            again = replanned(planned, planned.pyproject, excluded)
        except PoetryCudaError as refused:
            for m in missing:
                notify(message("available.no-other", missing=_said(m), why=refused.what))
            return planned
        for m in missing:
            instead = again.plan.choice(m.choice.name)
            other = instead.version or instead.variant if instead is not None else "nothing"
            notify(message("available.fallback", missing=_said(m), other=other))
        planned = again
    return planned


def _said(missing: Missing) -> Message:
    choice = missing.choice
    where = redact_url(choice.source.url)
    return message(
        "available.missing",
        name=choice.name,
        version=choice.version,
        where=where,
        lacks=missing.lacks,
    )


def _missing(
    planned: Planned,
    environ: Mapping[str, str],
    get: Callable[[str, float], Page] | None,
    notify: Callable[[Localized], None],
    said: set[str],
) -> list[Missing]:
    """The chosen builds whose index page, read now where the package manager reads it,
    lacks them."""
    mirrors = planned.settings.mirrors.values()
    indexed = [c for c in planned.plan.packages if not c.source.is_pypi and c.version is not None]
    fetched = through_mirrors(indexed, user_redirects(indexed, planned.kb.families, environ))
    checked = [
        (choice, page_url(choice.source.url, choice.name, layout_of(choice.source.url, mirrors)))
        for choice in fetched
    ]
    pages = fetch_all((url for _, url in checked), get, limit=CHECK_TIMEOUT)
    python = _oldest_python(planned.pyproject)
    platforms = sorted(
        {(t.os, canonical_machine(t.profile.machine)) for t in planned.targets if t.os != "macos"}
    )
    found = []
    for choice, url in checked:
        page = pages[url]
        if page.problem is not None:
            text = message(
                "available.unchecked",
                url=redact_url(url),
                name=choice.name,
                version=choice.version,
                problem=page.problem,
            )
            if str(text) not in said:
                said.add(str(text))
                notify(text)
            continue
        lead = lead_version(planned, choice)
        lacks = _lacks(choice, page, platforms, python) if lead is not None else None
        if lacks is not None and lead is not None:
            found.append(Missing(choice, lead, lacks))
    return found


def lead_version(planned: Planned, choice: Choice) -> str | None:
    """The plain version of the lead of `choice`'s family build (None: no family's)."""
    family = next((f for f in planned.kb.families if f.name == choice.family), None)
    lead = planned.plan.choice(family.lead) if family is not None else None
    if lead is None or lead.version is None or lead.variant != choice.variant:
        return None
    return lead.version.removesuffix(lead.label) if lead.label else lead.version


def _lacks(
    choice: Choice, page: Page, platforms: Sequence[tuple[str, str]], python: str | None
) -> Message | None:
    """What the page lacks of `choice` for the targets' platforms and `python`; None: nothing."""
    try:
        wanted = Version(choice.version or "")
    except InvalidVersion:
        return None
    listed = [
        w for w in wheels(page.anchors, page.base, choice.name) if Version(w.version) == wanted
    ]
    if not listed:
        return message("available.no-version", version=choice.version)
    for os, machine in platforms:
        fits = [w for w in listed if w.serves_platform(os, machine)]
        if not fits:
            return message("available.no-platform", platform=f"{os}-{machine}")
        if python is not None and not any(w.serves_python(python) for w in fits):
            return message("available.no-python", platform=f"{os}-{machine}", python=python)
    return None


def _oldest_python(pyproject: Mapping[str, Any]) -> str | None:
    """The oldest Python the project admits (None: it says none), which uv locks for too."""
    project = pyproject.get("project")
    said = project.get("requires-python") if isinstance(project, dict) else None
    if not isinstance(said, str):
        tool = pyproject.get("tool")
        poetry = tool.get("poetry") if isinstance(tool, dict) else None
        deps = poetry.get("dependencies") if isinstance(poetry, dict) else None
        said = deps.get("python") if isinstance(deps, dict) else None
    return pythons(said)[0] if isinstance(said, str) and said.strip() else None
