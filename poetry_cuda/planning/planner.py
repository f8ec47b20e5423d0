"""From a project folder and command-line options to a plan: the I/O around `assemble.make_plan`."""

from __future__ import annotations

import dataclasses
import os

from dataclasses import field
from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.display import quoted
from poetry_cuda.errors import UsageError
from poetry_cuda.files import read_toml
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import did_you_mean
from poetry_cuda.messages import message
from poetry_cuda.planning.adoption import Adoption
from poetry_cuda.planning.adoption import review
from poetry_cuda.planning.assemble import make_plan
from poetry_cuda.planning.targets import DETECTED
from poetry_cuda.planning.targets import RECORDED
from poetry_cuda.planning.targets import load_targets
from poetry_cuda.planning.toolkit_wheels import additions as toolkit_additions
from poetry_cuda.records import frozen
from poetry_cuda.request.dependencies import exclusive
from poetry_cuda.request.dependencies import read_dependencies
from poetry_cuda.request.handwritten import HandWritten
from poetry_cuda.request.handwritten import recognise
from poetry_cuda.request.project import find_project
from poetry_cuda.request.python import project_python
from poetry_cuda.request.settings import POLICIES
from poetry_cuda.request.settings import CudaRequest
from poetry_cuda.request.settings import Settings
from poetry_cuda.request.settings import parse_settings
from poetry_cuda.request.user_mirrors import with_user_redist


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping
    from collections.abc import Sequence
    from pathlib import Path

    from poetry_cuda.host.profiles import HostProfile
    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.messages import Localized
    from poetry_cuda.planning.gpu_stacks import GpuStacks
    from poetry_cuda.planning.plan import Plan
    from poetry_cuda.planning.targets import Target
    from poetry_cuda.request.tables import TableReader


@frozen
class Options:
    """The planning options a command line may give."""

    targets: tuple[str, ...] = ()
    cuda: str | None = None
    policy: str | None = None
    # The targets cuda.lock records, planned for when no target is given (`lock`).
    recorded: tuple[HostProfile, ...] = ()


@frozen
class Planned:
    """A project with the plan made for it, and everything the plan was made from."""

    project: Path
    pyproject: dict[str, Any]
    settings: Settings
    targets: tuple[Target, ...]
    plan: Plan
    kb: KnowledgeBase
    targets_from: str = DETECTED  # `--target`, the targets setting, ..., cuda.lock, this machine
    # The project's own CUDA configuration, and what the plan makes of it.
    hand: HandWritten = field(default_factory=HandWritten)
    adoption: Adoption = field(default_factory=Adoption)
    # What the plan was asked with, to plan again after `lock --adopt` rewrote the file.
    options: Options = field(default_factory=Options)
    target_warnings: tuple[str, ...] = ()
    # The package managers' readers of their own tables, to read them again after `--adopt`.
    readers: tuple[TableReader, ...] = ()
    # Builds (family, lead version, variant) an index was found not to serve: never chosen.
    unavailable: frozenset[tuple[str, str, str]] = frozenset()
    # The ROCm and XPU builds' knowledge, for targets with AMD or Intel GPUs.
    stacks: GpuStacks | None = None

    @property
    def targets_explicit(self) -> bool:
        """Whether the user named the targets (rather than cuda.lock or detection)."""
        return self.targets_from not in (RECORDED, DETECTED)


def apply_options(settings: Settings, options: Options) -> Settings:
    changes: dict[str, Any] = {}
    if options.cuda is not None:
        changes["cuda"] = CudaRequest.parse(options.cuda, key="--cuda")
    if options.policy is not None:
        if options.policy not in POLICIES:
            raise bad_policy(options.policy)
        changes["policy"] = options.policy
    return dataclasses.replace(settings, **changes)


def bad_policy(given: str) -> UsageError:
    """`--policy` names none of the policies: say which are, and the nearest."""
    what = message(
        "schema.at",
        where="--policy",
        problem=message("schema.not-one-of", value=quoted(given), options=", ".join(POLICIES)),
    )
    hint = did_you_mean(given, POLICIES)
    return UsageError(
        what if hint is None else Phrase((what, hint), ". "),
        fix=message("usage.pass-example", example="--policy newest / --policy native"),
    )


