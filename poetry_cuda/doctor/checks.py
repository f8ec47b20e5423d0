"""The host and lock checks: pure functions from gathered facts to findings."""

from __future__ import annotations

import dataclasses

from typing import TYPE_CHECKING

from packaging.version import InvalidVersion
from packaging.version import Version

from poetry_cuda.accelerators import stack_name
from poetry_cuda.doctor.findings import fail
from poetry_cuda.doctor.findings import ok
from poetry_cuda.doctor.findings import warn
from poetry_cuda.locking.lockfile import FILENAME
from poetry_cuda.locking.lockfile import TargetFacts
from poetry_cuda.locking.state import lock_command
from poetry_cuda.messages import message
from poetry_cuda.planning.compat import judge
from poetry_cuda.planning.compat import serves_gpu
from poetry_cuda.planning.plan import Source
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence

    from poetry_cuda.backends.base import LockedEntry
    from poetry_cuda.doctor.findings import Finding
    from poetry_cuda.errors import PoetryCudaError
    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.knowledge.model import Nvidia
    from poetry_cuda.knowledge.model import Variant
    from poetry_cuda.locking.lockfile import CudaLock
    from poetry_cuda.locking.lockfile import LockedPackage
    from poetry_cuda.locking.state import Gate
    from poetry_cuda.messages import Localized
    from poetry_cuda.messages import Message
    from poetry_cuda.planning.targets import Target
    from poetry_cuda.versions import CudaVersion


LOCK_FIX = message("doctor.fix-lock")
DRIVER_FIX = message("doctor.fix-driver")


@frozen
class LockState:
    """What was locked: cuda.lock, and the package manager's lock beside it."""

    cuda_lock: CudaLock | None
    error: PoetryCudaError | None = None  # cuda.lock (or pyproject.toml) could not be read
    damaged: bool = False  # the error is cuda.lock's own: a file poetry-cuda never writes
    fresh: bool | None = None  # its content hash matches pyproject.toml
    backend: str | None = None
    lockfile: str | None = None  # "poetry.lock" / "uv.lock"
    lockfile_exists: bool = False
    # Why the package manager's lock no longer fits pyproject.toml by its own check, where
    # that check is cheap and offline (uv); None: it fits, or doctor cannot tell.
    lockfile_stale: str | None = None
    backend_error: str | None = None
    locked: Mapping[str, Sequence[LockedEntry]] = dataclasses.field(default_factory=dict)
    # The fix that names `lock` as the project's package manager runs it (`lock_fix`).
    fix: Message = LOCK_FIX
    gate: Gate | None = None  # what stands between cuda.lock and its install (`locking.state`)


def lock_fix(backend: str | None) -> Message:
    """How a fix names `lock` in a project of `backend`: uv's runs the script through uv."""
    return message("doctor.fix-lock-uv") if backend == "uv" else LOCK_FIX


def public(version: str) -> str:
    """The version without its local label: ``2.5.1+cu124`` gives ``2.5.1``."""
    return version.split("+", 1)[0]


def same_version(a: str, b: str) -> bool:
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a == b


def leads(cuda_lock: CudaLock, kb: KnowledgeBase) -> list[LockedPackage]:
    """One package per family (its members share the variant), and every fixed flavour."""
    seen: set[str] = set()
    found = []
    for package in cuda_lock.packages:
        family = kb.family_of(package.name)
        key = family.name if family else package.name
        if key not in seen:
            seen.add(key)
            found.append(package)
    return found


def locked_variant(package: LockedPackage, kb: KnowledgeBase) -> Variant | None:
    """The knowledge base's variant for a cuda.lock package, from the release it locks."""
    family = kb.family_of(package.name)
    if family is None:
        return None
    releases = list(reversed(family.releases))
    if package.version:
        try:
            base = Version(package.version).base_version
        except InvalidVersion:
            base = package.version
        matching = [r for r in releases if any(pair.get(package.name) == base for pair in r.pairs)]
        releases = matching or releases
    return next((v for r in releases for v in r.variants if v.name == package.variant), None)


