"""The console script's quick path: the common invocations, answered without cleo.

cleo's application costs more to import than a plan takes, so the script answers what
most runs are, `--version` and a command given only its own long options
(`plan --cuda 12.4 --json`, `run -- nvcc --version`), by itself, with the output cleo
would print (`cli.markup`). Whatever it is not sure to read exactly as cleo does (help,
short or global options, a repeated or malformed option, Windows consoles,
SHELL_VERBOSITY) it leaves to cleo's application by answering None.
"""

from __future__ import annotations

import sys

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.cli.commands import COMMANDS
from poetry_cuda.cli.commands import command_class
from poetry_cuda.cli.commands.base import exact
from poetry_cuda.cli.commands.base import fitted
from poetry_cuda.cli.markup import render
from poetry_cuda.cli.prefetch import start_ahead
from poetry_cuda.cli.terminal import colour_support


if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence

    from poetry_cuda.cli.commands.base import CudaCommand


class StreamPort:
    """A command's input as parsed here, its output on stdout and stderr."""

    def __init__(self, values: dict[str, Any], decorated: tuple[bool, bool]) -> None:
        self.values = values
        self.decorated = decorated

    def option(self, name: str) -> Any:
        return self.values[name]

    def argument(self, name: str) -> Any:
        return self.values[name]

    def write(self, text: str, *, error: bool = False, raw: bool = False) -> None:
        stream = sys.stderr if error else sys.stdout
        line = exact(text, stream) if raw else fitted(render(text, self.decorated[error]), stream)
        stream.write(line + "\n")
        stream.flush()

    def is_verbose(self) -> bool:
        return False

    @property
    def project_directory(self) -> str | None:
        return None


def answer(argv: Sequence[str], environ: Mapping[str, str]) -> int | None:
    """Run `argv` (the script's arguments) and return its exit code, or None to leave it
    to cleo's application."""
    if "SHELL_VERBOSITY" in environ:
        return None
    decorated = (colour_support(sys.stdout), colour_support(sys.stderr))
    if decorated[0] is None or decorated[1] is None:
        return None
    port_colours = (decorated[0], decorated[1])
    if not argv or argv[0] not in COMMANDS:
        return None
    command = command_class(argv[0])
    values = parse(command, argv[1:])
    if values is None:
        return None
    ahead = start_ahead(argv[0], values.__getitem__, environ, Path.cwd())
    try:
        run = command(StreamPort(values, port_colours), argv[0])
        run.ahead = ahead
        return run.execute()
    except Exception as error:  # noqa: BLE001 - a bug, shown as cleo would show it
        from poetry_cuda.cli.application import render_crash

        render_crash(error)
        return 1


def parse(command: type[CudaCommand], tokens: Sequence[str]) -> dict[str, Any] | None:
    """The values of `command`'s options and arguments as cleo would read `tokens`, or
    None where the quick path does not read them (see the module's docstring)."""
    options = {option.name: option for option in command.options}
    values: dict[str, Any] = {
        option.name: [] if option.multiple else (False if option.flag else None)
        for option in command.options
    }
    for argument in command.arguments:
        values[argument.name] = [] if argument.multiple else None
    seen: set[str] = set()
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if token == "--":
            return _rest(command, tokens[index:], values)
        name, equals, value = token.removeprefix("--").partition("=")
        option = options.get(name) if token.startswith("--") else None
        if option is None or (name in seen and not option.multiple):
            return None
        seen.add(name)
        if option.flag:
            if equals:
                return None
            values[name] = True
            continue
        if not equals:
            if index == len(tokens):
                return None
            value = tokens[index]
            index += 1
            if value.startswith("-"):
                return None
        if not value:
            return None
        if option.multiple:
            values[name].append(value)
        else:
            values[name] = value
    return values


def _rest(
    command: type[CudaCommand], rest: Sequence[str], values: dict[str, Any]
) -> dict[str, Any] | None:
    """After `--`, everything is the one repeatable argument's (`run -- nvcc --version`)."""
    arguments = command.arguments
    if len(arguments) != 1 or not arguments[0].multiple or not rest:
        return None
    values[arguments[0].name] = list(rest)
    return values
