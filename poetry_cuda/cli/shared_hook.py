"""The plugin's `poetry install` (and `poetry sync`) with install = "shared": before Poetry's
installer runs, the locked wheels of the groups and extras it installs are linked into
Poetry's environment from the shared store, and that is said; Poetry's installer then
finds them in place. Where the store cannot serve the install, that is said too and
Poetry installs as usual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any


if TYPE_CHECKING:
    from pathlib import Path

    from cleo.events.console_command_event import ConsoleCommandEvent
    from cleo.io.inputs.input import Input


PREFIX = "poetry-cuda: "


def before_install(event: ConsoleCommandEvent, project: Path) -> None:
    """Install `project` from the shared store when its pyproject.toml says so."""
    from poetry.console.commands.command import Command

    from poetry_cuda.display import shown
    from poetry_cuda.errors import PoetryCudaError
    from poetry_cuda.files import read_toml
    from poetry_cuda.request.settings import parse_settings

    command, io = event.command, event.io
    if not isinstance(command, Command):
        return
    try:
        if parse_settings(read_toml(project / "pyproject.toml")).install != "shared":
            return
    except PoetryCudaError:
        return  # the warnings before this one say what is wrong with the project
    chosen = _chosen(io.input, read_toml(project / "poetry.lock"))
    if isinstance(chosen, str):
        io.write_error_line(shown(f'{PREFIX}install = "shared": {chosen}; Poetry installs'))
        return
    from poetry_cuda.wheelstore.project import describe
    from poetry_cuda.wheelstore.project import install_shared
    from poetry_cuda.wheelstore.store import Store

    store = Store.default()
    extras, groups = chosen
    try:
        report = install_shared(
            project, extras=extras, groups=groups, poetry=command.poetry, store=store
        )
    except PoetryCudaError as error:
        io.write_error_line(
            f"<warning>{shown(PREFIX + error.what)}; Poetry installs as usual</warning>"
        )
        return
    for line in describe(report, store.root):
        io.write_line(shown(PREFIX + line))


def _chosen(options: Input, lock: dict[str, Any]) -> tuple[list[str], list[str]] | str:
    """(extras, groups beside main) that `poetry install`'s options install, or why the
    store leaves this install to Poetry."""

    def option(name: str) -> Any:
        return options.option(name) if options.has_option(name) else None

    if option("dry-run") or option("only-root"):
        return "a dry run or --only-root installs nothing from the lock"
    only = _listed(option("only"))
    without = _listed(option("without"))
    if (only and only != ["main"]) or "main" in without or option("all-groups"):
        return "the store installs the main group and --with groups only"
    groups = [g for g in _listed(option("with")) if g not in without]
    if option("all-extras"):
        listed = lock.get("extras")
        extras = sorted(listed) if isinstance(listed, dict) else []
    else:
        extras = _listed(option("extras"))
    return extras, groups


def _listed(value: object) -> list[str]:
    """An option given as a list of values, each maybe comma or space separated."""
    items = value if isinstance(value, list) else [value] if isinstance(value, str) else []
    return [part for item in items for part in item.replace(",", " ").split() if part]
