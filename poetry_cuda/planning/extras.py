"""Multi-variant projects: one extra (or group) per build, kept as the authors designed it.

uv's PyTorch guide has a project offer `cpu` and `cu124` extras that `[tool.uv] conflicts`
keeps apart, each taking torch from its own index; Poetry's exclusive extras do the same
with `extra == '...'` markers. poetry-cuda writes nothing for such a family. It judges
each extra's build against every target and names, per target, the extra that fits it
best: the highest CUDA version that runs there (natively only, under the `native`
policy), the CPU extra where a target has no NVIDIA driver. A CPU extra is never
given a CUDA build: nothing of poetry-cuda's is pinned across the extras.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.names import canonical_name
from poetry_cuda.planning.compat import judge
from poetry_cuda.planning.plan import ExtraChoice


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
    from poetry_cuda.versions import CudaVersion

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
    builds = {
        extra: build_of(extra_requests(requests, extra, list(extras)), variant)
        for extra, variant in extras.items()
    }
    native_only = settings.policy == "native"
    best: dict[str, list[str]] = {extra: [] for extra in extras}
    why: dict[str, list[str]] = {extra: [] for extra in extras}
    beaten: dict[str, list[str]] = {extra: [] for extra in extras}  # runs, but not best
    warnings = []
    for target in targets:
        cuda_fits: list[tuple[CudaVersion, str, str]] = []
        cpu_fits: list[tuple[str, str]] = []
        for extra, build in builds.items():
            if build is None:
                continue
            if build.cuda is None:
                if not target.runs_cuda:
                    cpu_fits.append((extra, "no NVIDIA driver: the CPU build"))
                continue
            verdict = judge(build, target, kb.nvidia)
            if verdict.ok and not (native_only and verdict.fit == "minor-compatible"):
                driver = f"driver {target.driver} supports CUDA <= {target.cuda}"
                cuda_fits.append((build.cuda, extra, f"{driver}; {verdict.detail}"))
        # The highest CUDA version that runs; a CPU extra where no driver runs any.
        if cuda_fits:
            _, extra, detail = max(cuda_fits, key=lambda fit: fit[0])
            for _, other, _ in cuda_fits:
                if other != extra:
                    beaten[other].append(f"{target.label} (where {extra} is newer)")
        elif cpu_fits:
            extra, detail = cpu_fits[0]
        else:
            warnings.append(
                f"{family.lead}: no extra of the project runs on {target.label} "
                f"({', '.join(extras)}); `sync` will refuse to install there"
            )
            continue
        best[extra].append(target.label)
        why[extra].append(f"{target.label}: {detail}")
    choices = []
    for extra, variant in extras.items():
        build = builds[extra]
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
                arches=_arches(build),
                serves=tuple(best[extra]),
                reason=reason,
            )
        )
    return choices, warnings, {e: build for e, build in builds.items() if build is not None}


def _arches(build: Variant | None) -> tuple[str, ...]:
    if build is None:
        return ()
    return tuple(cc.sm for cc in build.sass) + tuple(
        f"compute_{cc.major}{cc.minor}" for cc in build.ptx
    )
