"""Reading TOML and writing files so that no reader ever sees half a file."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import stat
import sys

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import message


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterator
    from collections.abc import Mapping

    from poetry_cuda.messages import Localized
    from poetry_cuda.messages import Message


def parse_with_tomlkit(text: str) -> dict[str, Any]:
    """TOML as plain values by tomlkit, a runtime dependency: Python 3.10 has no tomllib."""
    import tomlkit

    return tomlkit.parse(text).unwrap()


if sys.version_info >= (3, 11):
    import tomllib

    _parse = tomllib.loads
    _TomlError: type[Exception] = tomllib.TOMLDecodeError
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomlkit.exceptions

    _parse = parse_with_tomlkit
    _TomlError = tomlkit.exceptions.ParseError


def parse_toml(text: str) -> dict[str, Any]:
    """Parse TOML text into plain Python values (raises the parser's own error).

    The one TOML parser of poetry-cuda: tomllib where Python has it, else tomlkit; both
    parsers' errors are ValueErrors.
    """
    return _parse(text)


MiB = 1024 * 1024
# Far above any real file of each kind, far below what would exhaust the memory. Host
# profiles are a few KiB (`detect --json`); cuda.lock grows with packages and distinct
# targets, a few KiB each. poetry.lock and uv.lock of a torch project list hundreds of
# wheel hashes and reach several MiB; pyproject.toml shares their cap.
PROFILE_LIMIT = 4 * MiB
CUDA_LOCK_LIMIT = 8 * MiB
TOML_LIMIT = 64 * MiB

_BINARY = getattr(os, "O_BINARY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # POSIX; Windows has no links to open through

_FILE_TYPES = (
    (stat.S_ISDIR, message("file.folder")),
    (stat.S_ISFIFO, message("file.fifo")),
    (stat.S_ISCHR, message("file.character-device")),
    (stat.S_ISBLK, message("file.block-device")),
    (stat.S_ISSOCK, message("file.socket")),
    (stat.S_ISLNK, message("file.link")),  # only where links are not followed
)


def file_kind(mode: int) -> Message | None:
    """What a file of `mode` (from `os.lstat`) is when it is no regular file ("a folder",
    "a symbolic link"); None for a regular file."""
    return next((description for test, description in _FILE_TYPES if test(mode)), None)


def read_bounded(
    path: Path,
    *,
    limit: int,
    name: str | None = None,
    kind: type[ConfigError | InputFileError] = InputFileError,
    follow_links: bool = True,
) -> bytes:
    """The bytes of `path`, which must be a regular file (after links) of at most `limit` bytes.

    A pipe would block the read and a device (/dev/zero) never ends: the type is checked
    before opening, opening never blocks, and the opened file is checked again.
    `name` is how messages call the file (default: the path). Without `follow_links`, a
    link at `path` is refused as not a regular file.
    """
    called = name or str(path)
    try:
        _check_regular(path.stat() if follow_links else os.lstat(path), called, limit, kind)
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        if not follow_links:
            flags |= _NOFOLLOW
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        raise kind(message("file.not-found", name=called)) from None
    except OSError as error:
        raise kind(
            message("file.unreadable", name=called, error=error.strerror or error),
            fix=message("file.unreadable-fix"),
        ) from None
    with os.fdopen(descriptor, "rb") as handle:
        _check_regular(os.fstat(handle.fileno()), called, limit, kind)
        try:
            data = handle.read(limit + 1)
        except OSError as error:
            raise kind(
                message("file.unreadable", name=called, error=error.strerror or error),
                fix=message("file.unreadable-fix"),
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
                message("file.not-regular", name=name, kind=description),
                why=message("file.not-regular-why"),
                fix=message("file.not-regular-fix"),
            )
    if info.st_size > limit:
        raise _too_large(name, limit, kind)


def _too_large(
    name: str, limit: int, kind: type[ConfigError | InputFileError]
) -> ConfigError | InputFileError:
    return kind(
        message("file.too-large", name=name, limit=limit // MiB),
        why=message("file.too-large-why", limit=limit // MiB),
        fix=message("file.too-large-fix"),
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
    text = _decode(path, data, kind)
    try:
        return _parse(text)
    except _TomlError as error:
        raise kind(
            message("file.not-toml", path=path, error=error),
            fix=message("file.not-toml-fix"),
        ) from None
    except (ValueError, RecursionError) as error:
        raise refused(
            kind,
            message("file.unreadable-toml", path=path),
            error,
            fix=message("file.unreadable-toml-fix"),
        ) from None


def refused(
    kind: type[PoetryCudaError],
    what: Localized,
    error: Exception,
    *,
    why: Localized = "",
    fix: Localized,
) -> PoetryCudaError:
    """A document of valid syntax its parser still refuses: an integer of thousands of
    digits, or arrays and tables nested deeper than the parser recurses."""
    said = f"({error.__class__.__name__}: {str(error)[:200]})"
    return kind(Phrase((what, said), " "), why=why, fix=fix)


# A UTF-8 byte order mark, which some Windows editors put at the start of every file.
# Neither tomllib nor tomlkit parses it, and Poetry (2.5) cannot read such a
# pyproject.toml ("Invalid TOML file ...: Empty key at line 1 col 0"); uv reads it.
# poetry-cuda reads past it and writes it back: removing it is the user's call.
BOM = b"\xef\xbb\xbf"


def _decode(path: Path, data: bytes, kind: type[ConfigError | InputFileError]) -> str:
    """The text of a file, without a BOM, with line breaks as text mode reads them (LF)."""
    try:
        text = data.removeprefix(BOM).decode("utf-8")
    except UnicodeDecodeError as error:
        raise kind(
            message("file.unreadable", name=path, error=f"{error.__class__.__name__}: {error}"),
            fix=message("file.not-utf8-fix"),
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_text(path: Path) -> str:
    """pyproject.toml or a lock file as text to edit: no BOM, LF line breaks.

    `write_atomic` writes such text back with the file's own line breaks and BOM.
    """
    return _decode(path, read_bounded(path, limit=TOML_LIMIT, kind=ConfigError), ConfigError)


_PARSED: dict[tuple[str, bytes], dict[str, Any]] = {}  # by path and bytes


def read_toml_once(path: Path) -> dict[str, Any]:
    """`read_toml`, parsed once per content of the file; the result must not be changed.

    Verification and doctor look up one package after another in poetry.lock or uv.lock,
    which for a torch project hold thousands of lines: reading and comparing the bytes
    is cheap, parsing them is not.
    """
    data = read_bounded(path, limit=TOML_LIMIT, kind=ConfigError)
    key = (str(path), data)
    if key not in _PARSED:
        _PARSED[key] = _parse_file(path, data, ConfigError)
    return _PARSED[key]


def write_atomic(path: Path, content: str) -> None:
    """Replace `path` with `content`, text with LF line breaks, in the style of the file there.

    When the file's first line break is CRLF every line break is written as CRLF, and a
    file that starts with a BOM keeps it; a new file is LF without a BOM. The rest as
    `replace_bytes`.
    """
    _replace(path, lambda target: _styled(content, _first_line(target)))


def write_toml_atomic(path: Path, content: str) -> None:
    """`write_atomic` for a TOML file, once `content` parses: a broken edit is never written."""
    check_toml(path, content)
    write_atomic(path, content)


def check_toml(path: Path, content: str) -> None:
    """Raise ConfigError unless `content`, meant for the TOML file `path`, parses."""
    try:
        parse_toml(content.removeprefix("\ufeff"))
    except (ValueError, RecursionError) as error:  # both parsers' errors are ValueErrors
        raise ConfigError(
            f"{path}: poetry-cuda's edit would not be valid TOML ({str(error)[:200]})",
            why=f"poetry-cuda never writes a file that does not parse: {path.name} is left "
            "unchanged",
            fix="report this to poetry-cuda with the layout of the file, or write the table "
            "poetry-cuda edits in the standard `[table]` form",
        ) from None


def replace_bytes(path: Path, data: bytes, *, follow_links: bool = True) -> None:
    """Replace the file at `path` with `data`, so that no reader ever sees half a file.

    The bytes go to a temporary file in the file's folder, synced to the disk and renamed
    over the file; the folder is synced, so that the rename survives a crash. A symlink
    stays a symlink and its target is replaced; without `follow_links` the file is always
    written at `path` itself, in its folder, and a link there is replaced, never followed.
    An existing file keeps its permission bits and, written by root, its owner and group.
    A new file gets the mode the umask gives and, written by root, the owner and group of
    its folder. On failure the file is unchanged and no temporary file is left.
    """
    _replace(path, lambda _: data, follow_links=follow_links)


def adopt_owner(path: Path) -> None:
    """Give a file that root created in another user's folder that folder's owner and group.

    Poetry writes poetry.lock itself: run as root in a user's project, a poetry.lock it
    creates is root's, and the user can no longer lock without root. (An existing
    poetry.lock Poetry rewrites in place, so it keeps its owner.) Only a regular file,
    not a link, owned by root in a folder that root does not own is changed.
    """
    if not _is_root():
        return
    try:
        folder = path.parent.stat()
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:  # no such file, or a link
        return
    try:
        info = os.fstat(descriptor)
        if stat.S_ISREG(info.st_mode) and info.st_uid == 0 and folder.st_uid != 0:
            _chown(descriptor, folder.st_uid, folder.st_gid)
    finally:
        os.close(descriptor)


def write_output(path: Path, content: str) -> None:
    """Write `content`, a command's output, to `path`, which the user named (`-o FILE`).

    Written as a shell's redirection would: a named pipe or a character device (a terminal,
    /dev/null) is written to as a stream, never replaced; so is the file standard output or
    error is open on (`-o /dev/stdout` redirected to a file), after what was printed there.
    Anything else is `write_atomic`'s: a regular file (or a link to one) is replaced whole,
    a new file created, and a folder, socket or block device refused.
    """
    try:
        info: os.stat_result | None = path.stat()
    except OSError:  # a new file, or one `write_atomic` says what is wrong with
        info = None
    if info is None or not (
        stat.S_ISFIFO(info.st_mode) or stat.S_ISCHR(info.st_mode) or _standard(info) is not None
    ):
        write_atomic(path, content)
        return
    try:
        _stream(path, info, content.encode("utf-8"))
    except OSError as error:
        raise InputFileError(
            message("files.stream-failed", path=path, error=error.strerror or error),
            fix=message("files.stream-failed-fix", path=path),
        ) from None


def _standard(info: os.stat_result) -> int | None:
    """Standard output or error (the descriptor) where it is open on the file of `info`."""
    for descriptor in (1, 2):
        try:
            own = os.fstat(descriptor)
        except OSError:  # closed
            continue
        # An inode number of 0 is none (a Windows console): it names no file to compare.
        if info.st_ino and (own.st_dev, own.st_ino) == (info.st_dev, info.st_ino):
            return descriptor
    return None


def _stream(path: Path, info: os.stat_result, data: bytes) -> None:
    """Write `data` to the pipe, device or standard stream `path` (of `info`) as it comes."""
    standard = _standard(info)
    if standard is not None:
        sys.stdout.flush()  # what the command printed there before comes first
        sys.stderr.flush()
        _write_all(standard, data)
        return
    # Opening a pipe waits for its reader, as `echo > PIPE` does.
    descriptor = os.open(path, os.O_WRONLY | _BINARY | getattr(os, "O_NOCTTY", 0))
    try:
        mode = os.fstat(descriptor).st_mode
        if not (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):  # swapped since the check
            raise _not_replaced(path, mode)
        _write_all(descriptor, data)
    finally:
        os.close(descriptor)


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]


def _not_replaced(path: Path, mode: int) -> InputFileError:
    return InputFileError(
        message("files.not-replaced", path=path, kind=file_kind(mode)),
        why=message("files.not-replaced-why"),
        fix=message("files.not-replaced-fix"),
    )


def _replace(path: Path, render: Callable[[Path], bytes], *, follow_links: bool = True) -> None:
    """The one way poetry-cuda replaces a file: `render` gives the bytes for the target.

    Only a regular file is replaced (or a link to one, or a link itself without
    `follow_links`): a folder, device, pipe or socket stays as it is, and the write fails.
    """
    folder = path.parent
    temporary: Path | None = None
    try:
        target = _target(path) if follow_links else path
        folder = target.parent
        try:
            existing: os.stat_result | None = target.stat() if follow_links else os.lstat(target)
        except FileNotFoundError:
            existing = None
        if not follow_links and existing is not None and stat.S_ISLNK(existing.st_mode):
            existing = None  # a link replaced, not followed: the new file's mode is its own
        if existing is not None and not stat.S_ISREG(existing.st_mode):
            raise _not_replaced(path, existing.st_mode)
        # A new file is created with 0o666 and the kernel applies the umask (and a default
        # ACL) as for any new file. Reading the umask would mean setting it (os.umask),
        # racing every thread that creates a file meanwhile.
        mode = 0o666 if existing is None else 0o600
        for temporary in _temporary_names(target):
            # Named before it exists: a signal's exception raised the moment `open` returns
            # still finds the name to remove (the exclusive create makes the file ours).
            try:
                descriptor = os.open(temporary, _CREATE, mode)
                break
            except FileExistsError:  # another writer's temporary file: draw another name
                temporary = None
        else:
            raise FileExistsError(errno.EEXIST, "no unused temporary file name", str(folder))
        with os.fdopen(descriptor, "wb") as handle:
            _take_owner_and_mode(handle.fileno(), temporary, existing, folder)
            handle.write(render(target))
            handle.flush()
            os.fsync(handle.fileno())
        temporary.replace(target)
        temporary = None
        _sync_folder(folder)
    except BaseException as error:
        if temporary is not None:
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise InputFileError(
                f"{path}: cannot write the file ({error.strerror or error})",
                why="poetry-cuda writes each file through a temporary file beside it",
                fix=f"make {folder} writable, with space to spare",
            ) from None
        raise


def _target(path: Path) -> Path:
    """The file a write to `path` replaces: the last target of a symlink, or `path`."""
    if not path.is_symlink():
        return path
    target = Path(os.path.realpath(path))
    if target.is_symlink():  # a loop, which realpath leaves as it is
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path))
    return target


def _first_line(path: Path) -> bytes:
    """The file's bytes up to its first LF (nothing for a new file or not a regular one)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _BINARY)
    except FileNotFoundError:
        return b""
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return b""
        return handle.readline(TOML_LIMIT)


