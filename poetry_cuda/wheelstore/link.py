"""Putting a stored file into an environment: a reflink, a hard link, or a copy.

A reflink (a copy-on-write clone: btrfs, XFS, APFS) shares the stored file's blocks until
either side changes, so an environment's file can be edited without touching the store.
Where the filesystem has none (ext4), a hard link shares the file itself: the same bytes
on disk, and a change through either name changes both (doctor finds such a change).
Across filesystems neither exists, and the file is copied, which the result says. The way
is found once per store and environment (`Linker`) and kept; a file that cannot be linked
after all (too many links to one file, a store owned by another user under protected
hard links) is copied.

A copy or a clone gets the stored file's modification time, so `same` recognises it
later by its size and time; a hard link is the stored file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import sys
import threading

from typing import TYPE_CHECKING
from typing import Literal


if TYPE_CHECKING:
    from pathlib import Path


Mode = Literal["reflink", "hardlink", "copy"]
FICLONE = 0x40049409  # Linux's ioctl that clones a whole file (btrfs, XFS, bcachefs)
# What a link or clone that cannot be made here raises: try the next way.
_UNSUPPORTED = {
    errno.EXDEV,
    errno.EOPNOTSUPP,
    errno.ENOTTY,
    errno.EINVAL,
    errno.EPERM,
    errno.EACCES,
    errno.EMLINK,
    errno.ENOSYS,
    getattr(errno, "ENOTSUP", errno.EOPNOTSUPP),
}


class Linker:
    """Places stored files at paths in one environment, the best way the two folders allow.

    `mode` starts as `preferred` (or the best there is) and falls back, for good, the
    first time a way fails for a reason that holds for every file (`reason` says why files
    are copied); `copied` counts the files copied although a link was tried (too many
    links to one file, say); `placed` every file placed, whichever way.
    """

    def __init__(self, preferred: Mode | None = None) -> None:
        self.mode: Mode = preferred or ("reflink" if _can_clone() else "hardlink")
        self.copied = 0
        self.placed = 0
        self.reason = ""
        self._count = threading.Lock()  # wheels are placed from several threads

    def place(self, source: str | Path, target: str | Path) -> None:
        """Put `source` at `target` (which must not exist)."""
        self._place(source, target)
        with self._count:
            self.placed += 1

    def _place(self, source: str | Path, target: str | Path) -> None:
        if self.mode == "reflink":
            try:
                _clone(source, target)
                return
            except OSError as error:
                if error.errno not in _UNSUPPORTED:
                    raise
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(target)  # noqa: PTH108
                self.mode = "hardlink"  # no clones on this filesystem: links are as good
        if self.mode == "hardlink":
            try:
                os.link(source, target)
                return
            except OSError as error:
                if error.errno not in _UNSUPPORTED:
                    raise
                if error.errno in (errno.EXDEV, errno.EPERM, errno.EACCES):
                    self.mode = "copy"
                    self.reason = (
                        "the store is on another filesystem than the environment"
                        if error.errno == errno.EXDEV
                        else f"hard links to the store are refused here ({error.strerror})"
                    )
                else:
                    self.copied += 1  # EMLINK: this file has too many links
        copy(source, target)


def _can_clone() -> bool:
    return sys.platform == "linux"


def _clone(source: str | Path, target: str | Path) -> None:
    import fcntl  # POSIX only, and only where clones are tried

    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    with open(source, "rb") as reading:  # noqa: PTH123
        descriptor = os.open(target, flags, os.fstat(reading.fileno()).st_mode & 0o777)
        try:
            fcntl.ioctl(descriptor, FICLONE, reading.fileno())
        finally:
            os.close(descriptor)
    _same_times(source, target)


def copy(source: str | Path, target: str | Path) -> None:
    """A copy of `source` at `target` (new), with its mode and modification time."""
    shutil.copyfile(source, target, follow_symlinks=False)
    shutil.copymode(source, target, follow_symlinks=False)
    _same_times(source, target)


def _same_times(source: str | Path, target: str | Path) -> None:
    info = os.lstat(source)
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns), follow_symlinks=False)


def same(source: os.stat_result, target: os.stat_result) -> bool:
    """Whether `target` is `source` placed by a `Linker`: the same file, or a copy or clone
    of its size and modification time."""
    if (source.st_dev, source.st_ino) == (target.st_dev, target.st_ino):
        return True
    return (source.st_size, source.st_mtime_ns) == (target.st_size, target.st_mtime_ns)
