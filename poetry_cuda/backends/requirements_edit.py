"""PEP 621 and PEP 735 requirement strings as `lock --adopt` rewrites them, whichever
package manager locks: a label or a wheel URL dropped (`plain_requirements`), a wheel's
version moved into an unconstrained requirement (`pin_version`).

packaging's requirement parser is imported by the first edit (`lazy.requirements`), so that
loading a manager's editor costs `env` nothing of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda import lazy
from poetry_cuda.backends import toml_edit
from poetry_cuda.names import canonical_name
from poetry_cuda.names import wheel_version


if TYPE_CHECKING:
    from packaging.requirements import Requirement
    from tomlkit.toml_document import TOMLDocument


def _arrays(document: TOMLDocument) -> list[tuple[str, Any]]:
    """Every array of requirement strings, with the table it is written in."""
    project = toml_edit.mapping(document, "project", "project")
    found = [("[project] dependencies", project.get("dependencies"))]
    for extra, items in toml_edit.mapping(project, "optional-dependencies", "x").items():
        found.append((f"[project.optional-dependencies] {extra}", items))
    for group, items in toml_edit.mapping(document, "dependency-groups", "x").items():
        found.append((f"[dependency-groups] {group}", items))
    return [(where, items) for where, items in found if isinstance(items, list)]


def _parsed(text: object) -> Requirement | None:
    if not isinstance(text, str):
        return None
    requirements = lazy.requirements()  # only `lock --adopt` parses requirements here
    try:
        requirement: Requirement = requirements.Requirement(text)
    except requirements.InvalidRequirement:
        return None
    return requirement


def plain_requirements(document: TOMLDocument, where: str, package: str) -> list[str]:
    """Each requirement on `package` in the array `where` without its label or wheel URL
    (`lock --adopt`); what changed, one line each."""
    changes = []
    for written, items in _arrays(document):
        if written != where:
            continue
        for position, text in enumerate(items):
            requirement = _parsed(text)
            if requirement is None or canonical_name(requirement.name) != package:
                continue
            new = _plain_requirement(requirement)
            if new != str(text):
                items[position] = new
                changes.append(f"{where} {str(text)!r} -> {new!r}")
    return changes


def _plain_requirement(requirement: Requirement) -> str:
    """A requirement without its label or wheel URL: `torch==2.0.0`."""
    extras = f"[{','.join(sorted(requirement.extras))}]" if requirement.extras else ""
    if requirement.url:
        version = (wheel_version(requirement.url) or "").split("+", 1)[0]
        specifier = f"=={version}" if version else ""
    else:
        specifier = ",".join(str(s).split("+", 1)[0] for s in requirement.specifier)
    marker = f"; {requirement.marker}" if requirement.marker else ""
    return f"{requirement.name}{extras}{specifier}{marker}"


def pin_version(document: TOMLDocument, package: str, version: str) -> list[str]:
    """Give unconstrained requirements on `package` the version its wheel URL pinned."""
    changes = []
    for where, items in _arrays(document):
        for position, text in enumerate(items):
            requirement = _parsed(text)
            if requirement is None or canonical_name(requirement.name) != package:
                continue
            if not requirement.specifier and not requirement.url:
                requirement.specifier = requirement.specifier & f"=={version}"
                new = str(requirement)
                items[position] = new
                changes.append(f"{where} {str(text)!r} -> {new!r}")
    return changes
