"""The uv backend's runner: the real `uv lock`, uv.lock and the environment uv syncs.

uv has no plugin API: poetry-cuda writes uv's own configuration (`editor`) and runs
uv itself.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import subprocess
import tempfile

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from urllib.parse import unquote

from poetry_cuda import lazy
from poetry_cuda.backends.base import InstallCommand
from poetry_cuda.backends.base import LockedEntry
from poetry_cuda.backends.base import Unreachable
from poetry_cuda.backends.base import lock_failed
from poetry_cuda.backends.base import packages
from poetry_cuda.backends.base import run_install
from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.errors import ResolutionError
from poetry_cuda.errors import UsageError
from poetry_cuda.files import parse_toml
from poetry_cuda.files import read_toml_once
from poetry_cuda.files import replace_bytes
from poetry_cuda.messages import message
from poetry_cuda.names import canonical_name
from poetry_cuda.request.user_mirrors import user_mirrors
from poetry_cuda.request.user_mirrors import variable


if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence

    from poetry_cuda.backends.base import Ahead


UV_ENV = "POETRY_CUDA_UV"  # the uv executable to run, where it is not the one found
# 0.5.0 lets `torch==2.5.1` match `2.5.1+cu124` on an index that has no plain 2.5.1
# (PEP 440 local versions); named explicit indexes came in 0.4.23, groups in 0.4.27.
MIN_VERSION = (0, 5, 0)
VERSION_TIMEOUT = 30.0
LOCK_TIMEOUT = 1800.0
_VERSION = re.compile(r"uv (\d+)\.(\d+)\.(\d+)")
_PYPI_HOSTS = ("pypi.org", "files.pythonhosted.org")


# The tool's words for an index it could not reach (a refused or timed-out connection, a
# name that does not resolve, an error status), as against a resolution that found no fit.
UNREACHABLE = re.compile(
    r"Failed to fetch|error sending request|Connection refused|tcp connect error|dns error|"
    r"timed out|status (?:client|server) error"
)


LOCKFILE = "uv.lock"


def locked(project: Path, name: str) -> list[LockedEntry]:
    """Every entry of package `name` in uv.lock (empty when there is none)."""
    path = project / LOCKFILE
    if not path.is_file():
        return []
    default = default_index(read_toml_once(project / "pyproject.toml"), os.environ)
    wanted = canonical_name(name)
    return [
        _entry(package, default)
        for package in packages(path)
        if canonical_name(str(package.get("name", ""))) == wanted
    ]


def outdated_offline(project: Path) -> str | None:
    """`outdated` offline, with what uv.lock and uv's cache hold; None where uv cannot say."""
    # The project's own interpreter spares uv looking for one, most of what the check
    # costs (a tenth of a second or more, where it finds many).
    root = environment(project, os.environ)
    found = [root / p for p in ("bin/python", "Scripts/python.exe")] if root else []
    python = next((str(path) for path in found if path.is_file()), None)
    try:
        return outdated(find_uv(os.environ), project, offline=True, python=python)
    except PoetryCudaError:  # no uv, one too old, or one that does not answer in time
        return None


def install_command(extras: Sequence[str], groups: Sequence[str]) -> InstallCommand:
    """`uv sync --locked` with `extras` and `groups`."""
    # --locked: install uv.lock as it is, and fail where it no longer fits pyproject.toml.
    chosen = [a for e in extras for a in ("--extra", e)] + [
        a for g in groups for a in ("--group", g)
    ]
    return InstallCommand("uv", ("sync", "--locked", *chosen))


def install(project: Path, command: InstallCommand) -> None:
    """Run `command` (`install_command`) in `project` with the uv poetry-cuda runs."""
    refuse_user_mirrors(os.environ)
    uv = find_uv(os.environ)
    check_version(uv)
    run_install(command, [uv, *command.arguments], project)


