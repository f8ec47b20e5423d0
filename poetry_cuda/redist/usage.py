"""Which projects use which stored archives, so the store can drop what none uses.

Every assembly of a project's CUDA_HOME records, in the store's `.projects` folder, the
project's folder and the archives it was assembled from: one small file per project,
replaced on every assembly. A record counts while its project still has a cuda.lock. So
an upgraded project's next `env`, `run` or `sync` replaces its record and the versions it
left become unused, and a deleted project's record is dropped.
"""

from __future__ import annotations

import json

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.errors import InputFileError
from poetry_cuda.files import path_digest
from poetry_cuda.files import read_bounded
from poetry_cuda.files import write_atomic
from poetry_cuda.records import frozen
from poetry_cuda.redist.store import own_folder


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.redist.manifest import Archive


FOLDER = ".projects"
RECORD_LIMIT = 1 << 20
Key = tuple[str, str, str, str]  # component, version, platform, sha256 (as the store files them)


@frozen
class Use:
    project: Path
    archives: frozenset[Key]


def _file(root: Path, project: Path) -> Path:
    return root / FOLDER / f"{path_digest(project.resolve())}.json"


def record(root: Path, project: Path, archives: Sequence[Archive]) -> None:
    """Say that `project`'s CUDA_HOME is now assembled from `archives`."""
    keys = sorted([a.component, a.version, a.platform, a.sha256] for a in archives)
    path = own_folder(root, FOLDER) / _file(root, project).name
    if path.is_symlink():
        path.unlink()  # the store's own record: never written through a link to elsewhere
    write_atomic(path, json.dumps({"project": str(project.resolve()), "archives": keys}) + "\n")


def uses(root: Path) -> list[Use]:
    """The live records: those whose project still has a cuda.lock (unreadable ones skipped)."""
    found = []
    for path in sorted((root / FOLDER).glob("*.json")):
        try:
            data = json.loads(read_bounded(path, limit=RECORD_LIMIT, kind=InputFileError))
            project = Path(data["project"])
            keys = frozenset((str(c), str(v), str(p), str(s)) for c, v, p, s in data["archives"])
        except (InputFileError, ValueError, KeyError, TypeError):
            continue  # a record another version wrote, or a torn one: it protects nothing
        if (project / "cuda.lock").is_file():
            found.append(Use(project, keys))
    return found
