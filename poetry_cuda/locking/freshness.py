"""Whether cuda.lock still fits pyproject.toml: the content-hash of what can change the decision.

Apart from `lockfile`, so that reading cuda.lock (`env`, `run`) needs no dependency parser.
"""

from __future__ import annotations

import dataclasses

from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.backends.readers import READERS
from poetry_cuda.locking.lockfile import content_hash
from poetry_cuda.request.dependencies import read_dependencies


# Settings of how a lock is installed, not of what it holds.
INSTALL_ONLY = frozenset({"install"})


if TYPE_CHECKING:
    from collections.abc import Collection
    from collections.abc import Mapping

    from poetry_cuda.locking.lockfile import CudaLock


def sealed(lock: CudaLock, pyproject: Mapping[str, Any]) -> CudaLock:
    """`lock` with the content-hash of `pyproject`, so that it is fresh for it."""
    return dataclasses.replace(lock, content_hash=fingerprint(pyproject, lock.names))


def is_fresh(lock: CudaLock, pyproject: Mapping[str, Any]) -> bool:
    """Whether `lock` was sealed for what `pyproject` says now about its packages."""
    return fingerprint(pyproject, lock.names) == lock.content_hash


def fingerprint(pyproject: Mapping[str, Any], names: Collection[str]) -> str:
    """The content-hash of what in pyproject.toml can change the decision about `names`:

    `[tool.poetry-cuda]` and the dependencies on those packages, with their constraints,
    extras and the table they come from. `install` says how the lock is installed, not what
    it holds: changing it leaves the lock fresh.
    """
    deps = [
        [d.origin, d.name, d.constraint, sorted(d.extras)]
        for d in read_dependencies(pyproject, READERS)
        if d.name in names
    ]
    table = pyproject.get("tool", {}).get("poetry-cuda", {})
    if isinstance(table, dict):
        table = {key: value for key, value in table.items() if key not in INSTALL_ONLY}
    return content_hash({"tool.poetry-cuda": table, "dependencies": deps})
