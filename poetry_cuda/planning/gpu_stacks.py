"""The torch family's ROCm or XPU build, for targets whose GPUs are AMD's or Intel's.

A target with no NVIDIA driver whose GPUs are AMD's or Intel's (`needs_stack`) is planned
by `rocm.plan_accelerator`, offered the versions of the family's releases the project's
constraints admit (the newest admitted version of each, with its member versions). The
build is chosen as a CUDA build is: shown with its variant (``rocm6.4``, ``xpu``), its
index or the family's mirror, and the reasons and warnings of the decision; no build
serving the GPUs is an explained refusal. One lock installs one build of a family, so
every such target must get the same build, and none may need a CUDA build beside it: a
team of NVIDIA and AMD machines is refused unless the project offers each build as its
own extra (`extras`, which never comes here). ROCm and XPU are planned for the torch
family only, the one `knowledge.rocm` and `knowledge.xpu` describe.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from packaging.version import Version

from poetry_cuda.accelerators import accelerator_of
from poetry_cuda.errors import NoVariantError
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import message
from poetry_cuda.planning.candidates import admitted_releases
from poetry_cuda.planning.rocm import AcceleratorPlan
from poetry_cuda.planning.rocm import plan_accelerator
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Collection
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import Confidence
    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.knowledge.model import Variant
    from poetry_cuda.knowledge.rocm import RocmKnowledge
    from poetry_cuda.knowledge.rocm import RocmRelease
    from poetry_cuda.knowledge.xpu import XpuKnowledge
    from poetry_cuda.knowledge.xpu import XpuRelease
    from poetry_cuda.messages import Localized
    from poetry_cuda.messages import Message
    from poetry_cuda.planning.candidates import FamilyBuild
    from poetry_cuda.planning.candidates import Requests
    from poetry_cuda.planning.candidates import Unavailable
    from poetry_cuda.planning.targets import Target

FAMILY = "torch"  # the family whose ROCm and XPU builds the knowledge describes


@frozen
class GpuStacks:
    """What is known of the ROCm and XPU builds (`knowledge.packaged.rocm()`, `.xpu()`)."""

    rocm: RocmKnowledge
    xpu: XpuKnowledge


@frozen
class StackBuild:
    """The ROCm or XPU build chosen for the AMD or Intel targets: the plan's decision, the
    family's member versions that go with it, the gfx targets it serves, why it won, and
    the version the pins stay below (a newer admitted release it passed over), where the
    knowledge of the build was read, and the packages the build depends on that only its
    index serves (its Triton: `pytorch-triton-rocm`, `triton-rocm`, `triton-xpu`)."""

    plan: AcceleratorPlan
    build: FamilyBuild
    arches: tuple[str, ...]
    reason: Message
    bound: str
    source: str
    confidence: Confidence
    companions: tuple[str, ...] = ()


@frozen
class StackDecision:
    """What the AMD and Intel targets get: a build (None: the CPU build), the warnings,
    and the labels of the targets decided here (their GPUs are accounted for)."""

    chosen: StackBuild | None
    warnings: tuple[Localized, ...]
    decided: tuple[str, ...]


def needs_stack(target: Target) -> bool:
    """Whether `target`'s GPUs are AMD's or Intel's, with no NVIDIA GPU (an NVIDIA GPU
    without its driver still asks for the driver, as before) and not macOS."""
    if target.runs_cuda or target.os == "macos" or target.profile.nvidia_gpus:
        return False
    return any(gpu.vendor in ("amd", "intel") for gpu in target.profile.gpus)


def decide_stack(
    family: Family,
    requests: Requests,
    targets: Sequence[Target],
    stacks: GpuStacks,
    unavailable: Collection[Unavailable] = (),
    *,
    python: str | None = None,
    allow_cpu_fallback: bool = False,
    asked: Collection[str] = (),
) -> StackDecision | None:
    """The ROCm or XPU build for the targets that need one (None: no target does); a
    target no build serves is refused, or with `allow_cpu_fallback` given the CPU build.
    `asked`: the ROCm variants the project's own indexes serve (see `plan_accelerator`)."""
    needing = [t for t in targets if needs_stack(t)]
    if family.name != FAMILY or not needing:
        return None
    offered = _offered(family, requests, python)
    missing = [(version, variant) for name, version, variant in unavailable if name == family.name]
    plans = [
        (t, plan_target(t, list(offered), stacks, allow_cpu_fallback, missing, asked))
        for t in needing
    ]
    warnings: list[Localized] = []
    for warning in (w for _, plan in plans for w in plan.warnings):
        if warning not in warnings:  # a message is not hashable: no dict.fromkeys
            warnings.append(warning)
    decided = tuple(t.label for t in needing)
    served = [(t, plan) for t, plan in plans if plan.accelerator in ("rocm", "xpu")]
    if not served:
        return StackDecision(None, tuple(warnings), decided)
    plan = served[0][1]
    assert plan.torch is not None and plan.variant is not None
    known: RocmRelease | XpuRelease | None
    if plan.accelerator == "rocm":
        known = stacks.rocm.release(plan.torch)
        platforms = stacks.rocm.index.platforms
    else:
        known = stacks.xpu.release(plan.torch)
        platforms = known.platforms if known else ()
    assert known is not None  # the plan chose a release the knowledge lists
    # The other targets install the same build: a CPU machine runs it where it is published.
    builds = {(p.torch, p.variant) for _, p in served}
    cuda = [t.label for t in targets if t.runs_cuda]
    ours = {t.label for t, _ in served}
    stranded = [
        t
        for t in targets
        if t.label not in ours
        and not t.runs_cuda
        and t.os != "macos"
        and t.platform not in platforms
    ]
    if cuda or stranded or len(builds) > 1:
        raise _mixed(family, served, cuda, stranded)
    build = offered[plan.torch]
    arches = _arches(plan, stacks)
    reason = _reason(plan, [p for _, p in served], arches)
    newer = [Version(v) for v in offered if Version(v) > Version(plan.torch)]
    bound = f"<{min(newer)}" if newer else ""
    triton = (stacks.rocm if plan.accelerator == "rocm" else stacks.xpu).triton_for(plan.torch)
    companions = () if triton is None else (triton.name,)
    chosen = StackBuild(
        plan, build, arches, reason, bound, known.source, known.confidence, companions
    )
    return StackDecision(chosen, tuple(warnings), decided)


