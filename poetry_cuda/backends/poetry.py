"""The Poetry backend: Poetry's configuration, Poetry's own `lock`, poetry.lock.

poetry-cuda owns exactly two things in pyproject.toml: the explicit
`[[tool.poetry.source]]` entries it lists in cuda.lock, and the optional group
`[tool.poetry.group.poetry-cuda]` that pins each CUDA-flavoured package to its source
(on Linux and Windows; other platforms keep PyPI). Everything else keeps its bytes:
the document is edited with tomlkit, and an unchanged plan gives an unchanged file.

Locking goes through Poetry's console application exactly as `poetry lock` does (the
same events, environment and installer), so poetry.lock is Poetry's own lock.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import tomlkit

from tomlkit.items import Array

from poetry_cuda.backends import LockedEntry
from poetry_cuda.backends import foreign_entry
from poetry_cuda.backends import lockfile_problem
from poetry_cuda.backends import packages
from poetry_cuda.backends import pyproject_edit
from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.errors import ResolutionError
from poetry_cuda.files import read_text
from poetry_cuda.files import read_toml
from poetry_cuda.files import write_toml_atomic
from poetry_cuda.locking.managed import CUDA_PLATFORMS
from poetry_cuda.locking.managed import GROUP_COMMENT
from poetry_cuda.locking.managed import is_our_source
from poetry_cuda.request.dependencies import MANAGED_GROUP


if TYPE_CHECKING:
    from collections.abc import Collection
    from collections.abc import Iterable
    from collections.abc import Mapping

    from tomlkit.toml_document import TOMLDocument

    from poetry_cuda.locking.managed import Managed
    from poetry_cuda.locking.managed import Pin


class PoetryBackend:
    name = "poetry"
    lockfile = "poetry.lock"

    def rewrite(self, text: str, managed: Managed, previous: Collection[str]) -> str:
        return rewrite(text, managed, previous)

    def prepare(self, project: Path, dropped: Collection[str]) -> None:
        forget_sources(project / self.lockfile, dropped)

    def run_lock(self, project: Path, *, regenerate: bool) -> None:
        run_lock(project, regenerate=regenerate)

    def locked(self, project: Path, name: str) -> list[LockedEntry]:
        path = project / self.lockfile
        if not path.is_file():
            return []
        found = []
        for package in packages(path):
            if package.get("name") == name:
                source = package.get("source") or {}
                found.append(
                    LockedEntry(
                        version=str(package.get("version")),
                        source_name=source.get("reference"),
                        source_url=source.get("url"),
                        files=tuple(f["file"] for f in package.get("files", []) if "file" in f),
                        dependencies=tuple(_dependencies(package.get("dependencies", {}))),
                    )
                )
        return found

    def lockfile_problem(self, project: Path) -> str | None:
        return lockfile_problem(project / self.lockfile, "metadata")

    def environment(self, project: Path, environ: Mapping[str, str]) -> Path | None:
        return environment(project, environ)


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
    from cleo.io.inputs.argv_input import ArgvInput
    from cleo.io.outputs.buffered_output import BufferedOutput
    from poetry.console.application import Application

    application = Application()
    application.auto_exits(False)
    argv = ["poetry", "--no-interaction", "--no-ansi", "--project", str(project), "lock"]
    if regenerate:
        argv.append("--regenerate")
    output, errors = BufferedOutput(), BufferedOutput()
    code = application.run(ArgvInput(argv), output, errors)
    if code != 0:
        raise ResolutionError(
            "Poetry's resolution failed:\n" + (errors.fetch() or output.fetch()).strip(),
            why="Poetry could not lock the project with the chosen CUDA sources",
            fix="read Poetry's message above; `poetry cuda plan` shows what was chosen",
        )


def forget_sources(lock_path: Path, names: Collection[str]) -> None:
    """Drop poetry.lock entries locked from sources the plan no longer uses.

    Poetry's `lock` keeps locked packages where it can and fails on a package locked from a
    source that no longer exists; without those entries it resolves them anew from the
    current sources, and every other package keeps its locked version.
    """
    if not names or not lock_path.exists():
        return
    packages(lock_path)  # a clear error (exit 2, naming the file) for one that is no lock file
    document = tomlkit.parse(read_text(lock_path))
    entries = document.get("package")
    if entries is None:
        return
    kept = [p for p in entries if (p.get("source") or {}).get("reference") not in names]
    if len(kept) != len(entries):
        entries.clear()
        entries.extend(kept)
        write_toml_atomic(lock_path, tomlkit.dumps(document))


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
    folder = Path(settings.get("path") or _default_virtualenvs(environ))
    candidates = sorted(folder.glob(f"{_env_name(name, project)}-py*"))
    return candidates[-1] if candidates else None


def _poetry_settings(project: Path, environ: Mapping[str, str]) -> dict[str, Any]:
    """`virtualenvs.in-project` and `virtualenvs.path`: environment over poetry.toml."""
    local = project / "poetry.toml"
    table = dict(read_toml(local).get("virtualenvs") or {}) if local.is_file() else {}
    if "POETRY_VIRTUALENVS_IN_PROJECT" in environ:
        table["in-project"] = environ["POETRY_VIRTUALENVS_IN_PROJECT"].lower() in ("1", "true")
    if environ.get("POETRY_VIRTUALENVS_PATH"):
        table["path"] = environ["POETRY_VIRTUALENVS_PATH"]
    return table


def _default_virtualenvs(environ: Mapping[str, str]) -> Path:
    if environ.get("POETRY_CACHE_DIR"):
        return Path(environ["POETRY_CACHE_DIR"]) / "virtualenvs"
    from poetry.config.config import Config

    return Path(Config.create().virtualenvs_path)


def _env_name(name: str, project: Path) -> str:
    # The same name Poetry's EnvManager.generate_env_name gives.
    sanitized = re.sub(r'[ $`!*@"\\\r\n\t]', "_", name.lower())[:42]
    cwd = os.path.normcase(os.path.realpath(project))
    digest = base64.urlsafe_b64encode(hashlib.sha256(cwd.encode()).digest()).decode()[:8]
    return f"{sanitized}-{digest}"


SOURCES = "tool.poetry.source"
GROUP = f"tool.poetry.group.{MANAGED_GROUP}"
MARKER = f"# {GROUP_COMMENT}"


def _poetry_table(document: TOMLDocument) -> Any:
    tool = pyproject_edit.table(document, "tool", "tool")
    poetry = tool.get("poetry")
    if poetry is None:
        poetry = tomlkit.table()
        tool["poetry"] = poetry
    return pyproject_edit.table(tool, "poetry", "tool.poetry")


def _read_poetry(document: TOMLDocument) -> Any:
    """`[tool.poetry]` to read, whatever its layout ({} when absent)."""
    return pyproject_edit.mapping(
        pyproject_edit.mapping(document, "tool", "tool"), "poetry", "tool.poetry"
    )


def _check_user_pins(poetry: Any, managed: Managed) -> None:
    """A user's own `source = ...` for a managed package is a conflict, not ours to change."""
    places = [
        (
            "[tool.poetry.dependencies]",
            pyproject_edit.mapping(poetry, "dependencies", "tool.poetry.dependencies"),
        )
    ]
    groups = pyproject_edit.mapping(poetry, "group", "tool.poetry.group")
    for group in groups:
        if group != MANAGED_GROUP:
            where = f"tool.poetry.group.{group}"
            body = pyproject_edit.mapping(groups, group, where)
            places.append(
                (
                    f"[{where}.dependencies]",
                    pyproject_edit.mapping(body, "dependencies", f"{where}.dependencies"),
                )
            )
    chosen = {pin.package: pin.source for pin in managed.pins if pin.source}
    for origin, dependencies in places:
        for name, value in dependencies.items():
            entries = value if isinstance(value, list) else [value]
            for entry in entries:
                source = entry.get("source") if isinstance(entry, dict) else None
                wanted = chosen.get(name.lower())
                if source and wanted and source != wanted:
                    raise ConfigError(
                        f"{origin}: {name} has source = {source!r}, but the plan puts it on "
                        f"{wanted!r}",
                        why="poetry-cuda pins CUDA-flavoured packages to the chosen index "
                        "itself, and will not override a source you set",
                        fix=f"remove source = {source!r} from {name} (poetry-cuda manages it), "
                        'or remove the package\'s CUDA choice with cuda = "cpu"',
                    )


