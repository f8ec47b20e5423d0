"""The Pythons a project admits: its requires-python, as PEP 621 or Poetry writes it.

A package release whose Requires-Python leaves out one of them cannot be locked for the
project (Poetry locks for every Python the project admits; uv picks an older release).
"""

from __future__ import annotations

from typing import Any


def project_python(pyproject: dict[str, Any]) -> str | None:
    """``[project] requires-python``, else Poetry's ``python`` dependency; None when neither
    is a string."""
    project = pyproject.get("project")
    if isinstance(project, dict) and isinstance(project.get("requires-python"), str):
        return str(project["requires-python"])
    tool = pyproject.get("tool")
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    deps = poetry.get("dependencies") if isinstance(poetry, dict) else None
    python = deps.get("python") if isinstance(deps, dict) else None
    return python if isinstance(python, str) else None
