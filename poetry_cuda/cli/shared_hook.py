"""The plugin's `poetry install` (and `poetry sync`) with install = "shared": before Poetry's
installer runs, the locked wheels of the groups and extras it installs (as Poetry reads its
options) are linked into Poetry's environment from the shared store, and that is said;
Poetry's installer then finds them in place. Where the store cannot serve the install,
that is said too and Poetry installs as usual.
"""

from __future__ import annotations

import os

from typing import TYPE_CHECKING
from typing import Any


if TYPE_CHECKING:
    from pathlib import Path

    from cleo.events.console_command_event import ConsoleCommandEvent
    from cleo.io.inputs.input import Input
    from poetry.console.commands.group_command import GroupCommand


PREFIX = "poetry-cuda: "


def before_install(event: ConsoleCommandEvent, project: Path) -> None:
    """Install `project` from the shared store when its pyproject.toml says so."""
    from poetry.console.commands.group_command import GroupCommand

    from poetry_cuda.display import shown
    from poetry_cuda.errors import PoetryCudaError
    from poetry_cuda.files import read_toml
    from poetry_cuda.messages import language_of
    from poetry_cuda.messages import message
    from poetry_cuda.request.settings import parse_settings
    from poetry_cuda.wheelstore.project import DONE

    command, io = event.command, event.io
    if not isinstance(command, GroupCommand) or os.environ.get(DONE) == str(project.absolute()):
        return  # `poetry-cuda sync` has just installed it, and runs this install for the rest
    try:
        if parse_settings(read_toml(project / "pyproject.toml")).install != "shared":
            return
        extras = _extras(io.input, read_toml(project / "poetry.lock"))
    except PoetryCudaError:
        return  # the warnings before this one say what is wrong with the project
    if extras is None:
        return  # a dry run, or only the project itself: nothing of the lock is installed
    from poetry_cuda.wheelstore.project import describe
    from poetry_cuda.wheelstore.project import install_shared
    from poetry_cuda.wheelstore.store import Store

    store = Store.default()
    try:
        groups = _groups(io.input, command)
        report = install_shared(
            project, extras=extras, groups=groups, poetry=command.poetry, store=store
        )
    except PoetryCudaError as error:
        said = message("install.shared-failed", problem=error.said).text(language_of(os.environ))
        io.write_error_line(f"<warning>{shown(PREFIX + said)}</warning>")
        return
    for line in describe(report, store.root):
        io.write_line(shown(PREFIX + line.text(language_of(os.environ))))


def _extras(options: Input, lock: dict[str, Any]) -> list[str] | None:
    """The extras `poetry install`'s options install; None when it installs nothing of the
    lock (--dry-run, --only-root)."""

    def option(name: str) -> Any:
        return options.option(name) if options.has_option(name) else None

    if option("dry-run") or option("only-root"):
        return None
    if option("all-extras"):
        listed = lock.get("extras")
        return sorted(listed) if isinstance(listed, dict) else []
    return _listed(option("extras"))


def _groups(options: Input, command: GroupCommand) -> set[str]:
    """The groups `poetry install`'s options install, read as Poetry reads them (its
    `activated_groups`, which needs the command's own IO, set only once it runs): --only,
    else the groups not optional with --with (every group with --all-groups) less --without."""
    from poetry_cuda.names import canonical_name

    def listed(name: str) -> set[str]:
        value = options.option(name) if options.has_option(name) else None
        return {canonical_name(group) for group in _listed(value)}

    package = command.poetry.package
    extra = listed("with")
    if options.has_option("all-groups") and options.option("all-groups"):
        extra = set(package.dependency_group_names(include_optional=True))
    defaults = set(package.dependency_group_names())
    return listed("only") or (defaults | extra) - listed("without")


def _listed(value: object) -> list[str]:
    """An option given as a list of values, each maybe comma or space separated."""
    items = value if isinstance(value, list) else [value] if isinstance(value, str) else []
    return [part for item in items for part in item.replace(",", " ").split() if part]
