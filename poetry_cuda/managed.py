"""The managed entries a plan asks for, independent of the package manager.

Each backend writes them in its own configuration (`poetry_cuda.backends`): one
explicit index per chosen source, and one pin per CUDA-flavoured package that puts it
on that index on the CUDA platforms (Linux and Windows; other platforms keep PyPI),
plus the PyPI packages a plan adds, such as a per-project nvcc.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from poetry_cuda.plan import Plan


CUDA_PLATFORMS = "sys_platform == 'linux' or sys_platform == 'win32'"
GROUP_COMMENT = "Managed by poetry-cuda: `poetry cuda lock` rewrites this group."


@dataclass(frozen=True)
class Pin:
    package: str
    source: str | None  # the managed index; None: from the project's default index (PyPI)
    version: str = "*"  # "*" or a PEP 440 specifier such as "==12.4.*"


@dataclass(frozen=True)
class Managed:
    sources: tuple[tuple[str, str], ...]  # (name, url), in plan order
    pins: tuple[Pin, ...]

    @classmethod
    def of(cls, plan: Plan) -> Managed:
        sources: dict[str, str] = {}
        pins = []
        for choice in plan.packages:
            if choice.source.is_pypi:
                continue
            sources.setdefault(choice.source.name, choice.source.url)
            pins.append(Pin(choice.name, choice.source.name))
        pins.extend(Pin(addition.name, None, addition.spec) for addition in plan.additions)
        return cls(tuple(sources.items()), tuple(pins))

    @property
    def source_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.sources)
