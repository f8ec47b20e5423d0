"""The `poetry-cuda` script's front end: argparse, generated from each command's specs.

One parser reads the whole command line: the script's own options (`GLOBALS`), and each
command's options and arguments from the same `Option` and `Argument` specs the plugin
gives cleo. It also owns the help pages (`--help`, `help COMMAND`, `list`), usage errors
(one message with its fix, exit 2) and `--version`; cleo is loaded only inside Poetry.

The line is read in two steps, so that only the command that runs is imported: first the
script's options and the command's name, then the rest with that command's own parser.
The script's options are accepted on either side of the command's name, as Poetry and
cleo accept them, except after `run`'s command: everything from the name of the command
to run on is that command's (`poetry-cuda run python -V`).
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import NamedTuple
from typing import NoReturn

from poetry_cuda import __version__
from poetry_cuda.cli.commands.base import error_lines
from poetry_cuda.cli.commands.base import parser_problem
from poetry_cuda.cli.commands.base import reader_gone
from poetry_cuda.cli.commands.base import unknown_command
from poetry_cuda.cli.commands.base import user_language
from poetry_cuda.cli.markup import escape
from poetry_cuda.cli.registry import COMMANDS
from poetry_cuda.cli.registry import command
from poetry_cuda.cli.streams import StreamPort
from poetry_cuda.cli.terminal import colour_support
from poetry_cuda.display import echoed
from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.errors import UsageError
from poetry_cuda.errors import os_problem
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import did_you_mean
from poetry_cuda.messages import message


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.cli.commands.base import CudaCommand
    from poetry_cuda.messages import Localized


PROGRAM = "poetry-cuda"
LISTER = f"{PROGRAM} list"
LIST_FIX = message("usage.list-fix", lister=LISTER, program=PROGRAM)
CRASH_EXIT = 1


class Global(NamedTuple):
    """An option of the script itself: a flag, counted (`-vv`), or one that takes `value`."""

    name: str
    short: str | None
    description: str
    value: str | None = None
    counted: bool = False


GLOBALS = (
    Global("help", "h", "Show this help, or a command's (`help COMMAND`, `COMMAND --help`)."),
    Global("version", "V", "Print poetry-cuda's version."),
    Global("directory", "C", "Run as if poetry-cuda was started in DIR.", "DIR"),
    Global("project", "P", "Look for the project in DIR, not the working directory.", "DIR"),
    Global("verbose", "v", "Say more (env: what it found and chose).", counted=True),
    Global("quiet", "q", "Print nothing."),
    Global("ansi", None, "Colour the output, even where it is not a terminal."),
    Global("no-ansi", None, "Never colour the output."),
    Global("no-interaction", "n", "Ask nothing (poetry-cuda never asks; accepted as Poetry's)."),
)
# The script's own commands, listed beside the registry's.
OWN_COMMANDS = {"help": "Displays help for a command.", "list": "Lists commands."}


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter, used only to check the specs as they are added (the help
    pages are written here): a fixed width, where asking the terminal's imports shutil."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=80)


class _Parser(argparse.ArgumentParser):
    """argparse, whose errors are usage errors: one message with `fix`, exit 2."""

    def __init__(self, fix: Localized) -> None:
        super().__init__(
            prog=PROGRAM, add_help=False, allow_abbrev=False, formatter_class=_Formatter
        )
        self.fix = fix

    def error(self, message: str) -> NoReturn:
        raise UsageError(parser_problem(message), fix=self.fix)


def run_script(argv: Sequence[str]) -> int:
    """Run the script's command line `argv` (its arguments) and return the exit code."""
    try:
        return _run(argv)
    except BrokenPipeError:  # a help page's reader went away (`--help | head`)
        return reader_gone()
    except PoetryCudaError as error:  # bad usage, found before any command ran
        port = StreamPort({}, (False, colour_support(sys.stderr)))
        for line in error_lines(error, user_language()):
            port.write(line, error=True)
        return error.exit_code


