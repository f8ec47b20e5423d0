"""ROCm and XPU builds of the torch family for AMD and Intel GPUs: the pure decision.

Given a host profile, the torch versions an index offers and the project's constraint, it
says which accelerator the plan serves and, for AMD or Intel GPUs, the build:

* NVIDIA GPUs present: the CUDA build serves the machine unless the project asks for
  another accelerator (`prefer`); the other GPUs are named in a warning.
* AMD: the newest admitted torch version whose release has a ROCm build listing every
  GPU's gfx (after the bundled libraries' gaps, `RocmKnowledge.usable_gfx`) and, when the
  amdgpu kernel driver's release is known, whose ROCm that driver runs; among a release's
  builds the highest ROCm. None: an explained refusal (`NoVariantError`, exit 3) with the
  knowledge base's hint and its ``HSA_OVERRIDE_GFX_VERSION`` workaround, never a silent CPU
  build. pytorch.org publishes ROCm wheels for Linux x86_64 only: elsewhere the CPU build,
  with a warning that says so.
* Intel: the newest admitted version with ``+xpu`` wheels for the platform, for GPUs of
  Arc's device IP or newer; an older Intel GPU gets the CPU build with the reason.

Where the build comes from (the family's index for the variant, or the project's mirror of
it) is the torch family's rule, applied where the plan is assembled (`assemble.family_index`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion
from packaging.version import Version

from poetry_cuda.errors import NoVariantError
from poetry_cuda.host.profiles import INTEGRATED_GFX
from poetry_cuda.host.profiles import canonical_machine
from poetry_cuda.knowledge.rocm import version_key
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import message
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Collection
    from collections.abc import Iterable

    from poetry_cuda.accelerators import Accelerator
    from poetry_cuda.host.profiles import Gpu
    from poetry_cuda.host.profiles import HostProfile
    from poetry_cuda.knowledge.rocm import KernelDriver
    from poetry_cuda.knowledge.rocm import RocmBuild
    from poetry_cuda.knowledge.rocm import RocmKnowledge
    from poetry_cuda.knowledge.xpu import XpuKnowledge
    from poetry_cuda.messages import Localized
    from poetry_cuda.messages import Message


@frozen
class AcceleratorPlan:
    """The accelerator a target's plan serves, and for ROCm and XPU the build: the torch
    version, its variant (``rocm6.4``, ``xpu``) and the GPUs it serves. A CUDA plan leaves
    the build to the CUDA planner (`torch` and `variant` are None)."""

    accelerator: Accelerator
    torch: str | None = None
    variant: str | None = None
    warnings: tuple[Localized, ...] = ()
    gpus: tuple[Gpu, ...] = ()


def plan_accelerator(
    profile: HostProfile,
    versions: Iterable[str],
    *,
    constraint: str = "",
    prefer: Accelerator | None = None,
    rocm_kb: RocmKnowledge,
    xpu_kb: XpuKnowledge,
    asked: Collection[str] = (),
) -> AcceleratorPlan:
    """The accelerator and build for `profile`, from the torch `versions` an index offers
    and the project's `constraint` (a PEP 440 specifier; empty admits all).

    `prefer` is the accelerator the project asks for on a machine with several vendors'
    GPUs; `rocm_kb` and `xpu_kb` the knowledge of the ROCm and XPU builds (`knowledge.packaged`);
    `asked` the ROCm variants the project's own indexes serve (`rocm6.3`), which win over a
    newer ROCm of the same torch release where they serve the GPUs.
    """
    amd = tuple(gpu for gpu in profile.gpus if gpu.vendor == "amd")
    intel = tuple(gpu for gpu in profile.gpus if gpu.vendor == "intel")
    nvidia = profile.nvidia_gpus
    admitted = _admitted(versions, constraint)
    if nvidia and prefer not in ("rocm", "xpu"):
        others = (*amd, *intel)
        if not others:
            return AcceleratorPlan("cuda")
        return AcceleratorPlan("cuda", warnings=(_served_by_cuda(profile, others),))
    if amd and prefer != "xpu":
        # An APU's GPU beside a discrete AMD GPU is the display's, as beside an NVIDIA one.
        discrete = tuple(gpu for gpu in amd if gpu.gfx not in INTEGRATED_GFX)
        integrated = tuple(gpu for gpu in amd if gpu.gfx in INTEGRATED_GFX) if discrete else ()
        warnings: list[Localized] = [*_left_out(profile, (*integrated, *intel), "ROCm")]
        chosen = discrete or amd
        return _plan_rocm(profile, chosen, admitted, constraint, rocm_kb, warnings, asked)
    if intel:
        return _plan_xpu(profile, intel, admitted, constraint, xpu_kb)
    return AcceleratorPlan("cpu")


def _admitted(versions: Iterable[str], constraint: str) -> tuple[Version, ...]:
    """The offered versions the constraint admits, newest first (local labels dropped)."""
    specifier = SpecifierSet(constraint)
    found = set()
    for text in versions:
        try:
            version = Version(text.split("+")[0])
        except InvalidVersion:
            continue
        if specifier.contains(version, prereleases=False):
            found.add(version)
    return tuple(sorted(found, reverse=True))


def _served_by_cuda(profile: HostProfile, others: tuple[Gpu, ...]) -> Message:
    listed = _described(others)
    if len(others) == 1:
        return message("rocm.cuda-serves-one", target=profile.label, listed=listed)
    return message("rocm.cuda-serves", target=profile.label, listed=listed)


def _left_out(profile: HostProfile, gpus: Iterable[Gpu], stack: str) -> list[Message]:
    """A warning for each kind of GPU the plan leaves out (each kind once, however many)."""
    return [
        message("rocm.left-out", target=profile.label, stack=stack, kind=kind)
        for kind in dict.fromkeys(gpu.describe() for gpu in gpus)
    ]


def _platform(profile: HostProfile) -> str:
    """``linux-x86_64``, ``windows-x86_64``: the knowledge's names (a profile may say AMD64)."""
    return f"{profile.os}-{canonical_machine(profile.machine)}"