def _reason(
    plan: AcceleratorPlan, served: list[AcceleratorPlan], arches: tuple[str, ...]
) -> Message:
    """Why the build won: the GPUs it serves and, for ROCm, the gfx targets it is built for."""
    gpus = ", ".join(dict.fromkeys(gpu.describe() for p in served for gpu in p.gpus))
    if plan.accelerator == "rocm":
        return message("reason.rocm-build", gpus=gpus, variant=plan.variant, gfx=", ".join(arches))
    return message("reason.xpu-build", gpus=gpus, variant=plan.variant)


def _offered(family: Family, requests: Requests, python: str | None) -> dict[str, FamilyBuild]:
    """The newest admitted version of each release, by version, with its member versions
    (read from the release's CPU build: members pair the same on every index)."""
    offered = {}
    for builds in admitted_releases(family, requests, python=python):
        cpu = next((b for b in builds if b.variant.is_cpu and not b.python_gap), None)
        if cpu is not None:
            offered[cpu.lead_version] = cpu
    return offered


def plan_target(
    target: Target,
    versions: Sequence[str],
    stacks: GpuStacks,
    allow_cpu_fallback: bool,
    unavailable: Collection[tuple[str, str]] = (),
    asked: Collection[str] = (),
) -> AcceleratorPlan:
    """The plan of one target whose GPUs are AMD's or Intel's (`needs_stack`), from the
    torch `versions` offered, never a (version, variant) `unavailable` names: no build
    serving it is refused, or with `allow_cpu_fallback` given the CPU build. The one rule
    for such a target's build, also where its wheel-variant label is chosen
    (`variant_label`)."""
    versions = list(versions)
    while True:
        try:
            plan = plan_accelerator(
                target.profile, versions, rocm_kb=stacks.rocm, xpu_kb=stacks.xpu, asked=asked
            )
        except NoVariantError as refused:
            if not allow_cpu_fallback:
                raise
            fallback = f"{refused.what}; using the CPU build because allow-cpu-fallback = true"
            return AcceleratorPlan("cpu", warnings=(fallback,))
        if plan.torch is None or (plan.torch, plan.variant) not in unavailable:
            return plan
        versions.remove(plan.torch)


