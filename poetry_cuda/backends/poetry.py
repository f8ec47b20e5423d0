"""The Poetry backend: run Poetry's own `lock` in-process and read poetry.lock.

Locking goes through Poetry's console application exactly as `poetry lock` does (the
same events, environment and installer), so poetry.lock is Poetry's own lock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.errors import ResolutionError
from poetry_cuda.files import read_toml
from poetry_cuda.files import write_atomic


if TYPE_CHECKING:
    from collections.abc import Collection
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


def forget_sources(project: Path, names: Collection[str]) -> None:
    """Drop poetry.lock entries locked from sources the plan no longer uses.

    Poetry's `lock` keeps locked packages where it can and fails on a package locked from a
    source that no longer exists; without those entries it resolves them anew from the
    current sources, and every other package keeps its locked version.
    """
    path = project / LOCKFILE
    if not names or not path.exists():
        return
    import tomlkit

    document = tomlkit.parse(path.read_text(encoding="utf-8"))
    packages = document.get("package")
    if packages is None:
        return
    kept = [p for p in packages if (p.get("source") or {}).get("reference") not in names]
    if len(kept) != len(packages):
        packages.clear()
        packages.extend(kept)
        write_atomic(path, tomlkit.dumps(document))
