"""Reading TOML and writing files so that no reader ever sees half a file."""

from __future__ import annotations

import hashlib
import os
import stat
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


MiB = 1024 * 1024
# Far above any real file of each kind, far below what would exhaust the memory. Host
# profiles are a few KiB (`detect --json`); cuda.lock grows with packages and distinct
# targets, a few KiB each. poetry.lock and uv.lock of a torch project list hundreds of
# wheel hashes and reach several MiB; pyproject.toml shares their cap.
PROFILE_LIMIT = 4 * MiB
CUDA_LOCK_LIMIT = 8 * MiB
TOML_LIMIT = 64 * MiB

_FILE_TYPES = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def read_bounded(
    path: Path,
    *,
    limit: int,
    name: str | None = None,
    kind: type[ConfigError | InputFileError] = InputFileError,
) -> bytes:
    """The bytes of `path`, which must be a regular file (after links) of at most `limit` bytes.

    A pipe would block the read and a device (/dev/zero) never ends: the type is checked
    before opening, opening never blocks, and the opened file is checked again.
    `name` is how messages call the file (default: the path).
    """
    called = name or str(path)
    try:
        _check_regular(path.stat(), called, limit, kind)
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        raise kind(f"{called}: file not found") from None
    except OSError as error:
        raise kind(
            f"{called}: cannot read the file ({error.strerror or error})",
            fix="make the file readable",
        ) from None
    with os.fdopen(descriptor, "rb") as handle:
        _check_regular(os.fstat(handle.fileno()), called, limit, kind)
        try:
            data = handle.read(limit + 1)
        except OSError as error:
            raise kind(
                f"{called}: cannot read the file ({error.strerror or error})",
                fix="make the file readable",
            ) from None
    if len(data) > limit:  # grew while being read
        raise _too_large(called, limit, kind)
    return data


def _check_regular(
    info: os.stat_result, name: str, limit: int, kind: type[ConfigError | InputFileError]
) -> None:
    for test, description in _FILE_TYPES:
        if test(info.st_mode):
            raise kind(
                f"{name}: not a regular file but {description}",
                why="poetry-cuda reads its input only from regular files, so that a pipe or "
                "a device cannot block it or fill the memory",
                fix="point it at the file itself (a link to a regular file is fine)",
            )
    if info.st_size > limit:
        raise _too_large(name, limit, kind)


def _too_large(
    name: str, limit: int, kind: type[ConfigError | InputFileError]
) -> ConfigError | InputFileError:
    return kind(
        f"{name}: larger than {limit // MiB} MiB",
        why=f"no file of this kind comes near {limit // MiB} MiB; reading it whole could "
        "exhaust the memory",
        fix="check that the path names the right file",
    )


def read_toml(
    path: Path,
    *,
    kind: type[ConfigError | InputFileError] = ConfigError,
    limit: int = TOML_LIMIT,
) -> dict[str, Any]:
    """Parse a TOML file into plain Python values, with errors that name the file."""
    return _parse_file(path, read_bounded(path, limit=limit, kind=kind), kind)


def _parse_file(
    path: Path, data: bytes, kind: type[ConfigError | InputFileError]
) -> dict[str, Any]:
    try:
        # Newlines as text mode reads them, so that values parse as they always did.
        text = data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as error:
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
    data = read_bounded(path, limit=TOML_LIMIT, kind=ConfigError)
    key = (str(path), hashlib.sha256(data).digest())
    if key not in _PARSED:
        _PARSED[key] = _parse_file(path, data, ConfigError)
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


def encode_like(path: Path, content: str) -> bytes:
    """`content` as `write_atomic` writes it to `path`."""
    return content.encode("utf-8")


def replace_bytes(path: Path, data: bytes) -> None:
    """Replace `path` with `data` atomically (a restore, byte for byte)."""
    write_atomic(path, data.decode("utf-8", errors="surrogateescape"))


def read_text(path: Path) -> str:
    """The text of a TOML file poetry-cuda edits."""
    return read_bounded(path, limit=TOML_LIMIT, kind=ConfigError).decode("utf-8")
