"""Forks: the regions of a resolution a project plans apart, one build each.

A project may offer one build per region rather than one for the whole project: per
extra or dependency group (uv's PyTorch guide has `cpu` and `cu124` extras that `[tool.uv]
conflicts` keeps apart, each taking torch from its own index; Poetry's exclusive extras do
the same with `extra == '...'` markers), or per platform (`torch==2.7.1+cu128; sys_platform
== 'win32'` beside `torch==2.8.0+cu128; sys_platform == 'linux'`). Each such region is a
`Fork`; the requests of one fork never narrow another's. poetry-cuda writes nothing for a
forked family: the authors' entries stand. It plans each fork's build from the requests
that hold there, and names, per target, the fork that fits it best by the rule `sync`
installs by (`compat.best_fit`), among the forks whose environment the target is in: the
highest CUDA version that runs there (natively only, under the `native` policy), the CPU
build where a target has no NVIDIA driver, or on a GPU target no CUDA build runs on with
allow-cpu-fallback. A CPU fork is never given a CUDA build.

A family forks where its extras (or groups) pin at least two variants, or where its
requests admit no common version but do once split by the exclusive extras or groups
(`exclusive`) or by their platform markers.
"""

from __future__ import annotations

import dataclasses

from typing import TYPE_CHECKING
from typing import Literal

from packaging.markers import InvalidMarker
from packaging.markers import Marker
from packaging.markers import UndefinedComparison
from packaging.markers import UndefinedEnvironmentName
from packaging.markers import default_environment

from poetry_cuda.accelerators import PLANNED
from poetry_cuda.accelerators import build_accelerator
from poetry_cuda.knowledge.model import Variant
from poetry_cuda.names import canonical_name
from poetry_cuda.planning.compat import Verdict
from poetry_cuda.planning.compat import arches_of
from poetry_cuda.planning.compat import best_fit
from poetry_cuda.planning.gpu_stacks import stack_refusals
from poetry_cuda.planning.plan import ExtraChoice
from poetry_cuda.records import frozen
from poetry_cuda.request import constraints
from poetry_cuda.request.dependencies import EXTRAS_ORIGIN
from poetry_cuda.request.dependencies import GROUPS_ORIGIN
from poetry_cuda.request.dependencies import scope
from poetry_cuda.request.handwritten import extra_of


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Collection
    from collections.abc import Mapping
    from collections.abc import Sequence

    from poetry_cuda.errors import NoVariantError
    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.planning.candidates import FamilyBuild
    from poetry_cuda.planning.gpu_stacks import GpuStacks
    from poetry_cuda.planning.targets import Target
    from poetry_cuda.request.dependencies import Dependency
    from poetry_cuda.request.handwritten import HandWritten
    from poetry_cuda.request.settings import Settings

    # (the requests, a variant's name) -> that build at the newest release they admit
    Builds = Callable[[dict[str, list[Dependency]], str], FamilyBuild | None]


ForkKind = Literal["extra", "group", "marker"]
# The platforms a marker is judged on: (os as a target says it, machine) -> marker values.
PLATFORMS: dict[tuple[str, str], dict[str, str]] = {
    ("linux", "x86_64"): {
        "sys_platform": "linux",
        "platform_system": "Linux",
        "platform_machine": "x86_64",
        "os_name": "posix",
    },
    ("linux", "aarch64"): {
        "sys_platform": "linux",
        "platform_system": "Linux",
        "platform_machine": "aarch64",
        "os_name": "posix",
    },
    ("windows", "x86_64"): {
        "sys_platform": "win32",
        "platform_system": "Windows",
        "platform_machine": "AMD64",
        "os_name": "nt",
    },
    ("macos", "arm64"): {
        "sys_platform": "darwin",
        "platform_system": "Darwin",
        "platform_machine": "arm64",
        "os_name": "posix",
    },
}


