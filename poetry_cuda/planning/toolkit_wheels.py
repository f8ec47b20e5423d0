"""`toolkit = "wheels"`: the PyPI wheels that give a project its own nvcc, headers and runtime.

The table (``toolkit_wheels.toml`` beside this module, one row per CUDA major, each
with its source) says which wheels to add and whether they contain the nvcc driver:
NVIDIA publishes nvcc itself only for CUDA 13 (`nvidia-cuda-nvcc`); the CUDA 11 and 12
wheels hold ptxas, libnvvm and the headers. `additions` turns a plan into the managed
group's extra pins; it is pure and offline.
"""

from __future__ import annotations

import functools

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.knowledge._loader import data_table
from poetry_cuda.knowledge._loader import provenance
from poetry_cuda.planning.plan import Addition
from poetry_cuda.planning.plan import project_cuda
from poetry_cuda.records import frozen
from poetry_cuda.schema import by
from poetry_cuda.versions import CudaVersion


if TYPE_CHECKING:
    from poetry_cuda.planning.plan import Plan
    from poetry_cuda.request.settings import Settings


FILE = "toolkit_wheels.toml"
SCHEMA = 1


@frozen
class ToolkitWheels:
    """The wheels that make up one CUDA major's per-project toolkit."""

    cuda: int  # the major
    packages: tuple[str, ...]
    minors: tuple[CudaVersion, ...]
    nvcc: bool  # the set contains the nvcc compiler driver
    root: str  # "nvidia/*" (a folder per wheel) or "nvidia/cu13" (one shared folder)
    source: str
    confidence: str


def parse(text: str, file: str = FILE) -> tuple[ToolkitWheels, ...]:
    """Read and validate the table; errors name the file and the row."""
    top = data_table(text, file, SCHEMA)
    rows = []
    for row in top.tables("major", by("cuda")):
        major = row.value("cuda", int, "a CUDA major such as 12")
        minors = row.parsed_list("minors", CudaVersion.parse)
        if any(minor.major != major for minor in minors):
            raise row.error("minors", f"every minor must be {major}.x")
        source, confidence = provenance(row)
        rows.append(
            ToolkitWheels(
                cuda=major,
                packages=row.texts("packages"),
                minors=minors,
                nvcc=row.value("nvcc", bool, "true or false"),
                root=row.choice("root", ("nvidia/*", "nvidia/cu13")),
                source=source,
                confidence=confidence,
            )
        )
        row.text("note", None)
        row.done()
    top.done()
    return tuple(rows)


@functools.cache
def table() -> tuple[ToolkitWheels, ...]:
    """The packaged table, read once per process."""
    return parse(Path(__file__).with_name(FILE).read_text(encoding="utf-8"))


def for_major(major: int) -> ToolkitWheels | None:
    return next((row for row in table() if row.cuda == major), None)


def additions(plan: Plan, settings: Settings) -> tuple[tuple[Addition, ...], tuple[str, ...]]:
    """The wheels `toolkit = "wheels"` adds to the managed group, and warnings.

    `toolkit = "redist"` adds no wheels; its line says what `lock` records instead.
    """
    if settings.toolkit == "system":
        return (), ()
    cuda = project_cuda(((c.name, c.cuda) for c in plan.packages), settings.cuda)
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
    row = for_major(cuda.major)
    if row is None or cuda not in row.minors:
        published = ", ".join(str(m) for m in row.minors) if row else "none"
        warning = (
            f'toolkit = "wheels": NVIDIA publishes no matching toolkit wheels for CUDA {cuda} '
            f"(CUDA {cuda.major}.x: {published}); install the CUDA {cuda} toolkit on the system "
            f'or set toolkit = "system"'
        )
        return (), (warning,)
    reason = f"the project's own CUDA {cuda} toolkit (toolkit = wheels)"
    found = tuple(Addition(name, f"=={cuda}.*", reason) for name in row.packages)
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
