"""`install = "shared"`: a Poetry project's locked wheels linked from the shared store into
Poetry's own virtual environment, for `sync` and the plugin's `poetry install`.

The environment is the one `poetry install` and `poetry run` use, found (or made) by
Poetry's own EnvManager; the wheels are fetched from the indexes poetry.lock records (this
user's mirrors and the credentials Poetry holds for each source included). Poetry's
installer runs afterwards and finds everything but what the store leaves to it (the
project itself, packages built from an sdist, directory and VCS dependencies) in place.
What was done is always said (`describe`): how many files were linked from which store,
or copied and why.
"""

from __future__ import annotations

import os

from importlib.metadata import version
from typing import TYPE_CHECKING

from poetry_cuda.errors import InputFileError
from poetry_cuda.files import read_toml
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.messages import message
from poetry_cuda.request.settings import parse_settings
from poetry_cuda.request.user_mirrors import redirects
from poetry_cuda.request.user_mirrors import user_mirrors
from poetry_cuda.wheelstore.fetch import Fetcher
from poetry_cuda.wheelstore.locked import MAIN
from poetry_cuda.wheelstore.store import Store
from poetry_cuda.wheelstore.sync import sync_shared


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Collection
    from collections.abc import Mapping
    from collections.abc import Sequence
    from pathlib import Path

    from poetry.poetry import Poetry

    from poetry_cuda.messages import Localized
    from poetry_cuda.messages import Message
    from poetry_cuda.wheelstore.sync import Report


SHARED = "shared"
# Set by `sync` once it has installed a project from the store, for the `poetry install` it
# runs next (the plugin's hook then leaves the install to Poetry).
DONE = "POETRY_CUDA_SHARED_INSTALLED"


def shared_install(
    project: Path,
    pyproject: Mapping[str, object],
    backend: str,
    chosen: tuple[Sequence[str], Sequence[str]],
    say: Callable[[Localized], None],
    dry_run: bool = False,
) -> None:
    """`sync`'s step before the package manager's install, where pyproject.toml says
    install = "shared": the locked wheels (the main group, and the `chosen` extras and
    groups) linked into Poetry's environment, and what was done said with `say`."""
    if parse_settings(dict(pyproject)).install != SHARED:
        return
    store = Store.default()
    if backend != "poetry":
        say(message("shared.poetry-only", backend=backend))
        return
    if dry_run:
        say(message("shared.would-link", root=store.root))
        return
    extras, groups = chosen
    report = install_shared(project, extras=extras, added=groups, store=store)
    for line in describe(report, store.root):
        say(line)
    # The package manager's `poetry install` that follows runs the plugin: it has nothing
    # more to link.
    os.environ[DONE] = str(project.absolute())


def installer() -> str:
    """What Poetry's installer writes into INSTALLER."""
    return f"Poetry {version('poetry')}"


def install_shared(
    project: Path,
    *,
    extras: Collection[str] = (),
    groups: Collection[str] | None = None,
    added: Collection[str] = (),
    poetry: Poetry | None = None,
    store: Store | None = None,
    environ: Mapping[str, str] = os.environ,
) -> Report:
    """Install `project`'s poetry.lock into Poetry's environment of it from `store` (the
    user's by default): the `groups` given (a `poetry install`'s, as Poetry computes them),
    else the groups a plain `poetry install` installs (main and every non-optional one) and
    `added`; and `extras`. `poetry` is the project's Poetry object where the caller has one
    (the plugin), else it is made here."""
    from poetry.factory import Factory
    from poetry.utils.env import EnvError
    from poetry.utils.env import EnvManager
    from poetry.utils.env.python.exceptions import PythonVersionError

    poetry = poetry or Factory().create_poetry(project)
    try:
        environment = EnvManager(poetry).create_venv().path
    except (EnvError, PythonVersionError, OSError) as error:
        raise InputFileError(
            f"{project}: Poetry cannot find or make the project's virtual environment "
            f"({str(error).strip() or error.__class__.__name__})",
            why="the shared store installs into the environment `poetry install` uses",
            fix="choose its Python with `poetry env use python3.X`, then run again",
        ) from None
    fetcher = Fetcher(indexes=_mirrors(poetry, environ), credentials=_credentials(poetry))
    return sync_shared(
        project,
        environment,
        read_toml(project / "poetry.lock"),
        store=store or Store.default(),
        fetcher=fetcher,
        installer=installer(),
        groups=groups if groups is not None else _default_groups(poetry, added),
        extras=extras,
    )


def describe(report: Report, store_root: Path) -> list[Message]:
    """What the install did, one line each: never silent about where files came from."""
    done = report.installed
    placed: dict[str, object] = {
        "files": done.placed,
        "count": len(done.installed),
        "root": store_root,
        "environment": report.environment,
        "kept": message("shared.in-place", count=len(done.kept)) if done.kept else "",
    }
    copied = done.mode == "copy" and done.placed
    lines = [message("shared.copied", **placed) if copied else message("shared.linked", **placed)]
    if done.mode == "hardlink" and done.placed:  # one inode: an edit would reach every project
        lines.append(message("shared.hard-links"))
    if report.fetched:
        lines.append(message("shared.fetched", count=len(report.fetched)))
    if done.removed:
        lines.append(message("shared.removed", names=", ".join(done.removed)))
    lines += [message("shared.note", note=note) for note in report.notes]
    lines += [
        message("shared.left", name=s.name, version=s.version, why=s.why) for s in report.skipped
    ]
    return lines


def _default_groups(poetry: Poetry, added: Collection[str]) -> list[str]:
    """What a plain `poetry install` installs (main and every group not optional), and
    `added`."""
    return sorted({MAIN, *poetry.package.dependency_group_names(), *added})


def _sources(poetry: Poetry) -> list[tuple[str, str]]:
    found = []
    for source in poetry.local_config.get("source") or ():
        if isinstance(source, dict):
            name, url = source.get("name"), source.get("url")
            if isinstance(name, str) and isinstance(url, str):
                found.append((name, url))
    return found


def _mirrors(poetry: Poetry, environ: Mapping[str, str]) -> dict[str, str]:
    """This user's mirror of each source that has one (`POETRY_CUDA_MIRROR_<FAMILY>`)."""
    mirrors = user_mirrors(environ)
    if not mirrors:
        return {}
    return {r.name: r.mirror for r in redirects(_sources(poetry), load().families, mirrors)}


def _credentials(poetry: Poetry) -> dict[str, tuple[str, str]]:
    """The user name and password Poetry holds for each source (`http-basic.<name>`, its
    keyring), by the source's URL."""
    from poetry.utils.password_manager import PasswordManager

    manager = PasswordManager(poetry.config)
    found = {}
    for name, url in _sources(poetry):
        auth = manager.get_http_auth(name)
        if auth.username is not None and auth.password is not None:
            found[url] = (auth.username, auth.password)
    return found