@frozen
class Fork:
    """One region of the resolution planned apart, and the variant its authors ask for."""

    name: str  # the extra's or group's name; a platform fork's marker
    kind: ForkKind
    variant: str
    scope: str | None = None  # its extra or group as `dependencies.scope` says it
    marker: str = ""  # the environments it holds in ("" everywhere)

    def holds(self, dep: Dependency, exclusive: Collection[str]) -> bool:
        """Whether `dep` holds in this fork: not another exclusive extra's or group's, and
        not for a platform outside the fork's."""
        own = scope(dep.origin)
        if own in exclusive and own != self.scope:
            return False
        extra = _extra_name(own) or self.extra_for(dep.marker)
        return any(_holds(dep.marker, platform, extra) for platform in _platforms(self.marker))

    def extra_for(self, marker: str) -> str:
        """The extra to judge `marker` with: this fork's, or on a platform fork the one the
        marker names (its own extra is installed where it is)."""
        return extra_of(marker) or "" if self.kind == "marker" else self.name

    def covers(self, target: Target) -> bool:
        """Whether `target` is in this fork's environments."""
        return covers(self.marker, target)


def covers(marker: str, target: Target) -> bool:
    """Whether `target` is in the environments `marker` holds in."""
    return _holds(marker, environment(target))


def environment(target: Target) -> dict[str, str]:
    """The marker values of `target`'s platform."""
    os, _, machine = target.platform.partition("-")
    found = PLATFORMS.get((os, machine))
    if found is not None:
        return found
    same_os = next(v for (known, _), v in PLATFORMS.items() if known == os)
    return {**same_os, "platform_machine": machine}


def holds_on_linux(marker: str) -> bool:
    """Whether a fork of `marker` takes in a Linux machine."""
    return any(_holds(marker, p) for p in PLATFORMS.values() if p["sys_platform"] == "linux")


def _platforms(marker: str) -> list[dict[str, str]]:
    return (
        [p for p in PLATFORMS.values() if _holds(marker, p)] if marker else list(PLATFORMS.values())
    )


def _holds(marker: str, platform: Mapping[str, str], extra: str = "") -> bool:
    """Whether `marker` holds on `platform` (this Python's version), with `extra` installed."""
    if not marker:
        return True
    try:
        parsed = Marker(marker)
        values = {**default_environment(), **platform, "extra": extra}
        return parsed.evaluate(values)  # type: ignore[arg-type]
    except (InvalidMarker, UndefinedComparison, UndefinedEnvironmentName):
        return True


def _extra_name(scoped: str | None) -> str:
    return "" if scoped is None else scoped.rpartition(" ")[2]


def family_forks(
    family: Family,
    requests: Mapping[str, Sequence[Dependency]],
    hand: HandWritten,
    exclusive: Collection[str],
) -> list[Fork]:
    """The forks of `family` (none: it is planned as one build for the whole project)."""
    extras = hand.extras(family.name)
    deps = [d for found in requests.values() for d in found]
    scopes = [s for s in dict.fromkeys(scope(d.origin) for d in deps) if s in exclusive]
    if extras:
        found = [
            Fork(name, hand.extra_kind(name), variant, _scope_of(name, hand.extra_kind(name)))
            for name, variant in extras.items()
        ]
        # The exclusive extras whose builds the recognised indexes do not show (ROCm, XPU).
        known = {f.scope for f in found}
        others = [_with_variant(f, family, requests, hand, exclusive) for f in _scoped(scopes)]
        return found + [f for f in others if f.scope not in known and _stack(f.variant)]
    agree = _agree(requests, None, exclusive)
    markers = dict.fromkeys(d.marker for d in deps if d.marker and "extra" not in d.marker)
    for split in (_scoped(scopes), [Fork(m, "marker", "", marker=m) for m in markers]):
        forks = [_with_variant(f, family, requests, hand, exclusive) for f in split]
        if len(forks) < 2 or not all(_agree(requests, f, exclusive) for f in forks):
            continue
        # Extras of different builds are forks (uv's guide); platforms only where they must.
        if not agree or (split[0].kind != "marker" and len({f.variant for f in forks}) > 1):
            return forks
    return []


def _scoped(scopes: Sequence[str | None]) -> list[Fork]:
    """A fork, of no variant yet, for each exclusive extra or group."""
    return [Fork(_extra_name(s), _kind_of(s), "", s) for s in scopes if s is not None]


