"""Reading the small files detection reads: sysfs and procfs attributes, version files.

Every probe reads through `read_small`, so that no file can stall or exhaust detection: a
FIFO would block a plain read for ever and ``/dev/zero`` never ends. The file must be a
regular file (after links): its type is checked before it is opened, it is opened without
blocking and checked again, and at most `SMALL_FILE_LIMIT` bytes are read. sysfs reports
each attribute's size as the page size (4 KiB; 64 KiB on some arm64 kernels) and procfs
as 0, so the limit stays above both and far below what could hurt.

`SYSFS_ROOT_ENV` moves the root these files are read below (tests give a fake one, as the
fake NVML stands in for NVIDIA's driver).
"""

from __future__ import annotations

import errno
import os

from typing import TYPE_CHECKING

from poetry_cuda.errors import RefusedFileError
from poetry_cuda.files import file_kind
from poetry_cuda.messages import message


if TYPE_CHECKING:
    from pathlib import Path


SMALL_FILE_LIMIT = 256 * 1024
SYSFS_ROOT_ENV = "POETRY_CUDA_SYSFS_ROOT"
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def read_small(path: Path, *, limit: int = SMALL_FILE_LIMIT) -> str:
    """The text of the regular file `path`, at most `limit` bytes (UTF-8, errors replaced).

    Raises `FileNotFoundError` where there is no file, and `OSError` whose ``strerror``
    says why otherwise (not a regular file, too large, unreadable).
    """
    _check(path.stat().st_mode)  # a device is never opened: opening some has effects
    descriptor = os.open(path, _FLAGS)
    with os.fdopen(descriptor, "rb") as handle:
        _check(os.fstat(handle.fileno()).st_mode)
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise RefusedFileError(errno.EFBIG, message("file.larger-than-kib", limit=limit // 1024))
    return data.decode("utf-8", errors="replace")


def _check(mode: int) -> None:
    kind = file_kind(mode)
    if kind is not None:
        raise RefusedFileError(errno.EINVAL, message("file.not-regular-but", kind=kind))
