"""`poetry cuda run CMD [ARGS...]`: CMD read from Poetry's own command line, as the script reads it.

Poetry reads its options (`-V`, `-h`, `-q`, `-v`, `-C`, `-P`, ...) anywhere on the line
before any plugin runs, and cleo refuses an option it does not know: `poetry cuda run
python -V` would print Poetry's version, and `poetry cuda run python -c ...` would be an
unknown option of `cuda run`. Poetry spares only its own `run`, before plugins load. So
the plugin reads `sys.argv` when Poetry activates it, before Poetry answers any option
but where to work (`-C`) and which project (`-P`), and runs `cuda run` then and there:
everything after CMD's name is CMD's. A `-C` or `-P` among CMD's arguments has already
moved Poetry elsewhere and cannot be given back: that is a usage error, which asks for
the command after `--`.
"""

from __future__ import annotations

import argparse
import shlex
import sys

from typing import TYPE_CHECKING
from typing import NoReturn

from poetry_cuda.cli.commands.base import error_lines
from poetry_cuda.cli.commands.base import user_language
from poetry_cuda.cli.registry import command
from poetry_cuda.cli.streams import StreamPort
from poetry_cuda.cli.terminal import colour_support
from poetry_cuda.errors import UsageError
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TextIO

    from cleo.io.inputs.definition import Definition
    from poetry.console.application import Application


NAME = ("cuda", "run")
# Poetry's options that change where it works, which it applies before any plugin runs.
PLACES = ("directory", "project")


@frozen
class Invocation:
    """`poetry [options] cuda run [options] [--] CMD [ARGS...]`, as read from the line:
    the names of the options `before` CMD, CMD and its arguments (`argv`), and whether
    `--` came before CMD (`dashed`)."""

    before: frozenset[str]
    argv: tuple[str, ...]
    dashed: bool


def run_now(application: Application, argv: Sequence[str]) -> None:
    """Run `poetry cuda run` now, if `argv` (Poetry's arguments) is one with a command:
    then this never returns (CMD replaces the process, or the exit code ends it)."""
    invocation = read(argv, application.definition)
    if invocation is None:
        return
    port = StreamPort(
        {"cmd": list(invocation.argv)},
        (_decorated(invocation, sys.stdout), _decorated(invocation, sys.stderr)),
        quiet="quiet" in invocation.before,
        project_directory=str(application.project_directory),
    )
    if not invocation.dashed:
        taken = taken_by_poetry(invocation.argv[1:], application.definition)
        if taken:
            _stop(port, _taken(invocation.argv, taken))
    raise SystemExit(command("run")(port, " ".join(NAME)).execute())


def _decorated(invocation: Invocation, stream: TextIO) -> bool:
    if "ansi" in invocation.before or "no-ansi" in invocation.before:
        return "ansi" in invocation.before
    return colour_support(stream)


def read(argv: Sequence[str], definition: Definition) -> Invocation | None:
    """The `cuda run` invocation `argv` is, with a command to run; None for any other line,
    one with an option cleo does not know before CMD (cleo says so), or one that asks for
    help or the version before CMD."""
    words: list[str] = []
    before: set[str] = set()
    index = 0
    while index < len(argv):
        token = argv[index]
        index += 1
        if token == "--":
            rest = list(argv[index:])
            if words != list(NAME) or not rest:
                return None
            return Invocation(frozenset(before), tuple(rest), dashed=True)
        if token.startswith("-") and token != "-":
            found = _option(token, definition)
            if found is None or found[0] & {"help", "version"}:
                return None
            before |= found[0]
            index += found[1]
            continue
        if words == list(NAME):
            return Invocation(frozenset(before), tuple(argv[index - 1 :]), dashed=False)
        words.append(token)
        if words != list(NAME[: len(words)]):
            return None
    return None


def _option(token: str, definition: Definition) -> tuple[set[str], int] | None:
    """The names of the options `token` gives, and how many next tokens are their value
    (0 or 1); None for an option cleo does not know."""
    if token.startswith("--"):
        name, equals, _ = token[2:].partition("=")
        if not definition.has_option(name):
            return None
        takes = definition.option(name).accepts_value() and not equals
        return {name}, int(takes)
    names = set()
    for position, shortcut in enumerate(token[1:], start=1):
        if not definition.has_shortcut(shortcut):
            return None
        option = definition.option_for_shortcut(shortcut)
        names.add(option.name)
        if option.accepts_value():  # the rest of the token, else the next one, is its value
            return names, int(position == len(token) - 1)
    return names, 0


def taken_by_poetry(arguments: Sequence[str], definition: Definition) -> list[str]:
    """The options among CMD's `arguments` that Poetry took as its own, where to work or
    which project: it reads its options anywhere on the line with argparse (prefixes of
    their names included), as read here."""

    class Reader(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            raise ValueError(message)

    reader = Reader(add_help=False)
    for option in definition.options:
        flags = [f"--{option.name}", *(f"-{s}" for s in (option.shortcut or "").split("|") if s)]
        try:
            reader.add_argument(
                *flags, dest=option.name, action="store_true" if option.is_flag() else "store"
            )
        except (argparse.ArgumentError, ValueError):
            continue  # a shortcut argparse cannot take is one Poetry could not read either
    try:
        read_, _ = reader.parse_known_args(list(arguments))
    except ValueError:
        return []  # Poetry stopped on the same line before any plugin ran
    return [f"--{name}" for name in PLACES if getattr(read_, name, None) is not None]


def _taken(argv: Sequence[str], taken: list[str]) -> UsageError:
    shown = shlex.join(argv)
    return UsageError(
        f"poetry cuda run: Poetry read {' and '.join(taken)} in `{shown}` as its own option",
        why="Poetry reads its options anywhere on the command line, and had moved there "
        "before poetry-cuda could run the command",
        fix=f"put the command after `--`: `poetry cuda run -- {shown}`",
    )


def _stop(port: StreamPort, error: UsageError) -> NoReturn:
    for line in error_lines(error, user_language()):
        port.write(line, error=True)
    raise SystemExit(error.exit_code)
