"""Can a build run on a host? The SPEC's selection rules, as pure functions.

A CUDA variant built with CUDA c_V runs on a driver whose highest CUDA is c_D when it
is *native* (c_V <= c_D) or *minor-compatible* (same major, and the driver is at least
that major's minor-version-compatibility floor). It serves a GPU of compute capability
X.Y when it ships SASS for some X.y with y <= Y, or PTX for an architecture <= X.Y and
is native: PTX produced by a newer toolkit cannot be JIT-compiled by an older driver.

`best_fit` is the one rule for which of a family's builds (a multi-variant project's
extras) fits a host: the plan names it per target, `sync` installs it, doctor checks it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Literal

from poetry_cuda.accelerators import PLANNED
from poetry_cuda.accelerators import stack_name
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import message
from poetry_cuda.records import frozen
from poetry_cuda.versions import CudaVersion


if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import Nvidia
    from poetry_cuda.knowledge.model import Variant
    from poetry_cuda.messages import Localized
    from poetry_cuda.messages import Message
    from poetry_cuda.planning.targets import Target
    from poetry_cuda.request.settings import Policy
    from poetry_cuda.versions import ComputeCapability


Fit = Literal["native", "minor-compatible", "cpu", "no"]
NO_CUDA = CudaVersion(0, 0)  # what a CPU build counts as where builds are ranked by CUDA


@frozen
class Verdict:
    fit: Fit
    detail: Localized  # the deciding fact, phrased to follow the variant's name
    # The target's GPU architecture the build has no kernels for, where that decided it.
    unserved: ComputeCapability | None = None

    @property
    def ok(self) -> bool:
        return self.fit != "no"


Kernels = Literal["sass", "ptx"]


def arch_names(sass: Sequence[ComputeCapability], ptx: Sequence[ComputeCapability]) -> str:
    """``sm_80, sm_90, compute_90``: SASS as the compiler spells it, then PTX."""
    names = [cc.sm for cc in sass] + [f"compute_{cc.major}{cc.minor}" for cc in ptx]
    return ", ".join(names) or "none"


def arch_list(variant: Variant) -> str:
    return arch_names(variant.sass, variant.ptx)


def arches_of(variant: Variant) -> tuple[str, ...]:
    """``("sm_80", "sm_90", "compute_90")``: SASS as the compiler spells it, then PTX."""
    return tuple(cc.sm for cc in variant.sass) + tuple(
        f"compute_{cc.major}{cc.minor}" for cc in variant.ptx
    )


def kernels_for(
    sass: Sequence[ComputeCapability], ptx: Sequence[ComputeCapability], cc: ComputeCapability
) -> tuple[Kernels, ComputeCapability] | None:
    """The code a GPU of capability `cc` runs from a build shipping `sass` and `ptx`: the
    newest SASS of its major no newer than `cc`, else the newest PTX no newer than `cc`."""
    same_major = [s for s in sass if s.major == cc.major and s.minor <= cc.minor]
    if same_major:
        return "sass", max(same_major)
    older = [p for p in ptx if p <= cc]
    if older:
        return "ptx", max(older)
    return None


def serves_gpu(variant: Variant, cc: ComputeCapability, *, native: bool) -> tuple[bool, Message]:
    """Whether `variant` has kernels for `cc`, and the fact that decides it."""
    name = variant.name
    found = kernels_for(variant.sass, variant.ptx, cc)
    if found is None:
        return False, message("verdict.no-kernels", name=name, sm=cc.sm, arches=arch_list(variant))
    kind, arch = found
    if kind == "sass":
        if arch == cc:
            return True, message("verdict.sass", sm=cc.sm, name=name)
        return True, message("verdict.sass-via", sm=cc.sm, name=name, arch=arch.sm)
    if native:
        return True, message("verdict.ptx", sm=cc.sm, name=name, arch=f"{arch.major}{arch.minor}")
    return False, message("verdict.ptx-not-native", name=name, sm=cc.sm)


def judge(variant: Variant, target: Target, nvidia: Nvidia) -> Verdict:
    """Whether `variant` runs on `target`, with the deciding fact as a clause."""
    name = variant.name
    if variant.platforms and target.platform not in variant.platforms:
        return Verdict("no", message("verdict.not-published", name=name, platform=target.platform))
    c_v = variant.cuda
    if variant.accelerator == "cpu":
        return Verdict("cpu", message("verdict.cpu-build", name=name))
    if c_v is None:  # a ROCm or XPU build: none is planned for yet
        stack = stack_name(variant.accelerator)
        return Verdict("no", message("verdict.not-planned", name=name, stack=stack))
    variant = variant.on(target.platform)  # e.g. aarch64 builds ship fewer architectures
    if not target.runs_cuda or target.cuda is None:
        return Verdict("no", message("verdict.needs-driver", name=name))
    c_d = target.cuda
    needed = nvidia.toolkit_driver(c_v, target.os)
    needs = (
        message("verdict.driver-at-least", version=needed)
        if needed
        else message("verdict.cuda-driver", cuda=c_v)
    )
    fit: Fit = "native"
    if c_v > c_d:
        floor = nvidia.floor(c_v.major, target.os)
        if c_v.major != c_d.major or floor is None or target.driver is None:
            return Verdict("no", message("verdict.needs-newer", name=name, needs=needs, cuda=c_d))
        if target.driver < floor:
            return Verdict(
                "no",
                message(
                    "verdict.needs-floor",
                    name=name,
                    needs=needs,
                    floor=floor,
                    major=c_v.major,
                    driver=target.driver,
                ),
            )
        fit = "minor-compatible"
    facts: list[Message] = []
    for cc in target.profile.capabilities:
        served, fact = serves_gpu(variant, cc, native=fit == "native")
        if not served:
            if fit == "minor-compatible" and variant.ptx and needed:
                fact = message("verdict.at-least", fact=fact, version=needed)
            none = kernels_for(variant.sass, variant.ptx, cc) is None
            return Verdict("no", fact, cc if none else None)
        facts.append(fact)
    if fit == "minor-compatible":
        facts.append(message("verdict.minor-compatible", name=name, major=c_v.major))
    if not facts:
        return Verdict(fit, message("verdict.native", name=name))
    return Verdict(fit, Phrase(tuple(facts), "; "))


How = Literal["cuda", "cpu", "fallback", "stack"]
"""cuda: the highest CUDA build that runs; cpu: the CPU build, on a host without an NVIDIA
driver; fallback: the CPU build on a GPU host no CUDA build runs on (allow-cpu-fallback)."""


@frozen
class BestFit:
    """Which of several builds fits one target best (an index into them, None: none does),
    how it was chosen, and every build's verdict under the policy."""

    best: int | None
    how: How | None
    verdicts: tuple[Verdict, ...]


