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
    from typing import TextIO


def colour_support(stream: TextIO) -> bool | None:
    """Whether cleo would colour `stream`, or None where only cleo can tell (Windows,
    whose console may need switching to ANSI first)."""
    if "NO_COLOR" in os.environ:
        return False
    if os.getenv("TERM_PROGRAM") == "Hyper":
        return True
    if sys.platform == "win32":
        return None
    try:
        return os.isatty(stream.fileno())
    except (AttributeError, OSError, ValueError):
        return False


def long_version(decorated: bool) -> str:
    """cleo's `<b>poetry-cuda</b> (version <c1>0.1.0</c1>)`, rendered."""
    if decorated:
        return f"\033[39;1mpoetry-cuda\033[39;22m (version \033[36m{__version__}\033[39m)"
    return f"poetry-cuda (version {__version__})"