def _fixed_verdict(cuda: CudaVersion, target: Target, nvidia: Nvidia) -> tuple[bool, str]:
    if target.cuda is None:
        return False, "it needs an NVIDIA driver"
    if cuda <= target.cuda:
        return True, f"CUDA {cuda} runs natively on a driver for CUDA <= {target.cuda}"
    floor = nvidia.floor(cuda.major, target.os)
    if cuda.major == target.cuda.major and floor and target.driver and target.driver >= floor:
        return True, f"CUDA {cuda.major}.x runs through minor-version compatibility"
    return False, f"it needs a driver for CUDA {cuda}; the driver supports CUDA <= {target.cuda}"


def gpu_less(target: Target, cuda_lock: CudaLock | None, *, strict: bool) -> Message | None:
    """Why a machine without any GPU or NVIDIA driver is spared the failures of the GPU
    builds it cannot run (a CPU-only CI job checking a team's lock); None where it is not:
    it has a GPU or a driver, nothing is locked, or `strict` (a GPU runner, where a missing
    driver is the failure to catch). Whether it is among cuda.lock's targets is judged by
    the targets' facts, as `lock` judges them."""
    profile = target.profile
    if strict or cuda_lock is None or profile.gpus or profile.driver is not None:
        return None
    facts = TargetFacts.of(target).facts
    if any(recorded.facts == facts for recorded in cuda_lock.targets):
        return message("doctor.gpu-less-target")
    return message("doctor.gpu-less")


def check_host(
    target: Target,
    cuda_lock: CudaLock | None,
    kb: KnowledgeBase,
    *,
    backend: str | None = None,
    strict: bool = False,
) -> list[Finding]:
    """The driver, the probes' problems, and whether each locked variant runs here.

    In a uv project (`backend`) the fixes name the script, the one way to lock there.
    Without `strict`, a machine without a GPU gets one warning for the GPU builds it
    cannot run (`gpu_less`) instead of a failure for each.
    """
    uv = backend == "uv"
    driver_fix = message("doctor.fix-driver-uv") if uv else DRIVER_FIX
    found: list[Finding] = []
    profile = target.profile
    packages = leads(cuda_lock, kb) if cuda_lock else []
    wants_cuda = any(p.cuda for p in packages)
    wants_stack = any(p.accelerator in ("rocm", "xpu") for p in packages)
    spared = gpu_less(target, cuda_lock, strict=strict) if wants_cuda or wants_stack else None
    driver = profile.driver
    if target.os == "macos":
        found.append(ok("host", "driver", message("doctor.macos")))
        return found
    if driver is None or target.cuda is None:
        no_driver = message("driver.none")
        if driver is not None:
            no_driver = message("driver.too-old", version=driver.version)
        if spared is not None:
            found.append(warn("host", "driver", spared, message("doctor.gpu-less-fix")))
        elif wants_cuda:
            found.append(
                fail(
                    "host",
                    "driver",
                    message("doctor.driver-but-cuda-locked", problem=no_driver),
                    driver_fix,
                )
            )
        elif not _stack_serves(packages, target):  # an AMD or Intel GPU needs no NVIDIA driver
            found.append(warn("host", "driver", no_driver, driver_fix))
    else:
        source = driver.cuda_source or driver.source
        found.append(
            ok(
                "host",
                "driver",
                message("doctor.driver", driver=target.driver, cuda=target.cuda, source=source),
            )
        )
        if not profile.nvidia_gpus:
            found.append(
                warn(
                    "host",
                    "gpus",
                    message("doctor.no-gpu"),
                    message("doctor.no-gpu-fix"),
                )
            )
        for gpu in profile.nvidia_gpus:
            found.append(
                ok(
                    "host",
                    "gpu",
                    message(
                        "doctor.gpu",
                        index=gpu.index,
                        name=gpu.name,
                        capability=gpu.compute_capability,
                    ),
                    subject=f"gpu{gpu.index}",
                )
            )
    for toolkit in profile.toolkits:
        nvcc = (
            message("detect.nvcc", path=toolkit.nvcc) if toolkit.nvcc else message("detect.no-nvcc")
        )
        said = message("doctor.toolkit", version=toolkit.version, root=toolkit.root, nvcc=nvcc)
        found.append(ok("host", "toolkit", said))
    for cudnn in profile.cudnn:
        said = message("doctor.cudnn", version=cudnn.version, path=cudnn.path, source=cudnn.source)
        found.append(ok("host", "cudnn", said))
    for problem in profile.problems:
        make = fail if problem.probe == "nvml" else warn
        found.append(make("host", "probe", f"{problem.probe}: {problem.message}", problem.fix))
    if cuda_lock is not None:
        for package in packages:
            if spared is not None and package.cuda:
                continue  # the warning above says why a CUDA build cannot run here
            found.extend(_variant_findings(package, target, kb, cuda_lock, strict=strict))
    return found


