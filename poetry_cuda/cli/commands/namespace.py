"""`poetry cuda` alone, and unknown command names, as a user of Poetry or uv expects them.

Poetry answers a bare namespace (`poetry cuda`, `poetry cuda --help`) with "The requested
command does not exist" and exit 1. The `cuda` command registered here lists the cuda
commands instead, and turns a mistyped name (`poetry cuda lokc`) into one usage error with
a suggestion; `unknown_command` words that error for the console script too.
"""

from __future__ import annotations

import difflib

from typing import Any
from typing import ClassVar

from cleo.commands.command import Command
from cleo.descriptors.text_descriptor import TextDescriptor
from cleo.helpers import argument

from poetry_cuda.cli.commands.base import error_lines
from poetry_cuda.cli.commands.base import user_language
from poetry_cuda.cli.markup import escape
from poetry_cuda.errors import UsageError


NAMESPACE = "cuda"


def unknown_command(
    name: str, known: list[str], program: str, lister: str, *, prefix: str = ""
) -> UsageError:
    """`name` is none of the `known` commands: say so once, with the nearest ones.

    cleo's own suggestion counts a swap of two letters as two edits and misses `lokc`;
    difflib's similarity ratio catches swaps and one-letter slips alike. `program` is how
    the user runs them (`poetry cuda`, `poetry-cuda`), `lister` what lists them; `prefix`
    is the namespace the names are shown in ("cuda ").
    """
    close = [prefix + match for match in difflib.get_close_matches(name, known, n=3, cutoff=0.6)]
    what = f'The command "{prefix}{name}" does not exist.'
    if close:
        first = ", ".join(close[:-1])
        what += f" Did you mean {f'{first} or ' if first else ''}{close[-1]}?"
    return UsageError(
        what,
        fix=f"`{lister}` shows the commands, `{program} <command> --help` their options",
    )


class NamespaceCommand(Command):
    """`poetry cuda`: the cuda commands, each with its one-line description."""

    name = NAMESPACE
    description = "List poetry-cuda's commands (pick, lock and check CUDA builds)."
    arguments: ClassVar[list[Any]] = [
        argument("words", "A cuda command's name (see the list).", optional=True, multiple=True)
    ]

    def configure(self) -> None:
        # `poetry cuda lokc --json` is a mistyped command, not an unknown option.
        self.ignore_validation_errors()
        super().configure()

    @property
    def processed_help(self) -> str:
        """The help page of `poetry cuda --help`: the commands, then how to get theirs."""
        lines = ["The cuda commands:", ""]
        commands = self._commands()
        width = max((len(name) for name in commands), default=0)
        for name, description in commands.items():
            lines.append(f"  <info>{name.ljust(width)}</info>  {escape(description)}")
        lines += ["", "Run `poetry cuda <command> --help` for a command's options."]
        return "\n".join(lines)

    def handle(self) -> int:
        words = self.argument("words")
        if words:
            error = unknown_command(
                " ".join(words),
                list(self._commands()),
                "poetry cuda",
                "poetry cuda",
                prefix=f"{NAMESPACE} ",
            )
            for line in error_lines(error, user_language()):
                self.io.write_error_line(line)
            return error.exit_code
        TextDescriptor().describe(self.io, self.application, namespace=NAMESPACE)
        return 0

    def _commands(self) -> dict[str, str]:
        """Each cuda command's short name and description, as the application holds them."""
        if self.application is None:
            return {}
        prefix = f"{NAMESPACE} "
        found = self.application.all(NAMESPACE)
        return {
            name.removeprefix(prefix): command.description
            for name, command in sorted(found.items())
            if not command.hidden
        }