def plan_project(
    start: Path,
    options: Options,
    kb: KnowledgeBase,
    environ: Mapping[str, str] | None = None,
    *,
    detect: Callable[[Mapping[str, str]], HostProfile],
    readers: Sequence[TableReader],
    stacks: GpuStacks | None = None,
    unavailable: frozenset[tuple[str, str, str]] = frozenset(),
) -> Planned:
    """Read the project at or above `start`, settle the targets, and choose from `kb`.

    `detect` profiles this machine where no other target is given (see `load_targets`);
    `readers` read the package managers' own tables (`backends.readers.READERS`); `stacks`
    is the knowledge of the ROCm and XPU builds (`knowledge.packaged.rocm()`, `.xpu()`),
    without which AMD and Intel GPUs get CPU builds; `unavailable` the builds, as (family,
    lead version, variant), never to choose (their index lacks them).
    """
    environ = os.environ if environ is None else environ
    project = find_project(start)
    pyproject = read_toml(project / "pyproject.toml")
    settings = with_user_redist(apply_options(parse_settings(pyproject), options), environ)
    targets, warnings, origin = load_targets(
        project,
        settings,
        options.targets,
        environ,
        kb.nvidia,
        detect=detect,
        recorded=options.recorded,
    )
    return _choose(
        project,
        pyproject,
        options,
        settings,
        targets,
        warnings,
        origin,
        kb,
        tuple(readers),
        unavailable,
        stacks=stacks,
    )


def replanned(
    planned: Planned,
    pyproject: dict[str, Any],
    unavailable: frozenset[tuple[str, str, str]] | None = None,
) -> Planned:
    """The plan for the same project, options and targets after pyproject.toml changed, or
    without the builds `unavailable` names (default: those the plan already left out)."""
    settings = dataclasses.replace(
        apply_options(parse_settings(pyproject), planned.options),
        redist_mirror=planned.settings.redist_mirror,  # this user's, where one is set
    )
    warnings = list(planned.target_warnings)
    return _choose(
        planned.project,
        pyproject,
        planned.options,
        settings,
        planned.targets,
        warnings,
        planned.targets_from,
        planned.kb,
        planned.readers,
        planned.unavailable if unavailable is None else unavailable,
        stacks=planned.stacks,
    )


def _choose(
    project: Path,
    pyproject: dict[str, Any],
    options: Options,
    settings: Settings,
    targets: tuple[Target, ...],
    target_warnings: list[str],
    origin: str,
    kb: KnowledgeBase,
    readers: tuple[TableReader, ...],
    unavailable: frozenset[tuple[str, str, str]] = frozenset(),
    *,
    stacks: GpuStacks | None = None,
) -> Planned:
    warnings: list[Localized] = list(target_warnings)
    hand = recognise(pyproject, kb.families, settings.mirrors, readers)
    plan = make_plan(
        read_dependencies(pyproject, readers),
        targets,
        settings,
        kb,
        hand,
        unavailable,
        python=project_python(pyproject),
        stacks=stacks,
        exclusive=exclusive(pyproject),
    )
    adoption = review(plan, hand)
    if adoption.needed:
        warnings.append(
            f"lock will refuse {len(adoption.conflicts)} hand-written "
            f"entr{'y' if len(adoption.conflicts) == 1 else 'ies'} the plan contradicts, "
            "until `lock --adopt` takes them over: " + "; ".join(c.said for c in adoption.conflicts)
        )
    serves_gpu = any(target.runs_cuda for target in targets)
    if plan.packages and not serves_gpu and all(c.accelerator == "cpu" for c in plan.packages):
        warnings.append(message("plan.serves-no-gpu"))
    added, toolkit_warnings = toolkit_additions(plan, settings, kb)
    warnings.extend(toolkit_warnings)
    if added:
        plan = dataclasses.replace(plan, additions=(*plan.additions, *added))
    if warnings:
        plan = dataclasses.replace(plan, warnings=(*warnings, *plan.warnings))
    return Planned(
        project,
        pyproject,
        settings,
        targets,
        plan,
        kb,
        origin,
        hand,
        adoption,
        options,
        tuple(target_warnings),
        readers,
        unavailable,
        stacks,
    )