def _labels_build(family: Family, label: str | None) -> bool:
    """Whether `label` names a build of `family`: one its knowledge lists, or ROCm's or XPU's."""
    if label is None:
        return False
    known = {v.name for r in family.releases for v in r.variants}
    return label in known or _stack(label)


def _stack(variant: str) -> bool:
    """Whether `variant` is a ROCm or XPU build (`rocm6.4`, `xpu`)."""
    return build_accelerator(variant, has_cuda=False) not in PLANNED


def _kind_of(scoped: str) -> ForkKind:
    return "group" if scoped.startswith(GROUPS_ORIGIN + " ") else "extra"


def _scope_of(name: str, kind: str) -> str:
    table = GROUPS_ORIGIN if kind == "group" else EXTRAS_ORIGIN
    return f"{table} {canonical_name(name)}"


def _agree(
    requests: Mapping[str, Sequence[Dependency]], fork: Fork | None, exclusive: Collection[str]
) -> bool:
    """Whether each member's requests that hold in `fork` (None: all) admit a common version."""
    return all(
        constraints.compatible(
            [d.constraint for d in deps if fork is None or fork.holds(d, exclusive)]
        )
        for deps in requests.values()
    )


def _with_variant(
    fork: Fork,
    family: Family,
    requests: Mapping[str, Sequence[Dependency]],
    hand: HandWritten,
    exclusive: Collection[str],
) -> Fork:
    """`fork` with the variant its authors ask for: a `+cu128` label of its requests, else
    the hand-written pin that holds there, else the CPU build."""
    for deps in requests.values():
        for dep in deps:
            if fork.holds(dep, exclusive) and _labels_build(family, dep.local_label):
                return dataclasses.replace(fork, variant=dep.local_label or "")
    platforms = _platforms(fork.marker)
    for pin in hand.pins:
        if pin.family != family.name or pin.extra not in (None, fork.name):
            continue
        if any(_holds(pin.marker, p, fork.extra_for(pin.marker)) for p in platforms):
            return dataclasses.replace(fork, variant=pin.variant)
    implicit = hand.implicit(family.name)
    return dataclasses.replace(fork, variant=implicit[0].variant if implicit else "cpu")


def fork_requests(
    requests: dict[str, list[Dependency]], fork: Fork, exclusive: Collection[str]
) -> dict[str, list[Dependency]]:
    """The family's requests that hold in `fork`: the other forks' left out."""
    return {name: [d for d in deps if fork.holds(d, exclusive)] for name, deps in requests.items()}


