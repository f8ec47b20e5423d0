"""The Poetry application plugin: `poetry cuda <command>`, and hooks on Poetry's own commands.

Activation only registers command factories and event listeners; no command module,
detection code or knowledge base is imported until a `cuda` command runs or a hooked
command runs in a project that has a cuda.lock, so the plugin adds nothing measurable
to unrelated Poetry commands.
"""

from __future__ import annotations

import os
import sys

from contextlib import ExitStack
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from cleo.events.console_events import COMMAND
from cleo.events.console_events import TERMINATE
from poetry.plugins.application_plugin import ApplicationPlugin

from poetry_cuda.cli.registry import COMMANDS
from poetry_cuda.cli.terminal import follow_the_locale_codeset
from poetry_cuda.display import shown
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import language_of
from poetry_cuda.messages import localize
from poetry_cuda.messages import message


if TYPE_CHECKING:
    from cleo.events.console_command_event import ConsoleCommandEvent
    from cleo.events.console_terminate_event import ConsoleTerminateEvent
    from cleo.events.event import Event
    from cleo.events.event_dispatcher import EventDispatcher
    from cleo.io.io import IO
    from poetry.console.application import Application

    from poetry_cuda.cli.commands.cleo_command import CleoCommand
    from poetry_cuda.cli.commands.namespace import NamespaceCommand
    from poetry_cuda.errors import PoetryCudaError
    from poetry_cuda.locking.transaction import Transaction
    from poetry_cuda.messages import Localized


INSTALLING = ("install", "sync")
# The Poetry commands that change the dependencies and lock: cuda.lock is locked again after.
RELOCKING = ("add", "remove")
# The Poetry commands that fetch from the project's sources.
FETCHING = ("add", "debug resolve", "install", "lock", "remove", "show", "sync", "update")
# `request.user_mirrors.PREFIX` (a test holds them equal), not imported: commands without
# such a variable stay fast.
MIRROR_VARIABLES = "POETRY_CUDA_MIRROR_"


class CudaApplicationPlugin(ApplicationPlugin):
    def activate(self, application: Application) -> None:
        follow_the_locale_codeset(os.environ)  # before Poetry or the plugin writes a line
        if "run" in sys.argv:  # `poetry cuda run CMD` runs now, before Poetry reads CMD's options
            from poetry_cuda.cli.poetry_run import run_now

            run_now(application, sys.argv[1:])
        application.command_loader.register_factory("cuda", _namespace_command)
        for name in COMMANDS:
            application.command_loader.register_factory(
                f"cuda {name}", partial(_cuda_command, name)
            )
        dispatcher = application.event_dispatcher
        if dispatcher is not None:
            adds = _AddHooks(application)
            mirrors = _MirrorHooks()
            # First of all: a malformed variable stops the command before anything else runs.
            dispatcher.add_listener(COMMAND, mirrors.before, priority=20)
            dispatcher.add_listener(TERMINATE, mirrors.after, priority=20)
            installs = _InstallHooks(application)
            # Above Poetry's own listeners (priority 0): act before the installer runs.
            dispatcher.add_listener(COMMAND, installs.before, priority=10)
            dispatcher.add_listener(TERMINATE, installs.after)
            dispatcher.add_listener(COMMAND, adds.before, priority=10)
            # After `add`'s pins are written: the Poetry it makes (and redirects) reads them.
            dispatcher.add_listener(COMMAND, mirrors.redirect, priority=5)
            dispatcher.add_listener(TERMINATE, adds.after)
            dispatcher.add_listener(COMMAND, partial(_before_run, application))


def _namespace_command() -> NamespaceCommand:
    """`poetry cuda` alone: the list of cuda commands, not Poetry's "does not exist"."""
    from poetry_cuda.cli.commands.namespace import NamespaceCommand

    return NamespaceCommand()


def _cuda_command(name: str) -> CleoCommand:
    """Command `name` as `cuda <name>`, its module (and cleo's adapter) imported now."""
    from poetry_cuda.cli.commands.cleo_command import cleo_command_named

    return cleo_command_named(name, prefix="cuda ")


def _project(application: Application) -> Path:
    directory = getattr(application, "project_directory", None)
    return Path(directory) if directory else Path.cwd()


def _managed_project(application: Application, command: str | None, *names: str) -> Path | None:
    """The project, when `command` is one of `names` and the project has a cuda.lock."""
    if command not in names:
        return None
    from poetry_cuda.cli.hooks import is_managed

    project = _project(application)
    return project if is_managed(project) else None


