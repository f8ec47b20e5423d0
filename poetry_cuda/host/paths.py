"""Where detection looks on a Linux file system, kept in one value so tests can move it."""

from __future__ import annotations

import dataclasses
import re

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.host.system_files import SYSFS_ROOT_ENV
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Mapping


# One library of ``ldconfig -p``: "\tlibcudnn.so.8 (libc6,x86-64) => /usr/lib/.../libcudnn.so.8".
_LDCONFIG_ENTRY = re.compile(r"^\s*(lib\S+\.so\.\S+)\s.*=>\s*(\S.*?)\s*$")


def ldconfig_libraries(text: str) -> list[tuple[str, str]]:
    """The ``(soname, path)`` of every versioned library in ``ldconfig -p`` output."""
    found = []
    # Lines end at "\n" alone: splitlines() would also cut a path at "\r", "\x1c" or "\x85".
    for line in text.split("\n"):
        match = _LDCONFIG_ENTRY.match(line)
        if match:
            found.append((match.group(1), match.group(2)))
    return found


@frozen
class HostPaths:
    root: Path = Path("/")  # the file system the AMD and Intel probes read
    proc: Path = Path("/proc")
    sys: Path = Path("/sys")
    usr_local: Path = Path("/usr/local")
    opt: Path = Path("/opt")
    # WSL2 mounts the Windows driver's libnvidia-ml.so.1 and nvidia-smi here.
    wsl_lib: Path = Path("/usr/lib/wsl/lib")
    include_dirs: tuple[Path, ...] = (
        Path("/usr/include"),
        Path("/usr/include/x86_64-linux-gnu"),
        Path("/usr/include/aarch64-linux-gnu"),
    )
    library_dirs: tuple[Path, ...] = (
        Path("/usr/lib/x86_64-linux-gnu"),
        Path("/usr/lib64"),
        Path("/usr/lib/aarch64-linux-gnu"),
        Path("/usr/lib"),
    )
    ldconfig: tuple[Path, ...] = (Path("/sbin/ldconfig"), Path("/usr/sbin/ldconfig"))

    @classmethod
    def of(cls, environ: Mapping[str, str]) -> HostPaths:
        """This machine's locations, or where `SYSFS_ROOT_ENV` names a folder, the kernel's
        files (``sys``, ``proc``, ``dev``) and those the AMD and Intel probes read below it."""
        root = environ.get(SYSFS_ROOT_ENV, "")
        if not root:
            return cls()
        moved = cls.under(Path(root))
        return dataclasses.replace(cls(), root=moved.root, sys=moved.sys, proc=moved.proc)

    @classmethod
    def under(cls, root: Path) -> HostPaths:
        """The default locations, moved below `root` (a fake or mounted file system)."""

        def move(path: Path) -> Path:
            return root / path.relative_to(path.anchor)

        default = cls()
        return cls(
            root=root,
            proc=move(default.proc),
            sys=move(default.sys),
            usr_local=move(default.usr_local),
            opt=move(default.opt),
            wsl_lib=move(default.wsl_lib),
            include_dirs=tuple(move(path) for path in default.include_dirs),
            library_dirs=tuple(move(path) for path in default.library_dirs),
            ldconfig=tuple(move(path) for path in default.ldconfig),
        )
