"""Reading TOML and writing files so that no reader ever sees half a file."""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile

from pathlib import Path
from typing import Any

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import InputFileError


if sys.version_info >= (3, 11):
    import tomllib

    def _parse(text: str) -> dict[str, Any]:
        return tomllib.loads(text)

    _TomlError: type[Exception] = tomllib.TOMLDecodeError
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomlkit
    import tomlkit.exceptions

    def _parse(text: str) -> dict[str, Any]:
        return tomlkit.parse(text).unwrap()

    _TomlError = tomlkit.exceptions.ParseError


def parse_toml(text: str) -> dict[str, Any]:
    """Parse TOML text into plain Python values (raises the parser's own error)."""
    return _parse(text)


def read_toml(
    path: Path, *, kind: type[ConfigError | InputFileError] = ConfigError
) -> dict[str, Any]:
    """Parse a TOML file into plain Python values, with errors that name the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise kind(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError) as error:
        raise kind(
            f"{path}: cannot read the file ({error.__class__.__name__}: {error})",
            fix="make the file readable UTF-8 text",
        ) from None
    try:
        return _parse(text)
    except _TomlError as error:
        raise kind(
            f"{path}: not valid TOML ({error})",
            fix="correct the syntax at the position shown",
        ) from None
    except (ValueError, RecursionError) as error:
        # Valid syntax the parser still refuses: an integer of thousands of digits, or
        # arrays and tables nested deeper than it recurses.
        raise kind(
            f"{path}: not readable TOML ({error.__class__.__name__}: {str(error)[:200]})",
            fix="replace the value: no key poetry-cuda reads holds anything like it",
        ) from None


_PARSED: dict[tuple[str, bytes], dict[str, Any]] = {}


def read_toml_once(path: Path) -> dict[str, Any]:
    """`read_toml`, parsed once per content of the file; the result must not be changed.

    Verification and doctor look up one package after another in poetry.lock or uv.lock,
    which for a torch project hold thousands of lines: reading and hashing the bytes
    is cheap, parsing them is not.
    """
    try:
        digest = hashlib.sha256(path.read_bytes()).digest()
    except OSError:
        return read_toml(path)  # the same error read_toml gives
    key = (str(path), digest)
    if key not in _PARSED:
        _PARSED[key] = read_toml(path)
    return _PARSED[key]


def write_atomic(path: Path, content: str) -> None:
    """Write `content` to `path` through a temporary file in the same folder and a rename.

    The file keeps its permission bits; readers see either the old or the new content.
    """
    temporary: Path | None = None
    try:
        mode = path.stat().st_mode & 0o7777 if path.exists() else None
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        temporary = Path(name)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            temporary.chmod(mode)
        temporary.replace(path)
    except BaseException as error:
        if temporary is not None:
            temporary.unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise InputFileError(
                f"{path}: cannot write the file ({error.strerror or error})",
                why="poetry-cuda writes each file through a temporary file beside it",
                fix=f"make {path.parent} writable, with space to spare",
            ) from None
        raise