def _described(gpus: Iterable[Gpu]) -> str:
    """The GPUs, each kind once: 64 GPUs of a few models read as those models."""
    return ", ".join(dict.fromkeys(gpu.describe() for gpu in gpus))


def _plan_rocm(
    profile: HostProfile,
    gpus: tuple[Gpu, ...],
    admitted: tuple[Version, ...],
    constraint: str,
    kb: RocmKnowledge,
    warnings: list[Localized],
    asked: Collection[str] = (),
) -> AcceleratorPlan:
    gfx = sorted({gpu.gfx for gpu in gpus if gpu.gfx})
    listed = _described(gpus)
    platform = _platform(profile)
    if platform not in kb.index.platforms:
        unpublished = message(
            "rocm.platform",
            label=profile.label,
            listed=listed,
            platforms=", ".join(kb.index.platforms),
            platform=platform,
        )
        if profile.os == "windows":
            unpublished = message("rocm.platform-windows", said=unpublished)
        warnings.append(unpublished)
        return AcceleratorPlan("cpu", warnings=tuple(warnings))
    driver = _kernel_driver(profile, kb, warnings)
    passed: list[Localized] = []
    for version in admitted:
        release = kb.release(str(version))
        if release is None:
            continue
        serving = [build for build in release.builds if _serves(kb, build, gfx)]
        runnable = [build for build in serving if driver is None or driver.admits(build.rocm)]
        if runnable:
            build = max(runnable, key=lambda row: (row.variant in asked, version_key(row.rocm)))
            if passed:
                said = Phrase(tuple(passed), "; ")
                warnings.append(message("rocm.passed-over", label=profile.label, passed=said))
            return AcceleratorPlan(
                "rocm",
                torch=str(version),
                variant=build.variant,
                warnings=tuple(warnings),
                gpus=gpus,
            )
        names = ", ".join(build.variant for build in release.builds)
        if serving and driver is not None:
            passed.append(
                message(
                    "rocm.driver-cannot-run",
                    version=version,
                    names=names,
                    driver=driver.release,
                    low=driver.rocm_min,
                    high=driver.rocm_max,
                )
            )
        elif len(passed) < 3:
            usable = _usable(kb, release.builds)
            # A release may serve each gfx in some build, but none in one build.
            missing = [name for name in gfx if name not in usable] or gfx
            passed.append(
                message("rocm.no-build-for", version=version, names=names, gfx=", ".join(missing))
            )
    releases = (kb.release(str(version)) for version in admitted)
    builds = [build for release in releases if release is not None for build in release.builds]
    served = _usable(kb, builds)
    unserved = [name for name in gfx if name not in served]
    raise _refusal(profile, listed, gfx, constraint, passed, unserved, kb)


