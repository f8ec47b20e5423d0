"""SIGINT and SIGTERM as one exception, so every command can stop cleanly.

Both signals raise `Interrupted`, which (unlike KeyboardInterrupt) Poetry's console
application does not swallow while it resolves, and which the commands turn into exit
130 after undoing what they changed. The first signal decides that the run stops: the
ones after it (a burst from an impatient user or a supervisor) are ignored, so they can
interrupt neither the undo nor the message, nor kill the process by default action.
"""

from __future__ import annotations

import signal
import threading

from contextlib import contextmanager
from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from collections.abc import Iterator


INTERRUPTED_EXIT = 130  # the shell's 128 + SIGINT
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived."""


def _ignored(signum: int, frame: object) -> None:
    """For a signal Python had already taken in when the run began to stop."""


_stopping = False


def stopping() -> bool:
    """Whether a signal has told this process to stop.

    Code that catches every Exception can turn Interrupted into something else (Python
    wraps an exception raised while a class is created in a RuntimeError; Poetry's
    console turns that into exit 1): once stopping, any failure is the interruption.
    """
    return _stopping


def _ignore_from_now_on() -> None:
    global _stopping
    _stopping = True
    # Blocked, not ignored: a signal handed to SIG_IGN while pending makes CPython print
    # a traceback, and at exit CPython resets Python handlers to the default action, which
    # a late signal of a burst would then carry out. A blocked signal is never delivered.
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    for signum in SIGNALS:
        signal.signal(signum, _ignored)


def _stop(signum: int, frame: object) -> None:
    _ignore_from_now_on()
    raise Interrupted(signum)


def _main_thread() -> bool:
    # Handlers can only be set from the main thread.
    return threading.current_thread() is threading.main_thread()


@contextmanager
def interruptible() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM raise Interrupted."""
    if not _main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, _stop) for signum in SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            # Once stopping, the signals stay ignored until the process exits.
            if signal.getsignal(signum) is _stop:
                signal.signal(signum, handler)


@contextmanager
def _masked() -> Iterator[None]:
    """Signals arriving within the block wait at the kernel until it ends, so that
    handlers for two signals change as one step (POSIX; elsewhere a plain block)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


@contextmanager
def held() -> Iterator[list[int]]:
    """Within the block, SIGINT and SIGTERM wait: the block runs to its end. The list it
    gets holds the signals that arrived; once one has, they are ignored from then on."""
    pending: list[int] = []
    if not _main_thread() or _stopping:
        yield pending  # already stopping: nothing can interrupt the block
        return

    def hold(signum: int, frame: object) -> None:
        pending.append(signum)

    with _masked():
        previous = {signum: signal.signal(signum, hold) for signum in SIGNALS}
    try:
        yield pending
    finally:
        if pending:
            _ignore_from_now_on()  # blocks them first: no mask to restore afterwards
        else:
            with _masked():
                for signum, handler in previous.items():
                    signal.signal(signum, handler)


@contextmanager
def deferred() -> Iterator[None]:
    """`held`, then the first signal that arrived raises Interrupted (unless the block
    raised already)."""
    with held() as pending:
        yield
    if pending:
        raise Interrupted(pending[0])
