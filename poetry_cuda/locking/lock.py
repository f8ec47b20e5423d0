"""`lock`: write the managed configuration, run the backend's lock, verify, record.

`preview` (`--dry-run`) and `stale_reasons` (`--check`) tell what `lock` would do,
and change nothing.

The whole step is one transaction (see `transaction`): if resolution or verification
fails, or the process is interrupted (SIGINT, SIGTERM), pyproject.toml, the backend's
lock file and cuda.lock are put back as they were, where they still hold what this run
wrote.
"""

from __future__ import annotations

import dataclasses
import difflib

from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.backends import adoption_edit
from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import NoVariantError
from poetry_cuda.errors import ResolutionError
from poetry_cuda.errors import UnmetRequirementError
from poetry_cuda.files import parse_toml
from poetry_cuda.files import read_text
from poetry_cuda.host.profiles import canonical_machine
from poetry_cuda.knowledge import packaged
from poetry_cuda.locking import duplicates
from poetry_cuda.locking import lockfile
from poetry_cuda.locking import transaction
from poetry_cuda.locking.available import confirm_available
from poetry_cuda.locking.freshness import is_fresh
from poetry_cuda.locking.freshness import sealed
from poetry_cuda.locking.lockfile import CudaLock
from poetry_cuda.locking.lockfile import LockedExtra
from poetry_cuda.locking.lockfile import LockedPackage
from poetry_cuda.locking.lockfile import LockedToolkit
from poetry_cuda.locking.lockfile import PassedOver
from poetry_cuda.locking.lockfile import TargetFacts
from poetry_cuda.locking.lockfile_toml import dumps
from poetry_cuda.locking.recorded import COMMAND
from poetry_cuda.locking.variant_wheels import choose_variants
from poetry_cuda.locking.verify import cross_check
from poetry_cuda.locking.verify import lockfile_staleness
from poetry_cuda.locking.verify import verify
from poetry_cuda.locking.verify import verify_extras
from poetry_cuda.messages import message
from poetry_cuda.planning.adoption import pinned_request
from poetry_cuda.planning.base_image import base_image_for
from poetry_cuda.planning.managed import Managed
from poetry_cuda.planning.plan import project_cuda
from poetry_cuda.planning.planner import replanned
from poetry_cuda.records import frozen
from poetry_cuda.redist.manifest import platform_of
from poetry_cuda.redist.resolve import resolve


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping
    from pathlib import Path

    from poetry_cuda.backends.base import Ahead
    from poetry_cuda.backends.base import PackageManager
    from poetry_cuda.messages import Localized
    from poetry_cuda.messages import Message
    from poetry_cuda.planning.plan import SystemRequirement
    from poetry_cuda.planning.planner import Planned
    from poetry_cuda.planning.variant_lock import VariantPick
    from poetry_cuda.versions import CudaVersion


@frozen
class Outcome:
    planned: Planned
    cuda_lock: CudaLock
    diff: str  # unified diff of pyproject.toml (empty when unchanged)
    adopted: tuple[str, ...] = ()  # the hand-written entries `--adopt` changed, one line each
    # Why its backend locks the project, as chosen before the lock ran (`locking.service`):
    # afterwards its lock file exists, whether or not it did before.
    backend_reason: Message | None = None


def build_lock(
    planned: Planned,
    backend: str,
    locked: dict[str, str | None],
    requirements: tuple[SystemRequirement, ...] | None = None,
    variants: Mapping[str, VariantPick] | None = None,
) -> CudaLock:
    """cuda.lock for the plan; `requirements` as cross-checked with the lock (default: the
    plan's); `variants` the wheel-variant labels chosen (`variant_wheels`), per package."""
    plan = planned.plan
    picks = variants or {}
    needs = plan.system_requirements if requirements is None else requirements
    image = base_image_for(plan, planned.targets, needs, packaged.base_images())
    lock = CudaLock(
        content_hash="",
        backend=backend,
        policy=plan.policy,
        cuda=planned.settings.cuda.text,
        targets=tuple(TargetFacts.of(t) for t in planned.targets),
        packages=tuple(
            LockedPackage(
                name=c.name,
                variant=c.variant,
                cuda=c.cuda,
                source=c.source.name,
                url=c.source.url,
                version=locked.get(c.name, c.version),
                arches=c.arches,
                reason=str(c.reason),
                variant_label=picks[c.name].label if c.name in picks else None,
                variant_properties=picks[c.name].properties if c.name in picks else (),
            )
            for c in plan.packages
        ),
        system_requirements=needs,
        managed_sources=managed(planned).source_names,
        extras=tuple(
            LockedExtra(
                name=e.name,
                kind=e.kind,
                family=e.family,
                variant=e.variant,
                cuda=e.cuda,
                arches=e.arches,
                serves=e.serves,
                reason=e.reason,
                marker=e.marker,
                version=e.version,
            )
            for e in plan.extras
        ),
        base_image=image.image if image is not None else None,
        unavailable=tuple(PassedOver(*build) for build in sorted(planned.unavailable)),
    )
    return sealed(lock, planned.pyproject)


