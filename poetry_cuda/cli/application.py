"""cleo's application for the `poetry-cuda` console script, for what the quick path leaves.

`cli.quick` answers the common invocations without cleo; everything else (`--help`, `list`,
bad usage, `-v`, `--ansi` and the like) comes here, and is answered as cleo answers it.
"""

from __future__ import annotations

import sys

from functools import partial
from typing import TYPE_CHECKING

from cleo.application import Application
from cleo.exceptions import CleoCommandNotFoundError
from cleo.exceptions import CleoError
from cleo.io.inputs.argv_input import ArgvInput
from cleo.io.outputs.stream_output import StreamOutput
from cleo.loaders.factory_command_loader import FactoryCommandLoader

from poetry_cuda import __version__
from poetry_cuda.cli.commands.base import error_lines
from poetry_cuda.cli.commands.base import fitted
from poetry_cuda.cli.commands.base import user_language
from poetry_cuda.cli.commands.cleo_command import cleo_command_named
from poetry_cuda.cli.commands.namespace import unknown_command
from poetry_cuda.cli.registry import COMMANDS
from poetry_cuda.errors import UsageError


if TYPE_CHECKING:
    from cleo.io.inputs.input import Input
    from cleo.io.io import IO
    from cleo.io.outputs.output import Output


LISTER = "poetry-cuda list"


class ConsoleApplication(Application):
    """cleo's application as a command-line tool's user expects it.

    `poetry-cuda --help` shows the usage and the commands (cleo's shows the `list`
    command's own help), and bad usage (an unknown command or option) is one message
    and exit 2, with the nearest command names for a typo.
    """

    def _run(self, io: IO) -> int:
        if io.input.has_parameter_option(["--help", "-h"], True) and not io.input.first_argument:
            self._list_instead(io)
        try:
            return super()._run(io)
        except CleoCommandNotFoundError:
            known = [name for name, command in self.all().items() if not command.hidden]
            usage = unknown_command(
                str(io.input.first_argument), sorted(known), "poetry-cuda", LISTER
            )
        except CleoError as error:
            usage = UsageError(
                str(error).strip(),
                fix=f"`{LISTER}` shows the commands, `poetry-cuda <command> --help` their options",
            )
        for line in error_lines(usage, user_language()):
            io.write_error_line(line)
        return usage.exit_code

    def create_io(
        self,
        input: Input | None = None,
        output: Output | None = None,
        error_output: Output | None = None,
    ) -> IO:
        """cleo's IO, on outputs that write every text the streams' encodings can carry."""
        return super().create_io(
            input,
            output or FittedOutput(sys.stdout),
            error_output or FittedOutput(sys.stderr),
        )

    def _list_instead(self, io: IO) -> None:
        """Run `list` in place of the command-less `--help`, keeping the input's stream."""
        stream, interactive = io.input.stream, io.input.is_interactive()
        io.set_input(ArgvInput([self.name, "list"]))
        io.input.set_stream(stream)
        io.input.interactive(interactive)


class FittedOutput(StreamOutput):
    """cleo's stream output, writing what the stream's encoding lacks as backslash escapes
    (help, usage errors and crash reports quote paths and arguments in any script)."""

    def _write(self, message: str, new_line: bool = False) -> None:
        super()._write(fitted(message, self.stream), new_line)


def create_application() -> Application:
    application = ConsoleApplication("poetry-cuda", __version__)
    application.set_display_name("poetry-cuda")
    application.set_command_loader(
        FactoryCommandLoader({name: partial(cleo_command_named, name) for name in COMMANDS})
    )
    return application


def render_crash(error: Exception) -> None:
    """An unexpected error as cleo's application shows it (the quick path's last resort)."""
    application = create_application()
    application.render_error(error, application.create_io())