class _InstallHooks:
    """`poetry install` and `poetry sync` in a managed project: refused, before anything is
    installed, when poetry.lock installs a distribution in two versions on this machine
    (the rule `lock` and doctor apply, `locking.duplicates`); else the install gate's
    warnings, then the shared store where the project asks for it."""

    def __init__(self, application: Application) -> None:
        self.application = application
        self.failed: int | None = None  # the exit code of an install refused

    def before(self, event: Event, event_name: str, dispatcher: EventDispatcher) -> None:
        command_event: ConsoleCommandEvent = event  # type: ignore[assignment]
        project = _managed_project(self.application, command_event.command.name, *INSTALLING)
        if project is None:
            return
        from poetry_cuda.cli.hooks import install_warnings
        from poetry_cuda.errors import PoetryCudaError
        from poetry_cuda.knowledge.packaged import load
        from poetry_cuda.locking import duplicates

        try:
            duplicates.refuse_install(project, "poetry.lock")
        except PoetryCudaError as error:
            self.failed = _stop(command_event, error)
            return
        language = language_of(os.environ)
        for warning in install_warnings(project, load()):
            said = localize(warning, language)
            command_event.io.write_error_line(f"<warning>poetry-cuda: {said}</warning>")
        from poetry_cuda.cli.shared_hook import before_install  # install = "shared"

        before_install(command_event, project)

    def after(self, event: Event, event_name: str, dispatcher: EventDispatcher) -> None:
        if self.failed is not None:
            terminate: ConsoleTerminateEvent = event  # type: ignore[assignment]
            terminate.set_exit_code(self.failed)
            self.failed = None


def _stop(event: ConsoleCommandEvent, error: PoetryCudaError) -> int:
    """The command does not run: `error` is said; its exit code is returned, for the
    command's end (`ConsoleTerminateEvent`) to set."""
    from poetry_cuda.cli.commands.base import error_lines
    from poetry_cuda.cli.commands.base import user_language

    for line in error_lines(error, user_language()):
        event.io.write_error_line(line)
    event.disable_command()
    event.stop_propagation()
    return error.exit_code


def _before_run(
    application: Application, event: Event, event_name: str, dispatcher: EventDispatcher
) -> None:
    """`poetry run` in a managed project runs with the project's CUDA environment."""
    command_event: ConsoleCommandEvent = event  # type: ignore[assignment]
    project = _managed_project(application, command_event.command.name, "run")
    if project is None:
        return
    from poetry_cuda.cli.registry import package_manager
    from poetry_cuda.cudaenv.project_env import apply_for_poetry_run

    warning = apply_for_poetry_run(project, os.environ, load_manager=package_manager)
    if warning:
        said = shown(localize(warning, language_of(os.environ)))
        command_event.io.write_error_line(f"<warning>poetry-cuda: {said}</warning>")


class _MirrorHooks:
    """This user's mirrors (`POETRY_CUDA_MIRROR_<FAMILY>`) for every command that fetches:
    read (`before`) ahead of every other hook, applied to the command's Poetry (`redirect`)
    only after `poetry add`'s pins are in pyproject.toml, since that Poetry reads the
    project once, when first asked for: made earlier, it would resolve without them."""

    def __init__(self) -> None:
        self.failed: int | None = None  # the exit code of a command stopped by a bad value
        self.mirrors: dict[str, str] = {}  # this command's, by family key (`user_mirrors`)

    def before(self, event: Event, event_name: str, dispatcher: EventDispatcher) -> None:
        command_event: ConsoleCommandEvent = event  # type: ignore[assignment]
        self.mirrors = {}
        if command_event.command.name not in FETCHING or not any(
            name.startswith(MIRROR_VARIABLES) for name in os.environ
        ):
            return
        from poetry_cuda.errors import PoetryCudaError
        from poetry_cuda.request.user_mirrors import user_mirrors

        try:
            self.mirrors = user_mirrors(os.environ)
        except PoetryCudaError as error:
            self.failed = _stop(command_event, error)

    def redirect(self, event: Event, event_name: str, dispatcher: EventDispatcher) -> None:
        command_event: ConsoleCommandEvent = event  # type: ignore[assignment]
        command = command_event.command
        if not self.mirrors:
            return
        from poetry.console.commands.command import Command

        from poetry_cuda.cli.hooks import use_user_mirrors
        from poetry_cuda.display import redact_url
        from poetry_cuda.knowledge.packaged import load

        if not isinstance(command, Command):
            return
        io = command_event.io
        for redirect in use_user_mirrors(command.poetry, self.mirrors, load()):
            said = message(
                "install.user-mirror",
                source=redirect.name,
                mirror=redact_url(redirect.mirror),
                variable=redirect.variable,
                upstream=redirect.upstream,
            )
            _say(io, Phrase(("poetry-cuda: ", said)))

    def after(self, event: Event, event_name: str, dispatcher: EventDispatcher) -> None:
        if self.failed is not None:
            terminate: ConsoleTerminateEvent = event  # type: ignore[assignment]
            terminate.set_exit_code(self.failed)
            self.failed = None


class _AddRun:
    """What `poetry add` (or `remove`) in a managed project holds from its start to its end."""

    def __init__(self) -> None:
        self.hold = ExitStack()
        self.edits: Transaction | None = None