def _styled(content: str, first_line: bytes) -> bytes:
    """`content` with the line breaks and BOM of the file whose first line is `first_line`.

    The first line break decides, as Poetry decides for poetry.lock: a file that mixes
    CRLF and LF comes back all CRLF or all LF. A lone CR is not a CRLF line break.
    """
    data = content.encode("utf-8")
    if first_line.endswith(b"\r\n") and b"\r" not in first_line[:-2]:
        data = re.sub(rb"(?<!\r)\n", b"\r\n", data)
    if first_line.startswith(BOM) and not data.startswith(BOM):
        data = BOM + data
    return data


_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _BINARY


def _temporary_names(target: Path) -> Iterator[Path]:
    """Names for a new temporary file beside `target`, drawn at random, 100 at most."""
    for _ in range(100):
        yield target.with_name(f".{target.name}.{os.urandom(4).hex()}.tmp")


def _take_owner_and_mode(
    descriptor: int, temporary: Path, existing: os.stat_result | None, folder: Path
) -> None:
    """Give the temporary file the owner and mode of the file it replaces.

    Only root can give a file away: it gives the replaced file's owner and group, or for
    a new file the folder's, so that root locking a user's project leaves the user's
    files. The descriptor, not the path, is changed: a user owning the folder cannot swap
    the temporary file for a link to another file meanwhile. The owner comes first, as a
    change of owner may clear the set-user-ID and set-group-ID bits.
    """
    if _is_root():
        owner = existing if existing is not None else folder.stat()
        own = os.fstat(descriptor)
        if (own.st_uid, own.st_gid) != (owner.st_uid, owner.st_gid):
            _chown(descriptor, owner.st_uid, owner.st_gid)
    if existing is not None:
        mode = stat.S_IMODE(existing.st_mode)
        if os.chmod in os.supports_fd:
            os.chmod(descriptor, mode)
        else:  # pragma: no cover - Windows, where the mode is only the read-only flag
            temporary.chmod(mode)


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _chown(descriptor: int, uid: int, gid: int) -> None:
    # Root may still be refused: an NFS export that maps root to nobody, or a container
    # whose user namespace maps no such user. The file is then root's (or nobody's), as
    # it would be without poetry-cuda: not a reason to fail the write.
    with contextlib.suppress(OSError):
        os.fchown(descriptor, uid, gid)


