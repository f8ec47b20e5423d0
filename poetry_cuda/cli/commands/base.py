"""What every poetry-cuda command shares: error rendering, exit codes, the project."""

from __future__ import annotations

import json
import os
import sys

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import ClassVar

from cleo.commands.command import Command
from cleo.exceptions import CleoError
from cleo.formatters.formatter import Formatter
from cleo.helpers import option
from cleo.io.outputs.output import Type as OutputType
from cleo.io.outputs.output import Verbosity

from poetry_cuda.display import shown
from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.errors import UsageError
from poetry_cuda.locking.interrupts import INTERRUPTED_EXIT
from poetry_cuda.locking.interrupts import Interrupted
from poetry_cuda.locking.interrupts import interruptible
from poetry_cuda.locking.interrupts import stopping
from poetry_cuda.messages import language_of


if TYPE_CHECKING:
    from cleo.io.io import IO

    from poetry_cuda.messages import Language


NORMAL = Verbosity.NORMAL
BROKEN_PIPE_EXIT = 141  # the shell's 128 + SIGPIPE
EXIT_CODES_HELP = (
    "Exit codes: 0 success; 1 doctor found a failure or lock --check found the lock "
    "stale; 2 bad usage, configuration or input file; 3 no variant satisfies the "
    "constraints; 4 the package manager's resolution failed; 130 interrupted."
)


def user_language() -> Language:
    """The language of the user's locale, read here, at the interface edge, and passed on."""
    return language_of(os.environ)


def write_error(io: IO, error: PoetryCudaError, language: Language) -> None:
    """The error's what (in the error style), then its why and fix, on stderr."""
    lines = shown(error.render(language)).splitlines()
    io.write_error_line(f"<error>{Formatter.escape(lines[0])}</error>")
    for line in lines[1:]:
        io.write_error_line(Formatter.escape(line))


def backend_line(name: str, reason: str) -> str:
    """One line of a report: which package manager, and why (`Backend: uv (uv.lock exists)`)."""
    return f"<info>Backend</info>: {name} ({Formatter.escape(reason)})"


def literal_help(text: str) -> str:
    """`text` shown as written in `--help`, which cleo passes through str.format and tags."""
    return Formatter.escape(text).replace("{", "{{").replace("}", "}}")


TARGET_OPTION = option(
    "target",
    None,
    "Plan for the host described by this profile (repeatable; see `detect --json`).",
    flag=False,
    multiple=True,
)
CUDA_OPTION = option(
    "cuda", None, "auto, cpu, a variant (cu124), a version (12.4) or a range.", flag=False
)
POLICY_OPTION = option("policy", None, "newest (default) or native.", flag=False)
JSON_OPTION = option("json", None, "Print JSON instead of the report.")


class CudaCommand(Command):
    """A command whose expected failures print one message and return their exit code."""

    help = EXIT_CODES_HELP
    options: ClassVar[list[Any]] = []

    def run(self, io: IO) -> int:
        try:
            return super().run(io)
        except BrokenPipeError:
            # The reader went away (`plan | head -1`): stop quietly, with the code of a
            # pipeline member that SIGPIPE stopped, and send the rest of the output (and
            # the flush at exit) nowhere.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
            return BROKEN_PIPE_EXIT
        except CleoError as error:
            # An unknown option or a missing argument is bad usage: exit 2, not cleo's 1.
            self._io = io
            self.report_error(
                UsageError(str(error).strip(), fix=f"see `{self.name} --help` for the options")
            )
            return UsageError.exit_code

    def handle(self) -> int:
        try:
            with interruptible():
                return self.run_command()
        except (KeyboardInterrupt, Interrupted):
            pass
        except PoetryCudaError as error:
            if not stopping():  # else the failure is what the interruption left
                self.report_error(error)
                return error.exit_code
        except Exception:
            if not stopping():
                raise
        self.line_error("<error>Interrupted.</error>")
        return INTERRUPTED_EXIT

    def run_command(self) -> int:
        raise NotImplementedError

    def report_error(self, error: PoetryCudaError) -> None:
        write_error(self.io, error, user_language())

    def project_start(self) -> Path:
        """Where to look for the project: Poetry's --project/--directory, else the cwd."""
        application = self.application
        directory = getattr(application, "project_directory", None)
        return Path(directory) if directory else Path.cwd()

    # The output edge: every line a command prints passes `shown`, which escapes terminal
    # control characters and redacts credentials in whatever the line quotes.

    def line(self, text: str, style: str | None = None, verbosity: Verbosity = NORMAL) -> None:
        super().line(shown(text), style, verbosity)

    def line_error(
        self, text: str, style: str | None = None, verbosity: Verbosity = NORMAL
    ) -> None:
        super().line_error(shown(text), style, verbosity)

    def write(self, text: str, style: str | None = None) -> None:
        super().write(shown(text), style)

    def print_json(self, data: object) -> None:
        # json.dumps escapes every control and non-ASCII character (ensure_ascii).
        self.io.output.write_line(shown(json.dumps(data, indent=2)), type=OutputType.RAW)

    def warn(self, message: str) -> None:
        self.line_error(f"<comment>Warning: {Formatter.escape(message)}</comment>")


def section(title: str, rows: list[str], empty: str | None = None) -> list[str]:
    """A titled list for a report; without rows, one line saying so (or nothing)."""
    if rows:
        return [f"<info>{title}</info>:", *rows]
    return [f"<comment>{title}</comment>: {empty}"] if empty is not None else []