def stack_refusal(
    target: Target, torch: str, variant: str, stacks: GpuStacks
) -> NoVariantError | None:
    """Why the ROCm or XPU build ``torch+variant`` (a fork's) does not serve `target`'s GPUs,
    by the rule a plan chooses such a build (`plan_target`: each AMD GPU's gfx among the
    build's, the amdgpu driver's ROCm range, Intel's device IP); None where it serves them,
    or where the knowledge does not describe the build (then the GPU's vendor decides)."""
    if not _described(stacks, torch, variant):
        return None
    try:
        plan = plan_target(target, [torch], stacks, False, asked=(variant,))
    except NoVariantError as refused:
        return refused
    if plan.variant == variant:
        return None
    gpus = ", ".join(dict.fromkeys(gpu.describe() for gpu in target.profile.gpus))
    what = message("stacks.fork-unserved", lead=FAMILY, build=f"{torch}+{variant}", gpus=gpus)
    if plan.variant is None:  # no build of the release: the CPU build, and the plan says why
        why: Localized = Phrase(plan.warnings, "; ") if plan.warnings else ""
        return NoVariantError(what, why=why, fix=message("stacks.fork-unserved-cpu"))
    build, instead = f"{torch}+{variant}", f"{plan.torch}+{plan.variant}"
    missing = [gfx for gfx in _gfx(target) if gfx not in _built_for(stacks, torch, variant)]
    why = (
        message("stacks.fork-unserved-gfx", build=build, gfx=", ".join(missing), instead=instead)
        if missing
        else message("stacks.fork-unserved-driver", build=build, instead=instead)
    )
    return NoVariantError(what, why=why, fix=message("stacks.fork-unserved-fix", instead=instead))


def stack_refusals(
    builds: Sequence[tuple[Variant, str | None]], target: Target, stacks: GpuStacks
) -> dict[int, NoVariantError]:
    """By index, the forks' ROCm and XPU builds (each with the lead's version planned for
    it) made for `target`'s GPUs that do not serve them (`stack_refusal`): the rule the plan
    and `sync` both judge forks by. A build whose version is not known is judged by the
    GPU's vendor alone."""
    if not needs_stack(target):
        return {}
    found = {}
    for i, (build, version) in enumerate(builds):
        if build.accelerator in target.profile.accelerators and version:
            error = stack_refusal(target, version, build.name, stacks)
            if error is not None:
                found[i] = error
    return found


def _described(stacks: GpuStacks, torch: str, variant: str) -> bool:
    """Whether the knowledge lists the build ``torch+variant``: its ROCm build, or its
    release's XPU builds."""
    if accelerator_of(variant) == "xpu":
        return stacks.xpu.release(torch) is not None
    release = stacks.rocm.release(torch)
    return release is not None and any(b.variant == variant for b in release.builds)


def _gfx(target: Target) -> list[str]:
    return list(dict.fromkeys(gpu.gfx for gpu in target.profile.gpus if gpu.gfx))


def _built_for(stacks: GpuStacks, torch: str, variant: str) -> tuple[str, ...]:
    """The gfx targets the ROCm build ``torch+variant`` serves (none where it is not known)."""
    release = stacks.rocm.release(torch)
    builds = release.builds if release else ()
    return next((stacks.rocm.usable_gfx(b) for b in builds if b.variant == variant), ())


def _arches(plan: AcceleratorPlan, stacks: GpuStacks) -> tuple[str, ...]:
    """The gfx targets a ROCm build serves (an XPU build lists none)."""
    release = stacks.rocm.release(plan.torch or "")
    if plan.accelerator != "rocm" or release is None:
        return ()
    build = next(b for b in release.builds if b.variant == plan.variant)
    return stacks.rocm.usable_gfx(build)


def _mixed(
    family: Family,
    served: list[tuple[Target, AcceleratorPlan]],
    cuda: list[str],
    stranded: list[Target],
) -> NoVariantError:
    """One lock cannot install the builds these targets need."""
    needs = [f"{t.label} needs {family.lead} {plan.torch}+{plan.variant}" for t, plan in served]
    if cuda:
        needs.append(f"{', '.join(cuda)} need{'s' * (len(cuda) == 1)} a CUDA build")
    needs += [
        f"{t.label} needs a CPU build (no {served[0][1].variant} wheels for {t.platform})"
        for t in stranded
    ]
    return NoVariantError(
        message("stacks.mixed-what", lead=family.lead),
        why=message("stacks.mixed-why", needs="; ".join(needs)),
        fix=message("stacks.mixed-fix", lead=family.lead),
    )
