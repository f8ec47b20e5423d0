"""The uv backend: uv's configuration in pyproject.toml, the real `uv lock`, uv.lock.

uv has no plugin API, so poetry-cuda writes what uv's PyTorch guide has a user write,
and runs uv itself. It owns three kinds of entries in pyproject.toml:

- the `[[tool.uv.index]]` entries it lists in cuda.lock, each `explicit = true`, so
  uv takes only the packages pinned to them from them;
- the `[tool.uv.sources]` entries that pin each CUDA-flavoured package to its index on
  Linux and Windows (other platforms keep the default index, PyPI);
- the dependency group `[dependency-groups] poetry-cuda`, because uv applies a source
  only to the packages the project itself requires: without it torch under torchvision
  would come from PyPI. uv installs only its `default-groups` (`dev` unless set), so
  the group changes what is locked, not what `uv sync` installs.

Everything else keeps its bytes, and an unchanged plan gives an unchanged file.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from urllib.parse import unquote

import tomlkit

from packaging.utils import canonicalize_name
from tomlkit.items import Array

from poetry_cuda.backends import LockedEntry
from poetry_cuda.backends import foreign_entry
from poetry_cuda.backends import lockfile_problem
from poetry_cuda.backends import packages
from poetry_cuda.backends import pyproject_edit
from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import ResolutionError
from poetry_cuda.errors import UsageError
from poetry_cuda.files import read_toml_once
from poetry_cuda.locking.managed import CUDA_PLATFORMS
from poetry_cuda.locking.managed import is_our_source
from poetry_cuda.request.dependencies import MANAGED_GROUP


if TYPE_CHECKING:
    from collections.abc import Collection
    from collections.abc import Mapping

    from tomlkit.toml_document import TOMLDocument

    from poetry_cuda.locking.managed import Managed


UV_ENV = "POETRY_CUDA_UV"  # the uv executable to run, where it is not the one found
# 0.5.0 lets `torch==2.5.1` match `2.5.1+cu124` on an index that has no plain 2.5.1
# (PEP 440 local versions); named explicit indexes came in 0.4.23, groups in 0.4.27.
MIN_VERSION = (0, 5, 0)
VERSION_TIMEOUT = 30.0
LOCK_TIMEOUT = 1800.0
GROUP_COMMENT = "# Managed by poetry-cuda: `poetry-cuda lock` rewrites this group."
_VERSION = re.compile(r"uv (\d+)\.(\d+)\.(\d+)")
_PYPI_HOSTS = ("pypi.org", "files.pythonhosted.org")


class UvBackend:
    name = "uv"
    lockfile = "uv.lock"

    def rewrite(self, text: str, managed: Managed, previous: Collection[str]) -> str:
        return rewrite(text, managed, previous)

    def prepare(self, project: Path, dropped: Collection[str]) -> None:
        # uv notices on its own that an index left pyproject.toml and resolves the
        # packages locked from it anew; every other package keeps its version.
        return

    def run_lock(self, project: Path, *, regenerate: bool) -> None:
        run_lock(find_uv(os.environ), project, regenerate=regenerate)

    def locked(self, project: Path, name: str) -> list[LockedEntry]:
        path = project / self.lockfile
        if not path.is_file():
            return []
        default = default_index(read_toml_once(project / "pyproject.toml"), os.environ)
        wanted = canonicalize_name(name)
        return [
            _entry(package, default)
            for package in packages(path)
            if canonicalize_name(str(package.get("name", ""))) == wanted
        ]

    def lockfile_problem(self, project: Path) -> str | None:
        return lockfile_problem(project / self.lockfile, "version")

    def environment(self, project: Path, environ: Mapping[str, str]) -> Path | None:
        return environment(project, environ)


def find_uv(environ: Mapping[str, str]) -> str:
    """The uv to run: `POETRY_CUDA_UV`, else the `uv` Python package's, else uv on PATH."""
    configured = environ.get(UV_ENV)
    if configured:
        found = shutil.which(configured, path=environ.get("PATH"))
        if found is None:
            raise UsageError(
                f"{UV_ENV}={configured} is not an executable uv",
                why="poetry-cuda runs that uv to lock uv projects",
                fix=f"point {UV_ENV} at the uv executable, or unset it to use the uv on PATH",
            )
        return str(Path(found).absolute())
    try:
        import uv

        return str(Path(uv.find_uv_bin()).absolute())
    except (ImportError, FileNotFoundError):
        pass
    found = shutil.which("uv", path=environ.get("PATH"))
    if found is None:
        raise UsageError(
            "uv is not installed: no `uv` Python package and no uv on PATH",
            why="poetry-cuda runs `uv lock` to lock uv projects",
            fix=f"install uv (e.g. `pipx install uv`), or set {UV_ENV} to its path",
        )
    return str(Path(found).absolute())


