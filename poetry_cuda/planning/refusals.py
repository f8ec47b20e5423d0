"""Why a family gets no build: the errors (exit 3) the choice raises, worded for the user.

Each names what the project asked for, what every build that lost says about the
targets, and what would work: the versions that do serve every target, a CUDA request
to change, or allow-cpu-fallback. A pre-release the knowledge base does not list, and
constraints that admit no known release, have their own messages.
"""

from __future__ import annotations

import re

from typing import TYPE_CHECKING

from packaging.version import InvalidVersion
from packaging.version import Version

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import NoVariantError
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import message
from poetry_cuda.planning.candidates import python_gap
from poetry_cuda.planning.compat import judge
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.knowledge.model import Release
    from poetry_cuda.knowledge.model import Variant
    from poetry_cuda.messages import Localized
    from poetry_cuda.messages import Message
    from poetry_cuda.planning.candidates import FamilyBuild
    from poetry_cuda.planning.candidates import Requests
    from poetry_cuda.planning.targets import Target
    from poetry_cuda.request.dependencies import Dependency
    from poetry_cuda.request.settings import CudaRequest
    from poetry_cuda.versions import ComputeCapability


# Version-like words that end in letters: where a pre-release (3.0.0b2, 3.0.0rc1) is named.
_VERSION_TOKEN = re.compile(r"\d+(?:\.\d+)*[A-Za-z][A-Za-z0-9.]*")


@frozen
class Loss:
    """A build that lost, and the clause that says why."""

    build: FamilyBuild
    why: (
        Localized  # the target's fact, phrased to follow the variant's name; whole for an exclusion
    )
    excluded: bool = False  # by the user's cuda request, not by a target
    python: bool = False  # by the release's Requires-Python, not by a target
    # The target that ruled it out, where there are several ("the 4 nodes of k8s-a100-535").
    target: str | None = None
    # The target's GPU architecture the build has no kernels for, where that ruled it out.
    unserved: ComputeCapability | None = None

    @property
    def fact(self) -> Localized:
        """`why`, after the target it is about where there are several."""
        if self.target is None:
            return self.why
        return message("reason.labelled", label=self.target, reason=self.why)

    @property
    def said(self) -> Localized:
        if self.excluded or self.python:
            return self.why
        return message("reason.ruled-out", name=self.build.variant.name, why=self.fact)


def python_clause(build: FamilyBuild) -> Message:
    """Why a build's release is passed over for the project's Python: the Pythons the
    project's requires-python admits that the release's Requires-Python excludes."""
    said = {
        "lead": next(iter(build.members)),
        "version": build.lead_version,
        "requires": build.release.requires_python,
        "gap": ", ".join(build.python_gap),
    }
    if len(build.python_gap) == 1:
        return message("passed.python-gap-one", **said)
    return message("passed.python-gap-many", **said)


def passed_over(lead: str, series: str, why: Localized) -> Message:
    """The warning naming the newer admitted releases of a family that were passed over."""
    return message("passed.over", lead=lead, series=series, why=why)


Passed = list[tuple["Release", list[Loss]]]
"""The newer releases passed over, newest first, each with its builds' losses."""


def _asked(family: Family, requests: Requests) -> str:
    """What the project asks of the family. A constraint repeated in several groups is said
    once; a bare name beside one, never."""
    asked = dict.fromkeys(
        f"{d.name}{'' if d.constraint == '*' else ' ' + d.constraint}"
        for deps in requests.values()
        for d in deps
        if d.constraint != "*" or all(o.constraint == "*" for o in deps)
    )
    return ", ".join(asked) or family.lead


def _losses(family: Family, request: CudaRequest, passed: Passed) -> list[Localized]:
    """One line per build, at its newest admitted release, saying why it lost."""
    newest: dict[str, Loss] = {}
    for _, losses in passed:
        for loss in losses:
            if not (loss.excluded or loss.python):
                newest.setdefault(loss.build.variant.name, loss)
    ruled = sorted(newest.values(), key=lambda x: x.build.sort_key(), reverse=True)
    lines: list[Localized] = _no_kernels(family, ruled)
    for loss in ruled:
        build = loss.build
        on = f" on {loss.target}" if loss.target else ""
        lines.append(f"  {build.variant.name} ({family.lead} {build.lead_version}){on}: {loss.why}")
    if not newest and not any(loss.python for _, losses in passed for loss in losses):
        lines.append(f"  no CUDA variant matches {request.said}")
    return lines


