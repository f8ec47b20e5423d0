"""Assembling the plan: each family the project uses chosen, the fixed flavours checked.

For every package family the project depends on (torch with torchvision, paddle, ...),
`choice` picks one build for all its members, and each member becomes a `Choice` with
its version, label and index; a multi-variant project's family (extras per CUDA build)
is judged per target instead (`extras`). Packages whose CUDA flavour the project names
itself (`cupy-cuda12x`, `jax[cuda12]`) are checked (`flavours`), and the hidden system
requirements of every choice are collected last. Pure: `planner` does the I/O around it.
"""

from __future__ import annotations

import dataclasses

from functools import partial
from typing import TYPE_CHECKING

from poetry_cuda.planning.adoption import adopted_source
from poetry_cuda.planning.adoption import request_for
from poetry_cuda.planning.candidates import family_requests
from poetry_cuda.planning.candidates import member_origin
from poetry_cuda.planning.candidates import newest_build
from poetry_cuda.planning.candidates import version_label
from poetry_cuda.planning.choice import choose_family
from poetry_cuda.planning.compat import arches_of
from poetry_cuda.planning.extras import family_forks
from poetry_cuda.planning.extras import plan_extras
from poetry_cuda.planning.flavours import build_requirements
from poetry_cuda.planning.flavours import from_data
from poetry_cuda.planning.flavours import select_fixed
from poetry_cuda.planning.gpu_stacks import decide_stack
from poetry_cuda.planning.gpu_stacks import needs_stack
from poetry_cuda.planning.plan import PYPI
from poetry_cuda.planning.plan import Availability
from poetry_cuda.planning.plan import Choice
from poetry_cuda.planning.plan import Plan
from poetry_cuda.planning.plan import Source
from poetry_cuda.planning.targets import unplanned_warnings
from poetry_cuda.records import frozen
from poetry_cuda.request import constraints
from poetry_cuda.request.handwritten import HandWritten


if TYPE_CHECKING:
    from collections.abc import Collection
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.messages import Localized
    from poetry_cuda.planning.candidates import FamilyBuild
    from poetry_cuda.planning.candidates import Requests
    from poetry_cuda.planning.candidates import Unavailable
    from poetry_cuda.planning.choice import Chosen
    from poetry_cuda.planning.extras import Fork
    from poetry_cuda.planning.gpu_stacks import GpuStacks
    from poetry_cuda.planning.gpu_stacks import StackBuild
    from poetry_cuda.planning.plan import ExtraChoice
    from poetry_cuda.planning.plan import SystemRequirement
    from poetry_cuda.planning.targets import Target
    from poetry_cuda.request.dependencies import Dependency
    from poetry_cuda.request.settings import Settings

    # What a family adds to the plan: its choices or extras, warnings, system requirements,
    # and the targets whose AMD or Intel GPUs it decided for (`gpu_stacks`).
    Part = tuple[
        list[Choice], list[ExtraChoice], list[Localized], list[SystemRequirement], tuple[str, ...]
    ]


def make_plan(
    deps: Sequence[Dependency],
    targets: Sequence[Target],
    settings: Settings,
    kb: KnowledgeBase,
    hand: HandWritten | None = None,
    unavailable: Collection[Unavailable] = (),
    *,
    python: str | None = None,
    stacks: GpuStacks | None = None,
    exclusive: Collection[str] = (),
) -> Plan:
    """The plan for `deps` on `targets`; `hand` is the project's own CUDA configuration.

    `python` is the project's requires-python (`request.python.project_python`): a release
    whose Requires-Python leaves out a Python it admits is passed over. `unavailable`: the
    builds, as (family, lead version, variant), an index was found to lack (lock reads the
    index pages): no family chooses them (`choice.choose_family`). `stacks`: what is known
    of the ROCm and XPU builds, for targets with AMD or Intel GPUs (`gpu_stacks`); without
    it those targets get CPU builds. `exclusive`: the extras and groups the project declares
    mutually exclusive (`dependencies.exclusive`), whose requests never narrow each other.
    """
    hand = HandWritten() if hand is None else hand
    exclusive = frozenset(exclusive)
    for dep in deps:
        constraints.check(dep.constraint, f"{dep.origin}: {dep.name}")
    choices: list[Choice] = []
    extras: list[ExtraChoice] = []
    warnings: list[Localized] = []
    requirements: list[SystemRequirement] = []
    decided: set[str] = set()
    for family in kb.families:
        if not any(d.name in family.members or d.name in family.companions for d in deps):
            continue
        requests = family_requests(family, deps)
        forks = family_forks(family, requests, hand, exclusive)
        if forks:
            part = _family_extras(family, requests, targets, settings, kb, forks, exclusive, stacks)
        else:
            scope = _Scope(python, tuple(unavailable), stacks)
            part = _family_choices(family, requests, deps, targets, settings, kb, hand, scope)
        choices += part[0]
        extras += part[1]
        warnings += part[2]
        requirements += part[3]
        decided.update(part[4])
    fixed, fixed_requirements, fixed_warnings = select_fixed(deps, targets, kb, python)
    choices += fixed
    requirements += fixed_requirements
    warnings += fixed_warnings
    requirements += build_requirements(deps, choices, settings, kb)
    no_driver = [t.label for t in targets if t.os != "macos" and not t.runs_cuda]
    if no_driver and any(c.cuda is not None for c in choices):
        warnings.append(
            f"{', '.join(no_driver)}: no NVIDIA driver; the CUDA builds chosen for the other "
            "targets install there too and run on the CPU"
        )
    for target in targets:
        if target.label not in decided:
            warnings += unplanned_warnings(target)
    return Plan(
        policy=settings.policy,
        targets=tuple(t.label for t in targets),
        packages=tuple(choices),
        system_requirements=tuple(dict.fromkeys(requirements)),
        warnings=tuple(warnings),
        extras=tuple(extras),
    )


