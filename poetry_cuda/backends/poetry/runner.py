"""The Poetry backend's runner: Poetry's own `lock`, poetry.lock and Poetry's environment.

What it writes in pyproject.toml is `editor`'s. Locking goes through Poetry's console
application exactly as `poetry lock` does (the same events, environment and installer), so
poetry.lock is Poetry's own lock.

Poetry itself is imported only where it runs (`require_poetry` first, then `lazy`): the
standalone script is installed without it unless its `poetry` extra is asked for, and uv
projects never need it.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import os
import re
import sys

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda import lazy
from poetry_cuda.backends.base import InstallCommand
from poetry_cuda.backends.base import LockedEntry
from poetry_cuda.backends.base import Unreachable
from poetry_cuda.backends.base import lock_failed
from poetry_cuda.backends.base import packages
from poetry_cuda.backends.base import run_install
from poetry_cuda.backends.choice import choose_with_reason
from poetry_cuda.backends.poetry import reader
from poetry_cuda.backends.poetry import rules
from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import UsageError
from poetry_cuda.files import read_toml
from poetry_cuda.files import starts_with_bom
from poetry_cuda.messages import Localized
from poetry_cuda.messages import message
from poetry_cuda.request.settings import parse_settings
from poetry_cuda.request.user_mirrors import user_mirrors


if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence


# The tool's words for an index it could not reach (a refused or timed-out connection, a
# name that does not resolve, an error status), as against a resolution that found no fit.
MISSING_SOURCE = re.compile(r'Repository "([^"\n]{1,200})" does not exist')
UNREACHABLE = re.compile(
    r"All attempts to connect|Max retries exceeded|Failed to establish a new connection|"
    r"Connection refused|timed out|Name or service not known|name resolution|"
    r"\b[45]\d\d (?:Client|Server) Error"
)


def has_poetry() -> bool:
    """Whether the `poetry` package is importable beside poetry-cuda.

    poetry-core alone (always installed) provides `poetry.core`, so the test is a module of
    Poetry's own.
    """
    try:
        return importlib.util.find_spec("poetry.factory") is not None
    except ImportError:
        return False


def require_poetry(reason: str = 'backend "poetry"') -> None:
    """Raise UsageError (exit 2) when Poetry is not installed; `reason` says why the project
    is Poetry's."""
    if not has_poetry():
        raise UsageError(
            f"this is a Poetry project ({reason}), and Poetry is not installed beside poetry-cuda",
            why="poetry-cuda runs Poetry itself (its lock, its install, its settings) in its "
            "own Python, and this poetry-cuda was installed without its `poetry` extra (uv "
            "projects need no Poetry)",
            fix="install poetry-cuda with the extra, `poetry-cuda[poetry]` (the README's Install "
            "shows the commands), or use the Poetry plugin (`poetry self add`, then "
            '`poetry cuda lock`); if the project is meant for uv, set backend = "uv" in '
            "[tool.poetry-cuda]",
        )


LOCKFILE = "poetry.lock"


def check_pyproject(project: Path, pyproject: Mapping[str, Any]) -> None:
    """Refuse, before anything is written, what keeps Poetry from locking what poetry-cuda
    writes: no Poetry, a byte order mark, Poetry 1.x sources, a bad per-user mirror."""
    if not has_poetry():
        setting = parse_settings(dict(pyproject)).backend
        require_poetry(str(choose_with_reason(setting, project, pyproject)[1]))
    if starts_with_bom(project / "pyproject.toml"):
        raise ConfigError(
            "pyproject.toml starts with a UTF-8 byte order mark (BOM)",
            why="Poetry cannot read a pyproject.toml that starts with a BOM, so it could not "
            "lock what poetry-cuda writes (uv can)",
            fix="save pyproject.toml as UTF-8 without a BOM (in VS Code: 'UTF-8', not "
            "'UTF-8 with BOM')",
        )
    rules.check_sources(pyproject)
    # Poetry's lock runs the plugin, which redirects the sources; a bad value stops us first.
    user_mirrors(os.environ)


def locked(project: Path, name: str) -> list[LockedEntry]:
    """Every entry of package `name` in poetry.lock (empty when there is none)."""
    path = project / LOCKFILE
    if not path.is_file():
        return []
    found = []
    pyproject = project / "pyproject.toml"
    stand_ins = pypi_stand_ins(read_toml(pyproject)) if pyproject.is_file() else set()
    for package in packages(path):
        if package.get("name") == name:
            source = package.get("source") or {}
            found.append(
                LockedEntry(
                    version=str(package.get("version")),
                    source_name=source.get("reference"),
                    source_url=source.get("url"),
                    pypi_stand_in=source.get("reference") in stand_ins,
                    files=tuple(f["file"] for f in package.get("files", []) if "file" in f),
                    dependencies=tuple(_dependencies(package.get("dependencies", {}))),
                )
            )
    return found


