"""Choosing variants: pure functions from (project, targets, settings, knowledge) to a plan.

For each package family the project uses (torch with torchvision, paddle, ...), every
variant of every release the project's constraints admit is a candidate; each variant
is represented by its newest admitted release. Candidates are ranked by CUDA version,
newest first (`newest` policy; `native` drops minor-compatible ones) and the first one
that runs on every target wins. Families always get one variant for all their members.
Packages whose CUDA flavour the project names itself (`cupy-cuda12x`, `jax[cuda12]`)
are checked rather than chosen. Hidden system requirements are collected last.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import NoVariantError
from poetry_cuda.planning.compat import judge
from poetry_cuda.planning.flavours import build_requirements
from poetry_cuda.planning.flavours import from_data
from poetry_cuda.planning.flavours import select_fixed
from poetry_cuda.planning.plan import PYPI
from poetry_cuda.planning.plan import Choice
from poetry_cuda.planning.plan import Plan
from poetry_cuda.planning.plan import Source
from poetry_cuda.planning.plan import SystemRequirement
from poetry_cuda.planning.plan import source_name
from poetry_cuda.request import constraints


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.knowledge.model import Release
    from poetry_cuda.knowledge.model import Variant
    from poetry_cuda.planning.compat import Verdict
    from poetry_cuda.planning.targets import Target
    from poetry_cuda.request.dependencies import Dependency
    from poetry_cuda.request.settings import Settings


@dataclass(frozen=True)
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


def _admitted_pairs(
    family: Family, release: Release, variant: Variant, requests: dict[str, list[Dependency]]
) -> list[dict[str, str]]:
    label = version_label(family, release, variant)
    admitted = []
    for pair in release.pairs:
        if all(
            name in pair
            and all(constraints.allows(dep.constraint, pair[name] + label) for dep in deps)
            for name, deps in requests.items()
        ):
            admitted.append(pair)
    return admitted


def candidates(
    family: Family, requests: dict[str, list[Dependency]], *, constrained: bool = True
) -> list[Candidate]:
    """The newest admitted release of each variant, best CUDA first."""
    best: dict[str, Candidate] = {}
    for release in family.releases:  # ascending, so later releases replace earlier ones
        for variant in release.variants:
            pairs = (
                _admitted_pairs(family, release, variant, requests)
                if constrained
                else list(release.pairs)
            )
            if pairs:
                best[variant.name] = Candidate(release, variant, pairs[-1])
    return sorted(best.values(), key=Candidate.sort_key, reverse=True)


def _assumed_candidates(family: Family, requests: dict[str, list[Dependency]]) -> list[Candidate]:
    """Admitted versions newer than the data: assume the newest release's variants."""
    newest = family.releases[-1]
    top = newest.pairs[-1]
    if not all(
        constraints.is_open_above(dep.constraint, top[name])
        for name, deps in requests.items()
        if name in top
        for dep in deps
    ):
        return []
    return sorted(
        (Candidate(newest, v, top, assumed=True) for v in newest.variants),
        key=Candidate.sort_key,
        reverse=True,
    )


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
    url = family.index_url(variant.name, mirror)
    if url is None:
        return PYPI
    return Source(source_name(family.source_prefix, variant.name, url, mirrored=bool(mirror)), url)


