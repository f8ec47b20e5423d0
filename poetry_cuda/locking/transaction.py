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

A clone (or a damaged disk) controls every file in the project, the journal included, so
nothing found there is trusted further than it can be checked:

* **Only the files a run edits.** A journal names pyproject.toml, poetry.lock, uv.lock or
  cuda.lock, each at most once, or it is refused whole (exit 2) and nothing is changed.
* **Links.** A file a run edits may be a regular file, or a link to an existing regular
  file (a symlinked pyproject.toml stays a link): the run that finds the link writes
  through it, and undoes through it, as long as it is still the same link. Anything else
  there (a folder, a pipe, a link to nothing) is refused before any write. Recovering from
  the journal of a dead run never follows a link: a file that is now a link is left for
  the user to check. The journal itself is never a link: it is written by renaming a
  file over it in the project folder, and one that is not a regular file is refused.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import json
import os
import re
import stat
import sys
import time

from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import Literal

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import ProjectBusyError
from poetry_cuda.files import TOML_LIMIT
from poetry_cuda.files import adopt_owner
from poetry_cuda.files import check_toml
from poetry_cuda.files import encode_like
from poetry_cuda.files import file_kind
from poetry_cuda.files import read_bounded
from poetry_cuda.files import replace_bytes
from poetry_cuda.files import try_lock
from poetry_cuda.locking.interrupts import Interrupted
from poetry_cuda.locking.interrupts import deferred
from poetry_cuda.locking.interrupts import held
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import message
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterable
    from collections.abc import Iterator
    from collections.abc import Mapping
    from collections.abc import Sequence

    from poetry_cuda.messages import Localized
    from poetry_cuda.messages import Message


JOURNAL = ".poetry-cuda.journal"
# Every file a run may edit: `lock` edits pyproject.toml, its manager's lock and cuda.lock,
# the plugin's `poetry add` pyproject.toml and poetry.lock. A journal names no other.
PYPROJECT = "pyproject.toml"
EDITED = (PYPROJECT, "poetry.lock", "uv.lock", "cuda.lock")
WAIT_VARIABLE = "POETRY_CUDA_LOCK_TIMEOUT"
DEFAULT_WAIT = 120.0  # seconds: longer than a warm lock, short enough to notice a stuck run
# Seconds a run that needs the holder's result (`sync` after a `lock`) waits: a cold lock of
# a large project resolves for minutes, and the holder is alive while it holds the lock
# (the operating system releases it when the process ends, however it ends).
RESULT_WAIT = 1800.0
JOURNAL_LIMIT = 256 * 1024 * 1024  # snapshots of a few lock files of some MiB each
_POLL = 0.05


# -- one run per project ---------------------------------------------------------------


_held: set[str] = set()  # real paths of the projects this process holds


def wait_limit(environ: Mapping[str, str], default: float = DEFAULT_WAIT) -> float:
    """How long a run waits for another one on the same project (POETRY_CUDA_LOCK_TIMEOUT,
    else `default`)."""
    text = environ.get(WAIT_VARIABLE, "").strip()
    if not text:
        return default
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
def exclusive(
    project: Path, notify: Callable[[Localized], None], *, wait: float = DEFAULT_WAIT
) -> Iterator[None]:
    """Hold the project's advisory lock for the block; re-entrant within one process.
    Another run holding it is waited for `wait` seconds (POETRY_CUDA_LOCK_TIMEOUT, when
    set, instead).

    The lock is taken on the folder itself, so nothing is added to the project, and the
    operating system releases it when the process ends, however it ends.
    """
    key = str(project.resolve())
    if key in _held:  # an outer block holds it, and releases it
        yield
        return
    descriptor = _acquire(project, key, notify, wait)
    _held.add(key)
    try:
        yield
    finally:
        _held.discard(key)
        os.close(descriptor)  # closing the descriptor releases the lock


def _acquire(project: Path, key: str, notify: Callable[[Localized], None], wait: float) -> int:
    descriptor = _open_lock(project, key)
    limit = wait_limit(os.environ, wait)
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
                notify(message("lock.waiting", project=project, limit=f"{limit:g}"))
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


# -- the files a run edits -------------------------------------------------------------


@dataclass
class _File:
    name: str  # one of EDITED
    before: bytes | None
    ours: set[str] = field(default_factory=set)  # digests of what this run wrote
    tool_writing: bool = False  # the package manager may be writing it right now
    # The real path the link at `name` led to when the run began (None: no link). Kept in
    # memory only: a journal read back never makes a run write through a link.
    link: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "before": None if self.before is None else base64.b64encode(self.before).decode(),
            "ours": sorted(self.ours),
            "tool-writing": self.tool_writing,
        }


def _digest(data: bytes | None) -> str:
    return "absent" if data is None else hashlib.sha256(data).hexdigest()


