"""The Poetry backend: run Poetry's own `lock` in-process and read poetry.lock.

Locking goes through Poetry's console application exactly as `poetry lock` does (the
same events, environment and installer), so poetry.lock is Poetry's own lock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.errors import ResolutionError
from poetry_cuda.files import read_toml


if TYPE_CHECKING:
    from pathlib import Path

    from poetry_cuda.plan import Choice


LOCKFILE = "poetry.lock"


def run_lock(project: Path, *, regenerate: bool) -> str:
    """Run `poetry lock` for `project`; returns Poetry's output, raises ResolutionError."""
    from cleo.io.inputs.argv_input import ArgvInput
    from cleo.io.outputs.buffered_output import BufferedOutput
    from poetry.console.application import Application

    application = Application()
    application.auto_exits(False)
    argv = ["poetry", "--no-interaction", "--no-ansi", "--project", str(project), "lock"]
    if regenerate:
        argv.append("--regenerate")
    output, errors = BufferedOutput(), BufferedOutput()
    code = application.run(ArgvInput(argv), output, errors)
    if code != 0:
        raise ResolutionError(
            "Poetry's resolution failed:\n" + (errors.fetch() or output.fetch()).strip(),
            why="Poetry could not lock the project with the chosen CUDA sources",
            fix="read Poetry's message above; `poetry cuda plan` shows what was chosen",
        )
    return output.fetch()


def locked_versions(project: Path, choice: Choice) -> list[tuple[str, str | None]]:
    """(version, source reference) of every poetry.lock entry of `choice.name`."""
    data = read_toml(project / LOCKFILE)
    found = []
    for package in data.get("package", []):
        if package.get("name") == choice.name:
            source = package.get("source") or {}
            found.append((str(package.get("version")), source.get("reference")))
    return found
