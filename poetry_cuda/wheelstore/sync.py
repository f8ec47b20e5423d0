"""A Poetry project's environment installed from the shared store: the steps put together.

`sync_shared` reads what poetry.lock installs into the environment (`locked.select`), makes
sure the store holds each wheel (fetching what it lacks, several at once), records the
environment's use of them, and links them in (`install.install`), removing the
distributions an earlier shared install put there that the lock no longer lists. Two runs
on one environment take turns; runs on different environments share the store, taking
turns only over a wheel both add at once. What the store leaves to Poetry (packages built
from an sdist, directory and VCS dependencies) is listed in the report: `poetry install`
afterwards installs just those and finds everything else in place.
"""

from __future__ import annotations

import contextlib
import os
import time

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.errors import ProjectBusyError
from poetry_cuda.files import path_digest
from poetry_cuda.files import try_lock
from poetry_cuda.names import canonical_name
from poetry_cuda.records import frozen
from poetry_cuda.wheelstore import usage
from poetry_cuda.wheelstore.install import Wanted
from poetry_cuda.wheelstore.install import install
from poetry_cuda.wheelstore.install import interpreter
from poetry_cuda.wheelstore.locked import MAIN
from poetry_cuda.wheelstore.locked import select
from poetry_cuda.wheelstore.store import LOCK_WAIT


if TYPE_CHECKING:
    from collections.abc import Collection
    from collections.abc import Iterator
    from collections.abc import Mapping
    from pathlib import Path

    from poetry_cuda.wheelstore.fetch import Fetcher
    from poetry_cuda.wheelstore.install import Installed
    from poetry_cuda.wheelstore.link import Linker
    from poetry_cuda.wheelstore.locked import LockedWheel
    from poetry_cuda.wheelstore.locked import Skipped
    from poetry_cuda.wheelstore.store import Entry
    from poetry_cuda.wheelstore.store import Store


FETCHERS = 8  # wheels fetched and unpacked at once


@frozen
class Report:
    """What `sync_shared` did to one environment."""

    environment: Path
    fetched: tuple[str, ...]  # wheels the store did not hold, by file name
    installed: Installed
    skipped: tuple[Skipped, ...]  # left to Poetry's installer
    notes: tuple[str, ...]  # what the user should know (files copied, a read-only store)


def sync_shared(
    project: Path,
    environment: Path,
    lock: Mapping[str, Any],
    *,
    store: Store,
    fetcher: Fetcher,
    installer: str,
    groups: Collection[str] = (MAIN,),
    extras: Collection[str] = (),
    linker: Linker | None = None,
) -> Report:
    """Install what `lock` (poetry.lock, parsed) installs into `environment` (Poetry's own
    virtual environment of `project`) from `store`. `installer` is what Poetry writes into
    INSTALLER (``Poetry 2.5.1``)."""
    where = interpreter(environment)
    selection = select(lock, where, project=project, groups=groups, extras=extras)
    notes = []
    with _environment_locked(store, environment):
        before = usage.previous(store.root, environment)
        names = frozenset(canonical_name(w.name) for w in selection.wheels)
        if store.writable:
            wheels = frozenset(w.wheel.sha256 for w in selection.wheels)
            usage.record(store.root, usage.Use(project, environment, wheels, names))
        else:
            notes.append(
                f"the store at {store.root} is read-only: it serves the wheels it holds, and "
                "this environment's use of them is not recorded"
            )
        # Checked one after another: an entry's check is an lstat per file, which threads
        # only slow down (their system calls contend for the same folders).
        stored = [store.entry(w.wheel) for w in selection.wheels]
        missing = [w for w, entry in zip(selection.wheels, stored, strict=True) if entry is None]
        with ThreadPoolExecutor(max_workers=FETCHERS) as pool:
            made = dict(
                zip(missing, pool.map(lambda w: _entry(store, fetcher, w), missing), strict=True)
            )
        entries = [entry or made[w] for w, entry in zip(selection.wheels, stored, strict=True)]
        wanted = [
            Wanted(entry, w.direct_url, w.origin.url)
            for entry, w in zip(entries, selection.wheels, strict=True)
        ]
        forgotten = (before.distributions if before is not None else frozenset()) - names
        done = install(where, wanted, installer=installer, remove=forgotten, linker=linker)
        # A hard link made sets a stored file's inode change time, as an edit would: what
        # this run has just linked from entries checked above is sealed with its new time,
        # so that the next use need not read it whole.
        linked = set(done.installed)
        for entry in entries:
            if f"{entry.name} {entry.version}" in linked:
                store.seal_linked(entry)
    if done.mode == "copy" and done.installed:
        notes.append(
            f"files were copied, not linked: {done.reason or 'links are not possible here'}"
        )
    fetched = tuple(w.wheel.filename for w in missing)
    return Report(environment, fetched, done, selection.skipped, tuple(notes))


def _entry(store: Store, fetcher: Fetcher, locked: LockedWheel) -> Entry:
    return store.ensure(locked.wheel, fetcher.fetch(locked))


@contextlib.contextmanager
def _environment_locked(store: Store, environment: Path) -> Iterator[None]:
    """One run per environment: the store's lock for it, or, in a read-only store, a lock
    file in the environment's own folder."""
    key = "environment-" + path_digest(environment.absolute())
    if store.writable:
        with store.locked(key):
            yield
        return
    descriptor = os.open(environment / ".poetry-cuda.lock", os.O_RDWR | os.O_CREAT, 0o666)
    try:
        deadline = time.monotonic() + LOCK_WAIT
        while not try_lock(descriptor):
            if time.monotonic() >= deadline:
                raise ProjectBusyError(
                    f"another poetry-cuda run is installing into {environment} and did not "
                    f"finish within {LOCK_WAIT:g} s",
                    fix="wait for the other run to finish, or stop it, then run again",
                )
            time.sleep(0.1)
        yield
    finally:
        os.close(descriptor)
