"""`store`: what the per-user stores hold (NVIDIA's toolkit archives, the shared wheels), which
projects use each, and `--prune` for what none uses."""

from __future__ import annotations

from typing import ClassVar

from poetry_cuda.cli.commands.base import JSON_OPTION
from poetry_cuda.cli.commands.base import CudaCommand
from poetry_cuda.cli.commands.base import Option
from poetry_cuda.cli.markup import escape


HELP = """\
With toolkit = "redist", each project's CUDA_HOME is assembled from NVIDIA's redistributable
archives, kept once per machine in a shared store (POETRY_CUDA_STORE chooses its folder).
With install = "shared", a Poetry project's locked wheels are unpacked once per user into
the wheel store beside it and linked into each project's environment.
This lists every stored archive and wheel with its size and the projects that use it;
--prune removes the archives no project with a cuda.lock uses any more, and the wheels no
existing project's environment uses (a project whose environment or poetry.lock is gone
uses none).

Exit codes: 0 listed (or pruned); 2 a store folder that cannot be read.
"""


class StoreCommand(CudaCommand):
    name = "store"
    description = "List the per-user stores of toolkit archives and shared wheels; --prune."
    help = HELP
    options: ClassVar[tuple[Option, ...]] = (
        Option("prune", "Remove the archives and wheels no project uses."),
        JSON_OPTION,
    )

    def run_command(self) -> int:
        from poetry_cuda.errors import InputFileError
        from poetry_cuda.redist import usage
        from poetry_cuda.redist.store import ENVIRONMENT as STORE_ENV
        from poetry_cuda.redist.store import Store
        from poetry_cuda.wheelstore.listing import list_wheels

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
        except OSError as error:
            raise InputFileError(
                f"the store at {store.root} cannot be read ({error.strerror or error})",
                fix=f"check the folder's permissions, or point {STORE_ENV} at another folder",
            ) from None
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
                }
            )
            return 0
        esc = escape
        self.line(f"<info>Store</info> {esc(str(store.root))}")
        if not entries and not removed:
            self.line('  empty: no project with toolkit = "redist" has assembled its toolkit here')
        for entry in entries:
            users = used.get(entry.key, [])
            said = f"used by {', '.join(users)}" if users else "used by no project"
            self.line(
                f"  {entry.component} {entry.version} ({entry.platform}), "
                f"{entry.size / (1 << 20):.1f} MiB, {esc(said)}"
            )
        for entry in removed:
            self.line(
                f"<info>Removed</info> {entry.component} {entry.version} ({entry.platform}), "
                f"{entry.size / (1 << 20):.1f} MiB"
            )
        for line in wheels.lines():
            self.line(esc(line))
        return 0