def _variant_findings(
    package: LockedPackage, target: Target, kb: KnowledgeBase, cuda_lock: CudaLock, *, strict: bool
) -> list[Finding]:
    """Whether `package`'s build, as `cuda_lock` records it, runs here; with `strict`, a
    ROCm or XPU build without its GPU fails."""
    requested = cuda_lock.cuda
    lock = "uv run poetry-cuda lock" if cuda_lock.backend == "uv" else "poetry cuda lock"
    name, variant_name = package.name, package.variant
    rerun = message("doctor.fix-lock-this", lock=lock)
    if package.cuda and not target.runs_cuda:
        rerun = message("doctor.fix-driver-uv") if cuda_lock.backend == "uv" else DRIVER_FIX
    if package.accelerator in ("rocm", "xpu") and not target.runs_cuda:
        return _stack_findings(package, target, rerun, strict=strict)
    if package.cuda is None:
        if target.runs_cuda and requested != "cpu":  # a GPU the lock's targets leave unused
            said = message("doctor.lock-unserved", package=name, variant=variant_name)
            return [warn("host", "variant", said, rerun, subject=name)]
        said = message("doctor.needs-no-gpu", package=name, variant=variant_name)
        return [ok("host", "variant", said, subject=name)]
    variant = locked_variant(package, kb)
    if variant is None:
        runs, fact = _fixed_verdict(package.cuda, target, kb.nvidia)
        if runs:
            said = message("doctor.variant-runs", package=name, variant=variant_name, fact=fact)
            return [ok("host", "variant", said, subject=name)]
        return [
            fail(
                "host",
                "variant",
                message("doctor.variant-cannot-run", package=name, variant=variant_name, fact=fact),
                rerun,
                subject=name,
            )
        ]
    without_gpus = dataclasses.replace(target, profile=dataclasses.replace(target.profile, gpus=()))
    verdict = judge(variant, without_gpus, kb.nvidia)
    if not verdict.ok:
        return [
            fail(
                "host",
                "variant",
                message(
                    "doctor.variant-cannot-run",
                    package=name,
                    variant=variant_name,
                    fact=verdict.detail,
                ),
                rerun,
                subject=name,
            )
        ]
    said = message("doctor.variant-runs", package=name, variant=variant_name, fact=verdict.detail)
    found = [ok("host", "variant", said, subject=name)]
    built = variant.on(target.platform)
    for gpu in target.profile.nvidia_gpus:
        if gpu.compute_capability is None:
            continue
        served, kernels = serves_gpu(built, gpu.compute_capability, native=verdict.fit == "native")
        subject = f"{name} on gpu{gpu.index}"
        if served:
            said = message("doctor.gpu-kernels", index=gpu.index, kernels=kernels)
            found.append(ok("host", "architecture", said, subject=subject))
        else:
            found.append(
                fail(
                    "host",
                    "architecture",
                    f"GPU {gpu.index} ({gpu.name}): {kernels}",
                    rerun,
                    subject=subject,
                )
            )
    return found


