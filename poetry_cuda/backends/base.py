"""What every package manager offers (`PackageManager`), how a backend registers
(`Registered`: its reader, its editor and where its manager is), and what the backends share:
the entries of a lock file, the install command and its run, the message of a failed lock
(the choice of backend for a project is `backends.choice`'s)."""

from __future__ import annotations

import shlex
import subprocess
import sys

from typing import TYPE_CHECKING
from typing import Any
from typing import Protocol

from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.errors import ResolutionError
from poetry_cuda.errors import UsageError
from poetry_cuda.files import read_toml
from poetry_cuda.files import read_toml_once
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import message
from poetry_cuda.records import frozen
from poetry_cuda.request.settings import mirrors_said
from poetry_cuda.request.settings import parse_settings


if TYPE_CHECKING:
    import re

    from collections.abc import Collection
    from collections.abc import Mapping
    from collections.abc import Sequence
    from pathlib import Path

    from tomlkit.toml_document import TOMLDocument

    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.messages import Localized
    from poetry_cuda.planning.managed import Managed
    from poetry_cuda.planning.plan import Source
    from poetry_cuda.request.handwritten import HandIndex
    from poetry_cuda.request.handwritten import HandPin


@frozen
class LockedEntry:
    """One entry of a package in the backend's lock file."""

    version: str
    source_name: str | None  # the index's name where the lock records one (Poetry)
    source_url: str | None  # the index's URL; None for PyPI
    files: tuple[str, ...] = ()  # the locked artifacts' file names (wheels, sdists)
    # (name, constraint) of each dependency the lock records for this entry
    dependencies: tuple[tuple[str, str], ...] = ()
    # From the index the manager uses in PyPI's place (a PyPI mirror as Poetry's primary
    # source): PyPI's upload, whatever the index's name.
    pypi_stand_in: bool = False

    def is_from(self, source: Source) -> bool:
        if source.is_pypi:
            return self.pypi_stand_in or (
                self.source_name is None
                and (self.source_url is None or "pypi.org" in self.source_url)
            )
        if self.source_name is not None:
            return self.source_name == source.name
        return self.source_url is not None and (
            self.source_url.rstrip("/") == source.url.rstrip("/")
        )

    def describe(self) -> str:
        return f"{self.version} from {self.source_name or self.source_url or 'PyPI'}"


@frozen
class InstallCommand:
    """The package manager's install of the locked project, as the user would type it."""

    program: str  # "uv", "poetry"
    arguments: tuple[str, ...]

    def __str__(self) -> str:
        return shlex.join((self.program, *self.arguments))


@frozen
class Unreachable:
    """How a package manager says it could not reach an index (a refused or timed-out
    connection, a name that does not resolve, an error status), as against a resolution
    that found no fit."""

    tool: str  # as messages name it: "Poetry", "uv"
    said: re.Pattern[str]  # the manager's own words for it
    plan: str  # the plan command of the user's front end, whose --check-index asks each index


def lock_failed(
    project: Path,
    failed: Localized,
    said: str,
    why_fix: tuple[Localized, Localized],
    unreachable: Unreachable,
) -> ResolutionError:
    """The manager's lock of `project` failed, saying `said` (shown after `failed`): an index
    it could not reach is told with the project's mirror settings, anything else with
    `why_fix`."""
    why, fix = why_fix
    if unreachable.said.search(said):
        settings = parse_settings(read_toml(project / "pyproject.toml"))
        why = f"{unreachable.tool} could not reach an index; {mirrors_said(settings)}"
        fix = (
            f"check the network and the mirror; `{unreachable.plan} --check-index` asks each "
            "chosen index whether it serves the chosen version; another mirror is one line in "
            "[tool.poetry-cuda.mirrors]"
        )
    return ResolutionError(Phrase((failed, said), "\n"), why=why, fix=fix)


