"""The standalone `poetry-cuda` console script, for uv projects, CI and scripts."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from cleo.application import Application
from cleo.exceptions import CleoError
from cleo.loaders.factory_command_loader import FactoryCommandLoader

from poetry_cuda import __version__
from poetry_cuda.commands import COMMANDS
from poetry_cuda.commands import load_command
from poetry_cuda.commands.base import write_error
from poetry_cuda.errors import UsageError


if TYPE_CHECKING:
    from cleo.io.io import IO


class ConsoleApplication(Application):
    """cleo's application, with bad usage (an unknown command or option) exiting 2."""

    def _run(self, io: IO) -> int:
        try:
            return super()._run(io)
        except CleoError as error:
            usage = UsageError(
                str(error).strip(),
                fix="`poetry-cuda list` shows the commands, `poetry-cuda <command> --help` "
                "their options",
            )
            write_error(io, usage)
            return usage.exit_code


def create_application() -> Application:
    application = ConsoleApplication("poetry-cuda", __version__)
    application.set_display_name("poetry-cuda")
    application.set_command_loader(
        FactoryCommandLoader({name: partial(load_command, name) for name in COMMANDS})
    )
    return application


def main() -> int:
    return create_application().run()
