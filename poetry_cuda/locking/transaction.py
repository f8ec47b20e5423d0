"""Edits of a project's files that either complete or are undone, one run at a time.

`lock` edits three files that belong to the user (pyproject.toml, the package manager's
lock file, cuda.lock), and the plugin edits them again inside `poetry add`. Three rules
make that as safe as the package managers' own writes:

* **One run per project.** An OS advisory lock on the project folder itself (no file is
  added to the project) is held for the whole run; a second run waits a bounded time.
* **A journal.** Before the first write, the files' contents are saved in
  `.poetry-cuda.journal`, and before each write the journal records what is about to be
  written. A run that dies (kill -9, power loss) leaves the journal behind, and the next
  run undoes what it finds of that run's writes, or sees that it had finished.
* **Undo only what is ours.** A file is put back only while it holds exactly what this run
  wrote (or what the package manager wrote while it ran): an edit the user saved
  meanwhile is kept, and the report says so. Undoing is atomic, shielded from further
  signals, and checked by reading each file back.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import sys
import time

from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import ProjectBusyError
from poetry_cuda.files import adopt_owner
from poetry_cuda.files import check_toml
from poetry_cuda.files import encode_like
from poetry_cuda.files import read_bounded
from poetry_cuda.files import replace_bytes
from poetry_cuda.files import try_lock
from poetry_cuda.files import write_atomic
from poetry_cuda.locking.interrupts import Interrupted
from poetry_cuda.locking.interrupts import deferred
from poetry_cuda.locking.interrupts import held
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterable
    from collections.abc import Iterator
    from collections.abc import Mapping
    from collections.abc import Sequence


JOURNAL = ".poetry-cuda.journal"
WAIT_VARIABLE = "POETRY_CUDA_LOCK_TIMEOUT"
DEFAULT_WAIT = 120.0  # seconds: longer than a warm lock, short enough to notice a stuck run
JOURNAL_LIMIT = 256 * 1024 * 1024  # snapshots of a few lock files of some MiB each
_POLL = 0.05


# -- one run per project ---------------------------------------------------------------


_held: set[str] = set()  # real paths of the projects this process holds


def wait_limit(environ: Mapping[str, str]) -> float:
    """How long a run waits for another one on the same project (POETRY_CUDA_LOCK_TIMEOUT)."""
    text = environ.get(WAIT_VARIABLE, "").strip()
    if not text:
        return DEFAULT_WAIT
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= 24 * 3600:
        raise ConfigError(
            f"{WAIT_VARIABLE}={text!r} is not a number of seconds",
            why="it says how long to wait for another poetry-cuda run on the same project",
            fix=f"set {WAIT_VARIABLE} to a number from 0 to 86400, or unset it",
        )
    return seconds


@contextmanager
def exclusive(project: Path, notify: Callable[[str], None]) -> Iterator[None]:
    """Hold the project's advisory lock for the block; re-entrant within one process.

    The lock is taken on the folder itself, so nothing is added to the project, and the
    operating system releases it when the process ends, however it ends.
    """
    key = str(project.resolve())
    if key in _held:  # an outer block holds it, and releases it
        yield
        return
    descriptor = _acquire(project, key, notify)
    _held.add(key)
    try:
        yield
    finally:
        _held.discard(key)
        os.close(descriptor)  # closing the descriptor releases the lock


def _acquire(project: Path, key: str, notify: Callable[[str], None]) -> int:
    descriptor = _open_lock(project, key)
    limit = wait_limit(os.environ)
    deadline = time.monotonic() + limit
    told = False
    try:
        while not try_lock(descriptor):
            if time.monotonic() >= deadline:
                raise ProjectBusyError(
                    f"another poetry-cuda run is changing {project} and did not finish "
                    f"within {limit:g} s",
                    why="two runs editing pyproject.toml and the lock files at once would "
                    "mix their results",
                    fix="wait for the other run (another terminal, an editor's task, a "
                    f"`poetry add`) to finish, then run this again; set {WAIT_VARIABLE} "
                    "(seconds) to wait longer",
                )
            if not told:
                notify(f"Waiting for another poetry-cuda run on {project} (up to {limit:g} s)…")
                told = True
            time.sleep(_POLL)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import tempfile

    def _open_lock(project: Path, key: str) -> int:
        # Windows cannot lock a folder: a byte of a file outside the project stands in.
        digest = hashlib.sha256(key.lower().encode()).hexdigest()[:24]
        path = Path(tempfile.gettempdir()) / f"poetry-cuda-{digest}.lock"
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o666)

else:

    def _open_lock(project: Path, key: str) -> int:
        try:
            return os.open(project, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except OSError as error:
            raise InputFileError(
                f"{project}: cannot open the project folder ({error.strerror or error})",
                fix="make the folder readable",
            ) from None


# -- the journal -----------------------------------------------------------------------


def _digest(data: bytes | None) -> str:
    return "absent" if data is None else hashlib.sha256(data).hexdigest()


def _current(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


@dataclass
class _File:
    name: str  # relative to the project
    before: bytes | None
    ours: set[str] = field(default_factory=set)  # digests of what this run wrote
    tool_writing: bool = False  # the package manager may be writing it right now

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "before": None if self.before is None else base64.b64encode(self.before).decode(),
            "ours": sorted(self.ours),
            "tool-writing": self.tool_writing,
        }


@frozen
class Undo:
    """What undoing a run did, file by file; each claim checked by reading the file back."""

    restored: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()  # changed by someone else since this run wrote it
    failed: tuple[str, ...] = ()  # "name (why)"

    def lines(self) -> list[str]:
        back = (*self.restored, *self.unchanged)
        lines = []
        if back:
            verb = "is" if len(back) == 1 else "are"
            restored = f" (restored: {_join(self.restored)})" if self.restored else ""
            lines.append(f"{_join(back)} {verb} as before{restored}")
        if self.kept:
            lines.append(
                f"kept {_join(self.kept)} as {'it is' if len(self.kept) == 1 else 'they are'}: "
                "changed by someone else during the run; review the managed entries"
            )
        if self.failed:
            lines.append(f"could not restore {_join(self.failed)}")
        return lines


def _join(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


class Transaction:
    """Journaled edits of files inside `project`; see the module's docstring."""

    def __init__(self, project: Path, names: Sequence[str]) -> None:
        self.project = project
        self.journal = project / JOURNAL
        self.files = {name: _File(name, _current(project / name)) for name in names}
        self._flush(state="running")

    def write(self, name: str, content: str) -> None:
        """Write `content` to the file (atomically), recorded in the journal first."""
        path = self.project / name
        check_toml(path, content)  # every file a run edits is TOML
        with deferred():
            data = encode_like(path, content)  # in the file's own line endings
            self.files[name].ours.add(_digest(data))
            self._flush(state="running")
            replace_bytes(path, data)

    def expect_writes(self, *names: str) -> None:
        """The package manager is about to write these files: what it leaves is ours."""
        with deferred():
            for name in names:
                self.files[name].tool_writing = True
            self._flush(state="running")

    def writes_done(self, *names: str) -> None:
        """The package manager has finished writing these files."""
        with deferred():
            for name in names:
                adopt_owner(self.project / name)  # one it created, run by root
                self.files[name].ours.add(_digest(_current(self.project / name)))
                self.files[name].tool_writing = False
            self._flush(state="running")

    @contextmanager
    def tool_writes(self, *names: str) -> Iterator[None]:
        """The package manager writes these files within the block."""
        self.expect_writes(*names)
        yield
        self.writes_done(*names)

    def commit(self) -> None:
        with deferred():
            self._flush(state="done")
            self.journal.unlink(missing_ok=True)

    def undo(self) -> tuple[Undo, list[int]]:
        """Undo what is still ours; also the signals that arrived meanwhile (held off)."""
        with held() as signals:
            undo = _undo(self.project, self.files.values())
            self.journal.unlink(missing_ok=True)
        return undo, signals

    def _flush(self, state: str) -> None:
        document = {
            "poetry-cuda-journal": 1,
            "pid": os.getpid(),
            "state": state,
            "files": [f.to_json() for f in self.files.values()],
        }
        write_atomic(self.journal, json.dumps(document, indent=1) + "\n")


