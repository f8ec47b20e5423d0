"""Plans made from pyproject.toml text the way the planner makes them, for tests of the pure
decisions: the hand-written configuration recognised, then the plan for the targets."""

from __future__ import annotations

import dataclasses

from dataclasses import dataclass
from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.backends.readers import READERS
from poetry_cuda.files import parse_toml
from poetry_cuda.host.profiles import profile_from_json
from poetry_cuda.knowledge import packaged
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.planning.assemble import make_plan
from poetry_cuda.planning.gpu_stacks import GpuStacks
from poetry_cuda.planning.targets import settle
from poetry_cuda.request.dependencies import read_dependencies
from poetry_cuda.request.handwritten import HandWritten
from poetry_cuda.request.handwritten import recognise
from poetry_cuda.request.python import project_python
from poetry_cuda.request.settings import Settings


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.planning.plan import Plan
    from poetry_cuda.planning.targets import Target


KB = load()
STACKS = GpuStacks(packaged.rocm(), packaged.xpu())


def linux_host(label: str, driver: str | None, *capabilities: str) -> Target:
    """A Linux x86_64 target with `driver` (None: no NVIDIA driver) and these GPUs."""
    profile: dict[str, Any] = {"os": "linux", "machine": "x86_64"}
    if driver is not None:
        profile["driver"] = {"version": driver}
        profile["gpus"] = [{"compute_capability": cc} for cc in capabilities]
    return settle(profile_from_json(profile, label), KB.nvidia)[0]


@dataclass(frozen=True)
class Planned:
    plan: Plan
    hand: HandWritten
    settings: Settings


def plan_text(text: str, targets: Sequence[Target], **settings: Any) -> Planned:
    """The plan for the project `text` on `targets`, with `settings` replaced."""
    pyproject = parse_toml(text)
    chosen = dataclasses.replace(Settings(), **settings)
    hand = recognise(pyproject, KB.families, chosen.mirrors, READERS)
    deps = read_dependencies(pyproject, READERS)
    python = project_python(pyproject)
    plan = make_plan(deps, list(targets), chosen, KB, hand, python=python, stacks=STACKS)
    return Planned(plan, hand, chosen)
