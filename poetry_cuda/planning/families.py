"""Choosing variants: pure functions from (project, targets, settings, knowledge) to a plan.

For each package family the project uses (torch with torchvision, paddle, ...), the
releases the project's constraints admit are tried newest first: the first one with a
build that runs on every target wins, and its best build by CUDA version (`newest`
policy; `native` drops minor-compatible ones) is chosen. The newer releases passed over
are warned about and bound the pins. Families always get one variant for all members.
Packages whose CUDA flavour the project names itself (`cupy-cuda12x`, `jax[cuda12]`)
are checked rather than chosen. Hidden system requirements are collected last.
"""

from __future__ import annotations

import dataclasses
import re

from dataclasses import field
from functools import partial
from typing import TYPE_CHECKING

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion
from packaging.version import Version

from poetry_cuda.errors import NoVariantError
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import message
from poetry_cuda.planning.adoption import adopted_source
from poetry_cuda.planning.adoption import request_for
from poetry_cuda.planning.compat import judge
from poetry_cuda.planning.extras import plan_extras
from poetry_cuda.planning.flavours import build_requirements
from poetry_cuda.planning.flavours import from_data
from poetry_cuda.planning.flavours import select_fixed
from poetry_cuda.planning.plan import PYPI
from poetry_cuda.planning.plan import Choice
from poetry_cuda.planning.plan import ExtraChoice
from poetry_cuda.planning.plan import Plan
from poetry_cuda.planning.plan import Source
from poetry_cuda.planning.plan import SystemRequirement
from poetry_cuda.records import frozen
from poetry_cuda.request import constraints
from poetry_cuda.request.handwritten import HandWritten


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.knowledge.model import Release
    from poetry_cuda.knowledge.model import Variant
    from poetry_cuda.messages import Localized
    from poetry_cuda.planning.compat import Verdict
    from poetry_cuda.planning.targets import Target
    from poetry_cuda.request.dependencies import Dependency
    from poetry_cuda.request.settings import CudaRequest
    from poetry_cuda.request.settings import Settings


# Version-like words that end in letters: where a pre-release (3.0.0b2, 3.0.0rc1) is named.
_VERSION_TOKEN = re.compile(r"\d+(?:\.\d+)*[A-Za-z][A-Za-z0-9.]*")


@frozen
class Candidate:
    release: Release
    variant: Variant
    members: dict[str, str]  # plain version of every family member, lead first
    assumed: bool = False  # the admitted versions are newer than the knowledge base

    @property
    def lead_version(self) -> str:
        return next(iter(self.members.values()))

    def sort_key(self) -> tuple[object, ...]:
        cuda = self.variant.cuda
        return (cuda is not None, cuda, self.release.series_key)


def version_label(family: Family, release: Release, variant: Variant) -> str:
    """How `variant` shows in a version: ``+cu124``, ``.post120`` or nothing."""
    form = release.version_form or family.version_form
    if form == "local":
        return f"+{variant.name}"
    if form == "post" and variant.name not in release.pypi.values():
        return f".post{variant.name.removeprefix('cu')}"
    return ""


def _member_versions(
    family: Family, release: Release, variant: Variant, pair: dict[str, str], name: str
) -> list[str]:
    """The versions of `name` that go with `pair`'s lead version on `variant`, newest first.

    Its pair's own version, and every stable-ABI version whose range admits the lead
    version, from any release that publishes `variant` (torchvision 0.29.2, published
    with torch 2.15.0's builds, serves torch 2.14.1 on cu130 but not on cu126).
    """
    lead = pair[family.lead]
    found = {pair[name]} if name in pair else set()
    for other in family.releases:
        if other.variant(variant.name) is None:
            continue
        found.update(
            ranged.version
            for ranged in other.ranges
            if ranged.member == name
            and SpecifierSet(ranged.requires).contains(lead, prereleases=True)
        )
    return sorted(found, key=Version, reverse=True)


def _admitted_sets(
    family: Family, release: Release, variant: Variant, requests: dict[str, list[Dependency]]
) -> list[dict[str, str]]:
    """Per lead version of `release`, oldest first, the newest member versions the project allows.

    A lead version drops out when a member the project asks for has no allowed version with it.
    """
    label = version_label(family, release, variant)
    admitted = []
    for pair in release.pairs:
        members: dict[str, str] = {}
        for name in (family.lead, *(m for m in family.members if m != family.lead)):
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
                break
        else:
            admitted.append(members)
    return admitted


