"""Which of cuda.lock's extras fits a host: what `sync` installs and what doctor checks.

A multi-variant project offers each build as an extra (or group). The extra to install
is, per family, the one `planning.compat.best_fit` names for this host, judged on the
build cuda.lock records: the rule the plan named each target's extra by. On a host with
an NVIDIA driver, the highest-CUDA one whose build runs there (native or
minor-compatible, every GPU served; policy `native` leaves out what runs only through
minor-version compatibility), the CPU build only with `allow-cpu-fallback`; on a host
without one, the CPU build. A platform fork (cuda.lock's extras of kind "marker") is not
chosen by name: the package manager installs the one whose marker this host matches, and
doctor checks that the installed build is that fork's.
"""

from __future__ import annotations

import dataclasses

from typing import TYPE_CHECKING

from poetry_cuda.doctor.findings import fail
from poetry_cuda.doctor.findings import ok
from poetry_cuda.doctor.findings import warn
from poetry_cuda.doctor.installed import CPU
from poetry_cuda.errors import NoVariantError
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import message
from poetry_cuda.planning.compat import NO_CUDA
from poetry_cuda.planning.compat import Verdict
from poetry_cuda.planning.compat import best_fit
from poetry_cuda.planning.compat import judge_under
from poetry_cuda.planning.extras import covers
from poetry_cuda.planning.gpu_stacks import stack_refusals
from poetry_cuda.records import frozen
from poetry_cuda.versions import CudaVersion


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.doctor.findings import Finding
    from poetry_cuda.doctor.installed import Distribution
    from poetry_cuda.doctor.installed import Environment
    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.knowledge.model import Nvidia
    from poetry_cuda.locking.lockfile import CudaLock
    from poetry_cuda.locking.lockfile import LockedExtra
    from poetry_cuda.messages import Localized
    from poetry_cuda.messages import Message
    from poetry_cuda.planning.gpu_stacks import GpuStacks
    from poetry_cuda.planning.targets import Target
    from poetry_cuda.request.settings import Policy


SYNC_FIX = message("extra.sync-fix")
SYNC_FIX_UV = message("extra.sync-fix-uv")  # a uv project: the script is the one way
FALLBACK = "allow-cpu-fallback = true in [tool.poetry-cuda]"


@frozen
class Judged:
    extra: LockedExtra
    verdict: Verdict


@frozen
class Pick:
    """The extra of one family that fits the host, or None, and every extra as judged."""

    family: str
    extra: LockedExtra | None
    reason: Localized  # why this extra, or why none
    judged: tuple[Judged, ...]
    fix: Localized = ""  # what to do where none fits, when the host's own forks say it

    def verdict(self, extra: LockedExtra) -> Verdict:
        return next(j.verdict for j in self.judged if j.extra == extra)


def families(extras: Sequence[LockedExtra]) -> list[str]:
    """The families the extras install, in the order cuda.lock records them."""
    return list(dict.fromkeys(e.family for e in extras))


def pick_extras(
    extras: Sequence[LockedExtra],
    target: Target,
    nvidia: Nvidia,
    stacks: GpuStacks,
    *,
    policy: Policy,
    allow_cpu_fallback: bool,
) -> tuple[Pick, ...]:
    """For each family, the extra that fits `target` (see the module's rule), among those
    whose platform marker takes `target` in; a ROCm or XPU extra fits an AMD or Intel GPU
    only where its build serves it (`stacks`: each gfx among the build's, as a plan asks).
    A platform fork is the package manager's to choose, by its marker; a family whose
    extras there all install one build is left to the user: which of them to install is
    not the machine's to say."""
    picks = []
    for family in families(extras):
        here = [e for e in extras if e.family == family and covers(e.marker, target)]
        named = [e for e in here if e.chosen_by_name]
        if named and len(named) > 1 and len({e.variant for e in named}) == 1:
            continue
        if named:
            picks.append(_pick(named, target, nvidia, stacks, policy, allow_cpu_fallback))
        elif here:
            picks.append(_platform_fork(here[0], target, nvidia, policy))
    return tuple(picks)