def judge_under(policy: Policy, variant: Variant, target: Target, nvidia: Nvidia) -> Verdict:
    """`judge`, where policy native refuses what runs only through minor-version compatibility."""
    verdict = judge(variant, target, nvidia)
    if policy == "native" and verdict.fit == "minor-compatible":
        return Verdict("no", message("verdict.policy-native", detail=verdict.detail))
    return verdict


def _judged(policy: Policy, build: Variant, target: Target, nvidia: Nvidia) -> Verdict:
    """`judge_under`, where a ROCm or XPU build (a fork's, which names no GPU architectures
    yet) runs on a target with a GPU of its accelerator."""
    if build.accelerator in PLANNED:
        return judge_under(policy, build, target, nvidia)
    stack = stack_name(build.accelerator)
    # What tells the GPUs apart (cuda.lock records no GPU names).
    gpus = [
        gpu.gfx or gpu.device_ip or stack
        for gpu in target.profile.gpus
        if gpu.accelerator == build.accelerator
    ]
    if not gpus:
        return Verdict("no", message("verdict.stack-no-gpu", name=build.name, stack=stack))
    shown = ", ".join(dict.fromkeys(gpus))
    return Verdict("native", message("verdict.stack-gpu", name=build.name, stack=stack, gpus=shown))


def best_fit(
    builds: Sequence[Variant],
    target: Target,
    nvidia: Nvidia,
    *,
    policy: Policy,
    allow_cpu_fallback: bool,
    refused: Mapping[int, Verdict] | None = None,
) -> BestFit:
    """The build that fits `target` best: on a host with an NVIDIA driver the highest-CUDA
    one that runs there (the first of equals), else the CPU build only with
    `allow_cpu_fallback`; on a host without one, the (first) CPU build. `refused`: the
    verdicts, by index, on the ROCm or XPU builds made for this host's GPUs that do not
    serve them (`gpu_stacks.stack_refusal`): where one is, the CPU build is a fallback."""
    refused = refused or {}
    verdicts = tuple(
        refused.get(i) or _judged(policy, build, target, nvidia) for i, build in enumerate(builds)
    )
    stack = [i for i, v in enumerate(verdicts) if v.ok and builds[i].accelerator not in PLANNED]
    if stack and not target.runs_cuda:
        return BestFit(stack[0], "stack", verdicts)
    cpu = next((i for i, verdict in enumerate(verdicts) if verdict.fit == "cpu"), None)
    if not target.runs_cuda and refused:
        # The GPU here has its own forks, none of which serves it: not silently the CPU.
        fallback = cpu is not None and allow_cpu_fallback
        return BestFit(cpu, "fallback", verdicts) if fallback else BestFit(None, None, verdicts)
    if not target.runs_cuda:
        return BestFit(cpu, None if cpu is None else "cpu", verdicts)
    runs = [i for i, verdict in enumerate(verdicts) if verdict.ok and verdict.fit != "cpu"]
    if runs:
        return BestFit(max(runs, key=lambda i: builds[i].cuda or NO_CUDA), "cuda", verdicts)
    if cpu is not None and allow_cpu_fallback:
        return BestFit(cpu, "fallback", verdicts)
    return BestFit(None, None, verdicts)