def release_candidates(
    family: Family, release: Release, requests: dict[str, list[Dependency]]
) -> list[Candidate]:
    """The builds of `release` the constraints admit, each at its newest admitted version."""
    found = []
    for variant in release.variants:
        sets = _admitted_sets(family, release, variant, requests)
        if sets:
            found.append(Candidate(release, variant, sets[-1]))
    return sorted(found, key=Candidate.sort_key, reverse=True)


def newest_build(
    family: Family, requests: dict[str, list[Dependency]], variant: str
) -> Variant | None:
    """The `variant` build of the newest release the constraints admit that publishes it."""
    for cands in admitted_releases(family, requests):
        for cand in cands:
            if cand.variant.name == variant:
                return cand.variant
    return None


def admitted_releases(
    family: Family, requests: dict[str, list[Dependency]]
) -> list[list[Candidate]]:
    """The candidates of every release the constraints admit, newest release first."""
    found = (release_candidates(family, r, requests) for r in reversed(family.releases))
    return [cands for cands in found if cands]


def _assumed_candidates(family: Family, requests: dict[str, list[Dependency]]) -> list[Candidate]:
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
            found.append(Candidate(newest, variant, top, assumed=True))
    return sorted(found, key=Candidate.sort_key, reverse=True)


def _newest_members(family: Family, release: Release, variant: Variant) -> dict[str, str]:
    """The newest version of every member that goes with `release`'s newest lead version."""
    pair = release.pairs[-1]
    found = {}
    for name in (family.lead, *(m for m in family.members if m != family.lead)):
        versions = _member_versions(family, release, variant, pair, name)
        if versions:
            found[name] = versions[0]
    return found


def source_for(
    family: Family, cand: Candidate, settings: Settings, targets: Sequence[Target]
) -> Source:
    variant = cand.variant
    if variant.cuda is None and all(t.os == "macos" for t in targets):
        return PYPI
    if (
        version_label(family, cand.release, variant) == ""
        and variant.name in cand.release.pypi.values()
    ):
        return PYPI
    mirror = settings.mirrors.get(family.mirror_key or "")
    url = family.index_url(variant.name, mirror.template if mirror else None)
    if url is None:
        return PYPI
    return Source(family.source_name(variant.name, url, mirrored=mirror is not None), url)


def _describe(target: Target, verdict: Verdict, several: bool) -> str:
    prefix = f"{target.label}: " if several else ""
    driver = target.profile.driver
    if target.runs_cuda and driver is not None:
        version = target.driver or driver.version
        return f"{prefix}driver {version} supports CUDA <= {target.cuda}; {verdict.detail}"
    return f"{prefix}{verdict.detail}"


@frozen
class Loss:
    """A build that lost, and the clause that says why."""

    cand: Candidate
    why: str  # follows "ruled out: " for a target's fact; whole for an exclusion
    excluded: bool = False  # by the user's cuda request, not by a target

    @property
    def said(self) -> str:
        return self.why if self.excluded else f"{self.cand.variant.name} ruled out: {self.why}"


@frozen
class Chosen:
    """A family's winning build, why it won, what to warn about, and the pins' bounds."""

    cand: Candidate
    reason: str
    warnings: tuple[str, ...]
    bounds: dict[str, str] = field(default_factory=dict)  # member -> PEP 440 specifier


def _rule_out(
    cand: Candidate, targets: Sequence[Target], kb: KnowledgeBase, native_only: bool
) -> str | None:
    """Why `cand` cannot be chosen, or None when it can."""
    several = len(targets) > 1
    for target in targets:
        verdict = judge(cand.variant, target, kb.nvidia)
        if not verdict.ok:
            return (f"{target.label}: " if several else "") + verdict.detail
        if native_only and verdict.fit == "minor-compatible":
            return (
                f"{cand.variant.name} is only minor-compatible"
                + (f" on {target.label}" if several else "")
                + " and the policy is native"
            )
    return None


