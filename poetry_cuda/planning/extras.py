"""Multi-variant projects: one extra (or group) per build, kept as the authors designed it.

uv's PyTorch guide has a project offer `cpu` and `cu124` extras that `[tool.uv] conflicts`
keeps apart, each taking torch from its own index; Poetry's exclusive extras do the same
with `extra == '...'` markers. poetry-cuda writes nothing for such a family. It judges
each extra's build against every target and names, per target, the extra that fits it
best by the rule `sync` installs by (`compat.best_fit`): the highest CUDA version that
runs there (natively only, under the `native` policy), the CPU extra where a target has
no NVIDIA driver, or on a GPU target no CUDA extra runs on with allow-cpu-fallback. A
CPU extra is never given a CUDA build: nothing of poetry-cuda's is pinned across the
extras.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.names import canonical_name
from poetry_cuda.planning.compat import arches_of
from poetry_cuda.planning.compat import best_fit
from poetry_cuda.planning.plan import ExtraChoice
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.knowledge.model import Variant
    from poetry_cuda.planning.targets import Target
    from poetry_cuda.request.dependencies import Dependency
    from poetry_cuda.request.handwritten import HandWritten
    from poetry_cuda.request.settings import Settings

    # (the requests, a variant's name) -> that build at the newest release they admit
    Builds = Callable[[dict[str, list[Dependency]], str], Variant | None]


EXTRAS_TABLE = "[project.optional-dependencies]"


def extra_requests(
    requests: dict[str, list[Dependency]], extra: str, extras: Sequence[str]
) -> dict[str, list[Dependency]]:
    """The family's requests that hold when `extra` is installed: the others' left out."""
    others = {f"{EXTRAS_TABLE} {name}" for name in extras if name != extra}
    return {name: [d for d in deps if not _in(d.origin, others)] for name, deps in requests.items()}


def _in(origin: str, others: set[str]) -> bool:
    head, _, extra = origin.rpartition(" ")
    return f"{head} {canonical_name(extra)}" in others


def plan_extras(
    family: Family,
    requests: dict[str, list[Dependency]],
    targets: Sequence[Target],
    settings: Settings,
    kb: KnowledgeBase,
    hand: HandWritten,
    build_of: Builds,
) -> tuple[list[ExtraChoice], list[str], dict[str, Variant]]:
    """Each extra of `family` with the targets it fits best, the plan's warnings, and the
    build each extra installs (whose hidden needs the plan records)."""
    extras = hand.extras(family.name)
    found = {
        extra: build_of(extra_requests(requests, extra, list(extras)), variant)
        for extra, variant in extras.items()
    }
    builds = {extra: build for extra, build in found.items() if build is not None}
    best: dict[str, list[str]] = {extra: [] for extra in extras}
    why: dict[str, list[str]] = {extra: [] for extra in extras}
    beaten: dict[str, list[str]] = {extra: [] for extra in extras}  # runs, but not best
    warnings = []
    for target in targets:
        fit = _fit(family, builds, target, settings, kb, ", ".join(extras))
        if fit.warning is not None:
            warnings.append(fit.warning)
        if fit.extra is None:
            continue
        best[fit.extra].append(target.label)
        why[fit.extra].append(f"{target.label}: {fit.detail}")
        for other in fit.also_runs:
            beaten[other].append(f"{target.label} (where {fit.extra} is newer)")
    choices = []
    for extra, variant in extras.items():
        build = found[extra]
        if build is None:
            reason = f"no {family.lead} release the project allows has a {variant} build"
        elif best[extra]:
            reason = "fits " + "; ".join(why[extra])
        elif beaten[extra]:
            reason = "runs on " + ", ".join(beaten[extra])
        elif build.cuda is None:
            reason = "the CPU build, for machines without an NVIDIA driver; no target is one"
        else:
            reason = "runs on no target"
        choices.append(
            ExtraChoice(
                name=extra,
                kind=hand.extra_kind(extra),
                family=family.name,
                variant=variant,
                cuda=build.cuda if build is not None else None,
                arches=arches_of(build) if build is not None else (),
                serves=tuple(best[extra]),
                reason=reason,
            )
        )
    return choices, warnings, builds


@frozen
class _TargetFit:
    """The extra that fits one target best (None: none does), why, the other extras that
    run there too, and what to warn about."""

    extra: str | None
    detail: str = ""
    also_runs: tuple[str, ...] = ()
    warning: str | None = None


def _fit(
    family: Family,
    builds: dict[str, Variant],
    target: Target,
    settings: Settings,
    kb: KnowledgeBase,
    offered: str,
) -> _TargetFit:
    """`best_fit` on `target`: the rule `sync` installs by, with the plan's words for it
    (`offered` names every extra of the family)."""
    names = list(builds)
    fit = best_fit(
        list(builds.values()),
        target,
        kb.nvidia,
        policy=settings.policy,
        allow_cpu_fallback=settings.allow_cpu_fallback,
    )
    if fit.best is None:
        warning = (
            f"{family.lead}: no extra of the project runs on {target.label} ({offered}); "
            "`sync` will refuse to install there"
        )
        return _TargetFit(None, warning=warning)
    extra = names[fit.best]
    if fit.how == "cpu":
        return _TargetFit(extra, "no NVIDIA driver: the CPU build")
    driver = f"driver {target.driver} supports CUDA <= {target.cuda}"
    if fit.how == "fallback":
        warning = (
            f"{family.lead}: no CUDA extra runs on {target.label}; `sync` installs the CPU "
            f"build there ({extra}) because allow-cpu-fallback = true"
        )
        detail = f"no CUDA extra runs there ({driver}); allow-cpu-fallback = true"
        return _TargetFit(extra, detail, (), warning)
    runs = [n for n, v in zip(names, fit.verdicts, strict=True) if v.ok and v.fit != "cpu"]
    detail = f"{driver}; {fit.verdicts[fit.best].detail}"
    return _TargetFit(extra, detail, tuple(n for n in runs if n != extra))