def pypi_stand_ins(pyproject: Mapping[str, Any]) -> set[str]:
    """The sources Poetry takes packages from in PyPI's place (a PyPI mirror as primary):
    its primary sources, where the project names no source `pypi` (Poetry 2 then leaves PyPI
    out). A package locked from one of them is PyPI's upload."""
    written = reader.indexes(pyproject)
    if any(index.name.lower() == "pypi" for index in written):
        return set()
    return {index.name for index in written if index.implicit}


def install_command(extras: Sequence[str], groups: Sequence[str]) -> InstallCommand:
    """`poetry install` with `extras` and `groups`."""
    # Poetry's install never resolves: it refuses a poetry.lock that no longer fits.
    chosen = [a for e in extras for a in ("--extras", e)] + [
        a for g in groups for a in ("--with", g)
    ]
    return InstallCommand("poetry", ("install", *chosen))


def install(project: Path, command: InstallCommand) -> None:
    """Run `command` (`install_command`) in `project` with the Poetry poetry-cuda runs with."""
    # Inside the plugin this very Poetry, in a child process of its own: its installer, its
    # output and its signal handling are then those of a plain `poetry install`, per-user
    # mirrors included (the plugin's).
    user_mirrors(os.environ)
    require_poetry('cuda.lock records backend "poetry"')
    run_install(command, [sys.executable, "-m", "poetry", *command.arguments], project)


def _dependencies(table: Mapping[str, Any]) -> list[tuple[str, str]]:
    """poetry.lock's `[package.dependencies]`: a constraint string, a table, or a list.

    Optional ones (installed only with an extra) are left out.
    """
    found = []
    for name, value in table.items():
        for entry in value if isinstance(value, list) else [value]:
            if isinstance(entry, dict) and entry.get("optional"):
                continue
            constraint = entry.get("version", "*") if isinstance(entry, dict) else entry
            found.append((name, str(constraint)))
    return found


def run_lock(project: Path, *, regenerate: bool) -> None:
    """Run `poetry lock` for `project` in-process; raises ResolutionError."""
    require_poetry()
    application = lazy.poetry_application().Application()
    application.auto_exits(False)
    argv = ["poetry", "--no-interaction", "--no-ansi", "--project", str(project), "lock"]
    if regenerate:
        argv.append("--regenerate")
    buffered = lazy.cleo_buffered_output().BufferedOutput
    output, errors = buffered(), buffered()
    code = application.run(lazy.cleo_argv_input().ArgvInput(argv), output, errors)
    if code != 0:
        said = (errors.fetch() or output.fetch()).strip()
        why: Localized = message("resolution.poetry-why")
        fix: Localized = message("resolution.poetry-fix")
        if missing := MISSING_SOURCE.search(said):
            why, fix = missing_source(missing.group(1))
        raise lock_failed(
            project,
            message("resolution.poetry-failed"),
            said,
            (why, fix),
            Unreachable("Poetry", UNREACHABLE, "poetry cuda plan"),
        )


def missing_source(name: str) -> tuple[str, str]:
    """Why and fix when Poetry looked for a source pyproject.toml does not declare."""
    why = (
        f"Poetry looked for the source {name!r}, which pyproject.toml does not declare: a "
        f"dependency's `source = {name!r}`, or a package poetry.lock took from it"
    )
    fix = (
        f"declare a [[tool.poetry.source]] named {name!r}, or remove what names it; "
        "`poetry cuda lock --regenerate` resolves poetry.lock anew"
    )
    return why, fix


def outdated(project: Path) -> str | None:
    """Why poetry.lock no longer fits pyproject.toml (Poetry's own freshness check), if so."""
    require_poetry()
    refused = lazy.poetry_pyproject_errors().PyProjectError
    try:
        locker = lazy.poetry_factory().Factory().create_poetry(project).locker
    except (refused, RuntimeError, ValueError, OSError) as error:  # Poetry's validation
        return f"Poetry cannot read pyproject.toml ({error.__class__.__name__}: {error})"
    if not locker.is_fresh():
        return (
            "poetry.lock is not consistent with pyproject.toml (what `poetry check --lock` reports)"
        )
    return None


