"""The hosts a plan is made for, with the driver's CUDA version settled.

Targets come, first match wins, from `--target FILE` options (`--target this` is this
machine), `targets = [...]` globs in `[tool.poetry-cuda]`, the `POETRY_CUDA_TARGET`
environment variable (one path), the targets cuda.lock records, and otherwise detection
of this machine. A profile that gives only a driver version gets
its CUDA version from NVIDIA's table; one that gives only a CUDA version is assumed to
run the oldest driver of that CUDA version. Targets with the same facts are one target,
however many files describe them.
"""

from __future__ import annotations

import dataclasses

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.accelerators import PLANNED
from poetry_cuda.accelerators import stack_name
from poetry_cuda.display import quoted
from poetry_cuda.errors import ConfigError
from poetry_cuda.host.profiles import canonical_machine
from poetry_cuda.host.profiles import load_target
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping
    from collections.abc import Sequence

    from poetry_cuda.accelerators import Accelerator
    from poetry_cuda.host.profiles import Gpu
    from poetry_cuda.host.profiles import HostProfile
    from poetry_cuda.host.profiles import OperatingSystem
    from poetry_cuda.knowledge.model import Nvidia
    from poetry_cuda.request.settings import Settings
    from poetry_cuda.versions import CudaVersion
    from poetry_cuda.versions import DriverVersion


TARGETS_KEY = "[tool.poetry-cuda] targets"


@frozen
class Target:
    profile: HostProfile
    cuda: CudaVersion | None  # the driver's highest CUDA; None: no usable driver
    driver: DriverVersion | None  # as reported, or implied by `cuda`

    @property
    def label(self) -> str:
        return self.profile.label

    @property
    def os(self) -> OperatingSystem:
        return self.profile.os

    @property
    def platform(self) -> str:
        """``linux-x86_64``, ``windows-x86_64``, ``macos-arm64``..."""
        machine = self.profile.machine
        if self.os == "macos":
            machine = "arm64" if machine in ("arm64", "aarch64") else "x86_64"
        else:
            machine = canonical_machine(machine)
        return f"{self.os}-{machine}"

    @property
    def accelerator(self) -> Accelerator:
        """What its builds are planned for by every family: CUDA where an NVIDIA driver
        runs them, else the CPU (the torch family's ROCm and XPU builds: `gpu_stacks`)."""
        return "cuda" if self.os != "macos" and self.cuda is not None else "cpu"

    @property
    def runs_cuda(self) -> bool:
        return self.accelerator == "cuda"

    @property
    def unplanned_gpus(self) -> tuple[Gpu, ...]:
        """Its GPUs of an accelerator no build is planned for (AMD's ROCm, Intel's XPU)."""
        return tuple(gpu for gpu in self.profile.gpus if gpu.accelerator not in PLANNED)


def settle(profile: HostProfile, nvidia: Nvidia) -> tuple[Target, list[str]]:
    """Fill in the driver's CUDA version (or the implied driver) from NVIDIA's table."""
    warnings: list[str] = []
    driver = profile.driver
    if profile.os == "macos" or driver is None:
        return Target(profile, None, None), []
    cuda, version = driver.cuda, driver.version
    if cuda is None and version is not None:
        cuda = nvidia.max_cuda(version, profile.os)
        if cuda is not None:
            driver = dataclasses.replace(driver, cuda=cuda, cuda_source="driver table")
            profile = dataclasses.replace(profile, driver=driver)
        else:
            warnings.append(
                f"{profile.label}: driver {version} is older than every CUDA release in the "
                "knowledge base; planning as if it had no NVIDIA driver"
            )
    if version is None and cuda is not None:
        version = nvidia.toolkit_driver(cuda, profile.os)
    if cuda is not None and not profile.nvidia_gpus:
        warnings.append(
            f"{profile.label}: the NVIDIA driver lists no GPU (only /proc was readable, or the "
            "driver version was given by hand), so the plan cannot check that a build has "
            "kernels for its GPUs; give a profile with compute-capabilities "
            "(`poetry-cuda detect --json` on that machine) to have them checked"
        )
    return Target(profile, cuda, version), warnings


def unplanned_warnings(target: Target) -> list[str]:
    """One warning per accelerator the target's GPUs need and its plan does not serve,
    naming them (none on macOS, where no GPU stack but Apple's is built for): ROCm and XPU
    builds are planned for the torch family on a machine without an NVIDIA driver only
    (`gpu_stacks`), and the plan says itself what it made of those targets."""
    if target.os == "macos":
        return []
    by_stack: dict[Accelerator, list[Gpu]] = {}
    for gpu in target.unplanned_gpus:
        by_stack.setdefault(gpu.accelerator, []).append(gpu)
    gets = "CUDA" if target.runs_cuda else "CPU"
    return [
        f"{target.label}: {', '.join(dict.fromkeys(gpu.describe() for gpu in gpus))} "
        f"need{'s' * (len(gpus) == 1)} {stack_name(stack)} builds, which poetry-cuda plans "
        "only for the torch family on a machine without an NVIDIA driver; the plan gives "
        f"this target {gets} builds" + ("" if target.runs_cuda else ", which run on its CPU")
        for stack, gpus in by_stack.items()
    ]