def _redist_cuda(planned: Planned) -> CudaVersion | None:
    """The CUDA version whose redist archives cuda.lock records; None: none are recorded."""
    if planned.settings.toolkit != "redist":
        return None
    cudas = ((c.name, c.cuda) for c in planned.plan.packages)
    return project_cuda(cudas, planned.settings.cuda, planned.kb.preferred)


def redist_platforms(planned: Planned) -> tuple[str, ...]:
    """NVIDIA's platform names of the targets (macOS has no CUDA: none), without repeats."""
    found: dict[str, None] = {}
    for target in planned.targets:
        if target.os == "macos":
            continue
        machine = canonical_machine(target.profile.machine)
        platform = platform_of(target.os, machine)
        if platform is None:
            raise ConfigError(
                f'toolkit = "redist": NVIDIA publishes no CUDA archives for {target.os} '
                f"{machine} (the target {target.label})",
                why="the archives exist for linux-x86_64, linux-sbsa (aarch64), linux-ppc64le "
                "and windows-x86_64",
                fix='set toolkit = "system" for this project, or drop that target',
            )
        found[platform] = None
    return tuple(found)


def redist_toolkit(planned: Planned) -> LockedToolkit | None:
    """`toolkit = "redist"`: the release and nvcc's archives for the targets (goes online)."""
    cuda = _redist_cuda(planned)
    platforms = redist_platforms(planned) if cuda is not None else ()
    if cuda is None or not platforms:
        return None
    settings = planned.settings
    try:
        release, archives = resolve(settings.redist_url, cuda, platforms)
    except UnmetRequirementError as error:
        # The archives' source out of reach is a failed resolution, as an index's is (exit 4).
        mirror = (
            message("redist.unreachable-mirror", url=settings.redist_url)
            if settings.redist_mirror
            else message("redist.unreachable-upstream", url=settings.redist_url)
        )
        raise ResolutionError(
            message("redist.unreachable", what=error.what),
            why=mirror,
            fix=message("redist.unreachable-fix"),
        ) from None
    return LockedToolkit(release, archives)


def toolkit_staleness(current: CudaLock, planned: Planned) -> list[str]:
    """Why the redist archives cuda.lock records are not what the settings ask (offline)."""
    cuda = _redist_cuda(planned)
    recorded = current.toolkit
    if recorded is None:
        expected = cuda is not None and bool(redist_platforms(planned))
        return [f"{lockfile.FILENAME} records no redist archives"] if expected else []
    if cuda is None:
        return [f'{lockfile.FILENAME} records redist archives, but toolkit is not "redist"']
    if recorded.cuda != cuda:
        said = f"the redist release {recorded.release}, but the project's CUDA version is {cuda}"
        return [f"{lockfile.FILENAME} records {said}"]
    have = {a.platform for a in recorded.archives}
    return [
        f"{lockfile.FILENAME} records no redist archives for {platform}"
        for platform in redist_platforms(planned)
        if platform not in have
    ]


def staleness(
    current: CudaLock | None,
    wanted: CudaLock,
    pyproject: Mapping[str, Any],
    text: str,
    new_text: str,
) -> list[Localized]:
    """Why the recorded lock no longer matches the project and its targets."""
    if current is None:
        return [message("lock.file-missing", file=lockfile.FILENAME)]
    reasons: list[Localized] = []
    if not is_fresh(current, pyproject):
        reasons.append(message("stale.pyproject"))
    if text != new_text:
        reasons.append(message("stale.managed"))
    if {t.facts for t in current.targets} != {t.facts for t in wanted.targets}:
        reasons.append(message("stale.targets"))
    chosen = {(p.name, p.variant, p.source, p.url) for p in wanted.packages}
    recorded = {(p.name, p.variant, p.source, p.url) for p in current.packages}
    for name, variant, source, _ in sorted(chosen - recorded):
        reasons.append(message("stale.plan-chooses", name=name, variant=variant, source=source))
    for name, variant, source, _ in sorted(recorded - chosen):
        reasons.append(
            message(
                "stale.lock-records",
                name=name,
                file=lockfile.FILENAME,
                variant=variant,
                source=source,
            )
        )
    planned_extras = {(e.name, e.variant, e.serves) for e in wanted.extras}
    recorded_extras = {(e.name, e.variant, e.serves) for e in current.extras}
    for name, variant, serves in sorted(planned_extras - recorded_extras):
        fits = f", the best fit of {', '.join(serves)}" if serves else ""
        reasons.append(f"the {name} extra: the plan has it install {variant}{fits}")
    for name, variant, _ in sorted(recorded_extras - planned_extras):
        reasons.append(f"the {name} extra: {lockfile.FILENAME} records it installing {variant}")
    needed = {(r.package, r.kind) for r in wanted.system_requirements}
    noted = {(r.package, r.kind) for r in current.system_requirements}
    for package, kind in sorted(needed - noted):
        reasons.append(f"{package}: the plan finds a system {kind} requirement")
    for package, kind in sorted(noted - needed):
        reasons.append(
            f"{package}: {lockfile.FILENAME} records a {kind} requirement the plan drops"
        )
    return reasons