def check_locks(state: LockState) -> list[Finding]:
    """cuda.lock present, readable and fresh; the package manager's lock agrees with it."""
    if state.error is not None:
        said = f"cuda.lock is damaged: {state.error.what}" if state.damaged else state.error.what
        return [fail("locks", "cuda.lock", said, state.error.fix or state.fix)]
    cuda_lock = state.cuda_lock
    if cuda_lock is None:
        return [
            warn(
                "locks",
                "cuda.lock",
                message("doctor.no-cuda-lock", file=FILENAME),
                state.fix,
            )
        ]
    records = message("doctor.lock-records", file=FILENAME, count=len(cuda_lock.packages))
    found = [ok("locks", "cuda.lock", records)]
    if state.fresh is False:
        found.append(
            fail(
                "locks",
                "fresh",
                message("doctor.stale-cuda-lock", file=FILENAME),
                state.fix,
            )
        )
    elif state.fresh:
        found.append(ok("locks", "fresh", message("doctor.lock-fresh", file=FILENAME)))
    run = state.gate.run_said(lock_command(state.backend)) if state.gate else None
    if run is not None:  # `sync` refuses to install, as it would
        found.append(fail("locks", "journal", run, state.fix))
    lockfile = state.lockfile or "the lock file"
    if state.backend_error is not None:
        found.append(warn("locks", "agree", state.backend_error, "upgrade poetry-cuda"))
        return found
    if not state.lockfile_exists:
        missing = message("lock.file-missing", file=lockfile)
        found.append(fail("locks", "agree", missing, state.fix))
        return found
    if state.lockfile_stale is not None:
        found.append(
            fail(
                "locks",
                "fresh",
                message("doctor.lockfile-stale", lockfile=lockfile, why=state.lockfile_stale),
                state.fix,
                subject=lockfile,
            )
        )
    for package in cuda_lock.packages:
        found.append(_agreement(package, state.locked.get(package.name, ()), lockfile))
    return found


def _agreement(package: LockedPackage, entries: Sequence[LockedEntry], lockfile: str) -> Finding:
    name = package.name
    source = Source(package.source, package.url)
    matches = [
        e
        for e in entries
        if e.is_from(source)
        and (package.version is None or same_version(e.version, package.version))
    ]
    recorded = f"{package.version or package.variant} from {package.source}"
    if matches:
        said = message(
            "doctor.locks-agree",
            lockfile=lockfile,
            name=name,
            version=package.version or package.variant,
            source=package.source,
        )
        return ok("locks", "agree", said, subject=name)
    seen = ", ".join(e.describe() for e in entries) or "nothing"
    return fail(
        "locks",
        "agree",
        f"{lockfile} locks {name} {seen}; {FILENAME} records {recorded}",
        f"{LOCK_FIX}: the two locks were written at different times",
        subject=name,
    )


def _stack_serves(packages: Sequence[LockedPackage], target: Target) -> bool:
    """Whether a locked ROCm or XPU build runs on one of the machine's GPUs."""
    vendors = {"rocm": "amd", "xpu": "intel"}
    wanted = {vendors[p.accelerator] for p in packages if p.accelerator in vendors}
    return any(gpu.vendor in wanted for gpu in target.profile.gpus)


def _stack_findings(
    package: LockedPackage, target: Target, rerun: Localized, *, strict: bool
) -> list[Finding]:
    """A ROCm or XPU build on a machine without an NVIDIA driver: which GPUs it serves, and
    for ROCm whether each AMD GPU's gfx is among those cuda.lock records for the build."""
    name, variant = package.name, package.variant
    vendor = "amd" if package.accelerator == "rocm" else "intel"
    gpus = [gpu for gpu in target.profile.gpus if gpu.vendor == vendor]
    stack = stack_name(package.accelerator)
    if not gpus:
        said = message("doctor.stack-no-gpu", package=name, variant=variant, stack=stack)
        return [(fail if strict else warn)("host", "variant", said, rerun, subject=name)]
    listed = ", ".join(dict.fromkeys(gpu.describe() for gpu in gpus))
    said = message("doctor.stack-build", package=name, variant=variant, stack=stack, gpus=listed)
    found = [ok("host", "variant", said, subject=name)]
    if package.accelerator != "rocm" or not package.arches:
        return found
    for gpu in gpus:
        subject = f"{name} on gpu{gpu.index}"
        about = f"GPU {gpu.index} ({gpu.describe()})"
        if gpu.gfx in package.arches:
            said = message("doctor.gfx-served", gpu=about, package=name, variant=variant)
            found.append(ok("host", "architecture", said, subject=subject))
        else:
            said = message(
                "doctor.gfx-unserved",
                gpu=about,
                package=name,
                variant=variant,
                arches=", ".join(package.arches),
            )
            found.append(fail("host", "architecture", said, rerun, subject=subject))
    return found