def _family_extras(
    family: Family,
    requests: Requests,
    targets: Sequence[Target],
    settings: Settings,
    kb: KnowledgeBase,
    forks: Sequence[Fork],
    exclusive: Collection[str],
    stacks: GpuStacks | None,
) -> Part:
    """A forked family: its forks judged per target, and the hidden needs of the build each
    installs."""
    build_of = partial(newest_build, family)
    found, warnings, builds = plan_extras(
        family, requests, targets, settings, kb, forks, exclusive, build_of, stacks
    )
    requirements = [
        dataclasses.replace(from_data(family.lead, r), reason=f"the {extra} extra: {r.reason}")
        for extra, build in builds.items()
        for r in build.requirements
    ]
    said: list[Localized] = list(warnings)
    # The AMD and Intel targets a ROCm or XPU fork was judged on: the forks speak for them.
    offered = {build.accelerator for build in builds.values()}
    decided = tuple(
        t.label
        for t in targets
        if needs_stack(t) and any(gpu.accelerator in offered for gpu in t.profile.gpus)
    )
    return [], found, said, requirements, decided


@frozen
class _Scope:
    """What narrows a family's candidates besides its constraints (see `make_plan`)."""

    python: str | None
    unavailable: tuple[Unavailable, ...]
    stacks: GpuStacks | None


def _family_choices(
    family: Family,
    requests: Requests,
    deps: Sequence[Dependency],
    targets: Sequence[Target],
    settings: Settings,
    kb: KnowledgeBase,
    hand: HandWritten,
    scope: _Scope,
) -> Part:
    """One build chosen for the family, and a `Choice` for each member and companion the
    project declares (the lead always); the torch family's ROCm or XPU build where the
    targets' GPUs are AMD's or Intel's (`gpu_stacks`)."""
    request = request_for(family, settings, hand)
    decision = None
    if scope.stacks is not None and request.kind == "auto":
        decision = decide_stack(
            family,
            requests,
            targets,
            scope.stacks,
            scope.unavailable,
            python=scope.python,
            allow_cpu_fallback=settings.allow_cpu_fallback,
            asked={i.variant for i in hand.indexes if i.family == family.name},
        )
    decided = () if decision is None else decision.decided
    stack_warnings: list[Localized] = [] if decision is None else list(decision.warnings)
    if decision is not None and decision.chosen is not None:
        choices = _stack_choices(family, decision.chosen, requests, settings, hand)
        return choices, [], stack_warnings, [], decided
    chosen = choose_family(
        family, requests, targets, settings, kb, request, scope.unavailable, python=scope.python
    )
    build = chosen.build
    index = source_for(family, build, settings, targets)
    source = adopted_source(family, build.variant.name, index, hand)
    # PyPI's own uploads carry no local label (its macOS torch is plain 2.5.1), also where
    # the authors' index of the variant serves them.
    label = "" if index.is_pypi else version_label(family, build.release, build.variant)
    requirements = [from_data(family.lead, r) for r in build.variant.requirements]
    names = list(requests) + _planned_companions(family, deps, hand)
    declared = [d for d in deps if d.name in names]
    choices = [_member(name, family, chosen, source, label, declared) for name in names]
    return choices, [], [*stack_warnings, *chosen.warnings], requirements, decided


def _planned_companions(family: Family, deps: Sequence[Dependency], hand: HandWritten) -> list[str]:
    """The family's companions the project declares, planned with the build: not one the
    authors declare only for some environments (`triton==3.2.0; sys_platform == 'linux'`),
    pin to no index and whose builds carry no label. That one stays as they wrote it, from
    their index and for their platforms, never widened to the build's (Windows takes
    triton-windows)."""
    declared: dict[str, list[Dependency]] = {}
    for dep in deps:
        if dep.name in family.companions:
            declared.setdefault(dep.name, []).append(dep)
    pinned = {pin.package for pin in hand.pins}
    return sorted(
        name
        for name, found in declared.items()
        if family.labels(name) or name in pinned or not all(d.marker for d in found)
    )