def _sync_folder(folder: Path) -> None:
    """Sync `folder` to the disk, so that a rename in it survives a crash (POSIX only)."""
    if os.name != "posix":
        return
    try:
        descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:  # a platform or file system that does not open folders
        return
    try:
        with contextlib.suppress(OSError):  # one that refuses to sync them (EINVAL)
            os.fsync(descriptor)
    finally:
        os.close(descriptor)


def starts_with_bom(path: Path) -> bool:
    """Whether the file (after links) starts with a UTF-8 byte order mark."""
    return _first_line(_target(path)).startswith(BOM)


def encode_like(path: Path, content: str) -> bytes:
    """`content` as `write_atomic` would write it to `path` now (its line breaks and BOM)."""
    return _styled(content, _first_line(_target(path)))


def replace_folder(staging: Path, target: Path, *, settled: Callable[[Path], bool]) -> None:
    """Put the folder `staging` at `target` (renamed), replacing what is there.

    When another process put its folder at `target` between our check and our rename,
    `settled(target)` says whether that one holds what ours would (it then stays);
    otherwise the rename's error is raised. A replaced folder is removed after the swap,
    so `target` is never missing for longer than two renames.
    """
    if target.is_symlink() or target.is_file():
        target.unlink()
    if not target.exists():
        try:
            staging.rename(target)
        except OSError:
            if not settled(target):
                raise
        return
    # Imported here: replacing a folder is the rare write, and shutil (with the compression
    # modules it loads) and tempfile cost every command's start-up.
    import shutil
    import tempfile

    old = Path(tempfile.mkdtemp(prefix=f".{target.name}-old-", dir=target.parent))
    with contextlib.suppress(OSError):
        old.rmdir()
    target.rename(old)
    staging.rename(target)
    shutil.rmtree(old, ignore_errors=True)


