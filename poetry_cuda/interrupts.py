"""SIGINT and SIGTERM as one exception, so every command can stop cleanly.

Both signals raise `Interrupted`, which (unlike KeyboardInterrupt) Poetry's console
application does not swallow while it resolves, and which the commands turn into exit
130 after restoring what they changed.
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


def _raise(signum: int, frame: object) -> None:
    raise Interrupted(signum)


@contextmanager
def interruptible() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM raise Interrupted."""
    if threading.current_thread() is not threading.main_thread():
        yield  # handlers can only be set from the main thread
        return
    previous = {signum: signal.signal(signum, _raise) for signum in SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