class _MovedError(Exception):
    """The file is no longer what the run found there; the text says what it is now."""


def _look(path: Path, link: str | None) -> tuple[Path, bytes | None]:
    """Where the file a run edits at `path` lies, and its bytes (None: absent).

    `link` is the target of the link the run found at `path` (None: it found none). The file
    must still be what the run found: no link where there was none, the same link where
    there was one, and a regular file (or nothing) in the end; else `_MovedError` is raised.
    """
    where = path
    if link is not None or path.is_symlink():
        if link is None:
            raise _MovedError(
                "it is a symbolic link, and only the run that found a link there writes "
                "through it; check the link and its target by hand"
            )
        if not path.is_symlink() or os.path.realpath(path) != link:
            raise _MovedError("it is no longer the symbolic link the run found; check it by hand")
        where = Path(link)
    try:
        kind = file_kind(where.lstat().st_mode)
    except FileNotFoundError:
        return where, None
    except OSError as error:
        raise _MovedError(f"it cannot be read: {error.strerror or error}") from None
    if kind is not None:
        raise _MovedError(f"it is now {kind}")
    try:
        return where, read_bounded(where, limit=TOML_LIMIT, follow_links=False)
    except InputFileError as error:
        raise _MovedError(error.what) from None


def _refused(path: Path, found: str) -> InputFileError:
    return InputFileError(
        f"{path}: {found}",
        why="poetry-cuda edits pyproject.toml and the lock files only as regular files in the "
        "project, or through a link to an existing regular file (for a lock file, one inside "
        "the project), so that no write lands anywhere else (a clone can hold any kind of "
        "file under these names)",
        fix=f"put the file itself (or a link to an existing file) at {path}, or remove what is "
        "there, then run this again",
    )


def _found(project: Path, name: str) -> _File:
    """The file `name` as a run finds it at its start; refused unless it is one to edit."""
    path = project / name
    link = None
    try:
        info = path.lstat()
    except FileNotFoundError:
        return _File(name, None)
    except OSError as error:
        raise _refused(path, f"cannot be read ({error.strerror or error})") from None
    if stat.S_ISLNK(info.st_mode):
        link = os.path.realpath(path)
        try:
            info = Path(link).lstat()
        except FileNotFoundError:
            found = f"a symbolic link to a file that does not exist ({link})"
            raise _refused(path, found) from None
        except OSError as error:
            found = f"a symbolic link that cannot be followed ({error.strerror or error})"
            raise _refused(path, found) from None
        if stat.S_ISLNK(info.st_mode):  # what realpath leaves of a loop
            raise _refused(path, "a loop of symbolic links")
        if (kind := file_kind(info.st_mode)) is not None:
            raise _refused(path, f"a symbolic link to {kind} ({link})")
        if name != PYPROJECT and not Path(link).is_relative_to(os.path.realpath(project)):
            # A shared pyproject.toml is a layout people choose; a lock file linked out of
            # the project is what a clone would use to make this run write elsewhere.
            raise _refused(path, f"a symbolic link to a file outside the project ({link})")
    elif (kind := file_kind(info.st_mode)) is not None:
        raise _refused(path, f"not a regular file but {kind}")
    where = Path(link) if link is not None else path
    return _File(name, read_bounded(where, limit=TOML_LIMIT, follow_links=False), link=link)


@frozen
class Undo:
    """What undoing a run did, file by file; each claim checked by reading the file back."""

    restored: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()  # changed by someone else since this run wrote it
    failed: tuple[str, ...] = ()  # "name (why)"

    def lines(self, *, sentences: bool = False) -> list[Message]:
        """What was undone, a line each; as `sentences`, each starts with a capital."""
        back = (*self.restored, *self.unchanged)
        lines = []
        if back:
            restored: Localized = (
                message("undo.restored", names=_join(self.restored)) if self.restored else ""
            )
            names = _join(back)
            lines.append(
                message("undo.as-before-one", names=names, restored=restored)
                if len(back) == 1
                else message("undo.as-before", names=names, restored=restored)
            )
        if self.kept:
            names = _join(self.kept)
            if len(self.kept) == 1:
                lines.append(
                    message("undo.kept-one-sentence", names=names)
                    if sentences
                    else message("undo.kept-one", names=names)
                )
            else:
                lines.append(
                    message("undo.kept-sentence", names=names)
                    if sentences
                    else message("undo.kept", names=names)
                )
        if self.failed:
            names = _join(self.failed)
            lines.append(
                message("undo.failed-sentence", names=names)
                if sentences
                else message("undo.failed", names=names)
            )
        return lines


def _join(names: Sequence[str]) -> Localized:
    if len(names) == 1:
        return names[0]
    return message("usage.and", first=", ".join(names[:-1]), last=names[-1])