def refuse_user_mirrors(environ: Mapping[str, str]) -> None:
    """A per-user mirror cannot work with uv without changing the team's uv.lock: refused.

    uv.lock records every index URL and file URL, and uv's own override of a named index
    (`UV_INDEX="name=url"`) makes it an ordinary index that could serve any package.
    """
    mirrors = user_mirrors(environ)
    if mirrors:
        names = ", ".join(variable(key) for key in mirrors)
        raise UsageError(
            f"{names}: a per-user mirror works with Poetry projects only, and this is a uv project",
            why="uv.lock records the URL of every index and file, so locking or installing "
            "through a mirror of your own would change the committed uv.lock for everyone; "
            "uv's own override of a named index (UV_INDEX=name=url) would also make the managed "
            "index serve any package",
            fix="set the mirror for the whole project in [tool.poetry-cuda.mirrors] (it is then "
            f"committed, and uv.lock records it), or unset {names} for this project",
        )


def has_uv() -> bool:
    """Whether a uv can be run here (`find_uv` finds one)."""
    try:
        find_uv(os.environ)
    except UsageError:
        return False
    return True


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
        return str(Path(lazy.uv().find_uv_bin()).absolute())
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


# What uv reads to lock a project on its own (no workspace, no path sources): copied as is
# into a scratch folder for a lock started ahead.
LOCK_INPUTS = ("pyproject.toml", ".python-version", "uv.toml")


