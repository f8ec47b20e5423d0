"""One install of a Poetry project, timed by `shared_store.py`, the way `poetry cuda sync`
runs it: Poetry's own environment made in-process where it is missing (Poetry's
EnvManager, as `poetry install` makes it), then the shared store's install, or uv's, or
(`venv`) nothing: the floor under both.

It imports only what that install imports (Poetry, poetry_cuda's wheel store), so the time
measured is the install's, not the benchmark's.

    python benchmarks/store_install.py store|uv|venv PROJECT STORE INDEX
"""

from __future__ import annotations

import subprocess
import sys

from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def install(kind: str, project: Path, store: Path, index: str) -> int:
    from poetry.factory import Factory
    from poetry.utils.env import EnvManager

    environment = EnvManager(Factory().create_poetry(project)).create_venv().path
    if kind == "venv":
        return 0
    if kind == "uv":
        python = environment / "bin" / "python"
        command = [str(Path(sys.executable).parent / "uv"), "pip", "sync", "--require-hashes"]
        command += ["--link-mode", "hardlink", "--index-url", index, "--python", str(python)]
        return subprocess.run([*command, "requirements.txt"], cwd=project, check=False).returncode
    from poetry_cuda.files import read_toml
    from poetry_cuda.wheelstore.fetch import Fetcher
    from poetry_cuda.wheelstore.project import installer
    from poetry_cuda.wheelstore.store import Store
    from poetry_cuda.wheelstore.sync import sync_shared

    report = sync_shared(
        project,
        environment,
        read_toml(project / "poetry.lock"),
        store=Store(store),
        fetcher=Fetcher(),
        installer=installer(),
    )
    print(report.installed, report.notes)
    return 0


if __name__ == "__main__":
    kind, project, store, index = sys.argv[1:]
    sys.exit(install(kind, Path(project), Path(store), index))
