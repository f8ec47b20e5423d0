"""`doctor --deep`: does each GPU have kernels in the installed build itself?

The host check judges the locked variant by the knowledge base's row; this one reads
the architectures the installed build carries: the framework's own list (torch's, from
the child that imports it), or else the fat binary of the package's CUDA library (the
`kernels` of its knowledge base row), scanned here. Each
GPU the host reports is judged by the planner's rule (`compat.kernels_for`), and the
list is compared with the one cuda.lock recorded from the knowledge base.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.doctor.checks import LOCK_FIX
from poetry_cuda.doctor.checks import same_version
from poetry_cuda.doctor.deep import module_of
from poetry_cuda.doctor.fatbin import read_fatbin
from poetry_cuda.doctor.findings import fail
from poetry_cuda.doctor.findings import ok
from poetry_cuda.doctor.findings import warn
from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.locking.lockfile import PTX
from poetry_cuda.locking.lockfile import SASS
from poetry_cuda.messages import message
from poetry_cuda.planning.compat import arch_names
from poetry_cuda.planning.compat import kernels_for
from poetry_cuda.records import frozen
from poetry_cuda.versions import ComputeCapability


if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Mapping
    from collections.abc import Sequence

    from poetry_cuda.doctor.findings import Finding
    from poetry_cuda.doctor.installed import Environment
    from poetry_cuda.host.profiles import Gpu
    from poetry_cuda.knowledge.model import Installed
    from poetry_cuda.locking.lockfile import LockedPackage
    from poetry_cuda.messages import Localized
    from poetry_cuda.planning.targets import Target


# cuda.lock records the knowledge base's Linux x86_64 row; other platforms' builds may
# carry fewer architectures, so the lists are compared there only.
TABLE_PLATFORM = "linux-x86_64"


@frozen
class Build:
    """The architectures an installed build carries, where they were read, and the
    installed version (None: not installed according to site-packages)."""

    sass: tuple[ComputeCapability, ...]
    ptx: tuple[ComputeCapability, ...]
    source: Localized  # its own list (torch's), or the library it was read from
    version: str | None

    @property
    def arches(self) -> str:
        return arch_names(self.sass, self.ptx)


def parse_arches(
    names: Iterable[str],
) -> tuple[tuple[ComputeCapability, ...], tuple[ComputeCapability, ...]] | None:
    """(SASS, PTX) from ``sm_90``/``compute_90`` names; None if any name is another form
    (a fixed flavour records ``from sm_60``)."""
    sass: set[ComputeCapability] = set()
    ptx: set[ComputeCapability] = set()
    for name in names:
        if not name.startswith((SASS, PTX)):
            return None
        try:
            cc = ComputeCapability.parse(name)
        except ValueError:
            return None
        (sass if name.startswith(SASS) else ptx).add(cc)
    return tuple(sorted(sass)), tuple(sorted(ptx))


def read_builds(
    report: Mapping[str, Any],
    packages: Sequence[LockedPackage],
    environment: Environment,
    rows: Sequence[Installed],
) -> dict[str, Build | Localized]:
    """Each package's build, by its name, or why its architectures are unknown.

    The framework's own list (torch's) comes from the child's `report` where it has one;
    the others are scanned from the libraries the package's row (of `rows`) names.
    """
    found: dict[str, Build | Localized] = {}
    for package in packages:
        module = module_of(package.name, rows)
        kernels = next((r.kernels for r in rows if r.module == module), ())
        installed = environment.get(package.name)
        version = installed.version if installed else None
        row = report.get(module)
        if isinstance(row, dict) and "cuda" in row and row["cuda"] is None:
            continue  # a CPU build: the framework check says so
        listed = row.get("arches") if isinstance(row, dict) else None
        parsed = None
        if isinstance(listed, list) and listed and all(isinstance(n, str) for n in listed):
            parsed = parse_arches(listed)
        if parsed is not None:
            found[package.name] = Build(*parsed, message("builds.own-list", module=module), version)
        elif kernels:
            found[package.name] = _scan(kernels, environment, version)
    return found


def _scan(
    candidates: Sequence[str], environment: Environment, version: str | None
) -> Build | Localized:
    """The first of the candidate libraries that has kernels; else the first read."""
    paths = [
        folder / relative
        for relative in candidates
        for folder in environment.site_packages
        if (folder / relative).is_file()
    ]
    if not paths:
        return message("builds.not-installed", libraries=" / ".join(candidates))
    empty: list[Build] = []
    problems: list[Localized] = []
    for path in paths:
        try:
            arches = read_fatbin(path)
        except PoetryCudaError as error:
            problems.append(error.said)
            continue
        build = Build(arches.sass, arches.ptx, str(path), version)
        if build.sass or build.ptx:
            return build
        empty.append(build)
    return problems[0] if problems else empty[0]


def check_builds(
    packages: Sequence[LockedPackage],
    builds: Mapping[str, Build | Localized],
    target: Target,
    install: str,
) -> list[Finding]:
    """For each package with a build read: its architectures against cuda.lock's, and
    whether each GPU has kernels in it."""
    found: list[Finding] = []
    for package in packages:
        build = builds.get(package.name)
        if build is None:
            continue
        if not isinstance(build, Build):
            found.append(
                warn(
                    "deep",
                    "build",
                    message("builds.unknown", name=package.name, problem=build),
                    message("builds.unknown-fix", install=install),
                    subject=package.name,
                )
            )
            continue
        found.append(_table(package, build, target))
        found += [
            _kernels(package, build, gpu, gpu.compute_capability, target)
            for gpu in target.profile.nvidia_gpus
            if gpu.compute_capability is not None
        ]
    return found


def _table(package: LockedPackage, build: Build, target: Target) -> Finding:
    name = package.name
    label = f"{name} {build.version}" if build.version else name
    carries = message("builds.carries", label=label, arches=build.arches, source=build.source)
    recorded = parse_arches(package.arches)
    if (
        recorded is None
        or recorded == ((), ())
        or recorded == (build.sass, build.ptx)
        or not _is_locked_build(package, build, target)
    ):
        return ok("deep", "build", carries, subject=name)
    return warn(
        "deep",
        "build",
        message(
            "builds.row-wrong",
            carries=carries,
            row=f"{name} {package.variant}",
            recorded=arch_names(*recorded),
        ),
        message(
            "builds.row-wrong-fix",
            row=f"{name} {package.variant}",
            version=package.version,
            arches=build.arches,
        ),
        subject=name,
    )


def _is_locked_build(package: LockedPackage, build: Build, target: Target) -> bool:
    """Whether the build is the one cuda.lock's list describes: the locked version, on the
    platform whose row it records (another build is the environment check's finding)."""
    return (
        target.platform == TABLE_PLATFORM
        and package.version is not None
        and build.version is not None
        and same_version(build.version, package.version)
    )


def _kernels(
    package: LockedPackage, build: Build, gpu: Gpu, cc: ComputeCapability, target: Target
) -> Finding:
    name = package.name
    about = message("builds.gpu", index=gpu.index, name=gpu.name, sm=cc.sm)
    subject = f"{name} on gpu{gpu.index}"
    relock = message("builds.relock", lock=LOCK_FIX, sm=cc.sm)
    kernels = kernels_for(build.sass, build.ptx, cc)
    if kernels is None:
        return fail(
            "deep",
            "kernels",
            message("builds.no-kernels", about=about, name=name, arches=build.arches),
            relock,
            subject=subject,
        )
    kind, arch = kernels
    if kind == "sass":
        sass = (
            message("builds.sass", about=about, name=name)
            if arch == cc
            else message("builds.sass-via", about=about, name=name, sm=arch.sm)
        )
        return ok("deep", "kernels", sass, subject=subject)
    ptx = f"compute_{arch.major}{arch.minor}"
    native = package.cuda is not None and target.cuda is not None and package.cuda <= target.cuda
    if not native:
        return fail(
            "deep",
            "kernels",
            message(
                "builds.no-jit",
                about=about,
                name=name,
                driver=target.cuda,
                cuda=package.cuda,
                ptx=ptx,
            ),
            relock,
            subject=subject,
        )
    return warn(
        "deep",
        "kernels",
        message("builds.ptx-only", about=about, name=name, ptx=ptx),
        message("builds.ptx-only-fix", relock=relock),
        subject=subject,
    )