def _pick(
    extras: list[LockedExtra],
    target: Target,
    nvidia: Nvidia,
    stacks: GpuStacks,
    policy: Policy,
    allow_cpu_fallback: bool,
) -> Pick:
    family = extras[0].family
    builds = [e.build() for e in extras]
    versions = [e.version for e in extras]
    unserved = stack_refusals(list(zip(builds, versions, strict=True)), target, stacks)
    fit = best_fit(
        builds,
        target,
        nvidia,
        policy=policy,
        allow_cpu_fallback=allow_cpu_fallback,
        refused={i: Verdict("no", error.said) for i, error in unserved.items()},
    )
    judged = tuple(Judged(e, verdict) for e, verdict in zip(extras, fit.verdicts, strict=True))
    chosen = None if fit.best is None else judged[fit.best]
    driver = message("reason.driver-supports", version=target.driver, cuda=target.cuda)
    if chosen is not None and fit.how == "stack":
        return Pick(family, chosen.extra, chosen.verdict.detail, judged)
    if unserved:  # this GPU's own forks do not serve it: why, and the CPU build only as asked
        error = next(iter(unserved.values()))
        why: Localized = Phrase((error.said, error.why), ": ") if error.why else error.said
        if chosen is None:
            return Pick(family, None, why, judged, error.fix)
        return Pick(family, chosen.extra, Phrase((why, FALLBACK), "; "), judged)
    if not target.runs_cuda:
        host = message("extra.macos" if target.os == "macos" else "extra.no-driver")
        if chosen is None:
            return Pick(family, None, message("extra.no-cpu", host=host, family=family), judged)
        cpu = message("extra.cpu", host=host, extra=chosen.extra.name)
        return Pick(family, chosen.extra, cpu, judged)
    if chosen is None:
        return Pick(family, None, message("extra.none-runs", family=family, driver=driver), judged)
    if fit.how == "fallback":
        reason = message("extra.fallback", driver=driver, fallback=FALLBACK)
        return Pick(family, chosen.extra, reason, judged)
    passed = [j for j in judged if not j.verdict.ok and _cuda(j) > _cuda(chosen)]
    parts: list[Localized] = [
        message("extra.highest", driver=driver, detail=chosen.verdict.detail),
        *(message("extra.not", extra=j.extra.name, detail=j.verdict.detail) for j in passed),
    ]
    return Pick(family, chosen.extra, Phrase(tuple(parts), "; "), judged)


def _platform_fork(fork: LockedExtra, target: Target, nvidia: Nvidia, policy: Policy) -> Pick:
    """The platform fork `target` is in: the package manager installs it, runs or not."""
    verdict = judge_under(policy, fork.build(), target, nvidia)
    reason = f"its marker ({fork.marker}) takes this machine in; {verdict.detail}"
    return Pick(fork.family, fork, reason, (Judged(fork, verdict),))


def _cuda(judged: Judged) -> CudaVersion:
    return judged.extra.cuda or NO_CUDA


def refusal(picks: Sequence[Pick], target: Target) -> NoVariantError | None:
    """The error (exit 3) when some family has no extra that fits; None when all do."""
    missing = [p for p in picks if p.extra is None]
    if not missing:
        return None
    lines: list[Localized] = []
    for pick in missing:
        lines.append(message("extra.refused", family=pick.family, reason=pick.reason))
        for judged in pick.judged:
            detail: Localized = judged.verdict.detail
            if judged.verdict.fit == "cpu" and target.runs_cuda:
                detail = Phrase((detail, message("extra.cpu-only-with", fallback=FALLBACK)), "; ")
            lines.append(Phrase((f"  {judged.extra.name}", detail), ": "))
    return NoVariantError(
        Phrase(tuple(lines), "\n"),
        why=message("extra.refused-why"),
        fix=next((p.fix for p in missing if p.fix), refusal_fix(target)),
    )