def environment(project: Path, environ: Mapping[str, str]) -> Path | None:
    """The virtual environment Poetry uses for `project`, found as Poetry finds it.

    Poetry's own lookup needs the whole Poetry object (over a second to build); this
    follows the same rules from the settings alone: an active virtual environment, the
    in-project `.venv`, then `{virtualenvs.path}/{name}-{hash}-py{X.Y}`.
    """
    active = environ.get("VIRTUAL_ENV")
    if active and Path(active).is_dir():
        return Path(active)
    settings = _poetry_settings(project, environ)
    in_project = project / ".venv"
    if settings.get("in-project") is not False and in_project.is_dir():
        return in_project
    name = (read_toml(project / "pyproject.toml").get("project") or {}).get("name")
    if not isinstance(name, str):
        name = project.name
    folder = _virtualenvs(settings, environ)
    candidates = sorted(folder.glob(f"{_env_name(name, project)}-py*"))
    return candidates[-1] if candidates else None


def _poetry_settings(project: Path, environ: Mapping[str, str]) -> dict[str, Any]:
    """`virtualenvs.in-project`, `virtualenvs.path` and `cache-dir` as Poetry reads them:
    its environment variables over the project's poetry.toml over the user's config.toml."""
    table: dict[str, Any] = {}
    for config in (_user_config(environ), project / "poetry.toml"):
        if config.is_file():
            found = read_toml(config)
            table.update(found.get("virtualenvs") or {})
            if isinstance(found.get("cache-dir"), str):
                table["cache-dir"] = found["cache-dir"]
    if "POETRY_VIRTUALENVS_IN_PROJECT" in environ:
        table["in-project"] = environ["POETRY_VIRTUALENVS_IN_PROJECT"].lower() in ("1", "true")
    if environ.get("POETRY_VIRTUALENVS_PATH"):
        table["path"] = environ["POETRY_VIRTUALENVS_PATH"]
    if environ.get("POETRY_CACHE_DIR"):
        table["cache-dir"] = environ["POETRY_CACHE_DIR"]
    return table


def _virtualenvs(settings: Mapping[str, Any], environ: Mapping[str, str]) -> Path:
    """Poetry's `virtualenvs.path` (default `{cache-dir}/virtualenvs`), `{cache-dir}` filled in
    as Poetry fills it, without loading Poetry (its Config costs more than a doctor run)."""
    cache = settings.get("cache-dir")
    cache = cache if isinstance(cache, str) and cache else str(_default_cache(environ))
    path = settings.get("path")
    path = path if isinstance(path, str) and path else str(Path("{cache-dir}") / "virtualenvs")
    return Path(path.replace("{cache-dir}", cache)).expanduser()


def _user_config(environ: Mapping[str, str]) -> Path:
    """Poetry's config.toml: in POETRY_CONFIG_DIR, else platformdirs' user config folder."""
    if environ.get("POETRY_CONFIG_DIR"):
        return Path(environ["POETRY_CONFIG_DIR"]) / "config.toml"
    home = Path(environ.get("HOME") or Path.home())
    if sys.platform == "win32":
        roaming = environ.get("APPDATA")
        folder = Path(roaming) if roaming else home / "AppData" / "Roaming"
    elif sys.platform == "darwin":
        folder = home / "Library" / "Application Support"
    else:
        xdg = environ.get("XDG_CONFIG_HOME", "").strip()
        folder = Path(xdg) if xdg else home / ".config"
    return folder / "pypoetry" / "config.toml"


def _default_cache(environ: Mapping[str, str]) -> Path:
    """platformdirs' user cache folder for Poetry (`user_cache_path("pypoetry")`)."""
    home = Path(environ.get("HOME") or Path.home())
    if sys.platform == "win32":
        local = environ.get("LOCALAPPDATA")
        return (Path(local) if local else home / "AppData" / "Local") / "pypoetry" / "Cache"
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "pypoetry"
    xdg = environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(xdg) if xdg else home / ".cache") / "pypoetry"


def _env_name(name: str, project: Path) -> str:
    # The same name Poetry's EnvManager.generate_env_name gives (it hashes the path as UTF-8);
    # a folder name the locale could not decode is hashed as its own bytes instead of crashing.
    sanitized = re.sub(r'[ $`!*@"\\\r\n\t]', "_", name.lower())[:42]
    cwd = os.path.normcase(os.path.realpath(project))
    try:
        encoded = cwd.encode()
    except UnicodeEncodeError:
        encoded = os.fsencode(cwd)
    digest = base64.urlsafe_b64encode(hashlib.sha256(encoded).digest()).decode()[:8]
    return f"{sanitized}-{digest}"