def _usable(kb: RocmKnowledge, builds: Iterable[RocmBuild]) -> set[str]:
    """The gfx targets some build of `builds` serves."""
    return {name for build in builds for name in kb.usable_gfx(build)}


def _serves(kb: RocmKnowledge, build: RocmBuild, gfx: list[str]) -> bool:
    usable = kb.usable_gfx(build)
    return all(name in usable for name in gfx)


def _kernel_driver(
    profile: HostProfile, kb: RocmKnowledge, warnings: list[Localized]
) -> KernelDriver | None:
    module = profile.rocm.kernel_driver if profile.rocm else None
    if module is None:
        warnings.append(message("rocm.driver-unknown", label=profile.label))
        return None
    driver = kb.driver_release(module)
    if driver is None:
        warnings.append(message("rocm.driver-not-known", label=profile.label, module=module))
    return driver


def _refusal(
    profile: HostProfile,
    listed: str,
    gfx: list[str],
    constraint: str,
    passed: list[Localized],
    unserved: list[str],
    kb: RocmKnowledge,
) -> NoVariantError:
    asked = f"torch{constraint}" if constraint else "torch"
    why: Localized = (
        Phrase(tuple(passed), "; ") if passed else message("rocm.none-matches", asked=asked)
    )
    fixes: list[Localized] = []
    for name in gfx:
        row = kb.unserved_gpu(name)
        if row is None:
            first = _first_serving(kb, name)
            if first is None:
                fixes.append(message("rocm.unknown-gfx", gfx=name))
            elif name in unserved:
                fixes.append(message("rocm.served-from", gfx=name, first=first))
            continue
        fixes.append(message("rocm.known-unserved", reason=row.reason, hint=row.hint))
        if row.override is not None:
            fixes.append(
                message("rocm.override-warned", override=row.override, warning=row.warning)
                if row.warning
                else message("rocm.override", override=row.override)
            )
    fixes.append(message("rocm.or-cpu-fallback") if fixes else message("rocm.cpu-fallback"))
    return NoVariantError(
        message("rocm.none-serves", label=profile.label, asked=asked, listed=listed),
        why=why,
        fix=Phrase(tuple(fixes), "; "),
    )


def _first_serving(kb: RocmKnowledge, gfx: str) -> str | None:
    for release in kb.releases:
        if any(gfx in kb.usable_gfx(build) for build in release.builds):
            return release.torch
    return None


def _plan_xpu(
    profile: HostProfile,
    gpus: tuple[Gpu, ...],
    admitted: tuple[Version, ...],
    constraint: str,
    kb: XpuKnowledge,
) -> AcceleratorPlan:
    warnings: list[Localized] = []
    served = []
    for gpu in gpus:
        if gpu.device_ip is not None and kb.supported(".".join(gpu.device_ip.split(".")[:2])):
            served.append(gpu)
        else:
            warnings.append(
                message(
                    "xpu.unsupported-gpu",
                    label=profile.label,
                    gpu=gpu.describe(),
                    ip=kb.requirement.min_device_ip,
                )
            )
    if not served:
        return AcceleratorPlan("cpu", warnings=tuple(warnings))
    platform = _platform(profile)
    listed = _described(served)
    for version in admitted:
        release = kb.release(str(version))
        if release is None or platform not in release.platforms:
            continue
        windows = profile.os == "windows"
        for gpu in served:
            ip = ".".join((gpu.device_ip or "").split(".")[:2])
            if not kb.native(release, ip, windows=windows):
                warnings.append(
                    message("xpu.no-aot", label=profile.label, version=version, gpu=gpu.describe())
                )
        if profile.os == "linux" and profile.xpu is None:
            warnings.append(
                message("xpu.no-level-zero", label=profile.label, install=kb.requirement.install)
            )
        return AcceleratorPlan(
            "xpu",
            torch=str(version),
            variant=kb.index.variant,
            warnings=tuple(warnings),
            gpus=tuple(served),
        )
    asked = f"torch{constraint}" if constraint else "torch"
    first = kb.releases[0].torch if kb.releases else "?"
    raise NoVariantError(
        message(
            "xpu.none-serves", label=profile.label, asked=asked, listed=listed, platform=platform
        ),
        why=message(
            "xpu.from",
            first=first,
            platforms=", ".join(sorted({p for r in kb.releases for p in r.platforms})),
        ),
        fix=message("xpu.fix", first=first),
    )