def _is_ours(entry: Any) -> bool:
    """A `[[tool.poetry.source]]` entry exactly as poetry-cuda writes it."""
    return (
        is_our_source(entry.get("name"), entry.get("url")) and entry.get("priority") == "explicit"
    )


def _apply_sources(poetry: Any, wanted: dict[str, str], previous: Collection[str]) -> None:
    """Keep every user source; add the managed ones, drop those the plan no longer needs."""
    current = pyproject_edit.entries(poetry, "source", SOURCES)
    dropped = set()
    for entry in current:
        name = entry.get("name")
        if name in wanted:
            if not _is_ours(entry):
                raise ConfigError(
                    f"[[tool.poetry.source]] {name!r} already exists with another URL or priority",
                    why=f"poetry-cuda needs {name!r} to be the explicit source {wanted[name]}",
                    fix=f"rename or remove your source {name!r}",
                )
            del wanted[name]
        elif name in previous:
            if not _is_ours(entry):
                raise foreign_entry("[[tool.poetry.source]]", name, entry.get("url"))
            dropped.add(name)  # a source an earlier plan needed and this one does not
    existing = poetry.get("source")
    if not dropped and not wanted:
        return
    if isinstance(existing, Array):  # `source = [{ ... }]`: ours are written inline too
        pyproject_edit.edit_inline_array(
            existing,
            lambda entry: entry.get("name") in dropped,
            [
                f"{{ name = {pyproject_edit.string(name)}, url = {pyproject_edit.string(url)}, "
                'priority = "explicit" }'
                for name, url in wanted.items()
            ],
        )
        if not existing:
            del poetry["source"]
        return
    kept = [entry for entry in current if entry.get("name") not in dropped]
    for name, url in wanted.items():
        table = tomlkit.table()
        table.update({"name": name, "url": url, "priority": "explicit"})
        if kept and not kept[-1].as_string().endswith("\n\n"):
            table.trivia.indent = "\n"  # a blank line after the source before it
        kept.append(table)
    if existing is not None:
        existing.clear()
        existing.extend(kept)
        if not kept:
            del poetry["source"]
    elif kept:
        sources = tomlkit.aot()
        sources.extend(kept)
        poetry["source"] = sources


