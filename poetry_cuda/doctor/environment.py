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
    from poetry_cuda.messages import Localized
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
                message("doctor.no-site-packages", root=environment.root),
                message("doctor.recreate-venv", install=install),
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
        not_installed = message("doctor.not-installed", name=name)
        return fail(
            "environment",
            "installed",
            not_installed,
            message("check.fix", command=install),
            subject=name,
        )
    fix = message("doctor.install-locked", install=install)
    if package.cuda and is_cpu_build(dist) and target.os != "macos":
        return fail(
            "environment",
            "installed",
            message(
                "doctor.cpu-build-installed",
                name=name,
                version=dist.version,
                variant=package.variant,
                locked=expected or f"CUDA {package.cuda}",
            ),
            message("doctor.install-replaces-cpu", install=install),
            subject=name,
        )
    if expected and not same_version(dist.version, expected):
        return fail(
            "environment",
            "installed",
            message("doctor.other-version", name=name, version=dist.version, expected=expected),
            fix,
            subject=name,
        )
    said: Localized = f"{name} {dist.version}"
    if dist.build_cuda not in (None, CPU):
        said = message(
            "doctor.installed-for", name=name, version=dist.version, cuda=dist.build_cuda
        )
    return ok("environment", "installed", said, subject=name)


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
                    message(
                        "doctor.missing-wheels",
                        name=package.name,
                        version=package.version,
                        missing=", ".join(missing),
                    ),
                    message("check.fix", command=install),
                    subject=package.name,
                )
            )
        elif needed:
            found.append(
                ok(
                    "environment",
                    "nvidia-wheels",
                    message("doctor.nvidia-wheels", count=len(needed), package=package.name),
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
                message(
                    "doctor.nvidia-size", count=len(wheels), size=size(environment.nvidia_bytes)
                ),
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
        return [ok("environment", "shell", message("doctor.shell-agrees"))]
    fix = message("doctor.shell-fix-uv") if backend == "uv" else message("doctor.shell-fix")
    return [warn("environment", "shell", c.detail, fix, subject=c.variable) for c in contradictions]