def _current(project: Path) -> CudaLock | None:
    path = project / lockfile.FILENAME
    return lockfile.read(path) if path.exists() else None


@frozen
class Start:
    """What every mode begins with."""

    planned: Planned  # planned again when `--adopt` rewrote the authors' entries
    current: CudaLock | None  # cuda.lock as it is
    text: str  # pyproject.toml now
    new_text: str  # pyproject.toml as this lock writes it
    adopted: tuple[str, ...] = ()  # what `--adopt` changed, one line each


def _start(
    planned: Planned, backend: PackageManager, *, adopt: bool | None, command: str = COMMAND
) -> Start:
    """cuda.lock as it is, after the CPU guard, and pyproject.toml now and as this lock writes it.

    Hand-written entries the plan contradicts are refused, listed all at once, unless
    `adopt` takes them over (`None`: report them, for `--check`). `command` is how the
    user runs this lock, for the message that names `--adopt`.
    """
    current = _current(planned.project)
    refuse_silent_cpu(planned, current)
    text = read_text(planned.project / "pyproject.toml")
    previous = current.managed_sources if current else ()
    adopted: list[str] = []
    edited = text
    adoption = planned.adoption
    if adoption.needed and adopt is not None:
        if not adopt:
            raise adoption.error(command)
        # The build asked for outlives the pins taken over: the --cuda given with --adopt,
        # else the variant the pins asked for. Pins that stay keep asking for theirs.
        cuda = None
        request = planned.settings.cuda
        if adoption.taken and request.key.startswith("--"):
            cuda = request.text
        elif adoption.taken:
            cuda = pinned_request(planned.plan, planned.settings, planned.hand, planned.kb.families)
        edited, adopted = adoption_edit.adopt(
            text, adoption.taken, adoption.unused, adoption.outdated, cuda
        )
        planned = replanned(planned, parse_toml(edited))
        if planned.adoption.needed:  # what the edits could not reach: said, never half-done
            raise planned.adoption.error(command)
    backend.check_pyproject(planned.project, planned.pyproject)
    new_text = backend.rewrite(edited, managed(planned), previous, planned.kb.families)
    return Start(planned, current, text, new_text, tuple(adopted))


def managed(planned: Planned) -> Managed:
    """The entries poetry-cuda writes for the plan, beside what the authors wrote."""
    return Managed.of(planned.plan, planned.adoption.kept)


def refuse_silent_cpu(planned: Planned, current: CudaLock | None) -> None:
    """No lock turns a CUDA build that cuda.lock records into a CPU build unasked.

    Asking is `--cuda cpu` (or `cuda = "cpu"`), or naming targets that have no driver; a
    laptop or CI runner without a GPU that locks again keeps the team's CUDA builds.
    """
    if current is None or planned.settings.cuda.kind == "cpu" or planned.targets_explicit:
        return
    lost = [
        recorded
        for choice in planned.plan.packages
        if choice.cuda is None
        and (recorded := current.package(choice.name)) is not None
        and recorded.cuda is not None
    ]
    if lost:
        names = ", ".join(f"{r.name} {r.variant}" for r in lost)
        raise NoVariantError(
            f"this lock would replace the CUDA builds cuda.lock records ({names}) with CPU "
            f"builds: the targets ({', '.join(planned.plan.targets)}, from "
            f"{planned.targets_from}) have no NVIDIA driver",
            why="a CPU build for Linux and Windows would reach every teammate's next install; "
            "poetry-cuda makes one only when asked",
            fix="lock on a machine with the GPU, or pass --target FILE with its profile; to "
            "lock CPU builds on purpose, pass --cuda cpu",
        )


def _diff(text: str, new_text: str) -> str:
    return "".join(
        difflib.unified_diff(
            text.splitlines(keepends=True),
            new_text.splitlines(keepends=True),
            "pyproject.toml",
            "pyproject.toml (planned)",
        )
    )


def preview(
    planned: Planned, backend: PackageManager, *, adopt: bool = False, command: str = COMMAND
) -> Outcome:
    """What `lock` would write (`--dry-run`), without writing or resolving anything."""
    start = _start(planned, backend, adopt=adopt, command=command)
    return Outcome(
        start.planned,
        build_lock(start.planned, backend.name, {}),
        _diff(start.text, start.new_text),
        start.adopted,
    )


