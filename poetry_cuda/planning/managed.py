"""The managed entries a plan asks for, independent of the package manager.

Each backend writes them in its own configuration (`poetry_cuda.backends`): one
explicit index per chosen source, and one pin per CUDA-flavoured package that puts it
on that index on the CUDA platforms (Linux and Windows; other platforms keep PyPI),
plus the PyPI packages a plan adds, such as a per-project nvcc. A pin carries the
plan's version bound where newer releases the project allows were passed over, so the
package manager cannot take one of them from the same index.

What poetry-cuda may rewrite or delete is decided by the file, never by cuda.lock alone
(a committed cuda.lock is input from anyone): an index is ours only when its name and
URL are ones poetry-cuda produces (`is_our_source`), a group only when it carries the
marker comment poetry-cuda writes in it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Iterable

    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.planning.plan import Plan


CUDA_PLATFORMS = "sys_platform == 'linux' or sys_platform == 'win32'"
# pytorch.org publishes ROCm wheels for Linux x86_64 only: elsewhere the project's default
# index (PyPI's build) serves, as on macOS for CUDA builds.
ROCM_PLATFORMS = "sys_platform == 'linux' and platform_machine == 'x86_64'"
# Every marker a managed entry is written with, to know our own entries when read back.
MANAGED_MARKERS = (CUDA_PLATFORMS, ROCM_PLATFORMS)


@frozen
class Pin:
    package: str
    source: str | None  # the managed index; None: from the project's default index (PyPI)
    version: str = "*"  # "*" or a PEP 440 specifier such as "==12.4.*"
    optional: bool = False  # the project installs the package only with an extra
    markers: str = CUDA_PLATFORMS  # where the pin applies: where the build is published


@frozen
class Managed:
    sources: tuple[tuple[str, str], ...]  # (name, url), in plan order
    pins: tuple[Pin, ...]
    # The project's own indexes the plan uses as they are written (pins may name them).
    adopted: tuple[str, ...] = ()
    # Packages whose own hand-written pins already say what the plan chose: not pinned again.
    kept: frozenset[str] = frozenset()

    @classmethod
    def of(cls, plan: Plan, kept: frozenset[str] = frozenset()) -> Managed:
        sources: dict[str, str] = {}
        adopted: dict[str, None] = {}
        pins = []
        for choice in plan.packages:
            if choice.source.is_pypi:
                if choice.bound:  # PyPI would otherwise give the newer release passed over
                    pins.append(Pin(choice.name, None, choice.bound, choice.optional))
                continue
            if choice.source.adopted:
                adopted.setdefault(choice.source.name)
            else:
                sources.setdefault(choice.source.name, choice.source.url)
            if choice.name not in kept:
                markers = ROCM_PLATFORMS if choice.accelerator == "rocm" else CUDA_PLATFORMS
                version = choice.bound or "*"
                if choice.optional and version == "*" and choice.version:
                    # Poetry locks an optional group apart from the extra that installs the
                    # package: unbounded, it would lock a second, newer version beside it.
                    version = f"=={choice.version}"
                pins.append(Pin(choice.name, choice.source.name, version, choice.optional, markers))
        pins.extend(Pin(addition.name, None, addition.spec) for addition in plan.additions)
        return cls(tuple(sources.items()), tuple(pins), tuple(adopted), kept)

    @property
    def source_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.sources)


def is_our_source(name: object, url: object, families: Iterable[Family]) -> bool:
    """Whether poetry-cuda itself names an index `name` with this `url` for one of
    `families` (`Family.names`; the knowledge base's families).

    So a user's source of any other name, or of our name with another URL, is never
    taken for ours.
    """
    if not isinstance(name, str) or not isinstance(url, str):
        return False
    return any(family.names(name, url) for family in families)


def group_marker(command: str) -> str:
    """The comment line that marks the managed group as poetry-cuda's.

    `command` is how the project's users run poetry-cuda (``poetry cuda``, ``poetry-cuda``),
    so the line tells them what rewrites the group. A group without it is the user's.
    """
    return f"# Managed by poetry-cuda: `{command} lock` rewrites this group."