def _describe(target: Target, verdict: Verdict, several: bool) -> str:
    prefix = f"{target.label}: " if several else ""
    driver = target.profile.driver
    if target.runs_cuda and driver is not None:
        version = target.driver or driver.version
        return f"{prefix}driver {version} supports CUDA <= {target.cuda}; {verdict.detail}"
    return f"{prefix}{verdict.detail}"


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
) -> tuple[Candidate, str, list[str]]:
    """The winning candidate of one family, its reason and any warnings."""
    warnings: list[str] = []
    ranked = candidates(family, requests)
    if not ranked:
        ranked = _assumed_candidates(family, requests)
        if not ranked:
            raise _no_release(family, requests)
        warnings.append(
            f"{family.lead}: the versions the project allows are newer than the knowledge base "
            f"(newest known {ranked[0].lead_version}); assumed they publish the variants and "
            f"architectures of {family.lead} {ranked[0].release.series}; lock checks the index"
        )
    gpu_targets = [t for t in targets if t.runs_cuda]
    request = settings.cuda
    cuda_wanted = request.kind == "version" or (request.kind == "auto" and gpu_targets)
    cpu = next((c for c in ranked if c.variant.is_cpu), None)

    if cuda_wanted:
        pool = [c for c in ranked if not c.variant.is_cpu and request.allows(c.variant.cuda)]
        native_only = settings.policy == "native"
        lost: list[tuple[Candidate, str]] = []
        for cand in pool:
            why_not = _rule_out(cand, gpu_targets, kb, native_only)
            if why_not is None:
                if not gpu_targets:
                    warnings.append(
                        f"no target has an NVIDIA driver; chose {cand.variant.name} because "
                        f"cuda = {request.text!r}"
                    )
                reason = _reason_for(cand, gpu_targets, kb, lost, family, requests)
                return cand, reason, warnings
            lost.append((cand, why_not))
        if not (settings.allow_cpu_fallback and cpu is not None):
            raise _no_variant(family, requests, targets, settings, kb, lost)
        warnings.append(
            f"{family.lead}: no CUDA variant runs on every target; using the CPU build "
            "because allow-cpu-fallback = true"
        )
        return cpu, "allow-cpu-fallback: " + "; ".join(w for _, w in lost[:1]), warnings

    if cpu is None:
        raise NoVariantError(
            f"{family.lead} has no CPU build in the versions the project allows",
            why="no target has an NVIDIA driver" if request.kind == "auto" else "cuda = 'cpu'",
            fix=f"plan for a GPU host with --target, or use the CPU package instead of {family.lead}",
        )
    if request.kind == "cpu":
        reason = "cuda = 'cpu' asks for the CPU build"
    elif all(t.os == "macos" for t in targets):
        reason = "macOS has no CUDA builds; PyPI's build is the CPU build"
    else:
        reason = "no target has an NVIDIA driver"
    return cpu, reason, warnings


def _reason_for(
    cand: Candidate,
    targets: Sequence[Target],
    kb: KnowledgeBase,
    lost: list[tuple[Candidate, str]],
    family: Family,
    requests: dict[str, list[Dependency]],
) -> str:
    several = len(targets) > 1
    facts = [_describe(t, judge(cand.variant, t, kb.nvidia), several) for t in targets]
    reason = "; ".join(facts) or f"{cand.variant.name} matches the cuda setting"
    if lost:
        better, why = lost[-1]
        return f"{reason}; {better.variant.name} ruled out: {why}"
    higher = [
        c
        for c in candidates(family, requests, constrained=False)
        if c.variant.cuda is not None
        and cand.variant.cuda is not None
        and c.variant.cuda > cand.variant.cuda
    ]
    if higher:
        nxt = min(higher, key=Candidate.sort_key)
        return (
            f"{reason}; {nxt.variant.name} ruled out: not published for the "
            f"{family.lead} versions the project allows"
        )
    return reason


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
    settings: Settings,
    kb: KnowledgeBase,
    lost: list[tuple[Candidate, str]],
) -> NoVariantError:
    asked = (
        ", ".join(
            f"{d.name}{'' if d.constraint == '*' else ' ' + d.constraint}"
            for deps in requests.values()
            for d in deps
        )
        or family.lead
    )
    lines = [f"No variant of {family.lead} satisfies every target ({asked}):"]
    for cand, why in lost:
        lines.append(f"  {cand.variant.name} ({family.lead} {cand.lead_version}): {why}")
    if not lost:
        lines.append(f"  no CUDA variant matches cuda = {settings.cuda.text!r}")
    serving = _serving_versions(family, targets, kb)
    if serving:
        versions = sorted({v for v, _ in serving}, key=_version_key)
        variants = sorted({n for _, n in serving})
        fix = (
            f"{family.lead} versions that would serve these targets: {versions[0]} to "
            f"{versions[-1]} ({', '.join(variants)}); allow one of them in pyproject.toml"
        )
    else:
        lines.append(f"  no known {family.lead} build serves these targets")
        fix = 'plan CPU builds with cuda = "cpu"'
    if settings.cuda.kind == "version":
        fix += f", or change cuda = {settings.cuda.text!r}"
    return NoVariantError(
        "\n".join(lines),
        why="every GPU of every target must have kernels in the build, and its driver must "
        "run the build's CUDA version",
        fix=fix + ", or set allow-cpu-fallback = true in [tool.poetry-cuda] to accept a CPU build",
    )