def choose_family(
    family: Family,
    requests: dict[str, list[Dependency]],
    targets: Sequence[Target],
    settings: Settings,
    kb: KnowledgeBase,
    request: CudaRequest,
) -> Chosen:
    """The newest admitted release with a build that runs on every target, and its best build.

    `request` is what is asked of the family: the cuda setting, or the project's own pin.
    """
    warnings: list[str] = []
    releases = admitted_releases(family, requests)
    if not releases:
        assumed = _assumed_candidates(family, requests)
        if not assumed:
            raise _no_release(family, requests)
        releases = [assumed]
        known = assumed[0].release
        names = ", ".join(c.variant.name for c in assumed)
        pypi = ", ".join(f"{v} on {p}" for p, v in known.pypi.items() if v != "cpu")
        warnings.append(
            f"{family.lead}: the versions the project allows are newer than the knowledge base "
            f"(newest known {assumed[0].lead_version}); assumed they publish the variants of "
            f"{family.lead} {known.series} ({names}), its architectures per variant"
            + (f" and its PyPI builds ({pypi})" if pypi else "")
            + "; lock checks the index. A maintainer refreshes these facts with "
            f"`python3 tools/wheel_facts.py {family.lead} <version>`"
        )
    gpu_targets = [t for t in targets if t.runs_cuda]
    cuda_wanted = request.kind == "version" or (request.kind == "auto" and gpu_targets)
    cpu = next((c for cands in releases for c in cands if c.variant.is_cpu), None)

    if cuda_wanted:
        native_only = settings.policy == "native"
        passed: list[tuple[Release, list[Loss]]] = []  # newer releases passed over, newest first
        for cands in releases:
            lost: list[Loss] = []
            for cand in cands:
                if cand.variant.is_cpu:
                    continue
                if not request.allows(cand.variant.cuda):
                    lost.append(Loss(cand, f"{cand.variant.name} excluded by {request.said}", True))
                    continue
                why_not = _rule_out(cand, gpu_targets, kb, native_only)
                if why_not is None:
                    if not gpu_targets:
                        warnings.append(
                            f"no target has an NVIDIA driver; chose {cand.variant.name} as "
                            f"{request.said} asks"
                        )
                    over = _passed_over(family, passed, gpu_targets, native_only, request)
                    warnings.extend(over)
                    newer = over[0] if over else None  # names the release just above
                    reason = _reason_for(
                        cand, gpu_targets, kb, lost, newer, family, releases, request
                    )
                    if request.pinned_by:
                        reason = (
                            f"the project asks for {request.text}: {request.pinned_by}; {reason}"
                        )
                    bounds = _bounds(family, cand, requests) if passed else {}
                    return Chosen(cand, reason, tuple(warnings), bounds)
                lost.append(Loss(cand, why_not))
            passed.append((cands[0].release, lost))
        if not (settings.allow_cpu_fallback and cpu is not None):
            raise _no_variant(family, requests, targets, request, kb, passed)
        warnings.append(
            f"{family.lead}: no CUDA variant runs on every target; using the CPU build "
            "because allow-cpu-fallback = true"
        )
        first = next((loss.why for _, losses in passed for loss in losses), "no CUDA build")
        return Chosen(cpu, "allow-cpu-fallback: " + first, tuple(warnings))

    if cpu is None:
        raise NoVariantError(
            f"{family.lead} has no CPU build in the versions the project allows",
            why="no target has an NVIDIA driver" if request.kind == "auto" else request.said,
            fix=f"plan for a GPU host with --target, or use the CPU package instead of {family.lead}",
        )
    if request.kind == "cpu":
        reason = (
            f"the project asks for the CPU build: {request.pinned_by}"
            if request.pinned_by
            else f"{request.said} asks for the CPU build"
        )
    elif all(t.os == "macos" for t in targets):
        reason = "macOS has no CUDA builds; PyPI's build is the CPU build"
    else:
        reason = "no target has an NVIDIA driver"
    return Chosen(cpu, reason, tuple(warnings))


def _why_passed(
    losses: list[Loss], targets: Sequence[Target], native_only: bool, request: CudaRequest
) -> str:
    """Why no build of a release was chosen, as one clause."""
    ruled = [loss.why for loss in losses if not loss.excluded]
    if not ruled:
        if losses:
            return f"no build matches {request.said}"
        return "the project's constraints admit no CUDA build"
    build = "no build" if len(ruled) == len(losses) else f"no build that {request.said} allows"
    where = targets[0].label if len(targets) == 1 else "every target"
    runs = "runs natively" if native_only else "runs"
    return f"{build} {runs} on {where} ({'; '.join(ruled)})"


