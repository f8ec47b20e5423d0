"""Running a probe's helper program: absolute path, no shell, a hard time limit."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys

from typing import TYPE_CHECKING

from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence


@frozen
class Completed:
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def first_line(self) -> str:
        """The first non-blank line of the output, for a one-line report."""
        for line in self.output.splitlines():
            if line.strip():
                return line.strip()
        return ""


def run(argv: Sequence[str], *, env: Mapping[str, str], timeout: float) -> Completed:
    """Run `argv` and capture its output.

    Raises `OSError` when it cannot start and `subprocess.TimeoutExpired` when it ran
    past `timeout`. On every way out other than its own exit (a timeout, an interruption,
    any exception) the program and everything it started are killed first, and reaped.
    """
    return start(argv, env=env).collect(timeout)


class Running:
    """A started program, whose output is collected later (or which is stopped unread)."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process

    def collect(self, timeout: float) -> Completed:
        """Its exit code and output, within `timeout` seconds from now (see `run`)."""
        with self.process as process:
            try:
                stdout, stderr = process.communicate(timeout=timeout)
            except BaseException:
                # In its own session the program never sees our SIGINT or SIGTERM: without
                # this, Popen.__exit__ would wait for it as long as it runs.
                self.stop()
                raise
        return Completed(process.returncode, stdout, stderr)

    def stop(self) -> None:
        """Kill it and everything it started, and reap it."""
        _kill(self.process)
        self.process.communicate()


def start(argv: Sequence[str], *, env: Mapping[str, str]) -> Running:
    """Start `argv` with its output captured; raises `OSError` when it cannot start."""
    process = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env),
        text=True,
        encoding="utf-8",
        errors="replace",
        # A session of its own, so that a timeout also kills what it started: a
        # grandchild holding the pipes open would otherwise block us until it ends.
        start_new_session=sys.platform != "win32",
    )
    return Running(process)


def _kill(process: subprocess.Popen[str]) -> None:
    if sys.platform == "win32":
        process.kill()
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def signal_name(returncode: int) -> str:
    """``SIGSEGV`` for a process killed by signal 11 (returncode -11)."""
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"