def _stack_choices(
    family: Family,
    chosen: StackBuild,
    requests: Requests,
    settings: Settings,
    hand: HandWritten,
) -> list[Choice]:
    """A `Choice` of the ROCm or XPU build for each member the project asks for (the lead
    always), and of the packages only the build's index serves, from the family's index of
    the variant or its mirror."""
    plan, build = chosen.plan, chosen.build
    assert plan.variant is not None
    index = family_index(family, plan.variant, settings)
    assert index is not None  # the torch family has an index
    source = adopted_source(family, plan.variant, index, hand)
    choices = []
    for member, deps in requests.items():
        plain = build.members.get(member)
        label = f"+{plan.variant}" if family.labels(member) else ""
        version = None if plain is None else plain + label
        lead = member == family.lead
        choices.append(
            Choice(
                name=member,
                family=family.name,
                variant=plan.variant,
                cuda=None,
                source=source,
                version=version,
                arches=chosen.arches,
                reason=chosen.reason,
                label=label,
                bound=chosen.bound,
                optional=bool(deps) and all(d.optional for d in deps),
                requires_python=build.release.requires_python if lead else None,
                availability=None
                if version is None or not lead
                else _stack_availability(plan.accelerator, version, chosen),
            )
        )
    choices.extend(
        Choice(
            name=name,
            family=family.name,
            variant=plan.variant,
            cuda=None,
            source=source,
            version=None,  # the build's own pin decides it
            arches=(),
            reason=chosen.reason,
        )
        for name in chosen.companions
        if name not in requests
    )
    return choices


def _stack_availability(accelerator: str, version: str, chosen: StackBuild) -> Availability:
    """The fact that the lead's ROCm or XPU build is published, as the knowledge has it."""
    fact = f"torch {version} is published on the {chosen.plan.variant} index"
    if accelerator == "rocm":
        fact += f", built for {', '.join(chosen.arches)}"
    return Availability(fact, chosen.source, chosen.confidence)


def _member(
    name: str,
    family: Family,
    chosen: Chosen,
    source: Source,
    label: str,
    declared: list[Dependency],
) -> Choice:
    """The choice of one member (or companion) of the family's chosen build."""
    build = chosen.build
    asked = [d for d in declared if d.name == name] or declared  # the lead, undeclared
    plain = build.members.get(name)
    # triton and xformers come from the variant's index as one unlabelled wheel.
    own = label if family.labels(name) else ""
    lead = name == family.lead
    return Choice(
        name=name,
        family=family.name,
        variant=build.variant.name,
        cuda=build.variant.cuda,
        source=source,
        version=None if plain is None or build.assumed else plain + own,
        arches=arches_of(build.variant),
        reason=chosen.reason,
        label=own,
        bound=chosen.bounds.get(name, ""),
        optional=bool(asked) and all(d.optional for d in asked),
        requires_python=build.release.requires_python if lead else None,
        availability=None if plain is None else _availability(family, build, name, plain + own),
    )


def _availability(family: Family, build: FamilyBuild, name: str, version: str) -> Availability:
    """The fact that `name` at `version` is published in the chosen build, and its source."""
    variant, release = build.variant, build.release
    platforms = ", ".join(variant.platforms) or "every platform"
    if name == family.lead:
        only = f" ({', '.join(variant.versions)} only)" if variant.versions else ""
        fact = f"{name} {version} is published for {platforms}{only}"
        return Availability(fact, variant.source or release.source, variant.confidence)
    plain = build.members[name]
    origin = member_origin(family, variant.name, name, plain) or release
    ranged = next((r for r in origin.ranges if r.member == name and r.version == plain), None)
    if ranged is None:
        fact = f"{name} {version} is published with {family.lead} {build.lead_version}"
    else:
        fact = (
            f"{name} {version} requires {family.lead}{ranged.requires} (a stable-ABI build) "
            f"and is published on {variant.name} with {family.lead} {origin.series}"
        )
    return Availability(fact, origin.source, origin.confidence)


def source_for(
    family: Family, build: FamilyBuild, settings: Settings, targets: Sequence[Target]
) -> Source:
    """The index that serves `build`: PyPI for PyPI's own upload (and macOS's CPU build),
    else the family's index of the variant, or its mirror."""
    variant = build.variant
    if variant.accelerator == "cpu" and all(t.os == "macos" for t in targets):
        return PYPI
    if (
        version_label(family, build.release, variant) == ""
        and variant.name in build.release.pypi.values()
    ):
        return PYPI
    return family_index(family, variant.name, settings) or PYPI


def family_index(family: Family, variant: str, settings: Settings) -> Source | None:
    """The family's index of `variant`, or the mirror the project set for the family
    (None: the family has no index of its own)."""
    mirror = settings.mirrors.get(family.mirror_key or "")
    url = family.index_url(variant, mirror.template if mirror else None)
    if url is None:
        return None
    return Source(family.source_name(variant, url, mirrored=mirror is not None), url)