def stale_reasons(planned: Planned, backend: PackageManager) -> tuple[Localized, ...]:
    """Why the project's locks are not what `lock` would leave (`--check`); () when fresh."""
    start = _start(planned, backend, adopt=None)
    reasons = _project_staleness(planned, backend, start)
    return (*reasons, *_lockfile_staleness(planned, backend))


def _project_staleness(planned: Planned, backend: PackageManager, start: Start) -> list[Localized]:
    """Why cuda.lock and the managed entries are not what `lock` would leave (no resolution)."""
    predicted = build_lock(planned, backend.name, {})
    reasons = staleness(start.current, predicted, planned.pyproject, start.text, start.new_text)
    reasons += toolkit_staleness(start.current, planned) if start.current else []
    reasons += [conflict.said for conflict in planned.adoption.conflicts]
    return reasons


def _lockfile_staleness(planned: Planned, backend: PackageManager) -> list[Localized]:
    """Why the package manager's lock is not what `lock` would leave, and what a run left."""
    project = planned.project
    reasons: list[Localized] = []
    problem = lockfile_staleness(planned.plan, project, backend)
    reasons += [problem] if problem else []
    reasons += duplicates.stale(project, backend.lockfile, duplicates.platforms(planned.targets))
    run = transaction.run_state(project)
    if run == "live":
        reasons.append(
            f"another poetry-cuda run is changing the project now ({transaction.JOURNAL} is its "
            "journal); check again once it has finished"
        )
    elif run == "dead":
        try:
            transaction.read_journal(project)
        except InputFileError as error:  # `lock` refuses it too, with this message
            reasons.append(error.what)
        else:
            reasons.append(
                f"a run that stopped before it finished left {transaction.JOURNAL}; "
                "`lock` undoes it"
            )
    return reasons


def _fresh(planned: Planned, backend: PackageManager, start: Start) -> bool:
    """Whether the locks are already what `lock` would leave, as `lock --check` finds them:
    then a lock runs no resolution (Poetry's would reorder poetry.lock's markers) and
    writes nothing. The cheap checks first; the package manager's own last."""
    if start.current is None or start.adopted:
        return False
    return not _project_staleness(planned, backend, start) and not _lockfile_staleness(
        planned, backend
    )


def lock(
    planned: Planned,
    backend: PackageManager,
    *,
    regenerate: bool,
    notify: Callable[[Localized], None],
    environ: Mapping[str, str],
    adopt: bool = False,
    command: str = COMMAND,
    ahead: Ahead | None = None,
) -> Outcome:
    """Lock the planned project with `backend`; call within `transaction.session`.

    `environ` says this user's mirrors, through which the chosen builds' pages are read.

    `ahead` is the manager's part of the lock, if the interface started it before the plan
    (`cli.prefetch`): used only where it answers for the files as this lock leaves them.
    """
    project = planned.project
    # What the project itself gets wrong is refused before any index is asked (`_start`
    # reads and writes nothing); then the chosen builds are checked against their indexes.
    start = _start(planned, backend, adopt=adopt, command=command)
    if not regenerate and _fresh(planned, backend, start):
        assert start.current is not None  # `_fresh` says so
        return Outcome(planned, start.current, "")
    checked = confirm_available(planned, notify, environ)
    checked, variants = choose_variants(checked, notify)
    if checked is not planned:
        start = _start(checked, backend, adopt=adopt, command=command)
    planned, current, text, new_text = start.planned, start.current, start.text, start.new_text
    previous = current.managed_sources if current else ()
    managed_entries = managed(planned)
    names = ("pyproject.toml", backend.lockfile, lockfile.FILENAME)
    if not (project / backend.lockfile).exists():
        notify(message("lock.first", file=backend.lockfile, name=backend.name))
    with transaction.transaction(project, names, notify) as edits:
        if new_text != text:
            edits.write("pyproject.toml", new_text)
        with edits.tool_writes(backend.lockfile):
            dropped = set(previous) - set(managed_entries.source_names)
            backend.prepare(project, dropped)
            backend.run_lock(project, regenerate=regenerate, ahead=ahead)
        # A lock that installs a distribution twice on a target is refused, undone whole.
        duplicates.refuse(project, backend.lockfile, duplicates.platforms(planned.targets))
        versions = verify(planned.plan, project, backend)
        verify_extras(planned, project, backend)
        needs = cross_check(planned, project, backend)
        result = build_lock(planned, backend.name, versions, needs, variants)
        result = dataclasses.replace(result, toolkit=redist_toolkit(planned))
        content = dumps(result)
        path = project / lockfile.FILENAME
        if not path.exists() or read_text(path) != content:
            edits.write(lockfile.FILENAME, content)
    return Outcome(planned, result, _diff(text, new_text), start.adopted)