def _passed_over(
    family: Family,
    passed: list[tuple[Release, list[Loss]]],
    targets: Sequence[Target],
    native_only: bool,
    request: CudaRequest,
) -> list[str]:
    """One warning per reason, naming the newer admitted releases that were passed over."""
    grouped: dict[str, list[str]] = {}
    for release, losses in reversed(passed):  # oldest first, so the names read upwards
        why = _why_passed(losses, targets, native_only, request)
        # A build with no member versions the project allows was never a candidate: say
        # so, or "no build runs" would hide it (torch 2.14's cu126 has no torchaudio).
        tried = {loss.cand.variant.name for loss in losses}
        unmatched = [v.name for v in release.variants if not v.is_cpu and v.name not in tried]
        if unmatched:
            verb = "has" if len(unmatched) == 1 else "have"
            why += f"; {', '.join(unmatched)} {verb} no member versions the project allows"
        grouped.setdefault(why, []).append(release.series)
    return [
        f"{family.lead} {', '.join(series)} passed over: {why}" for why, series in grouped.items()
    ]


def _reason_for(
    cand: Candidate,
    targets: Sequence[Target],
    kb: KnowledgeBase,
    lost: list[Loss],
    newer: str | None,
    family: Family,
    releases: list[list[Candidate]],
    request: CudaRequest,
) -> str:
    """Why `cand` won, and why the build ranked just above it lost."""
    several = len(targets) > 1
    facts = [_describe(t, judge(cand.variant, t, kb.nvidia), several) for t in targets]
    reason = "; ".join(facts) or f"{cand.variant.name} runs on every target"
    if lost:
        return f"{reason}; {lost[-1].said}"
    if newer is not None:
        return f"{reason}; {newer}"
    higher = _next_higher(family, cand)
    if higher is None:
        return reason
    name = higher.name
    if not request.allows(higher.cuda):
        return f"{reason}; {name} excluded by {request.said}"
    older = next((c for cands in releases for c in cands if c.variant.name == name), None)
    if older is not None:
        return (
            f"{reason}; {name} ruled out: the newest {family.lead} with it is "
            f"{older.lead_version}, older than {cand.lead_version}"
        )
    admitted = {cands[0].release.series for cands in releases}
    if any(r.series in admitted and r.variant(name) for r in family.releases):
        return f"{reason}; {name} ruled out: the project's constraints exclude it"
    return (
        f"{reason}; {name} ruled out: not published for the {family.lead} versions "
        "the project allows"
    )


def _next_higher(family: Family, cand: Candidate) -> Variant | None:
    """The known build of the family with the lowest CUDA version above `cand`'s."""
    cuda = cand.variant.cuda
    if cuda is None:
        return None
    higher = [
        v for r in family.releases for v in r.variants if v.cuda is not None and v.cuda > cuda
    ]
    return min(higher, key=lambda v: v.cuda or cuda, default=None)


def _bounds(
    family: Family, cand: Candidate, requests: dict[str, list[Dependency]]
) -> dict[str, str]:
    """Upper bounds that keep each member below its versions in newer releases of the family.

    Newer admitted releases were passed over because no build of theirs fits; without
    the bound the package manager would take one of them from the same index. A
    stable-ABI version that newer releases share with the chosen one is not bounded
    away: torch's own bound keeps the choice.
    """
    bounds = {}
    newer = [r for r in family.releases if r.series_key > cand.release.series_key]
    for name in requests:
        chosen = cand.members.get(name)
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


def _serving_versions(
    family: Family, targets: Sequence[Target], kb: KnowledgeBase
) -> list[tuple[str, str]]:
    """(lead version, variant) of every known build that runs on every target."""
    found: list[tuple[str, str]] = []
    gpu_targets = [t for t in targets if t.runs_cuda]
    for release in family.releases:
        for variant in release.variants:
            if variant.is_cpu or not gpu_targets:
                continue
            if all(judge(variant, t, kb.nvidia).ok for t in gpu_targets):
                found.extend((pair[family.lead], variant.name) for pair in release.pairs)
    return found