def _run(argv: Sequence[str]) -> int:
    given, words = read_globals(argv)
    if given["version"]:
        return _show([_version_line()], given)
    name, rest = (words[0], words[1:]) if words else ("list", [])
    if name == "help":  # `help plan` is `plan --help`; `help` alone, the list
        name, rest, given["help"] = (rest[0], [], True) if rest else ("list", [], False)
    if name in OWN_COMMANDS or (given["help"] and not words):
        return _show(_top_help(), given)
    if name not in COMMANDS:
        known = sorted([*COMMANDS, *OWN_COMMANDS])
        raise unknown_command(name, known, PROGRAM, LISTER)
    body = command(name)
    values, more = read_command(body, rest)
    given.update(more)
    if given["version"]:
        return _show([_version_line()], given)
    if given["help"]:
        return _show(command_help(body), given)
    project = _enter(given["directory"], given["project"])
    port = StreamPort(
        values,
        _decorated(given),
        quiet=given["quiet"],
        verbosity=given["verbose"],
        project_directory=project,
    )
    try:
        return body(port, name).execute()
    except Exception as error:  # noqa: BLE001 - a bug, said as one message
        return _crashed(error, port)


def _add_globals(parser: argparse.ArgumentParser, *, given_only: bool) -> None:
    """The script's options; `given_only` leaves out those not given (no default)."""
    for spec in GLOBALS:
        flags = [*([f"-{spec.short}"] if spec.short else []), f"--{spec.name}"]
        if spec.value is not None:
            default: Any = None
            kind: dict[str, Any] = {"metavar": spec.value}
        else:
            default = 0 if spec.counted else False
            kind = {"action": "count" if spec.counted else "store_true"}
        parser.add_argument(
            *flags, dest=spec.name, default=argparse.SUPPRESS if given_only else default, **kind
        )


def read_globals(argv: Sequence[str]) -> tuple[dict[str, Any], list[str]]:
    """The script's options before the command's name, and the words from that name on."""
    parser = _Parser(LIST_FIX)
    _add_globals(parser, given_only=False)
    parser.add_argument("words", nargs=argparse.REMAINDER)
    known, unknown = parser.parse_known_args(argv)
    if unknown:
        raise _unknown_option(unknown[0], LIST_FIX, parser)
    values = vars(known)
    return values, _after_dashes(values.pop("words"))


