"""The standalone `poetry-cuda` console script, for uv projects, CI and scripts.

`--version` is answered here, before anything is imported; every other command line goes
to the script's front end (`cli.script`).
"""

from __future__ import annotations

import gc
import os
import sys


# Collect garbage a seventieth as often as Python's default (700, 10, 10).
THRESHOLDS = (50_000, 20, 20)


def main() -> int:
    """The console script's entry: run the command in `sys.argv`, return its exit code.

    The process ends after it, so it sets the garbage collector for a short life. A command
    allocates mostly what lives as long as it does (modules, classes, tables): with the
    default thresholds, start-up spends milliseconds in collections that free nothing, and
    the interpreter's exit collects once more all it is about to free. So collections run
    rarely while a command runs (often enough to bound a long lock's memory), and what is
    left at the end is frozen, out of the way of the exit's collections.
    """
    gc.set_threshold(*THRESHOLDS)
    try:
        return _run()
    finally:
        gc.freeze()


def _run() -> int:
    if sys.stderr is None:  # started with stderr closed (`2>&-`): messages go nowhere
        _reopen_devnull(2)
        sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115 - lives as long as the process
    if sys.stdout is not None and sys.argv[1:] in (["--version"], ["-V"]):
        from poetry_cuda.cli.terminal import colour_support
        from poetry_cuda.cli.terminal import long_version

        sys.stdout.write(long_version(colour_support(sys.stdout)) + "\n")
        return 0
    from poetry_cuda.cli.terminal import follow_the_locale_codeset

    follow_the_locale_codeset(os.environ)
    if sys.stdout is None:  # started with stdout closed (`>&-`)
        from poetry_cuda.display import shown
        from poetry_cuda.errors import UsageError
        from poetry_cuda.messages import language_of
        from poetry_cuda.messages import message

        closed = UsageError(
            message("stdout.closed"),
            why=message("stdout.closed-why"),
            fix=message("stdout.closed-fix"),
        )
        sys.stderr.write(shown(closed.render(language_of(os.environ))) + "\n")
        return closed.exit_code
    from poetry_cuda.cli.script import run_script

    return run_script(sys.argv[1:])


def _reopen_devnull(descriptor: int) -> None:
    """`descriptor` open on the null device, so that no file opened later takes its number."""
    devnull = os.open(os.devnull, os.O_RDWR)
    if devnull != descriptor:
        os.dup2(devnull, descriptor)
        os.close(devnull)
