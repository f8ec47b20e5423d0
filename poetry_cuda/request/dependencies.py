"""The project's dependencies, as poetry-cuda needs them: name, constraint, extras.

Reads PEP 621 `[project]` dependencies and optional dependencies, the package managers'
own dependency tables (Poetry's `[tool.poetry.dependencies]` and groups, read by its
backend: `request.tables`), and PEP 735 `[dependency-groups]`. The managed group
`poetry-cuda` (written by `lock`) is skipped: it is our output, not the user's request.
"""

from __future__ import annotations

import re

from typing import TYPE_CHECKING
from typing import Any

from packaging.requirements import InvalidRequirement
from packaging.requirements import Requirement

from poetry_cuda.display import echoed
from poetry_cuda.display import quoted
from poetry_cuda.errors import ConfigError
from poetry_cuda.names import canonical_name
from poetry_cuda.names import wheel_version
from poetry_cuda.records import frozen
from poetry_cuda.request.tables import MANAGED_GROUP


if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence

    from poetry_cuda.request.tables import TableReader


_LOCAL_LABEL = re.compile(r"\+([A-Za-z0-9][A-Za-z0-9.]*)")


def pinned(location: object) -> str | None:
    """The constraint a wheel pinned by URL or path stands for: ``==2.0.0+cu117``."""
    version = wheel_version(location) if isinstance(location, str) else None
    return None if version is None else f"=={version}"


@frozen
class Dependency:
    name: str  # canonical (PEP 503) name
    constraint: str  # PEP 440 or Poetry syntax; "*" when unconstrained
    extras: frozenset[str]
    origin: str  # where it was declared, for messages
    # Installed only with an extra: a PEP 621 optional dependency, Poetry's `optional = true`,
    # or a `[tool.poetry.dependencies]` entry that only enriches PEP 621 dependencies.
    optional: bool = False
    # The environments it is declared for (`sys_platform == 'linux'`); "" for every one.
    marker: str = ""

    @property
    def local_label(self) -> str | None:
        """The local version label a pin names: ``cpu`` for ``==2.5.1+cpu``."""
        match = _LOCAL_LABEL.search(self.constraint)
        return match.group(1) if match else None


def _pep508(text: object, origin: str, *, optional: bool = False) -> Dependency:
    if not isinstance(text, str):
        raise ConfigError(f"{origin}: {quoted(text)} is not a requirement string")
    try:
        requirement = Requirement(text)
    except InvalidRequirement as error:
        raise ConfigError(
            f"{origin}: {quoted(text)} is not a valid requirement ({echoed(str(error))})",
            fix="write it as PEP 508, e.g. 'torch>=2.4'",
        ) from None
    return Dependency(
        name=canonical_name(requirement.name),
        constraint=str(requirement.specifier) or pinned(requirement.url) or "*",
        extras=frozenset(canonical_name(e) for e in requirement.extras),
        origin=origin,
        optional=optional,
        marker=str(requirement.marker or ""),
    )


def _table(data: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    node: Any = data
    for key in keys:
        node = node.get(key, {}) if isinstance(node, dict) else {}
    return node if isinstance(node, dict) else {}


def _requirements(value: object, origin: str) -> list[object]:
    """A PEP 621 list of requirement strings (a bare string would read as its letters)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ConfigError(
            f"{origin}: expected a list of requirement strings, got {quoted(value)}",
            fix='write it as a list, e.g. dependencies = ["torch==2.5.1"]',
        )
    return value


def read_dependencies(
    pyproject: Mapping[str, Any], readers: Sequence[TableReader]
) -> tuple[Dependency, ...]:
    """Every dependency the user declared, in file order, duplicates kept: PEP 621's, those
    of each package manager's own tables (`readers`), then PEP 735's."""
    found: list[Dependency] = []
    project = _table(pyproject, "project")
    for text in _requirements(project.get("dependencies"), "[project] dependencies"):
        found.append(_pep508(text, "[project] dependencies"))
    for extra, texts in _table(project, "optional-dependencies").items():
        origin = f"[project.optional-dependencies] {extra}"
        for text in _requirements(texts, origin):
            found.append(_pep508(text, origin, optional=True))

    for reader in readers:
        found.extend(reader.dependencies(pyproject))

    for group, items in _table(pyproject, "dependency-groups").items():
        if group == MANAGED_GROUP or not isinstance(items, list):
            continue
        for item in items:
            if isinstance(item, dict):  # {include-group = "..."}: its items are read on their own
                continue
            found.append(_pep508(item, f"[dependency-groups] {group}"))
    return tuple(found)