@contextmanager
def transaction(
    project: Path, names: Sequence[str], notify: Callable[[str], None]
) -> Iterator[Transaction]:
    """Run the block's edits as one transaction: undone (what is still ours) on any failure."""
    edits: Transaction | None = None
    try:
        with deferred():  # a signal here arrives once the journal is whole, then undoes it
            edits = Transaction(project, names)
        yield edits
    except BaseException as error:
        if edits is None:  # the journal could not be written: nothing was changed
            raise
        undo, signals = edits.undo()
        for number, line in enumerate(undo.lines()):
            notify(
                f"The run did not finish: {line}."
                if number == 0
                else f"{line[:1].upper()}{line[1:]}."
            )
        if signals and not isinstance(error, Interrupted):
            raise Interrupted(signals[0]) from error  # stopped by the user while undoing
        raise
    edits.commit()


def _undo(project: Path, files: Iterable[_File]) -> Undo:
    restored: list[str] = []
    unchanged: list[str] = []
    kept: list[str] = []
    failed: list[str] = []
    for item in files:
        path = project / item.name
        now = _current(path)
        if now == item.before:
            unchanged.append(item.name)
            continue
        if not (item.tool_writing or _digest(now) in item.ours):
            kept.append(item.name)
            continue
        try:
            if item.before is None:
                path.unlink(missing_ok=True)
            else:
                replace_bytes(path, item.before)
        except (OSError, InputFileError) as error:
            failed.append(f"{item.name} ({getattr(error, 'what', None) or error})")
            continue
        if _current(path) == item.before:
            restored.append(item.name)
        else:
            failed.append(f"{item.name} (it does not read back as before)")
    return Undo(tuple(restored), tuple(unchanged), tuple(kept), tuple(failed))