def _no_kernels(family: Family, ruled: Sequence[Loss]) -> list[Localized]:
    """One line before the builds' own where one GPU architecture of one target ruled every
    build out: "no build of torch 2.5.1 has kernels for sm_120 on the 4 nodes of ..."."""
    said = {(loss.target, loss.unserved) for loss in ruled}
    if len(said) != 1:
        return []
    ((target, unserved),) = said
    if unserved is None or (target is None and len(ruled) == 1):  # the build's line says it
        return []
    versions = sorted({loss.build.lead_version for loss in ruled}, key=_version_key)
    version = versions[0] if len(versions) == 1 else f"{versions[0]} to {versions[-1]}"
    asked = f"{family.lead} {version}"
    if target is None:
        return [message("no-variant.no-kernels", lead=asked, sm=unserved.sm)]
    return [message("no-variant.no-kernels-on", lead=asked, sm=unserved.sm, target=target)]


def no_variant(
    family: Family,
    requests: Requests,
    targets: Sequence[Target],
    request: CudaRequest,
    kb: KnowledgeBase,
    passed: Passed,
    python: str | None = None,
) -> NoVariantError:
    """No CUDA build of the admitted releases runs on every target.

    The why names each rule that removed a build (a target's GPU or driver, the project's
    requires-python, the CUDA request), and the versions the fix offers pass all of them.
    """
    asked = _asked(family, requests)
    losses = [loss for _, ls in passed for loss in ls]
    by_python = [loss.build for loss in losses if loss.python]
    # A build Requires-Python ruled out may not run on the targets either: then narrowing
    # requires-python alone would not help, and the targets' reason is said as well.
    also_blocked = _blocked_on_targets(by_python, targets, kb)
    only_python = bool(losses) and all(loss.python for loss in losses)  # no CPU build installs
    losses += also_blocked
    python_alone = {id(b) for b in by_python} - {id(loss.build) for loss in also_blocked}
    by_target = any(not (loss.excluded or loss.python) for loss in losses)
    lines: list[Localized] = [message("no-variant.first-line", lead=family.lead, asked=asked)]
    if request.pinned_by:
        lines[0] = message(
            "no-variant.first-line-pinned",
            lead=family.lead,
            asked=asked,
            pin=request.text,
            pinned_by=request.pinned_by,
        )
    elif losses and not by_target:
        lines[0] = message("no-variant.first-line-allowed", lead=family.lead, asked=asked)
    lines += _losses(family, request, passed)
    said: dict[str, Localized] = {
        str(loss.why): loss.why for loss in losses if loss.python and id(loss.build) in python_alone
    }
    said |= {str(loss.said): loss.said for loss in also_blocked}
    lines += [Phrase(("  ", why)) for why in said.values()]
    serving = _serving_versions(family, targets, kb, python)
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
    why: list[Localized] = []
    if by_target or not losses:
        why.append(message("no-variant.why"))
    if by_python:
        gap, releases = _python_refused(family, by_python)
        why.append(message("no-variant.why-python", python=python, gap=gap, releases=releases))
        if python_alone:
            fix.append(message("no-variant.fix-or-narrow-python", gap=gap))
    if losses and all(loss.excluded for loss in losses):
        why.append(message("no-variant.why-excluded", said=request.said))
    if not only_python:
        fix.append(message("no-variant.fix-or-cpu-fallback"))
    return NoVariantError(
        Phrase(tuple(lines), "\n"), why=Phrase(tuple(why), "; "), fix=Phrase(tuple(fix))
    )


def _blocked_on_targets(
    builds: Sequence[FamilyBuild], targets: Sequence[Target], kb: KnowledgeBase
) -> list[Loss]:
    """The builds among `builds` that some GPU target cannot run, each with that reason."""
    gpu_targets = [t for t in targets if t.runs_cuda]
    several = len(targets) > 1
    found: list[Loss] = []
    for build in builds:
        if build.variant.is_cpu:
            continue
        for target in gpu_targets:
            verdict = judge(build.variant, target, kb.nvidia)
            if not verdict.ok:
                label = target.label if several else None
                found.append(Loss(build, verdict.detail, target=label, unserved=verdict.unserved))
                break
    return found


def _python_refused(family: Family, builds: Sequence[FamilyBuild]) -> tuple[str, str]:
    """The Pythons the refused releases leave out, and those releases with their
    Requires-Python ("torch 2.15.0 (>=3.11)"), each once."""
    gap = sorted({p for b in builds for p in b.python_gap}, key=_version_key)
    releases = dict.fromkeys(
        f"{family.lead} {b.lead_version} ({b.release.requires_python})" for b in builds
    )
    return ", ".join(gap), ", ".join(releases)


