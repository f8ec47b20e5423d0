"""`poetry cuda` alone, and unknown command names, as a user of Poetry or uv expects them.

Poetry answers a bare namespace (`poetry cuda`, `poetry cuda --help`) with "The requested
command does not exist" and exit 1. The `cuda` command registered here lists the cuda
commands instead, as `poetry cuda list` does (as the script's `list`, and Poetry's own
`poetry list cuda`), shows a command's help for `poetry cuda help <command>` (as the script's
`help <command>`), and turns a mistyped name (`poetry cuda lokc`) into one usage error with
a suggestion (`base.unknown_command`, which words that error for the console script too).
"""

from __future__ import annotations

from typing import Any
from typing import ClassVar

from cleo.commands.command import Command
from cleo.descriptors.text_descriptor import TextDescriptor
from cleo.helpers import argument

from poetry_cuda.cli.commands.base import error_lines
from poetry_cuda.cli.commands.base import unknown_command
from poetry_cuda.cli.commands.base import user_language
from poetry_cuda.cli.markup import escape


NAMESPACE = "cuda"
HELP_HINT = "Run `poetry cuda <command> --help` (or `poetry cuda help <command>`) for its options."


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
        lines += ["", HELP_HINT]
        return "\n".join(lines)

    def handle(self) -> int:
        words = self.argument("words")
        if words[:1] == ["help"]:  # `poetry cuda help plan`, as the script's `help plan`
            words = words[1:]
            if " ".join(words) in self._commands() and self.application is not None:
                self.line("")
                found = self.application.find(f"{NAMESPACE} {' '.join(words)}")
                TextDescriptor().describe(self.io, found)
                return 0
        if words == ["list"]:  # `poetry cuda list`, as the script's `list`
            words = []
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
        commands = self._commands()
        width = max((len(name) for name in commands), default=0) + len(NAMESPACE) + 1
        self.line("<b>Usage:</b>")
        self.line(f"  poetry {NAMESPACE} <command> [options] [arguments]")
        self.line("")
        self.line("<b>Available commands:</b>")
        for name, description in commands.items():
            shown = f"{NAMESPACE} {name}".ljust(width)
            self.line(f"  <c1>{shown}</c1>  {escape(description)}")
        self.line("")
        self.line(HELP_HINT)
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