def _managed_group(poetry: Any) -> Any:
    """The managed group, if there is one; a group of that name without the marker is refused."""
    group = pyproject_edit.mapping(poetry, "group", "tool.poetry.group").get(MANAGED_GROUP)
    if group is not None and not pyproject_edit.has_comment(group, MARKER):
        raise ConfigError(
            f"[{GROUP}] is not the group poetry-cuda writes: it lacks the line `{MARKER}`",
            why="poetry-cuda rewrites that group whole on every lock, and would drop "
            "what you put in it",
            fix=f"move your dependencies to a group of another name and delete [{GROUP}]; "
            "poetry-cuda then writes its own",
        )
    return group


def apply(document: TOMLDocument, managed: Managed, previous: Collection[str]) -> None:
    """Rewrite the managed entries of `document` in place.

    A source is poetry-cuda's only when pyproject.toml itself says so: explicit, with a
    name and URL poetry-cuda produces (`is_our_source`); the group only with its marker
    comment. `previous` (cuda.lock's managed-sources) says which of ours to drop when the
    plan no longer needs them; any other entry it or the plan names is a conflict.
    """
    found = _read_poetry(document)
    _check_user_pins(found, managed)
    group = _managed_group(found)
    names = {entry.get("name") for entry in pyproject_edit.entries(found, "source", SOURCES)}
    if not managed.sources and not managed.pins and group is None and not names & {*previous}:
        return  # nothing of ours to write or remove: the layout is the user's business
    poetry = _poetry_table(document)
    _apply_sources(poetry, dict(managed.sources), previous)

    if not managed.pins:
        if group is not None:
            groups = poetry["group"]
            del groups[MANAGED_GROUP]
            if not groups:
                del poetry["group"]
        return
    groups = pyproject_edit.table(poetry, "group", "tool.poetry.group")
    group = tomlkit.table()
    group.add(tomlkit.comment(GROUP_COMMENT))
    group.add("optional", True)
    dependencies = tomlkit.table()
    for pin in managed.pins:
        entry = tomlkit.inline_table()
        entry["version"] = pin.version
        if pin.source is not None:
            entry["source"] = pin.source
        entry["markers"] = CUDA_PLATFORMS
        dependencies.add(pin.package, entry)
    dependencies.add(tomlkit.nl())  # a blank line before whatever table follows
    group.add("dependencies", dependencies)
    groups[MANAGED_GROUP] = group


def add_pins(text: str, pins: Iterable[Pin]) -> str:
    """pyproject.toml's text with `pins` added to the managed group, the rest untouched.

    Used before `poetry add`, so the package is resolved and installed from its family's
    source at once; the lock that follows rewrites the whole group from the plan, and
    reports whatever keeps it from doing so (here, the text is then left as it is).
    """
    try:
        document = pyproject_edit.parse(text)
        group = _managed_group(_read_poetry(document))
        if group is None:
            return text
        dependencies = pyproject_edit.table(group, "dependencies", f"{GROUP}.dependencies")
        for pin in pins:
            if pin.package not in dependencies:
                entry = tomlkit.inline_table()
                entry.update(
                    {"version": pin.version, "source": pin.source, "markers": CUDA_PLATFORMS}
                )
                dependencies.add(pin.package, entry)
        return pyproject_edit.render(document, GROUP)
    except (PoetryCudaError, *pyproject_edit.EDIT_ERRORS):
        return text


def rewrite(text: str, managed: Managed, previous: Collection[str]) -> str:
    """pyproject.toml's text with the managed entries rewritten; `text` if nothing changes."""
    document = pyproject_edit.parse(text)
    try:
        apply(document, managed, previous)
    except pyproject_edit.EDIT_ERRORS as error:
        raise pyproject_edit.layout_error("tool.poetry", str(error)) from None
    result = pyproject_edit.render(document, "tool.poetry")
    if result.endswith("\n\n") and not text.endswith("\n\n"):
        result = result.rstrip("\n") + "\n"  # the managed group came last
    if result == text:
        return text
    # Only layout changed (tomlkit's own spelling of what was there): keep the user's bytes.
    return text if tomlkit.parse(result) == tomlkit.parse(text) else result
