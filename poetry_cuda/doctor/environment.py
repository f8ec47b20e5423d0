"""The installed-environment checks: the venv against cuda.lock and poetry.lock/uv.lock."""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.doctor.checks import public
from poetry_cuda.doctor.checks import same_version
from poetry_cuda.doctor.findings import fail
from poetry_cuda.doctor.findings import ok
from poetry_cuda.doctor.findings import warn
from poetry_cuda.doctor.installed import CPU
from poetry_cuda.messages import message


if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence

    from poetry_cuda.backends.base import LockedEntry
    from poetry_cuda.cudaenv.decide import Contradiction
    from poetry_cuda.doctor.findings import Finding
    from poetry_cuda.doctor.installed import Distribution
    from poetry_cuda.doctor.installed import Environment
    from poetry_cuda.locking.lockfile import CudaLock
    from poetry_cuda.locking.lockfile import LockedPackage
    from poetry_cuda.planning.targets import Target


GIB = 1 << 30


def size(n: int) -> str:
    return f"{n / GIB:.1f} GiB" if n >= GIB / 10 else f"{n / (1 << 20):.1f} MiB"


def is_cpu_build(dist: Distribution) -> bool:
    return dist.build_cuda == CPU or dist.version.endswith("+cpu")


def check_environment(
    environment: Environment | None,
    cuda_lock: CudaLock | None,
    locked: Mapping[str, Sequence[LockedEntry]],
    target: Target,
    install: str,
) -> list[Finding]:
    """Installed versions and labels equal the lock; the nvidia-* libraries are there.

    `install` is the package manager's install, which the fixes name (`install_hint`).
    """
    if environment is None:
        return [
            warn(
                "environment",
                "venv",
                message("doctor.no-venv"),
                message("doctor.no-venv-fix", install=install),
            )
        ]
    found = [ok("environment", "venv", message("doctor.venv-at", root=environment.root))]
    if not environment.site_packages:
        found.append(
            fail(
                "environment",
                "venv",
                f"{environment.root} has no site-packages folder",
                f"delete it and run `{install}`",
            )
        )
        return found
    if cuda_lock is not None:
        for package in cuda_lock.packages:
            found.append(_installed(package, environment.get(package.name), target, install))
        if target.platform == "linux-x86_64":
            found.extend(_wheel_dependencies(cuda_lock, locked, environment, install))
    found.extend(_nvidia_wheels(environment, install))
    return found


def _installed(
    package: LockedPackage, dist: Distribution | None, target: Target, install: str
) -> Finding:
    name = package.name
    expected = package.version
    # macOS installs PyPI's own build: the locked version without its CUDA label.
    if expected and target.os == "macos":
        expected = public(expected)
    if dist is None:
        return fail(
            "environment", "installed", f"{name} is not installed", f"run `{install}`", subject=name
        )
    fix = f"run `{install}` to install the locked build"
    if package.cuda and is_cpu_build(dist) and target.os != "macos":
        return fail(
            "environment",
            "installed",
            f"a CPU build of {name} ({dist.version}) is installed where cuda.lock locks "
            f"{package.variant} ({expected or f'CUDA {package.cuda}'}): torch.cuda.is_available() "
            "will be False",
            fix + " (it replaces the CPU build)",
            subject=name,
        )
    if expected and not same_version(dist.version, expected):
        return fail(
            "environment",
            "installed",
            f"{name} {dist.version} is installed; cuda.lock records {expected}",
            fix,
            subject=name,
        )
    built = f" (built for CUDA {dist.build_cuda})" if dist.build_cuda not in (None, CPU) else ""
    return ok("environment", "installed", f"{name} {dist.version}{built}", subject=name)


def _wheel_dependencies(
    cuda_lock: CudaLock,
    locked: Mapping[str, Sequence[LockedEntry]],
    environment: Environment,
    install: str,
) -> list[Finding]:
    """Every nvidia-* wheel a locked CUDA build depends on is installed."""
    found = []
    for package in cuda_lock.packages:
        if not package.cuda:
            continue
        entries = [
            e
            for e in locked.get(package.name, ())
            if package.version is None or same_version(e.version, package.version)
        ]
        needed = sorted({d for e in entries for d, _ in e.dependencies if d.startswith("nvidia-")})
        missing = [d for d in needed if environment.get(d) is None]
        if missing:
            found.append(
                fail(
                    "environment",
                    "nvidia-wheels",
                    f"{package.name} {package.version} depends on {', '.join(missing)}, "
                    "which is not installed",
                    f"run `{install}`",
                    subject=package.name,
                )
            )
        elif needed:
            found.append(
                ok(
                    "environment",
                    "nvidia-wheels",
                    f"the {len(needed)} nvidia-* wheels {package.name} depends on are installed",
                    subject=package.name,
                )
            )
    return found


def _nvidia_wheels(environment: Environment, install: str) -> list[Finding]:
    wheels = [d for d in environment.distributions.values() if d.name.startswith("nvidia-")]
    found = []
    for dist in wheels:
        if dist.missing_libraries:
            shown = ", ".join(dist.missing_libraries[:3])
            more = len(dist.missing_libraries) - 3
            found.append(
                fail(
                    "environment",
                    "nvidia-libraries",
                    f"{dist.name} {dist.version} is installed but its libraries are missing: "
                    f"{shown}{f' and {more} more' if more > 0 else ''}",
                    f"reinstall it: `pip install --force-reinstall --no-deps "
                    f"{dist.name}=={dist.version}` inside the environment, or recreate the "
                    f"environment with `{install}`",
                    subject=dist.name,
                )
            )
    if wheels:
        found.append(
            ok(
                "environment",
                "nvidia-size",
                f"{len(wheels)} nvidia-* wheel(s) installed, {size(environment.nvidia_bytes)} "
                "in site-packages/nvidia",
            )
        )
    return found


def check_shell(
    contradictions: Sequence[Contradiction] | None, *, backend: str | None = None
) -> list[Finding]:
    """The shell's CUDA_HOME, PATH and library path against the project's environment."""
    if contradictions is None:
        return []
    if not contradictions:
        return [ok("environment", "shell", "the shell's CUDA variables agree with the project")]
    fix = message("doctor.shell-fix-uv") if backend == "uv" else message("doctor.shell-fix")
    return [warn("environment", "shell", c.detail, fix, subject=c.variable) for c in contradictions]