# -- recovering from a run that died ---------------------------------------------------


@frozen
class Recovery:
    """What was found of a run that died, and what was done about it."""

    pid: int
    finished: bool
    undo: Undo

    def lines(self) -> list[str]:
        if self.finished:
            return [f"A previous run (process {self.pid}) had finished; removed its journal."]
        return [
            (f"A previous run (process {self.pid}) stopped before it finished; undid its changes:"),
            *(f"  {line}" for line in self.undo.lines()),
        ]


@contextmanager
def session(project: Path, notify: Callable[[str], None]) -> Iterator[None]:
    """Hold the project for one run, first undoing what a run that died left behind."""
    with exclusive(project, notify):
        recovery = recover(project)
        for line in recovery.lines() if recovery else ():
            notify(line)
        yield


def pending(project: Path) -> bool:
    """Whether a run that died left its journal in `project`."""
    return (project / JOURNAL).is_file()


def recover(project: Path) -> Recovery | None:
    """Undo (or finish) what a run that died left; call only while holding `exclusive`."""
    path = project / JOURNAL
    if not path.exists():
        return None
    document, files = _read_journal(path)
    with deferred():
        finished = document["state"] == "done"
        undo = Undo() if finished else _undo(project, files)
        path.unlink(missing_ok=True)
    return Recovery(int(document["pid"]), finished, undo)


def _read_journal(path: Path) -> tuple[dict[str, Any], list[_File]]:
    def bad(why: str) -> InputFileError:
        return InputFileError(
            f"{path}: the journal of an unfinished run cannot be read ({why})",
            why="poetry-cuda undoes an unfinished run only from a complete journal",
            fix=f"check pyproject.toml and the lock files by hand (git diff), then delete {path}",
        )

    try:
        document = json.loads(read_bounded(path, limit=JOURNAL_LIMIT).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise bad(error.__class__.__name__) from None
    if not isinstance(document, dict) or document.get("poetry-cuda-journal") != 1:
        raise bad("not a poetry-cuda journal of version 1")
    if document.get("state") not in ("running", "done") or not isinstance(document.get("pid"), int):
        raise bad("no state or process")
    files = []
    for entry in document.get("files", []):
        try:
            name = entry["name"]
            # Only the files a run edits: a journal cannot point outside the project.
            if not isinstance(name, str) or "/" in name or "\\" in name or name in ("", ".", ".."):
                raise bad(f"a file name {name!r}")
            before = entry["before"]
            files.append(
                _File(
                    name,
                    None if before is None else base64.b64decode(before, validate=True),
                    {str(d) for d in entry["ours"]},
                    bool(entry["tool-writing"]),
                )
            )
        except (KeyError, TypeError, binascii.Error):
            raise bad("a file entry") from None
    return document, files
