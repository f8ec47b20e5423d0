"""`toolkit = "wheels"`: the PyPI wheels that give a project its own nvcc, headers and runtime.

The knowledge base's table (``knowledge/data/toolkit_wheels.toml``, one row per CUDA
major, each with its source) says which wheels to add and whether they contain the nvcc driver:
NVIDIA publishes nvcc itself only for CUDA 13 (`nvidia-cuda-nvcc`); the CUDA 11 and 12
wheels hold ptxas, libnvvm and the headers. `additions` turns a plan into the managed
group's extra pins; it is pure and offline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.planning.plan import Addition
from poetry_cuda.planning.plan import project_cuda


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.knowledge.model import ToolkitWheels
    from poetry_cuda.planning.plan import Plan
    from poetry_cuda.request.settings import Settings


def for_major(rows: Sequence[ToolkitWheels], major: int) -> ToolkitWheels | None:
    """The row of CUDA `major`, if NVIDIA publishes its toolkit as wheels."""
    return next((row for row in rows if row.cuda == major), None)


def additions(
    plan: Plan, settings: Settings, kb: KnowledgeBase
) -> tuple[tuple[Addition, ...], tuple[str, ...]]:
    """The wheels `toolkit = "wheels"` adds to the managed group (by `kb`'s table), and warnings.

    `toolkit = "redist"` adds no wheels; its line says what `lock` records instead.
    """
    if settings.toolkit == "system":
        return (), ()
    cuda = project_cuda(((c.name, c.cuda) for c in plan.packages), settings.cuda, kb.preferred)
    if settings.toolkit == "redist":
        if cuda is None:
            said = (
                'toolkit = "redist": the plan chose no CUDA version, so no toolkit archives are '
                'recorded; set cuda = "12.4" (for example) in [tool.poetry-cuda]'
            )
        else:
            said = (
                f'toolkit = "redist": `lock` resolves the CUDA {cuda} nvcc archives from '
                f"{settings.redist_url} and records their sha256 in cuda.lock; env and run "
                "fetch them into the shared store"
            )
        return (), (said,)
    if cuda is None:
        warning = (
            'toolkit = "wheels": the plan chose no CUDA version, so no toolkit wheels were '
            'added; set cuda = "12.4" (for example) in [tool.poetry-cuda]'
        )
        return (), (warning,)
    row = for_major(kb.toolkit_wheels, cuda.major)
    if row is None or cuda not in row.minors:
        published = ", ".join(str(m) for m in row.minors) if row else "none"
        warning = (
            f'toolkit = "wheels": NVIDIA publishes no matching toolkit wheels for CUDA {cuda} '
            f"(CUDA {cuda.major}.x: {published}); install the CUDA {cuda} toolkit on the system "
            f'or set toolkit = "system"'
        )
        return (), (warning,)
    reason = f"the project's own CUDA {cuda} toolkit (toolkit = wheels)"
    found = tuple(Addition(name, row.spec(name, cuda), reason) for name in row.packages)
    warnings: tuple[str, ...] = ()
    if not row.nvcc:
        warnings = (
            (
                f'toolkit = "wheels": NVIDIA\'s CUDA {cuda.major} wheels hold ptxas, libnvvm, '
                "the headers and the runtime, but no nvcc (only the CUDA 13 wheels have it); "
                f"for nvcc {cuda} install the CUDA {cuda} toolkit on the system"
            ),
        )
    return found, warnings
