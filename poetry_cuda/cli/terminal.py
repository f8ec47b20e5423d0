"""Whether the script's output is coloured, and `--version`, which must cost no imports.

`poetry-cuda --version` is answered here, before anything else is imported (not even
`typing`), in the time Python takes to start.
"""

from __future__ import annotations

import os
import sys

from poetry_cuda import __version__


TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import TextIO


def colour_support(stream: TextIO) -> bool:
    """Whether to colour `stream`, as Poetry decides it: never with NO_COLOR, on a terminal
    (on Windows, a console that takes ANSI codes, switched to them where it can be)."""
    if "NO_COLOR" in os.environ:
        return False
    if os.getenv("TERM_PROGRAM") == "Hyper":
        return True
    if sys.platform == "win32":
        return _windows_console(stream)
    try:
        return os.isatty(stream.fileno())
    except (AttributeError, OSError, ValueError):
        return False


if sys.platform == "win32":  # the type checker reads this only for Windows

    def _windows_console(stream: TextIO) -> bool:
        """A Windows terminal that shows ANSI codes, or a console switched to show them."""
        if os.getenv("ANSICON") is not None or os.getenv("ConEmuANSI") == "ON":  # noqa: SIM112
            return True
        if os.getenv("TERM") == "xterm":
            return True
        if sys.getwindowsversion()[2] < 14393:  # before Windows 10 1607 no console takes them
            return False
        import ctypes
        import ctypes.wintypes

        try:
            descriptor = stream.fileno()
        except (AttributeError, OSError, ValueError):
            return False
        if descriptor not in (1, 2):
            return False
        kernel32 = ctypes.windll.kernel32
        handle = kernel32.GetStdHandle(-11 if descriptor == 1 else -12)
        character_device, remote = 0x0002, 0x8000
        if (kernel32.GetFileType(handle) & ~remote) != character_device:
            return False
        mode = ctypes.wintypes.DWORD()
        if not kernel32.GetConsoleMode(handle, ctypes.byref(mode)):
            return False
        virtual_terminal = 0x0004  # ENABLE_VIRTUAL_TERMINAL_PROCESSING
        if mode.value & virtual_terminal:
            return True
        return bool(kernel32.SetConsoleMode(handle, mode.value | virtual_terminal))


def long_version(decorated: bool) -> str:
    """`poetry-cuda (version 0.1.0)`, its name in bold and its version in cyan (decorated)."""
    if decorated:
        return f"\033[39;1mpoetry-cuda\033[39;22m (version \033[36m{__version__}\033[39m)"
    return f"poetry-cuda (version {__version__})"


def follow_the_locale_codeset(environ: Mapping[str, str]) -> None:
    """Write stdout and stderr in the character set the user's locale names.

    Where Python could not set that locale (zh_CN.GB18030 not installed), it falls back to
    UTF-8, while the terminal still reads GB18030: Chinese messages would be mojibake. So
    the streams take the locale's codeset, as they would under the installed locale; what
    it lacks is written as backslash escapes, and the raw text `env` prints stays exact or
    refused against it (`cli.commands.base.exact`). PYTHONIOENCODING or PYTHONUTF8, the
    user's own choice, is kept.
    """
    if environ.get("PYTHONIOENCODING") or environ.get("PYTHONUTF8"):
        return
    import codecs
    import io

    from poetry_cuda.messages import codeset_of

    codeset = codeset_of(environ)
    if codeset is None:
        return
    for stream in (sys.stdout, sys.stderr):
        if not isinstance(stream, io.TextIOWrapper):
            continue
        try:
            if codecs.lookup(stream.encoding).name != codeset:
                stream.reconfigure(encoding=codeset, errors="backslashreplace")
        except (LookupError, ValueError, OSError):  # a stream already closed, or odd
            continue
