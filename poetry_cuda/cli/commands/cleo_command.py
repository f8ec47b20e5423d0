"""A poetry-cuda command as cleo's: for Poetry (`poetry cuda lock`) and the script's application."""

from __future__ import annotations

import re

from typing import TYPE_CHECKING
from typing import Any
from typing import ClassVar

from cleo.commands.command import Command
from cleo.exceptions import CleoError
from cleo.helpers import argument
from cleo.helpers import option
from cleo.io.outputs.output import Type as OutputType

from poetry_cuda.cli.commands.base import EXIT_CODES_HELP
from poetry_cuda.cli.commands.base import error_lines
from poetry_cuda.cli.commands.base import exact
from poetry_cuda.cli.commands.base import fitted
from poetry_cuda.cli.commands.base import literal_help
from poetry_cuda.cli.commands.base import parser_problem
from poetry_cuda.cli.commands.base import user_language
from poetry_cuda.cli.registry import command
from poetry_cuda.errors import UsageError
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import did_you_mean
from poetry_cuda.messages import message


if TYPE_CHECKING:
    from cleo.io.io import IO

    from poetry_cuda.cli.commands.base import CudaCommand
    from poetry_cuda.messages import Message


# cleo's words for an unknown option (cleo.exceptions.CleoNoSuchOptionError).
_NO_SUCH_OPTION = re.compile(r'The (?:"-+)?option "?(-{1,2}[^"\s]+)"? does not exist')


class CleoCommand(Command):
    """Runs `body` with cleo's parsed input and IO."""

    body: ClassVar[type[CudaCommand]]
    help = EXIT_CODES_HELP

    def run(self, io: IO) -> int:
        try:
            return super().run(io)
        except CleoError as error:
            # An unknown option or a missing argument is bad usage: exit 2, not cleo's 1.
            # Inside Poetry the command's name is "cuda plan": the hint is a whole command line.
            what = parser_problem(str(error))
            hint = self._nearest_option(str(error).strip())
            usage = UsageError(
                what if hint is None else Phrase((what, hint), " "),
                fix=message("usage.options-fix", command=f"poetry {self.name}"),
            )
            for line in error_lines(usage, user_language()):
                io.write_error_line(line)
            return UsageError.exit_code

    def _nearest_option(self, said: str) -> Message | None:
        """The known options nearest the one cleo says does not exist, if that is what it says."""
        match = _NO_SUCH_OPTION.match(said)
        if match is None:
            return None
        definitions = [
            self.definition,
            *([self.application.definition] if self.application else []),
        ]
        known = [f"--{o.name}" for d in definitions for o in d.options]
        return did_you_mean(match.group(1), known)

    def handle(self) -> int:
        return self.body(_CleoPort(self), self.name or self.body.name).execute()


class _CleoPort:
    def __init__(self, command: CleoCommand) -> None:
        self.command = command

    def option(self, name: str) -> Any:
        return self.command.option(name)

    def argument(self, name: str) -> Any:
        return self.command.argument(name)

    def write(self, text: str, *, error: bool = False, raw: bool = False) -> None:
        io = self.command.io
        output = io.error_output if error else io.output
        # Poetry's own outputs write what they are given: fitted (or refused) here.
        stream = getattr(output, "stream", None)
        line = exact(text, stream) if raw else fitted(text, stream)
        output.write_line(line, type=OutputType.RAW if raw else OutputType.NORMAL)

    def is_verbose(self) -> bool:
        return self.command.io.is_verbose()

    @property
    def project_directory(self) -> str | None:
        directory = getattr(self.command.application, "project_directory", None)
        return str(directory) if directory else None


def cleo_command(body: type[CudaCommand], name: str) -> CleoCommand:
    """A cleo command that runs `body`, registered as `name`."""
    attributes = {
        "body": body,
        "name": name,
        "description": body.description,
        "help": literal_help(body.help),
        "options": [
            option(o.name, o.short or None, o.description, flag=o.flag, multiple=o.multiple)
            for o in body.options
        ],
        "arguments": [
            argument(a.name, a.description, optional=a.optional, multiple=a.multiple)
            for a in body.arguments
        ],
    }
    command_class: type[CleoCommand] = type(body.__name__, (CleoCommand,), attributes)
    return command_class()


def cleo_command_named(name: str, *, prefix: str = "") -> CleoCommand:
    """Command `name` for cleo, registered as `prefix + name` (e.g. "cuda plan")."""
    return cleo_command(command(name), prefix + name)
