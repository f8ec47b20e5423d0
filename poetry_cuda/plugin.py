"""The Poetry application plugin: `poetry cuda <command>`, and hooks on Poetry's own commands.

Activation only registers command factories and event listeners; no command module,
detection code or knowledge base is imported until a `cuda` command runs or a hooked
command runs in a project that has a cuda.lock, so the plugin adds nothing measurable
to unrelated Poetry commands.
"""

from __future__ import annotations

import os

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from cleo.events.console_events import COMMAND
from cleo.events.console_events import TERMINATE
from poetry.plugins.application_plugin import ApplicationPlugin

from poetry_cuda.commands import COMMANDS
from poetry_cuda.commands import load_command


if TYPE_CHECKING:
    from cleo.events.console_command_event import ConsoleCommandEvent
    from cleo.events.console_terminate_event import ConsoleTerminateEvent
    from cleo.events.event import Event
    from cleo.events.event_dispatcher import EventDispatcher
    from poetry.console.application import Application


INSTALLING = ("install", "sync")


class CudaApplicationPlugin(ApplicationPlugin):
    def activate(self, application: Application) -> None:
        for name in COMMANDS:
            application.command_loader.register_factory(
                f"cuda {name}", partial(load_command, name, prefix="cuda ")
            )
        dispatcher = application.event_dispatcher
        if dispatcher is not None:
            # pyproject.toml as it was before `add` pinned the requested packages.
            before_add: dict[Path, str] = {}
            # Above Poetry's own listeners (priority 0): act before the installer runs.
            dispatcher.add_listener(COMMAND, partial(_before_install, application), priority=10)
            dispatcher.add_listener(
                COMMAND, partial(_before_add, application, before_add), priority=10
            )
            dispatcher.add_listener(TERMINATE, partial(_after_add, application, before_add))
            dispatcher.add_listener(COMMAND, partial(_before_run, application))


def _project(application: Application) -> Path:
    directory = getattr(application, "project_directory", None)
    return Path(directory) if directory else Path.cwd()


def _managed_project(application: Application, command: str | None, *names: str) -> Path | None:
    """The project, when `command` is one of `names` and the project has a cuda.lock."""
    if command not in names:
        return None
    from poetry_cuda.hooks import is_managed

    project = _project(application)
    return project if is_managed(project) else None


def _before_install(
    application: Application, event: Event, event_name: str, dispatcher: EventDispatcher
) -> None:
    command_event: ConsoleCommandEvent = event  # type: ignore[assignment]
    project = _managed_project(application, command_event.command.name, *INSTALLING)
    if project is None:
        return
    from poetry_cuda.hooks import install_warnings

    for warning in install_warnings(project):
        command_event.io.write_error_line(f"<warning>poetry-cuda: {warning}</warning>")


def _before_run(
    application: Application, event: Event, event_name: str, dispatcher: EventDispatcher
) -> None:
    """`poetry run` in a managed project runs with the project's CUDA environment."""
    command_event: ConsoleCommandEvent = event  # type: ignore[assignment]
    project = _managed_project(application, command_event.command.name, "run")
    if project is None:
        return
    from poetry_cuda.cudaenv.gather import apply_for_poetry_run

    warning = apply_for_poetry_run(project, os.environ)
    if warning:
        command_event.io.write_error_line(f"<warning>poetry-cuda: {warning}</warning>")


def _before_add(
    application: Application,
    before_add: dict[Path, str],
    event: Event,
    event_name: str,
    dispatcher: EventDispatcher,
) -> None:
    command_event: ConsoleCommandEvent = event  # type: ignore[assignment]
    project = _managed_project(application, command_event.command.name, "add")
    if project is None:
        return
    from poetry_cuda.backends.poetry import add_pins
    from poetry_cuda.errors import PoetryCudaError
    from poetry_cuda.files import write_atomic
    from poetry_cuda.hooks import requested_pins

    pyproject = project / "pyproject.toml"
    try:
        pins = requested_pins(project, command_event.io.input.argument("name"))
    except PoetryCudaError as error:
        command_event.io.write_error_line(f"<warning>poetry-cuda: {error.what}</warning>")
        return
    if pins:
        text = pyproject.read_text(encoding="utf-8")
        before_add[project] = text
        write_atomic(pyproject, add_pins(text, pins))


def _after_add(
    application: Application,
    before_add: dict[Path, str],
    event: Event,
    event_name: str,
    dispatcher: EventDispatcher,
) -> None:
    terminate: ConsoleTerminateEvent = event  # type: ignore[assignment]
    if terminate.command.name != "add":
        return
    project = _project(application)
    original = before_add.pop(project, None)
    if terminate.exit_code != 0:
        if original is not None:
            # Poetry restored pyproject.toml to what it read, our pins included.
            from poetry_cuda.files import write_atomic

            write_atomic(project / "pyproject.toml", original)
        return
    from poetry_cuda.hooks import is_managed

    if not is_managed(project):
        return
    from poetry_cuda.errors import PoetryCudaError
    from poetry_cuda.lock import lock
    from poetry_cuda.planner import Options
    from poetry_cuda.planner import plan_project

    try:
        outcome = lock(
            plan_project(project, Options()), regenerate=False, check=False, dry_run=False
        )
    except PoetryCudaError as error:
        terminate.io.write_error_line(f"<error>poetry-cuda: {error.what}</error>")
        terminate.set_exit_code(error.exit_code)
        return
    for package in outcome.cuda_lock.packages:
        terminate.io.write_line(
            f"poetry-cuda: {package.name} {package.version} from {package.source}"
        )