def check_version(uv: str) -> tuple[int, ...]:
    """uv's version; raises UsageError when it cannot run or is older than MIN_VERSION."""
    try:
        completed = subprocess.run(
            [uv, "--version"],
            capture_output=True,
            encoding="utf-8",
            errors="replace",
            timeout=VERSION_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise UsageError(
            f"cannot run {uv} --version ({error.__class__.__name__}: {error})",
            fix=f"reinstall uv, or set {UV_ENV} to a working uv",
        ) from None
    match = _VERSION.match(completed.stdout.strip())
    if completed.returncode != 0 or match is None:
        printed = (completed.stdout + completed.stderr).strip()
        raise UsageError(
            f"{uv} --version printed {printed!r}, not a uv version",
            fix=f"reinstall uv, or set {UV_ENV} to a working uv",
        )
    version = tuple(int(part) for part in match.groups())
    if version < MIN_VERSION:
        minimum = ".".join(map(str, MIN_VERSION))
        raise UsageError(
            f"uv {'.'.join(map(str, version))} ({uv}) is too old: poetry-cuda needs uv {minimum} "
            "or newer",
            why=f"uv before {minimum} cannot match torch==2.5.1 with 2.5.1+cu124, the form "
            "PyTorch's indexes publish",
            fix="upgrade uv (`uv self update`, or `pip install -U uv`)",
        )
    return version


def run_lock(uv: str, project: Path, *, regenerate: bool) -> None:
    """Run `uv lock` in `project`; raises ResolutionError with uv's message."""
    check_version(uv)
    # --upgrade: resolve every package anew, as Poetry's `lock --regenerate` does.
    argv = [uv, "lock", "--color", "never", *(["--upgrade"] if regenerate else [])]
    try:
        completed = subprocess.run(
            argv,
            cwd=project,
            capture_output=True,
            encoding="utf-8",
            errors="replace",  # uv's messages are UTF-8, but a wrapper's may be anything
            timeout=LOCK_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ResolutionError(
            f"`uv lock` did not finish within {LOCK_TIMEOUT:.0f} seconds",
            why="an index may be unreachable or very slow",
            fix="check the indexes in pyproject.toml, then run `poetry-cuda lock` again",
        ) from None
    if completed.returncode != 0:
        raise ResolutionError(
            "uv's resolution failed:\n" + (completed.stderr or completed.stdout).strip(),
            why="uv could not lock the project with the chosen CUDA indexes",
            fix="read uv's message above; `poetry-cuda plan` shows what was chosen",
        )


def default_index(pyproject: Mapping[str, Any], environ: Mapping[str, str]) -> str | None:
    """The index uv uses in PyPI's place, if the project or environment sets one."""
    uv = pyproject.get("tool", {}).get("uv", {})
    for index in uv.get("index", []):
        if index.get("default") is True and isinstance(index.get("url"), str):
            return str(index["url"])
    configured = environ.get("UV_DEFAULT_INDEX") or environ.get("UV_INDEX_URL")
    legacy = uv.get("index-url")
    return configured or (legacy if isinstance(legacy, str) else None)


def _entry(package: Mapping[str, Any], default: str | None) -> LockedEntry:
    registry = (package.get("source") or {}).get("registry")
    url = str(registry) if registry is not None else None
    if url is not None and (_is_pypi(url) or _same_url(url, default)):
        url = None  # PyPI, or the index that stands in for it
    artifacts = [*package.get("wheels", []), package.get("sdist") or {}]
    return LockedEntry(
        version=str(package.get("version")),
        source_name=None,  # uv.lock records the index's URL only
        source_url=url,
        files=tuple(unquote(str(a["url"]).rsplit("/", 1)[-1]) for a in artifacts if "url" in a),
        dependencies=tuple(
            (str(d["name"]), f"=={d['version']}" if "version" in d else "*")
            for d in package.get("dependencies", [])
        ),
    )


def _is_pypi(url: str) -> bool:
    return any(host in url for host in _PYPI_HOSTS)


def _same_url(url: str, other: str | None) -> bool:
    return other is not None and url.rstrip("/") == other.rstrip("/")


def environment(project: Path, environ: Mapping[str, str]) -> Path | None:
    """The environment uv syncs for `project`: `UV_PROJECT_ENVIRONMENT`, else `.venv`.

    uv ignores an active VIRTUAL_ENV for project commands, and so does this.
    """
    configured = environ.get("UV_PROJECT_ENVIRONMENT")
    path = project / configured if configured else project / ".venv"  # absolute wins
    return path if path.is_dir() else None


INDEXES = "tool.uv.index"


def _is_ours(entry: Any) -> bool:
    """A `[[tool.uv.index]]` entry exactly as poetry-cuda writes it."""
    return is_our_source(entry.get("name"), entry.get("url")) and entry.get("explicit") is True


def _apply_indexes(uv: Any, wanted: dict[str, str], previous: Collection[str]) -> None:
    """Keep every user index; add the managed ones, drop those the plan no longer needs."""
    current = pyproject_edit.entries(uv, "index", INDEXES)
    dropped = set()
    for entry in current:
        name = entry.get("name")
        if name in wanted:
            url = wanted[name]
            if not _is_ours(entry):
                explicit = "" if entry.get("explicit") is True else ", not explicit"
                raise ConfigError(
                    f"[[tool.uv.index]] {name!r} already exists with url = "
                    f"{entry.get('url')!r}{explicit}",
                    why=f"poetry-cuda needs {name!r} to be the explicit index {url}",
                    fix=f"rename or remove your index {name!r}",
                )
            del wanted[name]
        elif name in previous:
            if not _is_ours(entry):
                raise foreign_entry("[[tool.uv.index]]", name, entry.get("url"))
            dropped.add(name)  # an index an earlier plan needed and this one does not
    existing = uv.get("index")
    if not dropped and not wanted:
        return
    if isinstance(existing, Array):  # `index = [{ ... }]`: ours are written inline too
        pyproject_edit.edit_inline_array(
            existing,
            lambda entry: entry.get("name") in dropped,
            [
                f"{{ name = {_string(name)}, url = {_string(url)}, explicit = true }}"
                for name, url in wanted.items()
            ],
        )
        if not existing:
            del uv["index"]
        return
    kept = [entry for entry in current if entry.get("name") not in dropped]
    for name, url in wanted.items():
        table = tomlkit.table()
        table.update({"name": name, "url": url, "explicit": True})
        table.add(tomlkit.nl())
        if kept and not kept[-1].as_string().endswith("\n\n"):
            table.trivia.indent = "\n"  # a blank line after the index before it
        kept.append(table)
    if existing is not None:
        existing.clear()
        existing.extend(kept)
        if not kept:
            del uv["index"]
    else:
        indexes = tomlkit.aot()
        indexes.extend(kept)
        uv["index"] = indexes


def _plain(value: Any) -> Any:
    return value.unwrap() if hasattr(value, "unwrap") else value


def _is_managed_source(value: Any, ours: Collection[str]) -> bool:
    """A `[tool.uv.sources]` value poetry-cuda wrote: one of our indexes, on the CUDA platforms.

    `ours` are the indexes pyproject.toml itself shows to be poetry-cuda's.
    """
    value = _plain(value)
    return (
        isinstance(value, list)
        and len(value) == 1
        and isinstance(value[0], dict)
        and set(value[0]) == {"index", "marker"}
        and value[0]["marker"] == CUDA_PLATFORMS
        and value[0]["index"] in ours
    )


def _apply_sources(uv: Any, managed: Managed, ours: Collection[str]) -> None:
    pinned = {pin.package: pin.source for pin in managed.pins if pin.source is not None}
    urls = dict(managed.sources)
    found = pyproject_edit.mapping(uv, "sources", "tool.uv.sources")
    for key in list(found):
        name = canonicalize_name(key)
        value = found[key]
        if _is_managed_source(value, ours):
            if name not in pinned:
                del uv["sources"][key]  # a package an earlier plan pinned and this one does not
        elif name in pinned:
            wanted = pinned[name]
            raise ConfigError(
                f"[tool.uv.sources] {key} = {_toml(value)} is your own source, but the plan puts "
                f"{name} on {wanted!r} ({urls[wanted]})",
                why="poetry-cuda pins CUDA-flavoured packages to the chosen index itself, and "
                "will not override a source you set",
                fix=f"remove {key} from [tool.uv.sources] (poetry-cuda manages it), or remove "
                'the package\'s CUDA choice with cuda = "cpu"',
            )
    sources = uv.get("sources")
    if not pinned:
        if sources is not None and not sources:
            del uv["sources"]
        return
    created = sources is None
    if sources is None:
        sources = tomlkit.table()
    for package, index in pinned.items():
        value = pyproject_edit.value(
            f"[{{ index = {_string(index)}, marker = {_string(CUDA_PLATFORMS)} }}]"
        )
        key = next((k for k in sources if canonicalize_name(k) == package), package)
        if _plain(sources.get(key)) != _plain(value):
            sources[key] = value
    if created:
        sources.add(tomlkit.nl())
        uv["sources"] = sources


def _managed_group(document: TOMLDocument) -> Any:
    """The managed dependency group, if any; one of that name without the marker is refused."""
    groups = pyproject_edit.mapping(document, "dependency-groups", "dependency-groups")
    group = groups.get(MANAGED_GROUP)
    if group is not None and not pyproject_edit.has_comment(group, GROUP_COMMENT):
        raise ConfigError(
            f"[dependency-groups] {MANAGED_GROUP} is not the group poetry-cuda writes: it lacks "
            f"the line `{GROUP_COMMENT}`",
            why="poetry-cuda rewrites that group whole on every lock, and would drop what you "
            "put in it",
            fix=f"move your requirements to a group of another name and delete "
            f"{MANAGED_GROUP} from [dependency-groups]; poetry-cuda then writes its own",
        )
    return group


def _apply_group(document: TOMLDocument, managed: Managed, group: Any) -> None:
    if not managed.pins:
        if group is not None:
            groups = document["dependency-groups"]
            del groups[MANAGED_GROUP]
            if not groups:
                del document["dependency-groups"]
        return
    requirements = [
        f"{pin.package}{'' if pin.version == '*' else pin.version}; {CUDA_PLATFORMS}"
        for pin in managed.pins
    ]
    if group is not None and _plain(group) == requirements:
        return
    lines = "".join(f"    {_string(r)},\n" for r in requirements)
    array = pyproject_edit.value(f"[\n    {GROUP_COMMENT}\n{lines}]")
    groups = document.get("dependency-groups")
    if groups is None:
        groups = tomlkit.table()
        document["dependency-groups"] = groups
    groups[MANAGED_GROUP] = array


def _string(text: str) -> str:
    return pyproject_edit.string(text)


def _toml(value: Any) -> str:
    return value.as_string() if hasattr(value, "as_string") else repr(value)


def apply(document: TOMLDocument, managed: Managed, previous: Collection[str]) -> None:
    """Rewrite the managed entries of `document` in place.

    An index is poetry-cuda's only when pyproject.toml itself says so: explicit, with a
    name and URL poetry-cuda produces (`is_our_source`); a source only when it pins a
    package to such an index on the CUDA platforms, as poetry-cuda writes it; the group
    only with its marker comment. `previous` (cuda.lock's managed-sources) says which
    indexes of ours to drop when the plan no longer needs them; any other entry it or the
    plan names is a conflict.
    """
    wanted = dict(managed.sources)
    group = _managed_group(document)
    found = pyproject_edit.mapping(
        pyproject_edit.mapping(document, "tool", "tool"), "uv", "tool.uv"
    )
    indexes = pyproject_edit.entries(found, "index", INDEXES)
    ours = {*wanted, *(entry.get("name") for entry in indexes if _is_ours(entry))}
    sources = pyproject_edit.mapping(found, "sources", "tool.uv.sources").values()
    if (
        wanted
        or any(entry.get("name") in previous for entry in indexes)
        or any(_is_managed_source(value, ours) for value in sources)
    ):  # otherwise nothing of ours is there to change, whatever the layout
        uv = pyproject_edit.table(pyproject_edit.table(document, "tool", "tool"), "uv", "tool.uv")
        _apply_indexes(uv, wanted, previous)
        _apply_sources(uv, managed, ours)
    _apply_group(document, managed, group)


def rewrite(text: str, managed: Managed, previous: Collection[str]) -> str:
    """pyproject.toml's text with the managed entries rewritten; `text` if nothing changes."""
    document = pyproject_edit.parse(text)
    try:
        apply(document, managed, previous)
    except pyproject_edit.EDIT_ERRORS as error:
        raise pyproject_edit.layout_error("tool.uv", str(error)) from None
    result = pyproject_edit.render(document, "tool.uv")
    if text.endswith("\n") and not text.endswith("\n\n"):
        result = result.rstrip("\n") + "\n"  # a table added or dropped at the end leaves a blank
    if result == text:
        return text
    # Only layout changed (tomlkit's own spelling of what was there): keep the user's bytes.
    return text if tomlkit.parse(result) == tomlkit.parse(text) else result