def unmatched_request(
    family: Family, request: CudaRequest, releases: Sequence[Sequence[FamilyBuild]]
) -> ConfigError | NoVariantError | None:
    """The user's CUDA request matches no build of the admitted releases: a request no known
    build has is bad input (exit 2), one that only other releases have is a constraint (exit 3).

    Either error names the variants that exist. A request the project's own pins make is
    left to `no_variant`, which names the pin.
    """
    if request.kind != "version" or request.pinned_by:
        return None
    admitted = _variant_names(b.variant for builds in releases for b in builds)
    if any(request.allows(b.variant.cuda) for builds in releases for b in builds):
        return None
    known = _variant_names(v for release in family.releases for v in release.variants)
    matching = [
        (pair[family.lead], variant.name)
        for release in family.releases
        for variant in release.variants
        if not variant.is_cpu and request.allows(variant.cuda)
        for pair in release.pairs
    ]
    if not matching:
        return ConfigError(
            message("unknown-cuda.what", said=request.said, lead=family.lead),
            why=message("unknown-cuda.why", lead=family.lead, variants=", ".join(known)),
            fix=message("unknown-cuda.fix", example=_asking(request, known[-1])),
        )
    versions = sorted({v for v, _ in matching}, key=_version_key)
    return NoVariantError(
        message("unmatched-cuda.what", said=request.said, lead=family.lead),
        why=message(
            "unmatched-cuda.why",
            lead=family.lead,
            variants=", ".join(admitted) or "cpu",
            matching=", ".join(sorted({n for _, n in matching})),
            first=versions[0],
            last=versions[-1],
        ),
        fix=message(
            "unmatched-cuda.fix",
            example=_asking(request, admitted[-1] if admitted else "cpu"),
            variants=", ".join(admitted) or "cpu",
            lead=family.lead,
            first=versions[0],
            last=versions[-1],
        ),
    )


def _variant_names(variants: Iterable[Variant]) -> list[str]:
    """The CUDA variants' names, by CUDA version, each once."""
    by_name = {v.name: v.cuda for v in variants if v.cuda is not None}
    return sorted(by_name, key=lambda name: by_name[name])


def _asking(request: CudaRequest, variant: str) -> str:
    """How the user would ask for `variant` where they made `request`: option or config key."""
    return f"{request.key} {variant}" if request.key.startswith("--") else f'cuda = "{variant}"'


def no_cpu_build(family: Family, request: CudaRequest) -> NoVariantError:
    """The CPU build is wanted (no target has a driver, or the project asks for it), and
    the admitted releases have none."""
    return NoVariantError(
        f"{family.lead} has no CPU build in the versions the project allows",
        why="no target has an NVIDIA driver" if request.kind == "auto" else request.said,
        fix=f"plan for a GPU host with --target, or use the CPU package instead of {family.lead}",
    )


def python_refusal(
    family: Family, requests: Requests, builds: Sequence[FamilyBuild], python: str | None
) -> NoVariantError:
    """The builds wanted (the CPU ones) exist in the admitted releases, but none installs on
    every Python the project's requires-python admits."""
    gap, releases = _python_refused(family, builds)
    newest = next(
        (
            pair[family.lead]
            for release in reversed(family.releases)
            if not python_gap(release.requires_python, python)
            for pair in reversed(release.pairs)
        ),
        None,
    )
    fix = message("no-variant.fix-or-narrow-python", gap=gap)
    return NoVariantError(
        Phrase(
            (
                message(
                    "no-variant.first-line-allowed",
                    lead=family.lead,
                    asked=_asked(family, requests),
                ),
                *{str(c): Phrase(("  ", c)) for c in map(python_clause, builds)}.values(),
            ),
            "\n",
        ),
        why=message("no-variant.why-python", python=python, gap=gap, releases=releases),
        fix=fix
        if newest is None
        else message("no-variant.fix-narrow-python", gap=gap, lead=family.lead, newest=newest),
    )


def _serving_versions(
    family: Family, targets: Sequence[Target], kb: KnowledgeBase, python: str | None
) -> list[tuple[str, str]]:
    """(lead version, variant) of every known build that runs on every target and installs
    on every Python the project's requires-python (`python`) admits."""
    found: list[tuple[str, str]] = []
    gpu_targets = [t for t in targets if t.runs_cuda]
    for release in family.releases:
        if python_gap(release.requires_python, python):
            continue
        for variant in release.variants:
            if variant.is_cpu or not gpu_targets:
                continue
            if all(judge(variant, t, kb.nvidia).ok for t in gpu_targets):
                found.extend(
                    (pair[family.lead], variant.name)
                    for pair in release.pairs
                    if variant.publishes(pair[family.lead])
                )
    return found


def no_release(family: Family, requests: Requests) -> NoVariantError:
    """The constraints admit no release the knowledge base knows, nor any newer one."""
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