def _no_release(family: Family, requests: dict[str, list[Dependency]]) -> NoVariantError:
    asked = "; ".join(
        f"{d.name} {d.constraint} ({d.origin})" for ds in requests.values() for d in ds
    )
    known = f"{family.releases[0].pairs[0][family.lead]} to {family.releases[-1].pairs[-1][family.lead]}"
    return NoVariantError(
        f"No known {family.lead} release matches the project's constraints: {asked}",
        why=f"the knowledge base knows {family.lead} {known}, and the constraints admit none of "
        "them nor any newer release",
        fix="check the version constraints (torchvision and torchaudio pin one torch each)",
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
    deps: Sequence[Dependency], targets: Sequence[Target], settings: Settings, kb: KnowledgeBase
) -> Plan:
    warnings: list[str] = []
    for dep in deps:
        constraints.check(dep.constraint, f"{dep.origin}: {dep.name}")
    choices: list[Choice] = []
    requirements: list[SystemRequirement] = []
    for family in kb.families:
        if not any(d.name in family.members or d.name in family.companions for d in deps):
            continue
        requests = family_requests(family, deps)
        cand, reason, found = choose_family(family, requests, targets, settings, kb)
        warnings.extend(found)
        source = source_for(family, cand, settings, targets)
        # PyPI's own uploads carry no local label (its macOS torch is plain 2.5.1).
        label = "" if source.is_pypi else version_label(family, cand.release, cand.variant)
        _check_pins(requests, cand)
        requirements.extend(from_data(family.lead, r) for r in cand.variant.requirements)
        arches = tuple(cc.sm for cc in cand.variant.sass) + tuple(
            f"compute_{cc.major}{cc.minor}" for cc in cand.variant.ptx
        )
        names = list(requests) + sorted({d.name for d in deps if d.name in family.companions})
        for name in names:
            plain = cand.members.get(name)
            choices.append(
                Choice(
                    name=name,
                    family=family.name,
                    variant=cand.variant.name,
                    cuda=cand.variant.cuda,
                    source=source,
                    version=None if plain is None or cand.assumed else plain + label,
                    arches=arches,
                    reason=reason,
                    label=label,
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
        system_requirements=tuple(requirements),
        warnings=tuple(warnings),
    )


def _check_pins(requests: dict[str, list[Dependency]], cand: Candidate) -> None:
    for deps in requests.values():
        for dep in deps:
            pinned = dep.local_label
            if pinned is not None and pinned != cand.variant.name:
                raise ConfigError(
                    f"{dep.origin}: {dep.name} {dep.constraint} pins the {pinned} build, but the "
                    f"plan chose {cand.variant.name}",
                    why="a local version label in a constraint selects one variant, and it "
                    "contradicts the host, the policy or the cuda setting",
                    fix=f"remove '+{pinned}' from the constraint, or set cuda = \"{pinned}\" in "
                    "[tool.poetry-cuda]",
                )