def refusal_fix(target: Target) -> Message:
    """What to do on a machine that no extra fits."""
    if target.runs_cuda:
        return message("extra.refused-fix-driver", fallback=FALLBACK)
    return message("extra.refused-fix-no-driver")


def installed_extra(dist: Distribution, extras: Sequence[LockedExtra]) -> LockedExtra | None:
    """The extra whose build `dist` is: by its version label (`+cu124`, `+cpu`), else by
    the CUDA version the build records (PyPI's unlabelled CUDA builds)."""
    label = dist.version.partition("+")[2]
    by_label = next((e for e in extras if label and e.variant == label), None)
    if by_label is not None or dist.build_cuda is None:
        return by_label
    if dist.build_cuda == CPU:
        return next((e for e in extras if e.cuda is None), None)
    try:
        cuda = CudaVersion.parse(dist.build_cuda)
    except ValueError:
        return None
    return next((e for e in extras if e.cuda == cuda), None)


def without_extras_families(cuda_lock: CudaLock, kb: KnowledgeBase) -> CudaLock:
    """`cuda_lock` without the packages of the families its extras install: those are
    checked by extra (which one is installed, which one fits), not by one recorded build."""
    covered = set(families(cuda_lock.extras))

    def by_extra(name: str) -> bool:
        family = kb.family_of(name)
        return (family.name if family else name) in covered

    kept = tuple(p for p in cuda_lock.packages if not by_extra(p.name))
    return dataclasses.replace(cuda_lock, packages=kept)


def check_extras(
    picks: Sequence[Pick],
    environment: Environment | None,
    kb: KnowledgeBase,
    target: Target,
    *,
    backend: str | None = None,
) -> list[Finding]:
    """Per family: which extra fits this host, and whether the installed build is it."""
    sync = SYNC_FIX_UV if backend == "uv" else SYNC_FIX
    found: list[Finding] = []
    for pick in picks:
        if pick.extra is None:
            none = message("extra.none-fits", family=pick.family, reason=pick.reason)
            found.append(fail("host", "extra", none, pick.fix or refusal_fix(target)))
            continue
        fits = message("extra.fits", extra=pick.extra.described, reason=pick.reason)
        found.append(ok("host", "extra", fits))
        if environment is not None:
            found.append(_installed_extra(pick, pick.extra, environment, kb, target, sync))
    return found


def _installed_extra(
    pick: Pick,
    best: LockedExtra,
    environment: Environment,
    kb: KnowledgeBase,
    target: Target,
    sync: Message = SYNC_FIX,
) -> Finding:
    extras = [j.extra for j in pick.judged]
    names = ", ".join(e.name for e in extras)
    fix = message("extra.install-fix", sync=sync, extra=best.name)
    family = next((f for f in kb.families if f.name == pick.family), None)
    members = (family.lead, *family.members) if family else (pick.family,)
    dist = next((d for d in map(environment.get, members) if d is not None), None)
    if dist is None:
        return fail(
            "environment",
            "extra",
            message("extra.none-installed", family=pick.family, names=names),
            fix,
            subject=pick.family,
        )
    build = f"{dist.name} {dist.version}"
    extra = installed_extra(dist, extras)
    if extra is None:
        return fail(
            "environment",
            "extra",
            message("extra.foreign-installed", build=build, names=names),
            fix,
            subject=pick.family,
        )
    if extra == best:
        return ok(
            "environment",
            "extra",
            message("extra.installed", extra=extra.described, build=build),
            subject=pick.family,
        )
    verdict = pick.verdict(extra)
    if not verdict.ok:
        cannot = message(
            "extra.installed-cannot-run", extra=extra.name, build=build, detail=verdict.detail
        )
        return fail("environment", "extra", cannot, fix, subject=pick.family)
    if extra.cuda is None and target.runs_cuda:
        return fail(
            "environment",
            "extra",
            message("extra.cpu-installed", extra=extra.name, build=build, best=best.name),
            fix,
            subject=pick.family,
        )
    return warn(
        "environment",
        "extra",
        message("extra.other-installed", extra=extra.name, build=build, best=best.name),
        fix,
        subject=pick.family,
    )