def read_command(
    body: type[CudaCommand], tokens: Sequence[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The values of `body`'s options and arguments in `tokens`, and the script's options
    given among them."""
    parser = command_parser(body)
    known, unknown = parser.parse_known_args(tokens)
    if unknown:
        if unknown[0].startswith("-") and unknown[0] != "-":
            raise _unknown_option(unknown[0], parser.fix, parser)
        raise UsageError(
            message("usage.no-arguments", command=body.name, word=echoed(unknown[0])),
            fix=parser.fix,
        )
    parsed = vars(known)
    values: dict[str, Any] = {}
    for option in body.options:
        value = parsed.pop(option.name)
        values[option.name] = (value or []) if option.multiple else value
    for argument in body.arguments:
        value = parsed.pop(argument.name)
        values[argument.name] = _after_dashes(value) if argument.rest else value
    return values, parsed


def command_parser(body: type[CudaCommand]) -> _Parser:
    """The parser of `poetry-cuda <body.name>`, generated from its specs."""
    parser = _Parser(message("usage.options-fix", command=f"{PROGRAM} {body.name}"))
    _add_globals(parser, given_only=True)
    for option in body.options:
        flags = [f"--{option.name}", *([f"-{option.short}"] if option.short else [])]
        if option.flag:
            parser.add_argument(*flags, dest=option.name, action="store_true")
        else:
            action = "append" if option.multiple else "store"
            parser.add_argument(*flags, dest=option.name, action=action, metavar=option.shown_value)
    for argument in body.arguments:
        if argument.rest:
            nargs: str | None = argparse.REMAINDER
        elif argument.multiple:
            nargs = "*" if argument.optional else "+"
        else:
            nargs = "?" if argument.optional else None
        parser.add_argument(argument.name, nargs=nargs, metavar=argument.shown_value)
    return parser


def _after_dashes(words: list[str]) -> list[str]:
    """`words` without the `--` that may open them (kept by argparse before a remainder)."""
    return words[1:] if words[:1] == ["--"] else words


def _unknown_option(token: str, fix: Localized, parser: argparse.ArgumentParser) -> UsageError:
    """`token` is none of `parser`'s options: say so, with the nearest ones."""
    name = token.partition("=")[0]
    what = message("usage.unknown-option", name=echoed(name))
    hint = did_you_mean(name, option_names(parser))
    return UsageError(what if hint is None else Phrase((what, hint), " "), fix=fix)


def option_names(parser: argparse.ArgumentParser) -> list[str]:
    """The long options `parser` knows (``--target``)."""
    return [
        flag for action in parser._actions for flag in action.option_strings if flag[:2] == "--"
    ]


def _enter(directory: str | None, project: str | None) -> str | None:
    """Move to `--directory`, and check `--project`: the project's folder, if given."""
    if directory is not None:
        try:
            os.chdir(directory)
        except OSError as error:
            raise UsageError(
                message("usage.cannot-enter", folder=repr(directory), problem=os_problem(error)),
                fix=message("usage.give-folder", option="-C/--directory"),
            ) from None
    if project is not None and not Path(project).is_dir():
        raise UsageError(
            message("usage.project-not-folder", folder=repr(project)),
            why=message("usage.project-names-folder"),
            fix=message("usage.give-folder", option="-P/--project"),
        )
    return project


def _decorated(given: dict[str, Any]) -> tuple[bool, bool]:
    """Whether to colour stdout and stderr: as `--ansi`/`--no-ansi` say, else as the
    terminal allows."""
    if given["ansi"] or given["no-ansi"]:
        return (given["ansi"], given["ansi"])
    return (colour_support(sys.stdout), colour_support(sys.stderr))


def _show(lines: list[str], given: dict[str, Any]) -> int:
    port = StreamPort({}, _decorated(given), quiet=given["quiet"])
    for line in lines:
        port.write(line)
    return 0


def _version_line() -> str:
    return f"<b>{PROGRAM}</b> (version <c1>{__version__}</c1>)"


def _top_help() -> list[str]:
    """`poetry-cuda --help`: how to run it, its options and its commands."""
    commands = {name: command(name).description for name in COMMANDS} | OWN_COMMANDS
    width = max(len(name) for name in commands)
    return [
        _version_line(),
        "",
        "<b>Usage:</b>",
        f"  {PROGRAM} [options] <command> [command options] [arguments]",
        "",
        *_options("Options", _global_rows()),
        "",
        "<b>Available commands:</b>",
        *(f"  <c1>{name.ljust(width)}</c1>  {escape(commands[name])}" for name in sorted(commands)),
    ]


def command_help(body: type[CudaCommand]) -> list[str]:
    """`poetry-cuda <command> --help`: its description, usage, arguments and options, then
    its help text, shown as the plugin shows it (`poetry cuda <command> --help`)."""
    usage = f"{PROGRAM} {body.name}" + (" [options]" if body.options else "")
    for argument in body.arguments:
        value = argument.shown_value
        if argument.rest:
            usage += f" [--] {value}"
        elif argument.multiple:
            usage += f" [{value}...]" if argument.optional else f" {value}..."
        else:
            usage += f" [{value}]" if argument.optional else f" {value}"
    rows = [
        (
            (f"-{o.short}, " if o.short else "    ")
            + f"--{o.name}"
            + ("" if o.flag else f"={o.shown_value}"),
            o.description,
        )
        for o in body.options
    ]
    lines = ["<b>Description:</b>", f"  {escape(body.description)}", ""]
    lines += ["<b>Usage:</b>", f"  {escape(usage)}", ""]
    if body.arguments:
        width = max(len(argument.name) for argument in body.arguments)
        lines.append("<b>Arguments:</b>")
        lines += [
            f"  <c1>{a.name.ljust(width)}</c1>  {escape(a.description)}" for a in body.arguments
        ]
        lines.append("")
    if rows:
        lines += [*_options("Options", rows), ""]
    lines += [*_options("Global options", _global_rows()), ""]
    lines.append("<b>Help:</b>")
    lines += [f"  {escape(line)}" for line in body.help.split("\n")]
    return lines


def _global_rows() -> list[tuple[str, str]]:
    rows = []
    for spec in GLOBALS:
        short = f"-{spec.short}, " if spec.short else "    "
        value = f"={spec.value}" if spec.value else ""
        rows.append((f"{short}--{spec.name}{value}", spec.description))
    return rows


def _options(title: str, rows: list[tuple[str, str]]) -> list[str]:
    width = max(len(synopsis) for synopsis, _ in rows)
    return [
        f"<b>{title}:</b>",
        *(f"  <c1>{s.ljust(width)}</c1>  {escape(description)}" for s, description in rows),
    ]


def _crashed(error: Exception, port: StreamPort) -> int:
    """A bug: one message (the traceback too with -v), and exit 1."""
    bug = PoetryCudaError(
        message("crash.what", error=f"{type(error).__name__}: {error}"),
        why=message("crash.why"),
        fix=message("crash.fix"),
    )
    for line in error_lines(bug, user_language()):
        port.write(line, error=True)
    if port.is_verbose():
        for line in "".join(traceback.format_exception(error)).splitlines():
            port.write(escape(line), error=True)
    return CRASH_EXIT
