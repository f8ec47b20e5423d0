"""When `env` and `run` repeat the warning that the nvcc on PATH does not match the lock.

A shell that evaluates `env` at every prompt, or a script that calls `run` in a loop, would
print the same two lines forever, and a warning that is always there stops being read. So
the warning is shown once per project and mismatch (the nvcc's path and version against the
locked CUDA), remembered in a per-user state file; but `run` of a compiler or build tool
(nvcc, cmake, make, ninja, pip, uv, `python -m build`, `python setup.py`, ...) always shows
it, since that is the command the wrong nvcc would spoil. Deciding is pure (`is_build`,
`should_show`); the state file is the I/O (`remember`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re

from pathlib import PurePath
from typing import TYPE_CHECKING

from poetry_cuda.files import write_atomic


if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path


STATE_FILE = "nvcc-warned.json"  # in the per-user folder poetry-cuda's caches share
_KEPT = 200  # mismatches remembered; the oldest are forgotten (shown again) beyond that

# Programs that compile or build, by name without a version suffix or ".exe".
_BUILD_TOOLS = frozenset(
    {"nvcc", "cmake", "make", "gmake", "ninja", "meson", "scons", "bazel", "pip", "uv"}
    | {"maturin", "cc", "gcc", "g++", "c++", "clang", "clang++", "poetry"}
)
# Modules whose `python -m` runs a build or an install that may build.
_BUILD_MODULES = frozenset({"pip", "build", "uv", "setuptools", "poetry"})
_VERSION_SUFFIX = re.compile(r"[-\d.]*$")  # gcc-12, pip3.12


def _program(word: str) -> str:
    """``pip3.12`` -> ``pip``, ``/usr/bin/python3`` -> ``python``, ``NVCC.EXE`` -> ``nvcc``."""
    name = PurePath(word.replace("\\", "/")).name.lower().removesuffix(".exe")
    return _VERSION_SUFFIX.sub("", name)


def is_build(argv: Sequence[str]) -> bool:
    """Whether `argv` runs a compiler or a build: where a mismatched nvcc does its harm."""
    if not argv:
        return False
    program = _program(argv[0])
    if program in _BUILD_TOOLS:
        return True
    if program != "python":
        return False
    rest = list(argv[1:])
    if len(rest) >= 2 and rest[0] == "-m":
        return rest[1] in _BUILD_MODULES
    return bool(rest) and PurePath(rest[0]).name == "setup.py"


def key(project: Path, said: str) -> str:
    """The mismatch's identity: the project and the warning's text (nvcc path, its version,
    the locked CUDA or requirement); a change of any of them is news again."""
    return hashlib.sha256(f"{project}\0{said}".encode()).hexdigest()


def should_show(seen: Sequence[str], mismatch: str, argv: Sequence[str] | None) -> bool:
    """Show the warning: for a build command always, else the first time only."""
    return (argv is not None and is_build(argv)) or mismatch not in seen


def seen(state: Path) -> list[str]:
    """The mismatches already shown, oldest first; none where the file is absent or unreadable
    (the warning is then shown again, never lost)."""
    try:
        data = json.loads(state.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    warned = data.get("warned") if isinstance(data, dict) else None
    return [k for k in warned if isinstance(k, str)] if isinstance(warned, list) else []


def remember(state: Path, known: Sequence[str], mismatch: str) -> None:
    """Add `mismatch` to the state file, atomically; a file that cannot be written only means
    the warning is shown again next time."""
    if mismatch in known:
        return
    kept = [*known, mismatch][-_KEPT:]
    with contextlib.suppress(OSError):
        state.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(state, json.dumps({"version": 1, "warned": kept}, indent=1) + "\n")
