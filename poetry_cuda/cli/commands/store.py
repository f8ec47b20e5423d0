"""`store`: what the shared store of NVIDIA's toolkit archives holds, and what no project uses."""

from __future__ import annotations

from typing import ClassVar

from poetry_cuda.cli.commands.base import JSON_OPTION
from poetry_cuda.cli.commands.base import CudaCommand
from poetry_cuda.cli.commands.base import Option
from poetry_cuda.cli.markup import escape


HELP = """\
With toolkit = "redist", each project's CUDA_HOME is assembled from NVIDIA's redistributable
archives, kept once per machine in a shared store (POETRY_CUDA_STORE chooses its folder).
This lists every stored archive with its size and the projects whose last assembly used it;
--prune removes the archives no project with a cuda.lock uses any more.

Exit codes: 0 listed (or pruned); 2 a store folder that cannot be read.
"""


class StoreCommand(CudaCommand):
    name = "store"
    description = 'List the shared store of toolkit archives (toolkit = "redist"); --prune.'
    help = HELP
    options: ClassVar[tuple[Option, ...]] = (
        Option("prune", "Remove the archives no project uses."),
        JSON_OPTION,
    )

    def run_command(self) -> int:
        from poetry_cuda.errors import InputFileError
        from poetry_cuda.redist import usage
        from poetry_cuda.redist.store import ENVIRONMENT as STORE_ENV
        from poetry_cuda.redist.store import Store

        store = Store.default()
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
        return 0