def run_install(command: InstallCommand, argv: Sequence[str], project: Path) -> None:
    """Run `argv` (the executable that `command` names, and its arguments) in `project`.

    Its output goes straight to this terminal, progress and colours included: an install
    of CUDA wheels takes minutes, and its own message is the one to read when it fails.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        code = subprocess.call(list(argv), cwd=project)
    except OSError as error:
        code, said = None, f": {error.strerror or error}"
    else:
        said = f" (exit code {code}); its message is above"
    if code != 0:
        raise ResolutionError(
            f"`{command}` failed{said}",
            why=f"{command.program} could not install the locked project",
            fix=f"read {command.program}'s message; `{command}` run by hand does the same",
        )


class Ahead(Protocol):
    """A package manager's part of `lock`, started before the plan (uv's:
    `backends.uv.runner.start_ahead`) and handed down to its `run_lock`."""

    def take(self, tool: str, project: Path) -> bool:
        """Whether `project`'s lock file is now what the lock that `tool` runs there would
        leave; False (and stopped) where it cannot say, and the lock runs as usual."""
        ...

    def stop(self) -> None:
        """Stop it unused (also done at exit)."""
        ...


class PackageManager(Protocol):
    """A package manager as poetry-cuda drives it (`backends.poetry.manager.PoetryManager`,
    `backends.uv.manager.UvManager`); the interface loads one by its name."""

    name: str
    lockfile: str  # the lock file's name, beside pyproject.toml
    install_hint: str  # the install a fix tells the user to run: "poetry install"

    def check_pyproject(self, project: Path, pyproject: Mapping[str, Any]) -> None:
        """Raise ConfigError when the manager cannot read pyproject.toml (parsed: `pyproject`)."""
        ...

    def rewrite(
        self, text: str, managed: Managed, previous: Collection[str], families: Sequence[Family]
    ) -> str:
        """pyproject.toml's `text` with the managed entries rewritten; `text` if unchanged.

        `previous` names the sources an earlier lock managed (from cuda.lock); an index is
        poetry-cuda's only with a name and URL one of `families` gives it.
        """
        ...

    def prepare(self, project: Path, dropped: Collection[str]) -> None:
        """Make the lock file resolvable after the sources in `dropped` were removed."""
        ...

    def run_lock(self, project: Path, *, regenerate: bool, ahead: Ahead | None = None) -> None:
        """Run the manager's own lock, or take what `ahead` made of it; raises
        ResolutionError with its message."""
        ...

    def locked(self, project: Path, name: str) -> list[LockedEntry]:
        """Every entry of package `name` in the lock file (empty when absent)."""
        ...

    def outdated(self, project: Path) -> str | None:
        """Why the lock file no longer fits pyproject.toml by the manager's own check, if so."""
        ...

    def outdated_offline(self, project: Path) -> str | None:
        """`outdated` where the manager answers offline in a fraction of a second (doctor);
        None where it fits, or where the check would cost more."""
        ...

    def environment(self, project: Path, environ: Mapping[str, str]) -> Path | None:
        """The project's virtual environment, if one exists."""
        ...

    def install_command(self, extras: Sequence[str], groups: Sequence[str]) -> InstallCommand:
        """The install of the locked project, never resolving it anew, with `extras` and
        `groups` (what `sync` runs, and `sync --dry-run` shows)."""
        ...

    def install(self, project: Path, command: InstallCommand) -> None:
        """Run `command` in `project`; raises ResolutionError (exit 4) when it fails."""
        ...

    def lockfile_problem(self, project: Path) -> Localized | None:
        """Why the lock file is missing or no lock of this manager's; None when it reads as one."""
        ...


class AdoptingEditor(Protocol):
    """A manager's editor, for `lock --adopt`'s edits of the hand-written entries of its own
    tables; each answers None for an entry of another's table."""

    def adopt_pin(
        self, document: TOMLDocument, pin: HandPin, pins: Sequence[HandPin]
    ) -> list[str] | None:
        """Rewrite the entry `pin` (one of `pins`, its table's entries on that package)."""
        ...

    def drop_index(self, document: TOMLDocument, index: HandIndex) -> list[str] | None:
        """Remove an index nothing uses any more."""
        ...

    def make_explicit(self, document: TOMLDocument, index: HandIndex) -> list[str] | None:
        """Rewrite an index whose priority the manager no longer reads."""
        ...


@frozen
class Registered:
    """A backend as it registers itself (its package's `BACKEND`, listed in `backends.registry`).

    Its parts are named as entry points ("module" or "module:attribute") and imported where
    they are used: the reader (`TableReader`) wherever a project is read (every manager's
    reader reads every project, `backends.readers`), the editor (`AdoptingEditor`) by
    `lock --adopt`, the manager (`PackageManager`, which runs the tool) by the interface's
    loader, so a Poetry project never loads uv's (`backends.registry.loaded`).
    """

    name: str  # as `backend = "..."` and cuda.lock name it
    reader: str  # the module that is its `TableReader`
    editor: str  # the module that is its `AdoptingEditor`
    manager: str  # its `PackageManager` class
    installed: str  # its function () -> bool: whether its tool can run here


def unknown(name: str) -> UsageError:
    """A backend this release does not have (a cuda.lock of a newer one may name it)."""
    return UsageError(
        f"this poetry-cuda release cannot lock {name} projects",
        fix='set backend = "poetry" in [tool.poetry-cuda] to lock with Poetry',
    )


def packages(path: Path) -> list[dict[str, Any]]:
    """The `[[package]]` tables of a lock file; InputFileError (exit 2) naming it when unusable."""
    try:
        data = read_toml_once(path)
    except PoetryCudaError as error:
        raise InputFileError(
            error.what,
            why="poetry-cuda reads the lock file to check what it locked",
            fix=f"restore {path.name} from version control, or delete it and lock again",
        ) from None
    found = data.get("package", [])
    if not isinstance(found, list) or not all(isinstance(entry, dict) for entry in found):
        raise InputFileError(
            f"{path}: `package` is not an array of [[package]] tables",
            why="that is no lock file a package manager wrote",
            fix=f"restore {path.name} from version control, or delete it and lock again",
        )
    return found


def lockfile_problem(path: Path, marker: str) -> Localized | None:
    """Why `path` is not a readable lock file holding the top-level key `marker`, if it is not."""
    if not path.exists():
        return message("lock.file-missing", file=path.name)
    try:
        packages(path)
    except InputFileError as error:
        return f"{path.name} is not a readable lock file ({error.what})"
    if marker not in read_toml_once(path):
        return f"{path.name} is not a lock file: it has no `{marker}`"
    return None
