"""Choosing a family's build: the newest admitted release with a build that runs on every target.

The releases the project's constraints admit (`candidates`) are tried newest first, and
within a release the builds by CUDA version, highest first (`first_runnable`): the first
that runs on every GPU target wins (`newest` policy; `native` drops minor-compatible
ones). The newer releases passed over are warned about and bound the pins. Without a
GPU target, or when the project asks for it, the CPU build is chosen; with
allow-cpu-fallback, also when no CUDA build runs. Every choice says why it won and why
the build ranked just above it lost; when nothing can be chosen, `refusals` says why.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING

from packaging.version import Version

from poetry_cuda.accelerators import stack_name
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import message
from poetry_cuda.planning.candidates import admitted_releases
from poetry_cuda.planning.candidates import assumed_builds
from poetry_cuda.planning.candidates import lacking_members
from poetry_cuda.planning.candidates import pinned_prerelease
from poetry_cuda.planning.compat import judge
from poetry_cuda.planning.refusals import Loss
from poetry_cuda.planning.refusals import no_cpu_build
from poetry_cuda.planning.refusals import no_release
from poetry_cuda.planning.refusals import no_variant
from poetry_cuda.planning.refusals import passed_over
from poetry_cuda.planning.refusals import python_clause
from poetry_cuda.planning.refusals import python_refusal
from poetry_cuda.planning.refusals import unmatched_request
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Collection
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.knowledge.model import Variant
    from poetry_cuda.messages import Localized
    from poetry_cuda.messages import Message
    from poetry_cuda.planning.candidates import FamilyBuild
    from poetry_cuda.planning.candidates import Requests
    from poetry_cuda.planning.candidates import Unavailable
    from poetry_cuda.planning.compat import Verdict
    from poetry_cuda.planning.refusals import Passed
    from poetry_cuda.planning.targets import Target
    from poetry_cuda.request.settings import CudaRequest
    from poetry_cuda.request.settings import Settings


@frozen
class Chosen:
    """A family's winning build, why it won, what to warn about, and the pins' bounds."""

    build: FamilyBuild
    reason: Localized
    warnings: tuple[Localized, ...]
    bounds: dict[str, str] = field(default_factory=dict)  # member -> PEP 440 specifier


@frozen
class Search:
    """The first build that runs on every GPU target (None: none does), the builds of its
    release that lost before it, and the newer releases passed over."""

    build: FamilyBuild | None
    lost: list[Loss]
    passed: Passed


def choose_family(
    family: Family,
    requests: Requests,
    targets: Sequence[Target],
    settings: Settings,
    kb: KnowledgeBase,
    request: CudaRequest,
    unavailable: Collection[Unavailable] = (),
    *,
    python: str | None = None,
) -> Chosen:
    """The newest admitted release with a build that runs on every target, and its best build.

    `request` is what is asked of the family: the cuda setting, or the project's own pin.
    `unavailable` holds the builds, as (family, lead version, variant), an index was found
    not to serve: never chosen (the same variant's older lead versions still may be).
    `python` is the project's requires-python.
    """
    releases, warnings = _releases(family, requests, python, unavailable, request)
    gpu_targets = [t for t in targets if t.runs_cuda]
    cpu = next(
        (b for builds in releases for b in builds if b.variant.is_cpu and not b.python_gap), None
    )
    if not (request.kind == "version" or (request.kind == "auto" and gpu_targets)):
        if cpu is None:
            refused = [b for builds in releases for b in builds if b.variant.is_cpu]
            if refused:  # there is a CPU build, for other Pythons than the project's
                raise python_refusal(family, requests, refused, python)
            raise no_cpu_build(family, request)
        skipped = [b for builds in releases for b in builds[:1] if b.python_gap]
        warnings.extend(
            passed_over(family.lead, b.release.series, python_clause(b))
            for b in skipped
            if b.release.series_key > cpu.release.series_key
        )
        bounds = _bounds(family, cpu, requests) if skipped else {}
        return Chosen(cpu, _cpu_reason(targets, request), tuple(warnings), bounds)
    unmatched = unmatched_request(family, request, releases)
    if unmatched is not None:
        raise unmatched
    native_only = settings.policy == "native"
    search = first_runnable(releases, gpu_targets, kb, request, native_only=native_only)
    if search.build is not None:
        if not gpu_targets:
            warnings.append(
                message(
                    "passed.chose-as-asked", variant=search.build.variant.name, said=request.said
                )
            )
        over = _passed_over(
            family, search.passed, gpu_targets, native_only, request, requests, unavailable
        )
        warnings.extend(over)
        newer = over[0] if over else None  # names the release just above
        reason = _reason_for(
            search.build, search.lost, gpu_targets, kb, newer, family, releases, request
        )
        bounds = _bounds(family, search.build, requests) if search.passed else {}
        return Chosen(search.build, reason, tuple(warnings), bounds)
    if not (settings.allow_cpu_fallback and cpu is not None):
        raise no_variant(family, requests, targets, request, kb, search.passed, python)
    warnings.append(message("passed.cpu-fallback", lead=family.lead))
    first = next((loss.fact for _, losses in search.passed for loss in losses), "no CUDA build")
    return Chosen(cpu, Phrase(("allow-cpu-fallback", first), ": "), tuple(warnings))


def _releases(
    family: Family,
    requests: Requests,
    python: str | None,
    unavailable: Collection[Unavailable],
    request: CudaRequest,
) -> tuple[list[list[FamilyBuild]], list[Localized]]:
    """The builds of the admitted releases, newest first; or, when the admitted versions are
    all newer than the knowledge base, the newest release's builds assumed, with a warning;
    or the pre-release the project pins on its own index (`request.pinned_by`), as pinned."""
    releases = admitted_releases(family, requests, python=python, unavailable=unavailable)
    if releases:
        return releases, []
    if request.pinned_by and request.kind == "version":
        version, builds = pinned_prerelease(family, requests, lambda v: request.allows(v.cuda))
        if builds:
            said = message(
                "passed.prerelease-pinned",
                lead=family.lead,
                version=version,
                said=request.pinned_by,
                series=builds[0].release.series,
                variants=", ".join(b.variant.name for b in builds),
            )
            return [builds], [said]
    assumed = assumed_builds(family, requests)
    if not assumed:
        raise no_release(family, requests)
    known = assumed[0].release
    names = ", ".join(b.variant.name for b in assumed)
    pypi = ", ".join(f"{v} on {p}" for p, v in known.pypi.items() if v != "cpu")
    warning = (
        f"{family.lead}: the versions the project allows are newer than the knowledge base "
        f"(newest known {assumed[0].lead_version}); assumed they publish the variants of "
        f"{family.lead} {known.series} ({names}), its architectures per variant"
        + (f" and its PyPI builds ({pypi})" if pypi else "")
        + "; lock checks the index. A maintainer refreshes these facts with "
        f"`python3 tools/wheel_facts.py {family.lead} <version>`"
    )
    return [assumed], [warning]


def _cpu_reason(targets: Sequence[Target], request: CudaRequest) -> Message:
    """Why the CPU build: the project asks for it, or no target can run a CUDA build."""
    if request.kind == "cpu":
        if request.pinned_by:
            return message("reason.cpu-asked-pinned", pinned_by=request.pinned_by)
        return message("reason.cpu-asked", said=request.said)
    if all(t.os == "macos" for t in targets):
        return message("reason.cpu-macos")
    unplanned = [gpu for t in targets for gpu in t.unplanned_gpus]
    if unplanned:
        names = ", ".join(dict.fromkeys(gpu.describe() for gpu in unplanned))
        stacks = " or ".join(dict.fromkeys(stack_name(gpu.accelerator) for gpu in unplanned))
        return message("reason.cpu-no-driver-unplanned", gpus=names, stacks=stacks)
    return message("reason.cpu-no-driver")


def first_runnable(
    releases: list[list[FamilyBuild]],
    gpu_targets: Sequence[Target],
    kb: KnowledgeBase,
    request: CudaRequest,
    *,
    native_only: bool,
) -> Search:
    """The first CUDA build, newest release first and best build first, that `request`
    allows and that runs on every GPU target; what lost on the way."""
    passed: Passed = []
    for builds in releases:
        lost: list[Loss] = []
        for build in builds:
            if build.variant.accelerator != "cuda":  # the only GPU builds planned yet
                continue
            if build.python_gap:
                lost.append(Loss(build, python_clause(build), python=True))
                continue
            if not request.allows(build.variant.cuda):
                excluded = message("reason.excluded-by", name=build.variant.name, said=request.said)
                lost.append(Loss(build, excluded, True))
                continue
            loss = _rule_out(build, gpu_targets, kb, native_only)
            if loss is None:
                return Search(build, lost, passed)
            lost.append(loss)
        passed.append((builds[0].release, lost))
    return Search(None, [], passed)


def _rule_out(
    build: FamilyBuild, targets: Sequence[Target], kb: KnowledgeBase, native_only: bool
) -> Loss | None:
    """Why `build` cannot be chosen, or None when it can."""
    several = len(targets) > 1
    name = build.variant.name
    for target in targets:
        verdict = judge(build.variant, target, kb.nvidia)
        named = target.label if several else None
        if not verdict.ok:
            return Loss(build, verdict.detail, target=named, unserved=verdict.unserved)
        if native_only and verdict.fit == "minor-compatible":
            if several:
                said = message("reason.only-minor-compatible-on", name=name, label=target.label)
            else:
                said = message("reason.only-minor-compatible", name=name)
            return Loss(build, said)
    return None


def _labelled(target: Target, reason: Localized) -> Message:
    """`reason`, said of `target` among several."""
    return message("reason.labelled", label=target.label, reason=reason)


def _why_passed(
    losses: list[Loss], targets: Sequence[Target], native_only: bool, request: CudaRequest
) -> Localized:
    """Why no build of a release was chosen, as one clause."""
    python = next((loss.why for loss in losses if loss.python), None)
    if python is not None:
        return python  # every build of the release shares it
    ruled = [loss.fact for loss in losses if not loss.excluded]
    if not ruled:
        if losses:
            return message("passed.no-build-matches", said=request.said)
        return message("passed.no-cuda-build-admitted")
    where = targets[0].label if len(targets) == 1 else message("passed.every-target")
    facts = Phrase(tuple(ruled), "; ")
    if len(ruled) == len(losses):
        if native_only:
            return message("passed.none-runs-natively", where=where, ruled=facts)
        return message("passed.none-runs", where=where, ruled=facts)
    if native_only:
        return message(
            "passed.none-allowed-runs-natively", said=request.said, where=where, ruled=facts
        )
    return message("passed.none-allowed-runs", said=request.said, where=where, ruled=facts)


def _passed_over(
    family: Family,
    passed: Passed,
    targets: Sequence[Target],
    native_only: bool,
    request: CudaRequest,
    requests: Requests,
    unavailable: Collection[Unavailable],
) -> list[Message]:
    """One warning per reason, naming the newer admitted releases that were passed over."""
    grouped: dict[str, tuple[Localized, list[str]]] = {}  # by the reason's English text
    for release, losses in reversed(passed):  # oldest first, so the names read upwards
        why = _why_passed(losses, targets, native_only, request)
        # A build with no member versions the project allows was never a candidate: say
        # which member lacks, or "no build runs" would hide it (torch 2.14's cu126 has no
        # torchvision 0.29.2).
        tried = {loss.build.variant.name for loss in losses}
        unmatched = [v for v in release.variants if v.accelerator == "cuda" and v.name not in tried]
        lacking: dict[tuple[str, ...], list[str]] = {}
        for variant in unmatched:
            lacks = lacking_members(family, release, variant, requests, unavailable)
            lacking.setdefault(tuple(lacks), []).append(variant.name)
        for members, variants in lacking.items():
            why = Phrase((why, _lacking(members, variants, requests)), "; ")
        grouped.setdefault(str(why), (why, []))[1].append(release.series)
    return [passed_over(family.lead, ", ".join(series), why) for why, series in grouped.values()]


def _lacking(members: Sequence[str], variants: Sequence[str], requests: Requests) -> Message:
    """Why `variants` were never candidates: no build of `members` at a version the project
    allows, or none published at all (no member named: the index does not serve them)."""
    names = ", ".join(variants)
    if not members:
        return message("passed.not-served", names=names)
    said = {"names": names, "members": ", ".join(members)}
    asked = ", ".join(
        dict.fromkeys(
            f"{d.name} {d.constraint}"
            for name in members
            for d in requests.get(name, [])
            if d.constraint != "*"
        )
    )
    if not asked:
        return message("passed.unpublished", **said)
    if len(variants) == 1:
        return message("passed.no-members-one", asked=asked, **said)
    return message("passed.no-members-many", asked=asked, **said)


def _describe(target: Target, verdict: Verdict, several: bool) -> Localized:
    said = verdict.detail
    driver = target.profile.driver
    if target.runs_cuda and driver is not None:
        version = target.driver or driver.version
        supports = message("reason.driver-supports", version=version, cuda=target.cuda)
        said = Phrase((supports, said), "; ")
    return _labelled(target, said) if several else said


def _reason_for(
    build: FamilyBuild,
    lost: list[Loss],
    targets: Sequence[Target],
    kb: KnowledgeBase,
    newer: Localized | None,
    family: Family,
    releases: list[list[FamilyBuild]],
    request: CudaRequest,
) -> Localized:
    """Why `build` won, and why the build ranked just above it lost (the last of `lost`, the
    builds of its release that lost before it; else the newer release passed over; else
    the family's build of the next higher CUDA version)."""
    several = len(targets) > 1
    facts = [_describe(t, judge(build.variant, t, kb.nvidia), several) for t in targets]
    if not facts:
        facts = [message("reason.every-target", name=build.variant.name)]
    if lost:
        facts.append(lost[-1].said)
    elif newer is not None:
        facts.append(newer)
    else:
        above = _above(build, family, releases, request)
        if above is not None:
            facts.append(above)
    reason = Phrase(tuple(facts), "; ")
    if request.pinned_by:
        return message(
            "reason.asks-for", asked=request.text, pinned_by=request.pinned_by, reason=reason
        )
    return reason


def _above(
    build: FamilyBuild,
    family: Family,
    releases: list[list[FamilyBuild]],
    request: CudaRequest,
) -> Message | None:
    """Why the family's build of the next higher CUDA version lost (None: there is none)."""
    higher = _next_higher(family, build)
    if higher is None:
        return None
    name = higher.name
    if not request.allows(higher.cuda):
        return message("reason.excluded-by", name=name, said=request.said)
    older = next((b for builds in releases for b in builds if b.variant.name == name), None)
    admitted = {builds[0].release.series for builds in releases}
    if older is not None:
        why = message(
            "reason.older-release",
            lead=family.lead,
            older=older.lead_version,
            version=build.lead_version,
        )
    elif any(r.series in admitted and r.variant(name) for r in family.releases):
        why = message("reason.constraints-exclude")
    else:
        why = message("reason.not-published-for-allowed", lead=family.lead)
    return message("reason.ruled-out", name=name, why=why)


def _next_higher(family: Family, build: FamilyBuild) -> Variant | None:
    """The known build of the family with the lowest CUDA version above `build`'s."""
    cuda = build.variant.cuda
    if cuda is None:
        return None
    higher = [
        v for r in family.releases for v in r.variants if v.cuda is not None and v.cuda > cuda
    ]
    return min(higher, key=lambda v: v.cuda or cuda, default=None)


def _bounds(family: Family, build: FamilyBuild, requests: Requests) -> dict[str, str]:
    """Upper bounds that keep each member below its versions in newer releases of the family.

    Newer admitted releases were passed over because no build of theirs fits; without
    the bound the package manager would take one of them from the same index. A
    stable-ABI version that newer releases share with the chosen one is not bounded
    away: torch's own bound keeps the choice.
    """
    bounds = {}
    newer = [r for r in family.releases if r.series_key > build.release.series_key]
    for name in requests:
        chosen = build.members.get(name)
        if chosen is None:
            continue
        later = [
            Version(pair[name])
            for r in newer
            for pair in r.pairs
            if name in pair and Version(pair[name]) > Version(chosen)
        ]
        if later:
            bounds[name] = f"<{min(later)}"
    return bounds
