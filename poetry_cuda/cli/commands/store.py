"""`store`: what the per-user stores hold (NVIDIA's toolkit archives, the shared wheels), which
projects use each, and `--prune` for what none uses."""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any
from typing import ClassVar

from poetry_cuda.cli.commands.base import JSON_OPTION
from poetry_cuda.cli.commands.base import CudaCommand
from poetry_cuda.cli.commands.base import Option
from poetry_cuda.cli.commands.base import user_language
from poetry_cuda.cli.markup import escape
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import message


if TYPE_CHECKING:
    from pathlib import Path

    from poetry_cuda.messages import Message


HELP = """\
With toolkit = "redist", each project's CUDA_HOME is assembled from NVIDIA's redistributable
archives, kept once per machine in a shared store (POETRY_CUDA_STORE chooses its folder).
With install = "shared", a Poetry project's locked wheels are unpacked once per user into
the wheel store beside it and linked into each project's environment.
This lists every stored archive and wheel with its size and the projects that use it;
--prune removes the archives no project with a cuda.lock uses any more, and the wheels no
existing project's environment uses (a project whose environment or poetry.lock is gone
uses none). --verify reads every stored file against the sha256 recorded when it was
unpacked (and a wheel's files against its RECORD) and names the damaged entries: the next
command that needs one fetches it again, --prune removes it. A store provisioned by another
user is trusted as it is; --verify is how to check it.

Exit codes: 0 listed (or pruned, or verified sound); 1 --verify found damaged entries;
2 a store folder that cannot be read.
"""


class StoreCommand(CudaCommand):
    name = "store"
    description = "List the per-user stores of toolkit archives and shared wheels; --prune."
    help = HELP
    options: ClassVar[tuple[Option, ...]] = (
        Option("prune", "Remove the archives and wheels no project uses."),
        Option("verify", "Read every stored file against its recorded sha256; exit 1 if damaged."),
        JSON_OPTION,
    )

    def run_command(self) -> int:
        from poetry_cuda.errors import InputFileError
        from poetry_cuda.redist import usage
        from poetry_cuda.redist.store import ENVIRONMENT as STORE_ENV
        from poetry_cuda.redist.store import Store
        from poetry_cuda.wheelstore.listing import list_wheels
        from poetry_cuda.wheelstore.listing import used_by

        store = Store.default()
        wheels = list_wheels(prune=bool(self.option("prune")))
        try:
            used: dict[tuple[str, str, str, str], list[str]] = {}
            for use in usage.uses(store.root):
                for key in use.archives:
                    used.setdefault(key, []).append(str(use.project))
            entries = store.entries()
            removed = []
            if self.option("prune"):
                keep = [entry for entry in entries if entry.key in used]
                removed = store.prune_entries(keep)
                entries = keep
            damaged = self._verified(store.root) if self.option("verify") else None
        except OSError as error:
            raise InputFileError(
                message("store.unreadable", root=store.root, error=error.strerror or error),
                fix=message("store.unreadable-fix", variable=STORE_ENV),
            ) from None
        code = 1 if damaged else 0
        if self.option("json"):
            self.print_json(
                {
                    "root": str(store.root),
                    "archives": [
                        {
                            "component": e.component,
                            "version": e.version,
                            "platform": e.platform,
                            "sha256": e.sha256,
                            "size": e.size,
                            "projects": used.get(e.key, []),
                        }
                        for e in entries
                    ],
                    "removed": [
                        {"component": e.component, "version": e.version, "platform": e.platform}
                        for e in removed
                    ],
                    **wheels.to_json(),
                    **({} if damaged is None else {"damaged": _in_english(damaged)}),
                }
            )
            return code
        language = user_language()

        def say(said: Message) -> None:
            self.line(escape(said.text(language)))

        say(message("store.archive-store", root=store.root))
        if not entries and not removed:
            say(message("store.archives-empty"))
        for entry in entries:
            say(
                message(
                    "store.archive",
                    archive=f"{entry.component} {entry.version} ({entry.platform})",
                    size=f"{entry.size / (1 << 20):.1f}",
                    users=used_by(used.get(entry.key, [])),
                )
            )
        for entry in removed:
            say(
                message(
                    "store.archive-removed",
                    archive=f"{entry.component} {entry.version} ({entry.platform})",
                    size=f"{entry.size / (1 << 20):.1f}",
                )
            )
        for line in wheels.lines(language):
            self.line(escape(line))
        if damaged is not None:
            self._say_verified(damaged, len(entries) + len(wheels.wheels))
        return code

    def _verified(self, root: Path) -> list[dict[str, Any]]:
        """`--verify`: the damaged entries of both stores, each read whole."""
        from poetry_cuda.redist.store import Store
        from poetry_cuda.wheelstore.store import Store as WheelStore

        found: list[dict[str, Any]] = [
            {"store": "archives", "folder": str(folder), "name": folder.name, "problems": p}
            for folder, p in Store(root).verify()
        ]
        found += [
            {
                "store": "wheels",
                "folder": str(d.folder),
                "name": d.name,
                "problems": d.problems,
            }
            for d in WheelStore.default().verify()
        ]
        return found

    def _say_verified(self, damaged: list[dict[str, Any]], listed: int) -> None:
        language = user_language()
        for entry in damaged:
            problems = Phrase(tuple(entry["problems"][:5]), "; ")
            said = message(
                "store.damaged", name=entry["name"], folder=entry["folder"], problems=problems
            )
            self.line(f"<error>{escape(said.text(language))}</error>")
        if damaged:
            self.line(escape(message("store.damaged-fix").text(language)))
        else:
            self.line(escape(message("store.verified", count=listed).text(language)))


def _in_english(damaged: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The damaged entries as JSON gives them: their problems in English."""
    return [{**entry, "problems": [str(p) for p in entry["problems"]]} for entry in damaged]