class _AddHooks:
    """`poetry add` and `poetry remove` in a managed project: for an add, pins before Poetry
    resolves; for both, a re-lock after it, so that cuda.lock records what they changed.

    Each holds its project (`transaction.session`) from its start to its end.
    """

    def __init__(self, application: Application) -> None:
        self.application = application
        self.runs: dict[Path, _AddRun] = {}
        self.failed: int | None = None  # the exit code of an add stopped before Poetry ran

    def before(self, event: Event, event_name: str, dispatcher: EventDispatcher) -> None:
        command_event: ConsoleCommandEvent = event  # type: ignore[assignment]
        name = command_event.command.name
        project = _managed_project(self.application, name, *RELOCKING)
        if project is None:
            return
        from poetry_cuda.backends.poetry.editor import add_pins
        from poetry_cuda.cli.hooks import requested_pins
        from poetry_cuda.errors import PoetryCudaError
        from poetry_cuda.files import read_text
        from poetry_cuda.knowledge.packaged import load
        from poetry_cuda.locking import transaction

        io = command_event.io
        run = _AddRun()
        try:
            # The whole command, its re-lock included, is one run: no `lock` may interleave.
            run.hold.enter_context(transaction.session(project, partial(_say, io)))
        except PoetryCudaError as error:  # a busy project, or a journal that cannot be trusted
            self._stop(command_event, error)
            return
        self.runs[project] = run
        if name != "add":
            return
        try:
            pins = requested_pins(project, io.input.argument("name"), load())
        except PoetryCudaError as error:
            said = shown(localize(error.said, language_of(os.environ)))
            io.write_error_line(f"<warning>poetry-cuda: {said}</warning>")
            return
        if pins:
            names = ("pyproject.toml", "poetry.lock")
            try:
                run.edits = transaction.Transaction(project, names)
            except PoetryCudaError as error:  # a file of a kind no run edits (a pipe, a folder)
                self.runs.pop(project).hold.close()
                self._stop(command_event, error)
                return
            text = read_text(project / "pyproject.toml")
            run.edits.write("pyproject.toml", add_pins(text, pins))
            run.edits.expect_writes(*names)  # Poetry's add writes both

    def _stop(self, event: ConsoleCommandEvent, error: PoetryCudaError) -> None:
        """Poetry's add does not run: the error is said, and is the exit code."""
        self.failed = _stop(event, error)

    def after(self, event: Event, event_name: str, dispatcher: EventDispatcher) -> None:
        terminate: ConsoleTerminateEvent = event  # type: ignore[assignment]
        if terminate.command.name not in RELOCKING:
            return
        if self.failed is not None:
            terminate.set_exit_code(self.failed)
            self.failed = None
            return
        project = _project(self.application)
        run = self.runs.pop(project, None)
        if run is None:
            return
        with run.hold:
            _finish_add(project, run, terminate)


def _finish_add(project: Path, run: _AddRun, terminate: ConsoleTerminateEvent) -> None:
    """After Poetry's `add` or `remove`: cuda.lock re-locked for what pyproject.toml now says."""
    io = terminate.io
    command = terminate.command.name
    if terminate.exit_code != 0:
        # Poetry put back pyproject.toml as it read it, our pins included.
        if run.edits is not None:
            for line in run.edits.undo()[0].lines():
                _say(io, Phrase(("poetry-cuda: ", line)))
        return
    if run.edits is not None:
        run.edits.writes_done("pyproject.toml", "poetry.lock")
        run.edits.commit()
    from poetry_cuda.cli.registry import detect_this_machine
    from poetry_cuda.cli.registry import package_manager
    from poetry_cuda.errors import PoetryCudaError
    from poetry_cuda.knowledge.packaged import load
    from poetry_cuda.locking.interrupts import INTERRUPTED_EXIT
    from poetry_cuda.locking.interrupts import Interrupted
    from poetry_cuda.locking.interrupts import interruptible
    from poetry_cuda.locking.service import Ask
    from poetry_cuda.locking.service import lock_project
    from poetry_cuda.planning.planner import Options

    try:
        with interruptible():
            # The same lock as `poetry cuda lock`, for the team's targets; inside Poetry, uv
            # only when configured.
            outcome = lock_project(
                project,
                Ask(Options(), inside_poetry=f"poetry {command}"),
                load(),
                os.environ,
                detect=detect_this_machine,
                load_manager=package_manager,
                notify=partial(_say, io),
                held=True,  # the whole command holds the project (`_AddHooks.before`)
            )
    except PoetryCudaError as error:
        said = shown(localize(error.said, language_of(os.environ)))
        io.write_error_line(f"<error>poetry-cuda: {said}</error>")
        terminate.set_exit_code(error.exit_code)
        return
    except (KeyboardInterrupt, Interrupted):
        said = message("interrupted").text(language_of(os.environ))
        io.write_error_line(f"<error>poetry-cuda: {said}</error>")
        terminate.set_exit_code(INTERRUPTED_EXIT)
        return
    for package in outcome.cuda_lock.packages:
        locked = message(
            "install.locked", name=package.name, version=package.version, source=package.source
        )
        io.write_line(shown(f"poetry-cuda: {locked.text(language_of(os.environ))}"))


def _say(io: IO, said: Localized) -> None:
    io.write_error_line(shown(localize(said, language_of(os.environ))))
