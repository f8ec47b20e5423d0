"""What the shared wheel store holds and which projects use each wheel, for `store`; and
`--prune`, which removes what no live project uses (`usage.uses`: a project whose
environment or poetry.lock is gone uses nothing)."""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.errors import InputFileError
from poetry_cuda.files import MiB
from poetry_cuda.messages import message
from poetry_cuda.records import frozen
from poetry_cuda.redist.store import ENVIRONMENT
from poetry_cuda.wheelstore import usage
from poetry_cuda.wheelstore.store import Entry
from poetry_cuda.wheelstore.store import Store


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.messages import Language
    from poetry_cuda.messages import Message


@frozen
class Listed:
    """One stored wheel and the projects whose environment links it."""

    entry: Entry
    projects: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        entry = self.entry
        return {
            "name": entry.name,
            "version": entry.version,
            "filename": entry.filename,
            "sha256": entry.sha256,
            "size": entry.size,
            "projects": list(self.projects),
        }


@frozen
class WheelListing:
    root: str
    wheels: tuple[Listed, ...]
    removed: tuple[Entry, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "wheel_root": self.root,
            "wheels": [w.to_json() for w in self.wheels],
            "removed_wheels": [
                {"name": e.name, "version": e.version, "sha256": e.sha256, "size": e.size}
                for e in self.removed
            ],
        }

    def lines(self, language: Language = "en") -> list[str]:
        """The listing for people, one line each."""
        said = [message("store.wheel-store", root=self.root)]
        if not self.wheels and not self.removed:
            said.append(message("store.wheels-empty"))
        total = sum(w.entry.size for w in self.wheels)
        for listed in self.wheels:
            said.append(
                message(
                    "store.wheel",
                    name=listed.entry.name,
                    version=listed.entry.version,
                    size=f"{listed.entry.size / MiB:.1f}",
                    users=used_by(listed.projects),
                )
            )
        if self.wheels:
            said.append(message("store.wheels", count=len(self.wheels), size=f"{total / MiB:.1f}"))
        said += [
            message(
                "store.wheel-removed",
                name=e.name,
                version=e.version,
                filename=e.filename,
                size=f"{e.size / MiB:.1f}",
            )
            for e in self.removed
        ]
        return [line.text(language) for line in said]


def used_by(projects: Sequence[str]) -> Message:
    """Which `projects` use a stored entry ("used by ..."), or that none does."""
    if not projects:
        return message("store.used-by-none")
    return message("store.used-by", projects=", ".join(projects))


def list_wheels(*, prune: bool = False, store: Store | None = None) -> WheelListing:
    """The user's wheel store (or `store`), listed; with `prune`, what no live project uses
    removed first."""
    store = store or Store.default()
    try:
        removed = store.prune(lambda: usage.in_use(store.root)) if prune else []
        users: dict[str, set[str]] = {}
        for use in usage.uses(store.root):
            for sha256 in use.wheels:
                users.setdefault(sha256, set()).add(str(use.project))
        entries = sorted(store.entries(), key=lambda e: (e.name, e.version, e.filename))
        wheels = tuple(Listed(e, tuple(sorted(users.get(e.sha256, ())))) for e in entries)
    except OSError as error:
        raise InputFileError(
            message("store.unreadable", root=store.root, error=error.strerror or error),
            fix=message("store.unreadable-fix", variable=ENVIRONMENT),
        ) from None
    return WheelListing(str(store.root), wheels, tuple(removed))
