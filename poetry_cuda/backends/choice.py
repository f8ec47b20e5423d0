"""`backend = "auto"`: which package manager locks and installs a project, and why.

The project's own files decide where one names a manager; a plain PEP 621 project, which
both can run, gets the one that is installed here (`backends.registry` asks each backend).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.backends.registry import installed_managers
from poetry_cuda.errors import UsageError
from poetry_cuda.messages import message


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping
    from collections.abc import Sequence
    from pathlib import Path

    from poetry_cuda.messages import Message


POETRY_BUILD = "poetry.core.masonry.api"


def choose(setting: str, project: Path, pyproject: Mapping[str, Any]) -> str:
    """The backend `setting` ("auto" | "poetry" | "uv") means for `project`."""
    return choose_with_reason(setting, project, pyproject)[0]


def choose_with_reason(
    setting: str,
    project: Path,
    pyproject: Mapping[str, Any],
    installed: Callable[[], Sequence[str]] | None = None,
) -> tuple[str, Message]:
    """The backend `setting` means for `project`, and why: `("uv", "uv.lock exists")`.

    For `auto`, the first sign that names a manager decides, strongest first:

    1. uv.lock exists, then a `[tool.uv]` table: uv (what uv itself writes);
    2. poetry.lock exists, then a `[tool.poetry]` table: Poetry;
    3. the build backend: `uv_build` picks uv, Poetry's `poetry.core.masonry.api` Poetry;
    4. a `[dependency-groups]` table (and, by 2, no `[tool.poetry]`): uv;
    5. none of these (a plain PEP 621 project, as `uv init --bare` makes it): the manager
       that is installed (`installed`, by default `registry.installed_managers`), the first
       of Poetry, uv where both are (`by_installed`).

    A lock file is what the manager last wrote and outranks configuration; a table
    that only one manager reads outranks what both accept (PEP 735 groups, a build
    backend that any frontend runs).
    """
    if setting != "auto":
        return setting, message("backend.setting", setting=setting)
    tool = pyproject.get("tool")
    tool = tool if isinstance(tool, dict) else {}
    build = pyproject.get("build-system")
    build_backend = build.get("build-backend") if isinstance(build, dict) else None
    signs = [
        ((project / "uv.lock").exists(), "uv", message("backend.uv-lock")),
        ("uv" in tool, "uv", message("backend.tool-uv")),
        ((project / "poetry.lock").exists(), "poetry", message("backend.poetry-lock")),
        ("poetry" in tool, "poetry", message("backend.tool-poetry")),
        (build_backend == "uv_build", "uv", message("backend.build-backend", name="uv_build")),
        (
            build_backend == POETRY_BUILD,
            "poetry",
            message("backend.build-backend", name=POETRY_BUILD),
        ),
        ("dependency-groups" in pyproject, "uv", message("backend.dependency-groups")),
    ]
    for found, name, reason in signs:
        if found:
            return name, reason
    return by_installed((installed or installed_managers)())


def by_installed(installed: Sequence[str]) -> tuple[str, Message]:
    """The manager of a project whose files name none: the first of those `installed` (in
    the registry's order: Poetry, then uv), saying how to choose another; Poetry where none
    is (its lock then says how to install it)."""
    if not installed:
        return "poetry", message("backend.none-installed")
    chosen, *others = installed
    if not others:
        return chosen, message("backend.only-installed", name=chosen)
    return chosen, message("backend.first-installed", name=chosen, other=others[0])


def choose_for_lock(
    setting: str, project: Path, pyproject: Mapping[str, Any], *, inside_poetry: str | None
) -> tuple[str, Message]:
    """The backend that locks `project`, and why (`choose_with_reason`), chosen once per run.

    `inside_poetry` names the Poetry command that runs poetry-cuda (``poetry cuda lock``,
    ``poetry add``), if one does: there, `backend = "auto"` does not pick uv on its own.
    """
    name, reason = choose_with_reason(setting, project, pyproject)
    if name == "uv" and setting == "auto" and inside_poetry is not None:
        raise UsageError(
            f"`{inside_poetry}` found a uv project ({reason}) and will not "
            "guess which package manager to lock with",
            why='backend = "auto" picks uv here, but this command runs inside Poetry',
            fix='run `poetry-cuda lock` to lock with uv, or set backend = "uv" or '
            'backend = "poetry" in [tool.poetry-cuda]',
        )
    return name, reason
