"""When `env` and `run` repeat the warning that the nvcc on PATH does not match the lock.

A shell that evaluates `env` at every prompt, or a script that calls `run` in a loop, would
print the same two lines forever, and a warning that is always there stops being read. Both
commands write nothing (SPEC), so the memory of having told is kept where the warning is
read, in the shell: `env` sets `VARIABLE` to the mismatch's key beside the CUDA variables,
and a later `env` in a shell that evaluated it says nothing more about the same mismatch
(the project, the nvcc's path and version, the locked CUDA). `run` shows the warning only
before a compiler or build tool (nvcc, cmake, make, ninja, pip, uv, `python -m build`,
`python setup.py`, ...), the command the wrong nvcc would spoil. Deciding is pure.
"""

from __future__ import annotations

import hashlib
import os
import re

from pathlib import PurePath
from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path


VARIABLE = "POETRY_CUDA_NVCC_WARNED"  # set by `env`: the mismatch this shell was told of

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
    the locked CUDA or requirement); a change of any of them is news again. Paths are taken
    as bytes: a folder name need not be valid UTF-8."""
    text = os.fsencode(project) + b"\0" + said.encode("utf-8", "surrogateescape")
    return hashlib.sha256(text).hexdigest()[:32]


def should_show(told: str | None, mismatch: str, argv: Sequence[str] | None) -> bool:
    """Show the warning: `run` (`argv`) before a build only; `env` unless this shell was
    told of the same mismatch (`told`, the variable's value)."""
    if argv is not None:
        return is_build(argv)
    return told != mismatch