def user_cache(environ: Mapping[str, str], os_name: str, home: Path) -> Path:
    """poetry-cuda's folder in the user's cache folder, which its caches and stores share.

    ``%LOCALAPPDATA%\\poetry-cuda`` on Windows (`os_name` ``"windows"``), else
    ``$XDG_CACHE_HOME/poetry-cuda`` or ``~/.cache/poetry-cuda``.
    """
    if os_name == "windows":
        local = environ.get("LOCALAPPDATA")
        return (Path(local) if local else home / "AppData" / "Local") / "poetry-cuda"
    cache = environ.get("XDG_CACHE_HOME", "")
    # The XDG spec: a relative path is invalid and ignored.
    base = Path(cache) if cache and Path(cache).is_absolute() else home / ".cache"
    return base / "poetry-cuda"


def open_lock_file(path: Path) -> int:
    """Open a store's own lock file `path` for `try_lock`, creating it; never through a link
    (a link in its place is removed first). Raises OSError."""
    if path.is_symlink():
        path.unlink()
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    return os.open(path, flags, 0o666)


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def try_lock(descriptor: int) -> bool:
        """Take the exclusive lock of the open file `descriptor` if it is free, without waiting.

        Closing the descriptor releases it; the lock is on one byte of the file on Windows.
        """
        try:
            msvcrt.locking(descriptor, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

else:
    import fcntl

    def try_lock(descriptor: int) -> bool:
        """Take the exclusive lock of the open file `descriptor` if it is free, without waiting.

        Closing the descriptor releases it.
        """
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True


def path_digest(path: Path) -> str:
    """A short name for a path in a store's records: the hash of the path's own bytes, so a
    folder the locale cannot decode has one too, and the same under every locale."""
    return hashlib.sha256(os.fsencode(path)).hexdigest()[:16]