def _no_variant(
    family: Family,
    requests: dict[str, list[Dependency]],
    targets: Sequence[Target],
    request: CudaRequest,
    kb: KnowledgeBase,
    passed: list[tuple[Release, list[Loss]]],
) -> NoVariantError:
    # A constraint repeated in several groups is said once; a bare name beside one, never.
    asked = (
        ", ".join(
            dict.fromkeys(
                f"{d.name}{'' if d.constraint == '*' else ' ' + d.constraint}"
                for deps in requests.values()
                for d in deps
                if d.constraint != "*" or all(o.constraint == "*" for o in deps)
            )
        )
        or family.lead
    )
    lines: list[Localized] = [message("no-variant.first-line", lead=family.lead, asked=asked)]
    if request.pinned_by:
        lines[0] = message(
            "no-variant.first-line-pinned",
            lead=family.lead,
            asked=asked,
            pin=request.text,
            pinned_by=request.pinned_by,
        )
    newest: dict[str, Loss] = {}  # each build at its newest admitted release
    for _, losses in passed:
        for loss in losses:
            if not loss.excluded:
                newest.setdefault(loss.cand.variant.name, loss)
    for loss in sorted(newest.values(), key=lambda x: x.cand.sort_key(), reverse=True):
        cand = loss.cand
        lines.append(f"  {cand.variant.name} ({family.lead} {cand.lead_version}): {loss.why}")
    if not newest:
        lines.append(f"  no CUDA variant matches {request.said}")
    serving = _serving_versions(family, targets, kb)
    if serving:
        versions = sorted({v for v, _ in serving}, key=_version_key)
        variants = sorted({n for _, n in serving})
        fix: list[Localized] = [
            message(
                "no-variant.fix-versions",
                lead=family.lead,
                first=versions[0],
                last=versions[-1],
                variants=", ".join(variants),
            )
        ]
    else:
        lines.append(message("no-variant.none-serves", lead=family.lead))
        fix = [message("no-variant.fix-cpu")]
    if request.pinned_by:
        fix.append(message("no-variant.fix-or-pass-cuda", pin=request.text))
    elif request.kind == "version":
        fix.append(message("no-variant.fix-or-change", said=request.said))
    fix.append(message("no-variant.fix-or-cpu-fallback"))
    return NoVariantError(
        Phrase(tuple(lines), "\n"), why=message("no-variant.why"), fix=Phrase(tuple(fix))
    )


def _no_release(family: Family, requests: dict[str, list[Dependency]]) -> NoVariantError:
    prerelease = next(
        (
            (dep, version)
            for deps in requests.values()
            for dep in deps
            if (version := _prerelease_in(dep.constraint)) is not None
        ),
        None,
    )
    if prerelease is not None:
        return _unknown_prerelease(family, *prerelease)
    asked = "; ".join(
        dict.fromkeys(
            f"{d.name} {d.constraint} ({d.origin})" for ds in requests.values() for d in ds
        )
    )
    others = [m for m in family.members if m != family.lead]
    pins = (
        f" ({', '.join(others)} each require one {family.lead} version or a range of them)"
        if others
        else ""
    )
    known = f"{family.releases[0].pairs[0][family.lead]} to {family.releases[-1].pairs[-1][family.lead]}"
    return NoVariantError(
        f"No known {family.lead} release matches the project's constraints: {asked}",
        why=f"the knowledge base knows {family.lead} {known}, and the constraints admit none of "
        "them nor any newer release",
        fix=f"check the version constraints{pins}",
    )


def _prerelease_in(constraint: str) -> Version | None:
    """The pre-release a constraint names (``==3.0.0b2``, ``>=3.0.0rc1``), if any."""
    for token in _VERSION_TOKEN.findall(constraint):
        try:
            version = Version(token)
        except InvalidVersion:
            continue
        if version.is_prerelease:
            return version
    return None


def _unknown_prerelease(family: Family, dep: Dependency, version: Version) -> NoVariantError:
    series = ".".join(str(part) for part in version.release[:2])
    newest = family.releases[-1].versions[-1]
    known = next((r.versions for r in family.releases if r.series == series), ())
    fix = (
        f"allow a known release of the {series} series ({', '.join(known)}) or a newer one "
        f"(newest known {newest})"
        if known
        else f"allow a known release (newest known {newest})"
    )
    return NoVariantError(
        f"{dep.name} {dep.constraint} ({dep.origin}) asks for {version}, a pre-release the "
        "knowledge base does not list",
        why=f"poetry-cuda chooses among the {family.lead} releases it knows, and a "
        "pre-release may be published for other CUDA builds than the release that follows it",
        fix=fix + " in pyproject.toml; poetry-cuda plans a pre-release once its knowledge base "
        "lists it",
    )


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split(".") if p.isdigit())


