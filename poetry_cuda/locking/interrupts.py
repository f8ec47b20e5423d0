"""SIGINT and SIGTERM as one exception, so every command can stop cleanly.

Both signals raise `Interrupted`, which (unlike KeyboardInterrupt) Poetry's console
application does not swallow while it resolves, and which the commands turn into exit
130 after undoing what they changed. The first signal decides that the run stops: the
ones after it (a burst from an impatient user or a supervisor) are ignored, so they can
interrupt neither the undo nor the message, nor kill the process by default action, in
whichever thread they arrive and however late.
"""

from __future__ import annotations

import signal
import sys
import threading

from contextlib import contextmanager
from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterator


INTERRUPTED_EXIT = 130  # the shell's 128 + SIGINT
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived."""


_stopping = False
_RACE = "ignored due to race condition"  # CPython's report of a signal taken in, then ignored


def stopping() -> bool:
    """Whether a signal has told this process to stop.

    Code that catches every Exception can turn Interrupted into something else (Python
    wraps an exception raised while a class is created in a RuntimeError; Poetry's
    console turns that into exit 1): once stopping, any failure is the interruption.
    """
    return _stopping


def _ignore_from_now_on() -> None:
    global _stopping
    if not _stopping:
        _stopping = True
        sys.unraisablehook = _without_race_reports(sys.unraisablehook)
    # Ignored by the kernel, in every thread (a mask would cover this one only, and a
    # thread Poetry left running would still take a signal in) and through the exit, which
    # resets a Python handler, not SIG_IGN, to the default action that a late signal of a
    # burst would carry out. A signal Python took in just before this is then reported as
    # "ignored due to race condition": that report is dropped.
    for signum in SIGNALS:
        signal.signal(signum, signal.SIG_IGN)


def _without_race_reports(
    hook: Callable[[sys.UnraisableHookArgs], object],
) -> Callable[[sys.UnraisableHookArgs], object]:
    def quiet(unraisable: sys.UnraisableHookArgs) -> object:
        error = unraisable.exc_value
        if isinstance(error, OSError) and _RACE in str(error):
            return None
        return hook(unraisable)

    return quiet


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
            _ignore_from_now_on()  # for good: the handlers before are not restored
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
