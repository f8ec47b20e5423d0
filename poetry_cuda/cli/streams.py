"""A command's output on the process's own stdout and stderr, its markup rendered here.

The port of the console script (`cli.script`), and of `poetry cuda run CMD` inside Poetry,
which runs before Poetry has set up its own output (`cli.poetry_run`). Lines of markup are
rendered by `cli.markup` (coloured or plain, `decorated` per stream) and `fitted` to the
stream's encoding; raw text (what a shell or a program reads) is written `exact` or refused.
"""

from __future__ import annotations

import sys

from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.cli.commands.base import exact
from poetry_cuda.cli.commands.base import fitted
from poetry_cuda.cli.markup import render


if TYPE_CHECKING:
    from collections.abc import Mapping


class StreamPort:
    """A command's input as the front end read it, its output on stdout and stderr.

    `decorated` says, for stdout and stderr, whether to colour; `quiet` writes nothing;
    `verbosity` counts `-v`; `project_directory` is the project given (`--project`).
    """

    def __init__(
        self,
        values: Mapping[str, Any],
        decorated: tuple[bool, bool],
        *,
        quiet: bool = False,
        verbosity: int = 0,
        project_directory: str | None = None,
    ) -> None:
        self.values = values
        self.decorated = decorated
        self.quiet = quiet
        self.verbosity = verbosity
        self._project_directory = project_directory

    def option(self, name: str) -> Any:
        return self.values[name]

    def argument(self, name: str) -> Any:
        return self.values[name]

    def write(self, text: str, *, error: bool = False, raw: bool = False) -> None:
        if self.quiet:
            return
        stream = sys.stderr if error else sys.stdout
        line = exact(text, stream) if raw else fitted(render(text, self.decorated[error]), stream)
        stream.write(line + "\n")
        stream.flush()

    def is_verbose(self) -> bool:
        return self.verbosity > 0

    @property
    def project_directory(self) -> str | None:
        return self._project_directory