class Transaction:
    """Journaled edits of files inside `project`; see the module's docstring."""

    def __init__(self, project: Path, names: Sequence[str]) -> None:
        if not set(names) <= set(EDITED) or len(set(names)) != len(names):
            raise ValueError(f"a run edits each of {', '.join(EDITED)} at most once: {names}")
        self.project = project
        self.journal = project / JOURNAL
        self.files = {name: _found(project, name) for name in names}
        self._flush(state="running")

    def write(self, name: str, content: str) -> None:
        """Write `content` to the file (atomically), recorded in the journal first."""
        path = self.project / name
        item = self.files[name]
        check_toml(path, content)  # every file a run edits is TOML
        with deferred():
            try:
                where, _ = _look(path, item.link)
            except _MovedError as moved:
                raise InputFileError(
                    f"{path}: changed during the run ({moved})",
                    why="poetry-cuda writes only to the file it found when the run began",
                    fix="run this again once nothing else changes the project's files",
                ) from None
            data = encode_like(where, content)  # in the file's own line endings
            item.ours.add(_digest(data))
            self._flush(state="running")
            replace_bytes(where, data, follow_links=False)

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
                item = self.files[name]
                adopt_owner(self.project / name)  # one it created, run by root
                # Not what the run found there (a link now): not ours, the undo says so.
                with contextlib.suppress(_MovedError):
                    item.ours.add(_digest(_look(self.project / name, item.link)[1]))
                item.tool_writing = False
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
        # Renamed over the journal's name in the project folder: a link there is replaced,
        # never written through.
        data = (json.dumps(document, indent=1) + "\n").encode()
        replace_bytes(self.journal, data, follow_links=False)


@contextmanager
def transaction(
    project: Path, names: Sequence[str], notify: Callable[[Localized], None]
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
            if number == 0:
                notify(message("undo.did-not-finish", line=line))
            else:
                notify(message("undo.sentence", line=undo.lines(sentences=True)[number]))
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
        try:
            where, now = _look(path, item.link)
        except _MovedError as moved:
            failed.append(f"{item.name} ({moved})")
            continue
        if now == item.before:
            unchanged.append(item.name)
            continue
        if not (item.tool_writing or _digest(now) in item.ours):
            kept.append(item.name)
            continue
        try:
            if item.before is None:
                where.unlink(missing_ok=True)
            else:
                replace_bytes(where, item.before, follow_links=False)
            back = _look(path, item.link)[1]
        except (OSError, InputFileError, _MovedError) as error:
            failed.append(f"{item.name} ({getattr(error, 'what', None) or error})")
            continue
        if back == item.before:
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

    def lines(self) -> list[Localized]:
        if self.finished:
            return [message("undo.previous-finished", pid=self.pid)]
        return [
            message("undo.previous-stopped", pid=self.pid),
            *(Phrase(("  ", line)) for line in self.undo.lines()),
        ]


@contextmanager
def session(project: Path, notify: Callable[[Localized], None]) -> Iterator[None]:
    """Hold the project for one run, first undoing what a run that died left behind."""
    with exclusive(project, notify):
        recovery = recover(project)
        for line in recovery.lines() if recovery else ():
            notify(line)
        yield


def run_state(project: Path) -> Literal["live", "dead"] | None:
    """Whose journal lies in `project`: a run in progress ("live": it holds the project),
    a run that died ("dead"), or none (None)."""
    if not os.path.lexists(project / JOURNAL):
        return None
    key = str(project.resolve())
    if key in _held:  # this process's own run
        return "live"
    try:
        descriptor = _open_lock(project, key)
    except InputFileError:  # `lock` says why it cannot open the folder
        return "dead"
    try:
        if not try_lock(descriptor):
            return "live"
        # No run holds the project: a journal still there (a run may have finished since
        # the look above) was left by one that died.
        return "dead" if os.path.lexists(project / JOURNAL) else None
    finally:
        os.close(descriptor)  # releases the lock, if it was taken


def recover(project: Path) -> Recovery | None:
    """Undo (or finish) what a run that died left; call only while holding `exclusive`."""
    journal = read_journal(project)
    if journal is None:
        return None
    with deferred():
        undo = Undo() if journal.finished else _undo(project, journal.files)
        (project / JOURNAL).unlink(missing_ok=True)
    return Recovery(journal.pid, journal.finished, undo)


@frozen
class Journal:
    """A journal as read back: the process that wrote it, whether that run had finished,
    and the files it edited with their contents before it."""

    pid: int
    finished: bool
    files: tuple[_File, ...]


# What a journal may hold: poetry-cuda's own writes, with room to spare.
_MAX_PID = 2**32  # process ids of Linux, macOS and Windows alike are below
_MAX_WRITES = 64  # digests of what a run wrote to one file (a few in practice)
_MAX_DIGITS = 20  # any integer above is no process id, and parsing it costs
_DIGEST = re.compile(r"[0-9a-f]{64}|absent")
_DOCUMENT_KEYS = {"poetry-cuda-journal", "pid", "state", "files"}
_ENTRY_KEYS = {"name", "before", "ours", "tool-writing"}


def read_journal(project: Path) -> Journal | None:
    """The journal in `project` (None: there is none), checked whole before anything is used.

    Raises InputFileError (exit 2) for anything but a regular file holding a journal as
    poetry-cuda writes them: JSON of version 1 naming each of the files a run edits
    (`EDITED`) at most once, every value of the type and size poetry-cuda writes.
    """
    path = project / JOURNAL
    try:
        kind = file_kind(path.lstat().st_mode)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise _bad(path, f"cannot be read: {error.strerror or error}") from None
    if kind is not None:
        raise _bad(path, f"it is {kind}, and poetry-cuda writes its journal as a regular file")
    try:
        data = read_bounded(path, limit=JOURNAL_LIMIT, follow_links=False)
    except InputFileError as error:
        raise _bad(path, error.what) from None
    try:
        document = json.loads(
            data.decode("utf-8"),
            object_pairs_hook=_object,
            parse_constant=_no_constant,
            parse_int=_integer,
        )
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise _bad(path, f"not JSON: {error.__class__.__name__}") from None
    try:
        return _journal(document)
    except _MalformedError as error:
        raise _bad(path, str(error)) from None


class _MalformedError(Exception):
    """What in a journal is not as poetry-cuda writes it."""


def _bad(path: Path, why: str) -> InputFileError:
    return InputFileError(
        f"{path}: not a journal poetry-cuda can undo a run from ({why})",
        why="poetry-cuda undoes an unfinished run only from a complete journal as it writes "
        f"them, naming only the files a run edits ({', '.join(EDITED)}); a journal found in "
        "a clone or damaged on the disk is not used, and nothing was changed",
        fix=f"check pyproject.toml and the lock files by hand (git diff), then delete {path} "
        "(never commit it)",
    )


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("a key given twice")
    return dict(pairs)


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > _MAX_DIGITS:
        raise ValueError("an integer of too many digits")
    return int(text)


def _shown(value: object) -> str:
    """`value` for a message: ASCII (no control or look-alike character), at most 60 long."""
    text = ascii(value)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)  # JSON true is no number


