"""Small indexes of hand-made wheels and the Poetry projects that lock against them, for the
shared wheel store and the duplicate-distribution check.

`write_index(root, wheels)` builds each `WheelSpec` into `root/simple/<name>/`, the layout
`IndexServer(root)` serves as a PEP 503 index at `/simple/`. `poetry_project` writes a
Poetry project (package-mode false) whose only source is that index, so real Poetry locks
and installs it offline. `venv_files` lists what an installed environment holds, for
comparing two of them byte for byte.
"""

from __future__ import annotations

import os
import zipfile

from pathlib import Path
from typing import TYPE_CHECKING

from tests.support.wheels import Metadata
from tests.support.wheels import WheelSpec
from tests.support.wheels import build_wheel
from tests.support.wheels import record_hash


if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Mapping
    from collections.abc import Sequence


SOURCE = "local"


def wheel(
    name: str,
    version: str,
    *requires: str,
    files: Mapping[str, str | bytes] | None = None,
    extras: Sequence[str] = (),
    tag: str = "py3-none-any",
) -> WheelSpec:
    """A wheel of `name` `version` requiring `requires`, with a module of its own unless
    `files` says otherwise."""
    module = name.replace("-", "_")
    return WheelSpec(
        Metadata(name, version, requires_dist=requires, provides_extra=tuple(extras)),
        tag=tag,
        files=files if files is not None else {f"{module}/__init__.py": f"V = {version!r}\n"},
    )


def write_index(root: Path, wheels: Iterable[WheelSpec]) -> Path:
    """Build `wheels` into `root/simple/<name>/`; return `root`."""
    for spec in wheels:
        build_wheel(spec, root / "simple" / spec.metadata.name)
    return root


def poetry_project(
    folder: Path,
    index_url: str,
    dependencies: Sequence[str],
    *,
    requires_python: str = ">=3.11,<3.12",
) -> Path:
    """A Poetry project depending on `dependencies` from the index at `index_url` only."""
    folder.mkdir(parents=True, exist_ok=True)
    listed = "".join(f"    {_quoted(item)},\n" for item in dependencies)
    (folder / "pyproject.toml").write_text(
        "[project]\n"
        'name = "demo"\n'
        'version = "0"\n'
        f'requires-python = "{requires_python}"\n'
        f"dependencies = [\n{listed}]\n\n"
        "[tool.poetry]\n"
        "package-mode = false\n\n"
        "[[tool.poetry.source]]\n"
        f'name = "{SOURCE}"\n'
        f'url = "{index_url}"\n'
        'priority = "primary"\n'
    )
    return folder


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def featured_wheel(
    folder: Path,
    name: str,
    version: str,
    files: Mapping[str, tuple[bytes, int]],
    *,
    tag: str = "py3-none-any",
    purelib: bool = True,
    entry_points: str = "",
) -> Path:
    """A wheel with what `WheelSpec` does not write: file modes (`files` maps a path to its
    bytes and mode), ``.data`` folders, and ``entry_points.txt``; RECORD last, as real
    wheels have it."""
    stem = f"{name.replace('-', '_')}-{version}"
    dist_info = f"{stem}.dist-info"
    members = dict(files)
    members[f"{dist_info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
        0o644,
    )
    members[f"{dist_info}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: poetry-cuda-test-builder (1.0)\n"
        f"Root-Is-Purelib: {'true' if purelib else 'false'}\nTag: {tag}\n".encode(),
        0o644,
    )
    if entry_points:
        members[f"{dist_info}/entry_points.txt"] = (entry_points.encode(), 0o644)
    rows = [f"{path},{record_hash(data)},{len(data)}" for path, (data, _) in members.items()]
    rows.append(f"{dist_info}/RECORD,,")
    members[f"{dist_info}/RECORD"] = (("\n".join(rows) + "\n").encode(), 0o644)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem}-{tag}.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for member, (data, mode) in members.items():
            info = zipfile.ZipInfo(member, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = (0o100000 | mode) << 16
            archive.writestr(info, data)
    return path


def venv_files(venv: Path, *, skip: Sequence[str] = ("pip",)) -> dict[str, tuple[bytes, int]]:
    """Every file below `venv` by relative path: its bytes (the venv's own path in them
    written as ``<venv>``, so two environments compare) and its mode; a link as
    ``link:<target>``.

    Distributions named in `skip` (virtualenv's seed packages) and `__pycache__` folders
    are left out; so is `pyvenv.cfg`, which names the interpreter that made the venv.
    """
    own = str(venv).encode()
    found: dict[str, tuple[bytes, int]] = {}
    for folder, names, files in os.walk(venv):
        names[:] = [n for n in names if n != "__pycache__" and not _skipped(n, skip)]
        for file in files:
            path = Path(folder) / file
            relative = path.relative_to(venv).as_posix()
            if relative == "pyvenv.cfg" or _skipped(file, skip):
                continue
            if path.is_symlink():
                found[relative] = (f"link:{path.readlink()}".encode(), 0)
                continue
            found[relative] = (
                path.read_bytes().replace(own, b"<venv>"),
                path.stat().st_mode & 0o777,
            )
    return found


def _skipped(name: str, skip: Sequence[str]) -> bool:
    return any(name == s or name.startswith((f"{s}-", f"{s}.")) for s in skip)