def distinct(targets: Sequence[Target]) -> tuple[Target, ...]:
    """The targets with the first of each set of identical facts: a path is not a fact."""
    first: dict[tuple[object, ...], Target] = {}
    for target in targets:
        facts = (target.os, target.platform, target.driver, target.cuda)
        others = {(gpu.vendor, gpu.gfx or gpu.device_ip or "") for gpu in target.unplanned_gpus}
        gpus = (target.profile.capabilities, tuple(sorted(others)))
        first.setdefault((*facts, *gpus), target)
    return tuple(first.values())


def _inside(resolved_project: Path, path: Path, origin: str) -> Path:
    resolved = path.resolve()
    if not resolved.is_relative_to(resolved_project):
        raise ConfigError(
            f"{origin}: {path} is outside the project",
            why="target globs in pyproject.toml may only name files inside the project",
            fix="move the profile into the project (e.g. hosts/) or pass it with --target",
        )
    return resolved


THIS_MACHINE = "this"  # `--target this`: this machine, as detected
TARGET_ENV = "POETRY_CUDA_TARGET"
# Where targets come from when the user named none.
RECORDED = "cuda.lock"
DETECTED = "this machine"


def collect(
    *,
    project: Path | None,
    options: Sequence[str],
    environ_target: str | None,
    configured: Sequence[str],
    recorded: Sequence[HostProfile],
    detect: Callable[[], HostProfile],
) -> tuple[list[HostProfile], str]:
    """The host profiles to plan for, from the first place that names any, and that place.

    `recorded` are the targets cuda.lock was made for: without a target given, a lock is
    made again for them, so that one made on a GPU machine stays the team's lock on a
    laptop or a CI runner without one. Only the first lock plans for this machine.
    """
    if options:
        chosen = [detect() if o == THIS_MACHINE else load_target(Path(o)) for o in options]
        return chosen, "--target"
    if configured and project is not None:
        return _configured(project, configured), TARGETS_KEY
    if environ_target:
        return [load_target(Path(environ_target), label=environ_target)], TARGET_ENV
    if recorded:
        return list(recorded), RECORDED
    return [detect()], DETECTED


def _configured(project: Path, patterns: Sequence[str]) -> list[HostProfile]:
    resolved_project = project.resolve()
    profiles = []
    for pattern in patterns:
        matches = sorted(project.glob(_checked_pattern(pattern)))
        if not matches:
            raise ConfigError(
                f"{TARGETS_KEY}: {quoted(pattern)} matches no file",
                fix="create the profile with `poetry-cuda detect --json > FILE` or fix the pattern",
            )
        for match in matches:
            # Read the checked path itself, not the link that led to it.
            inside = _inside(resolved_project, match, TARGETS_KEY)
            profiles.append(load_target(inside, label=match.relative_to(project).as_posix()))
    return profiles


def _checked_pattern(pattern: str) -> str:
    parts = Path(pattern).parts
    if Path(pattern).is_absolute() or ".." in parts:
        raise ConfigError(
            f"{TARGETS_KEY}: {quoted(pattern)} leaves the project",
            fix="use a pattern relative to the project, such as 'hosts/*.json'",
        )
    if not parts:  # '', '.', './': pathlib's glob fails on them
        raise ConfigError(
            f"{TARGETS_KEY}: {quoted(pattern)} is not a file pattern",
            fix="name profile files, such as 'hosts/*.json'",
        )
    if "\0" in pattern or any("**" in part and part != "**" for part in parts):
        raise ConfigError(
            f"{TARGETS_KEY}: {quoted(pattern)} is not a valid pattern",
            why="'**' (any folders, recursively) must be a whole part of the path, and a "
            "pattern holds no NUL character",
            fix="write 'hosts/**/*.json' for profiles in hosts/ and its subfolders, or "
            "'hosts/*.json' for hosts/ alone",
        )
    return pattern


def load_targets(
    project: Path | None,
    settings: Settings,
    options: Sequence[str],
    environ: Mapping[str, str],
    nvidia: Nvidia,
    *,
    detect: Callable[[Mapping[str, str]], HostProfile],
    recorded: Sequence[HostProfile] = (),
    collapse: bool = True,
) -> tuple[tuple[Target, ...], list[str], str]:
    """The settled targets, their warnings and where they came from (see `collect`).

    `detect(environ)` profiles this machine (`host.detect.detect_this_machine`), called
    only when no other target is given. `collapse`: one target per set of facts.
    """
    profiles, origin = collect(
        project=project,
        options=options,
        environ_target=environ.get(TARGET_ENV) or None,
        configured=settings.targets,
        recorded=recorded,
        detect=lambda: detect(environ),
    )
    settled = [settle(profile, nvidia) for profile in profiles]
    targets = tuple(target for target, _ in settled)
    if collapse:
        targets = distinct(targets)
    kept = {id(target) for target in targets}
    warnings = [w for target, found in settled if id(target) in kept for w in found]
    return targets, warnings, origin
