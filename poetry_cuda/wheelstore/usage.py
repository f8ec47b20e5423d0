"""Which environments use which stored wheels, so `store` can list them and `--prune` can drop
what none uses.

Every shared install records, in the store's ``.projects`` folder, the project, its
environment, the sha256 of each wheel linked into it and the distributions installed from
them: one small file per environment, replaced at every install and written before any file
is linked (so a prune running meanwhile keeps what the install is about to use). A record
counts while its environment and its project's poetry.lock exist; so an upgraded project's
next install releases the wheels it left, and a deleted project's record is dropped. The
distributions it lists are those a later install removes when the lock no longer lists them.
"""

from __future__ import annotations

import contextlib
import json

from pathlib import Path

from poetry_cuda.errors import InputFileError
from poetry_cuda.files import path_digest
from poetry_cuda.files import read_bounded
from poetry_cuda.files import write_atomic
from poetry_cuda.records import frozen
from poetry_cuda.redist.store import own_folder


FOLDER = ".projects"
RECORD_LIMIT = 16 * 1024 * 1024


@frozen
class Use:
    project: Path
    environment: Path
    wheels: frozenset[str]  # sha256 of each stored wheel linked in
    distributions: frozenset[str]  # canonical names installed from them


def _file(root: Path, environment: Path) -> Path:
    return root / FOLDER / f"{path_digest(environment.absolute())}.json"


def record(root: Path, use: Use) -> None:
    """Say that `use.environment` is now installed from `use.wheels`."""
    path = own_folder(root, FOLDER) / _file(root, use.environment).name
    if path.is_symlink():
        path.unlink()  # the store's own record: never written through a link to elsewhere
    document = {
        "project": str(use.project.absolute()),
        "environment": str(use.environment.absolute()),
        "wheels": sorted(use.wheels),
        "distributions": sorted(use.distributions),
    }
    write_atomic(path, json.dumps(document) + "\n")


def read(path: Path) -> Use | None:
    """The record at `path`; None when it cannot be read (a torn or foreign file protects
    nothing)."""
    try:
        data = json.loads(read_bounded(path, limit=RECORD_LIMIT, follow_links=False))
        return Use(
            Path(data["project"]),
            Path(data["environment"]),
            frozenset(str(s) for s in data["wheels"]),
            frozenset(str(n) for n in data["distributions"]),
        )
    except (InputFileError, ValueError, KeyError, TypeError):
        return None


def previous(root: Path, environment: Path) -> Use | None:
    """The last record of `environment`, if any."""
    path = _file(root, environment)
    return read(path) if path.is_file() else None


def uses(root: Path) -> list[Use]:
    """The live records: their environment and their project's poetry.lock still exist."""
    found = []
    with contextlib.suppress(OSError):
        for path in sorted((root / FOLDER).glob("*.json")):
            use = read(path)
            if (
                use is not None
                and use.environment.is_dir()
                and (use.project / "poetry.lock").is_file()
            ):
                found.append(use)
    return found


def in_use(root: Path) -> set[str]:
    """The sha256 of every stored wheel a live record names."""
    return {sha256 for use in uses(root) for sha256 in use.wheels}