def family_requests(family: Family, deps: Sequence[Dependency]) -> dict[str, list[Dependency]]:
    """The family members the project asks for; the lead is always among them."""
    requests: dict[str, list[Dependency]] = {family.lead: []}
    for dep in deps:
        if dep.name in family.members:
            requests.setdefault(dep.name, []).append(dep)
    return requests


def make_plan(
    deps: Sequence[Dependency],
    targets: Sequence[Target],
    settings: Settings,
    kb: KnowledgeBase,
    hand: HandWritten | None = None,
) -> Plan:
    """The plan for `deps` on `targets`; `hand` is the project's own CUDA configuration."""
    hand = HandWritten() if hand is None else hand
    warnings: list[str] = []
    for dep in deps:
        constraints.check(dep.constraint, f"{dep.origin}: {dep.name}")
    choices: list[Choice] = []
    extras: list[ExtraChoice] = []
    requirements: list[SystemRequirement] = []
    for family in kb.families:
        if not any(d.name in family.members or d.name in family.companions for d in deps):
            continue
        requests = family_requests(family, deps)
        if hand.extras(family.name):
            found, found_warnings, builds = plan_extras(
                family, requests, targets, settings, kb, hand, partial(newest_build, family)
            )
            extras.extend(found)
            warnings.extend(found_warnings)
            for extra, build in builds.items():
                requirements.extend(
                    dataclasses.replace(
                        from_data(family.lead, r), reason=f"the {extra} extra: {r.reason}"
                    )
                    for r in build.requirements
                )
            continue
        request = request_for(family, settings, hand)
        chosen = choose_family(family, requests, targets, settings, kb, request)
        cand = chosen.cand
        warnings.extend(chosen.warnings)
        source = adopted_source(
            family, cand.variant.name, source_for(family, cand, settings, targets), hand
        )
        # PyPI's own uploads carry no local label (its macOS torch is plain 2.5.1).
        label = "" if source.is_pypi else version_label(family, cand.release, cand.variant)
        requirements.extend(from_data(family.lead, r) for r in cand.variant.requirements)
        arches = tuple(cc.sm for cc in cand.variant.sass) + tuple(
            f"compute_{cc.major}{cc.minor}" for cc in cand.variant.ptx
        )
        names = list(requests) + sorted({d.name for d in deps if d.name in family.companions})
        declared = [d for d in deps if d.name in names]
        for name in names:
            asked = [d for d in declared if d.name == name] or declared  # the lead, undeclared
            optional = bool(asked) and all(d.optional for d in asked)
            plain = cand.members.get(name)
            # triton and xformers come from the variant's index as one unlabelled wheel.
            own = label if family.labels(name) else ""
            choices.append(
                Choice(
                    name=name,
                    family=family.name,
                    variant=cand.variant.name,
                    cuda=cand.variant.cuda,
                    source=source,
                    version=None if plain is None or cand.assumed else plain + own,
                    arches=arches,
                    reason=chosen.reason,
                    label=own,
                    bound=chosen.bounds.get(name, ""),
                    optional=optional,
                )
            )
    fixed, fixed_requirements, fixed_warnings = select_fixed(deps, targets, kb)
    choices.extend(fixed)
    requirements.extend(fixed_requirements)
    warnings.extend(fixed_warnings)
    requirements.extend(build_requirements(deps, choices, settings, kb))
    no_driver = [t.label for t in targets if t.os != "macos" and not t.runs_cuda]
    if no_driver and any(c.cuda is not None for c in choices):
        warnings.append(
            f"{', '.join(no_driver)}: no NVIDIA driver; the CUDA builds chosen for the other "
            "targets install there too and run on the CPU"
        )
    return Plan(
        policy=settings.policy,
        targets=tuple(t.label for t in targets),
        packages=tuple(choices),
        system_requirements=tuple(dict.fromkeys(requirements)),
        warnings=tuple(warnings),
        extras=tuple(extras),
    )
