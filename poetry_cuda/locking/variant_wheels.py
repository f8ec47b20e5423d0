"""Before the package manager runs: the wheel-variant label of each package whose family
the project opts into wheel variants (`Settings.wheel_variants`).

For each such package the plan put on an index, its variant index's project page is read
and the ``{name}-{version}-variants.json`` it lists for the chosen version; the label is
chosen by poetry-cuda's rules (`planning.variant_lock`). A planned build whose label is
another build has no variant wheel for the targets: it is left out and the project planned
again, as a build its index does not serve is (`available`), so cuda.lock records it among
the builds passed over and `lock --check` plans the same. A page or file that cannot be
read is said, and the package's label left unrecorded.
"""

from __future__ import annotations

import time

from typing import TYPE_CHECKING

from poetry_cuda import web
from poetry_cuda.display import redact_url
from poetry_cuda.errors import InputFileError
from poetry_cuda.indexes.listing import files
from poetry_cuda.indexes.listing import page_url
from poetry_cuda.indexes.pages import CHECK_TIMEOUT
from poetry_cuda.indexes.pages import REQUEST_TIMEOUT
from poetry_cuda.indexes.pages import fetch_all
from poetry_cuda.indexes.pages import problem_of
from poetry_cuda.locking.available import MAX_ROUNDS
from poetry_cuda.locking.available import lead_version
from poetry_cuda.messages import message
from poetry_cuda.planning.planner import replanned
from poetry_cuda.planning.variant_lock import metadata_file
from poetry_cuda.planning.variant_lock import pick_variant
from poetry_cuda.planning.variant_lock import public_version
from poetry_cuda.planning.variant_metadata import FILE_LIMIT
from poetry_cuda.planning.variant_metadata import parse_variants_json
from poetry_cuda.planning.variant_release import known_release


if TYPE_CHECKING:
    from collections.abc import Callable

    from poetry_cuda.indexes.pages import Page
    from poetry_cuda.messages import Localized
    from poetry_cuda.planning.plan import Choice
    from poetry_cuda.planning.planner import Planned
    from poetry_cuda.planning.variant_lock import VariantPick
    from poetry_cuda.planning.variant_metadata import VariantMetadata


def choose_variants(
    planned: Planned,
    notify: Callable[[Localized], None],
    get: Callable[[str, float], Page] | None = None,
) -> tuple[Planned, dict[str, VariantPick]]:
    """`planned` (planned again without the builds that have no variant wheel for the
    targets) and, per package, the label cuda.lock records; what was left out said."""
    picks: dict[str, VariantPick] = {}
    for _ in range(MAX_ROUNDS):
        picks = _picks(planned, notify, get)
        astray = [pick for pick in picks.values() if not pick.matches]
        if not astray:
            break
        excluded = set(planned.unavailable)
        for pick in astray:
            choice = planned.plan.choice(pick.package)
            lead = lead_version(planned, choice) if choice is not None else None
            if choice is None or lead is None:
                continue
            excluded.add((choice.family, lead, choice.variant))
            notify(
                f"{pick.package} {choice.variant} has no variant wheel for the targets (their "
                f"label is {pick.label}): planning again without it"
            )
        if excluded == planned.unavailable:
            break
        planned = replanned(planned, planned.pyproject, frozenset(excluded))
    # Only labels of the builds the plan now has (after the last round, it may have others).
    now = {choice.name: choice.variant for choice in planned.plan.packages}
    kept = {n: pick for n, pick in picks.items() if pick.matches and now.get(n) == pick.variant}
    audit = {str(line): line for pick in kept.values() for line in pick.audit}  # each once
    for line in audit.values():
        notify(message("label.audit", text=line))
    return planned, kept


def _picks(
    planned: Planned,
    notify: Callable[[Localized], None],
    get: Callable[[str, float], Page] | None,
) -> dict[str, VariantPick]:
    opted = planned.settings.wheel_variants
    chosen = [
        c for c in planned.plan.packages if c.family in opted and public_version(c) is not None
    ]
    wanted = {c.name: page_url(opted[c.family], c.name, "simple") for c in chosen}
    pages = fetch_all(wanted.values(), get, limit=CHECK_TIMEOUT)
    picks = {}
    for choice in chosen:
        page = pages[wanted[choice.name]]
        metadata = _metadata(choice, page, notify)
        if metadata is None:
            continue
        family = next((f for f in planned.kb.families if f.name == choice.family), None)
        picks[choice.name] = pick_variant(
            choice,
            metadata,
            planned.targets,
            planned.kb.nvidia,
            release=known_release(family, public_version(choice) or ""),
            policy=planned.plan.policy,
            allow_cpu_fallback=planned.settings.allow_cpu_fallback,
        )
    return picks


def _metadata(
    choice: Choice, page: Page, notify: Callable[[Localized], None]
) -> VariantMetadata | None:
    """The variant metadata `page` lists for `choice`'s version; None, said, where there
    is none to read."""
    where = redact_url(page.url)
    if page.problem is not None:
        notify(
            f"could not read {where}: {page.problem}; no variant label recorded for {choice.name}"
        )
        return None
    name = metadata_file(choice.name, public_version(choice) or "")
    url = files(page.anchors, page.base).get(name)
    if url is None:
        notify(f"{where} lists no {name}: no variant label recorded for {choice.name}")
        return None
    try:
        body = web.read(url, limit=FILE_LIMIT, deadline=time.monotonic() + REQUEST_TIMEOUT)
    except web.WebError as failure:
        said = problem_of(failure, REQUEST_TIMEOUT)
        notify(
            f"could not read {redact_url(url)} ({said}): no variant label recorded for {choice.name}"
        )
        return None
    try:
        return parse_variants_json(body.data, redact_url(url))
    except InputFileError as error:
        notify(f"{error.what}: no variant label recorded for {choice.name}")
        return None