def _journal(document: object) -> Journal:
    if not isinstance(document, dict) or set(document) != _DOCUMENT_KEYS:
        raise _MalformedError("not a poetry-cuda journal")
    version, pid, state = document["poetry-cuda-journal"], document["pid"], document["state"]
    if not _is_int(version) or version != 1:
        raise _MalformedError(f"version {_shown(version)}, where poetry-cuda writes 1")
    if not _is_int(pid) or not 0 < pid < _MAX_PID:
        raise _MalformedError(f"the process {_shown(pid)}")
    if state not in ("running", "done"):
        raise _MalformedError(f"the state {_shown(state)}")
    entries = document["files"]
    if not isinstance(entries, list) or len(entries) > len(EDITED):
        raise _MalformedError(f"the files {_shown(entries)}")
    files = [_entry(entry) for entry in entries]
    names = [item.name for item in files]
    if len(set(names)) != len(names):
        raise _MalformedError("a file named twice")
    return Journal(pid, state == "done", tuple(files))


def _entry(entry: object) -> _File:
    if not isinstance(entry, dict) or set(entry) != _ENTRY_KEYS:
        raise _MalformedError(f"a file entry {_shown(entry)}")
    name, before, ours, writing = (entry[key] for key in ("name", "before", "ours", "tool-writing"))
    if name not in EDITED:  # also refuses any name that is not a string
        raise _MalformedError(f"the file name {_shown(name)}, which no run edits")
    if before is not None:
        if not isinstance(before, str) or len(before) > (TOML_LIMIT // 3 + 1) * 4:
            raise _MalformedError(f"the contents of {name}")
        try:
            before = base64.b64decode(before, validate=True)
        except (binascii.Error, ValueError):  # ValueError: a character that is not ASCII
            raise _MalformedError(f"the contents of {name}, not base64") from None
    if not isinstance(ours, list) or len(ours) > _MAX_WRITES:
        raise _MalformedError(f"the writes to {name}")
    if not all(isinstance(d, str) and _DIGEST.fullmatch(d) for d in ours):
        raise _MalformedError(f"a digest of {name}")
    if not isinstance(writing, bool):
        raise _MalformedError(f"tool-writing of {name}: {_shown(writing)}")
    return _File(name, before, set(ours), writing)