class UvAhead:
    """uv's part of `lock`, started before the plan (`start_ahead`): a `uv lock --check`
    beside an existing uv.lock, or a `uv lock` in a scratch copy of the project's inputs
    without one. It never writes in the project, and is stopped at exit if unused."""

    def __init__(
        self,
        uv: str,
        project: Path,
        process: subprocess.Popen[bytes],
        inputs: dict[str, bytes | None],
        scratch: tempfile.TemporaryDirectory[str] | None,
    ) -> None:
        self.uv = uv
        self.project = project
        self.process = process
        self.inputs = inputs
        self.scratch = scratch
        atexit.register(self.stop)

    def answer(self, project: Path) -> int | None:
        """Its exit code, when the project's inputs are still what it started from."""
        if _inputs(project) != self.inputs:
            self.stop()
            return None
        try:
            return self.process.wait(timeout=LOCK_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.stop()
            return None

    def take(self, uv: str, project: Path) -> bool:
        """Whether uv.lock is now what `uv lock` run by `uv` in `project` would leave: the
        lock made from the same inputs elsewhere, copied in, or uv.lock found up to date.

        False where it cannot say (another uv or project, inputs the plan changed, a
        failed check): it is stopped, and the caller runs `uv lock` itself.
        """
        code = self.answer(project) if (uv, project) == (self.uv, self.project) else None
        if code != 0:
            self.stop()
            return False
        check_version(uv)
        if self.scratch is not None:  # the lock made from the same inputs elsewhere
            replace_bytes(project / "uv.lock", (Path(self.scratch.name) / "uv.lock").read_bytes())
            self.scratch.cleanup()
        atexit.unregister(self.stop)
        return True  # else uv found uv.lock up to date: `uv lock` would change nothing

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()
        if self.scratch is not None:
            self.scratch.cleanup()
        atexit.unregister(self.stop)


def start_ahead(uv: str, project: Path) -> UvAhead | None:
    """Start uv's part of `lock` now, beside the planning, for `run_lock` to use.

    Beside an existing uv.lock it is `uv lock --check`, which says whether the lock already
    fits pyproject.toml; without one, `uv lock` in a scratch folder holding a copy of the
    project's inputs (only for a project that uv locks from those alone: else None). Neither
    writes in the project. `run_lock` uses the answer only when the inputs are still byte
    for byte what it started from (the plan changed nothing), and otherwise runs `uv lock`
    itself.
    """
    try:
        inputs = _inputs(project)
        if (project / "uv.lock").is_file():
            argv, cwd, scratch = [uv, "lock", "--color", "never", "--check"], project, None
        elif _locks_alone(project, inputs):
            scratch = tempfile.TemporaryDirectory(prefix="poetry-cuda-uv-")
            for name, data in inputs.items():
                if data is not None:
                    (Path(scratch.name) / name).write_bytes(data)
            argv, cwd = [uv, "lock", "--color", "never"], Path(scratch.name)
        else:
            return None
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None  # `run_lock` runs uv itself, and says what is wrong
    return UvAhead(uv, project, process, inputs, scratch)


def _inputs(project: Path) -> dict[str, bytes | None]:
    return {
        name: (project / name).read_bytes() if (project / name).is_file() else None
        for name in LOCK_INPUTS
    }


def _locks_alone(project: Path, inputs: Mapping[str, bytes | None]) -> bool:
    """Whether uv locks the project from `inputs` alone, wherever they lie: no workspace
    around or in it, no source or index on a relative path, no metadata a build computes."""
    if any((folder / "pyproject.toml").is_file() for folder in project.parents):
        return False  # perhaps a workspace's member
    try:
        pyproject = parse_toml((inputs["pyproject.toml"] or b"").decode())
    except (PoetryCudaError, UnicodeDecodeError):
        return False
    table = pyproject.get("tool", {}).get("uv", {})
    metadata = pyproject.get("project", {})
    if not isinstance(table, dict) or not isinstance(metadata, dict):
        return False
    if metadata.get("dynamic") or "workspace" in table or "find-links" in table:
        return False
    sources = table.get("sources", {})
    for entries in sources.values() if isinstance(sources, dict) else [None]:
        for entry in entries if isinstance(entries, list) else [entries]:
            if not isinstance(entry, dict) or not set(entry) <= {
                "index",
                "marker",
                "extra",
                "group",
            }:
                return False
    for index in table.get("index", []):
        url = index.get("url") if isinstance(index, dict) else None
        if not isinstance(url, str) or not url.startswith(("https://", "http://")):
            return False
    return True


def run_lock(uv: str, project: Path, *, regenerate: bool, ahead: Ahead | None = None) -> None:
    """Run `uv lock` in `project`, or take what `ahead` (`start_ahead`) already made of it;
    raises ResolutionError with uv's message."""
    if ahead is not None:
        if not regenerate and ahead.take(uv, project):
            return
        ahead.stop()
    # --upgrade: resolve every package anew, as Poetry's `lock --regenerate` does.
    completed = _uv_lock(uv, project, ["--upgrade"] if regenerate else [])
    if completed.returncode != 0:
        raise lock_failed(
            project,
            message("resolution.uv-failed"),
            (completed.stderr or completed.stdout).strip(),
            (message("resolution.uv-why"), message("resolution.uv-fix")),
            Unreachable("uv", UNREACHABLE, "poetry-cuda plan"),
        )


def outdated(
    uv: str, project: Path, *, offline: bool = False, python: str | None = None
) -> str | None:
    """Why uv.lock no longer fits pyproject.toml (`uv lock --check`), if it does not.

    `offline` (doctor): with what uv.lock and uv's cache hold, never fetching, with the
    interpreter `python` if given; only uv's answer to the check (exit 1) counts then, not
    an error of the run itself (exit 2: say, an interpreter requires-python excludes).
    """
    options = [
        "--check",
        *(["--offline"] if offline else []),
        *(["--python", python] if python else []),
    ]
    completed = _uv_lock(uv, project, options)
    if completed.returncode == 0 or (offline and completed.returncode != 1):
        return None
    said = (completed.stderr or completed.stdout).strip().splitlines()
    return "uv lock --check: " + (said[-1] if said else f"exit {completed.returncode}")


def _uv_lock(uv: str, project: Path, options: list[str]) -> subprocess.CompletedProcess[str]:
    check_version(uv)
    argv = [uv, "lock", "--color", "never", *options]
    try:
        return subprocess.run(
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
            message(
                "resolution.uv-timeout", command=" ".join(argv[1:]), seconds=f"{LOCK_TIMEOUT:.0f}"
            ),
            why=message("resolution.timeout-why"),
            fix=message("resolution.timeout-fix"),
        ) from None


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