def plan_extras(
    family: Family,
    requests: dict[str, list[Dependency]],
    targets: Sequence[Target],
    settings: Settings,
    kb: KnowledgeBase,
    forks: Sequence[Fork],
    exclusive: Collection[str],
    build_of: Builds,
    stacks: GpuStacks | None,
) -> tuple[list[ExtraChoice], list[str], dict[str, Variant]]:
    """Each fork of `family` with the targets it fits best, the plan's warnings, and the
    build each fork installs (whose hidden needs the plan records). `stacks`: what is known
    of the ROCm and XPU builds, to judge a ROCm fork on an AMD GPU by its gfx as `sync` does
    (without it, by the GPU's vendor)."""
    scoped = set(exclusive) | {f.scope for f in forks if f.scope is not None}
    found = {
        fork.name: build_of(fork_requests(requests, fork, scoped), fork.variant) for fork in forks
    }
    builds = {name: build.variant for name, build in found.items() if build is not None}
    # A ROCm or XPU fork: its build as its label names it (the knowledge lists CUDA's).
    stack_forks = {
        fork.name: Variant(fork.variant, None)
        for fork in forks
        if found[fork.name] is None
        and build_accelerator(fork.variant, has_cuda=False) not in PLANNED
    }
    builds.update(stack_forks)
    versions = {fork.name: _version(found[fork.name], fork, requests, scoped) for fork in forks}
    best: dict[str, list[str]] = {fork.name: [] for fork in forks}
    why: dict[str, list[str]] = {fork.name: [] for fork in forks}
    beaten: dict[str, list[str]] = {fork.name: [] for fork in forks}  # runs, but not best
    warnings = []
    for target in targets:
        here = {f.name: builds[f.name] for f in forks if f.name in builds and f.covers(target)}
        offered = ", ".join(f.name for f in forks if f.covers(target))
        judged = [(build, versions[name]) for name, build in here.items()]
        refused = {} if stacks is None else stack_refusals(judged, target, stacks)
        fit = _fit(family, here, target, settings, kb, offered, refused)
        if fit.warning is not None:
            warnings.append(fit.warning)
        if fit.extra is None:
            continue
        best[fit.extra].append(target.label)
        why[fit.extra].append(f"{target.label}: {fit.detail}")
        for other in fit.also_runs:
            beaten[other].append(f"{target.label} (where {fit.extra} is newer)")
    choices = []
    for fork in forks:
        build = found[fork.name]
        if build is None and fork.name not in stack_forks:
            reason = f"no {family.lead} release the project allows has a {fork.variant} build"
        elif best[fork.name]:
            reason = "fits " + "; ".join(why[fork.name])
        elif beaten[fork.name]:
            reason = "runs on " + ", ".join(beaten[fork.name])
        elif fork.name in stack_forks:
            reason = f"the {fork.variant} build, for machines with its GPUs; no target has one"
        elif build is not None and build.variant.cuda is None:
            reason = "the CPU build, for machines without an NVIDIA driver; no target is one"
        else:
            reason = "runs on no target"
        choices.append(
            ExtraChoice(
                name=fork.name,
                kind=fork.kind,
                family=family.name,
                variant=fork.variant,
                cuda=build.variant.cuda if build is not None else None,
                arches=arches_of(build.variant) if build is not None else (),
                serves=tuple(best[fork.name]),
                reason=reason,
                marker=fork.marker,
                version=versions[fork.name],
            )
        )
    return choices, warnings, builds


def _version(
    build: FamilyBuild | None,
    fork: Fork,
    requests: dict[str, list[Dependency]],
    exclusive: Collection[str],
) -> str | None:
    """The lead's version planned for `fork`: its build's, or the one its label pin names."""
    if build is not None:
        return None if build.assumed else build.lead_version
    lead = next(iter(requests))
    pins = [d.constraint for d in requests[lead] if fork.holds(d, exclusive)]
    pinned = [c.removeprefix("==").partition("+")[0] for c in pins if c.startswith("==")]
    return pinned[0] if pinned else None


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
    refused: Mapping[int, NoVariantError],
) -> _TargetFit:
    """`best_fit` on `target`: the rule `sync` installs by, with the plan's words for it
    (`offered` names every extra of the family; `refused`, by index, the ROCm and XPU
    builds made for its GPUs that do not serve them, `gpu_stacks.stack_refusals`)."""
    names = list(builds)
    fit = best_fit(
        list(builds.values()),
        target,
        kb.nvidia,
        policy=settings.policy,
        allow_cpu_fallback=settings.allow_cpu_fallback,
        refused={i: Verdict("no", error.said) for i, error in refused.items()},
    )
    unserved = "".join(f"; {error.what}: {error.why}" for error in refused.values())
    if fit.best is None:
        warning = (
            f"{family.lead}: no extra of the project runs on {target.label} ({offered})"
            f"{unserved}; `sync` will refuse to install there"
        )
        return _TargetFit(None, warning=warning)
    extra = names[fit.best]
    if fit.how == "fallback" and refused:
        warning = (
            f"{family.lead}: no extra of the project serves the GPUs of {target.label}"
            f"{unserved}; `sync` installs the CPU build there ({extra}) because "
            "allow-cpu-fallback = true"
        )
        return _TargetFit(extra, f"{unserved[2:]}; allow-cpu-fallback = true", (), warning)
    if fit.how == "cpu":
        return _TargetFit(extra, "no NVIDIA driver: the CPU build")
    if fit.how == "stack":
        return _TargetFit(extra, str(fit.verdicts[fit.best].detail))
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
