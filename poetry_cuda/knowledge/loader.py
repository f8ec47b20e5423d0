"""The one loader of the knowledge base: which files a data folder holds, and how they are read.

`load_compiled()` reads a folder's files from their compiled form beside them (`compiled`)
when it is theirs, else from the TOML; `load_directory()` reads a folder (tests,
maintainers' drafts) from its TOML. Both check every row (`tables`) and raise
`poetry_cuda.errors.InputFileError` naming the file and key of the first bad one.
`packaged` reads the folder shipped with poetry-cuda through them, once per process.

A command that needs one table (`detect` the driver tables, the settings the mirrors
known by name, `env` the toolkit wheels) reads only that one from the compiled form,
whose every row the compile checked (`read_part`); from the TOML, every row is checked
before any is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import TypeVar

from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.knowledge import compiled
from poetry_cuda.knowledge.tables import TABLE_FILES
from poetry_cuda.knowledge.tables import parse_data
from poetry_cuda.knowledge.tables import validate
from poetry_cuda.knowledge.tables import validate_nvidia


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping
    from pathlib import Path

    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.knowledge.model import Nvidia
    from poetry_cuda.knowledge.tables import Documents


T = TypeVar("T")


def _read(directory: Path, name: str) -> bytes:
    try:
        return (directory / name).read_bytes()
    except OSError as error:
        raise InputFileError(
            f"{name}: cannot be read ({error.strerror or error})",
            fix="reinstall poetry-cuda, whose knowledge base ships this file",
        ) from None


def read_data(directory: Path) -> dict[str, bytes]:
    """The bytes of every data file in `directory` by name: the tables that are no family
    (`tables.TABLE_FILES`, in that order), then the families' files in name order."""
    families = sorted(
        entry.name
        for entry in directory.iterdir()
        if entry.name.endswith(".toml") and entry.name not in TABLE_FILES
    )
    return {name: _read(directory, name) for name in (*TABLE_FILES, *families)}


def from_toml(data: Mapping[str, bytes]) -> KnowledgeBase:
    """The knowledge base of the TOML files `data` (as `read_data` gives them), every row
    checked."""
    return validate({name: parse_data(name, raw) for name, raw in data.items()})


def read_part(
    documents: Documents | None, part: Callable[[Documents], T], toml: Callable[[], T]
) -> T:
    """`part` of the compiled `documents` when they are sound, else what `toml` reads from
    the TOML, every row checked: a compiled file that does not validate is passed over,
    and the TOML's error, if any, is the one raised."""
    if documents is not None:
        try:
            return part(documents)
        except PoetryCudaError:
            pass
    return toml()


def compiled_documents(directory: Path, data: Mapping[str, bytes]) -> Documents | None:
    """The documents of the compiled form in `directory` when it is the compile of `data`."""
    return compiled.read(directory / compiled.FILE, compiled.content_key(data), list(data))


def load_directory(directory: Path) -> KnowledgeBase:
    """Read and validate every data file in `directory` from its TOML (uncached)."""
    return from_toml(read_data(directory))


def load_compiled(directory: Path) -> KnowledgeBase:
    """The knowledge base of the TOML files in `directory`, from their compiled form when
    it is theirs and sound, else from the TOML (uncached; see `load`)."""
    data = read_data(directory)
    return read_part(compiled_documents(directory, data), validate, lambda: from_toml(data))


def load_compiled_nvidia(directory: Path) -> Nvidia:
    """Only NVIDIA's driver tables, read as `load_compiled` reads (uncached; see `nvidia`)."""
    data = read_data(directory)
    documents = compiled_documents(directory, data)
    return read_part(documents, validate_nvidia, lambda: from_toml(data).nvidia)


def compiled_sound(directory: Path) -> bool:
    """Whether `directory`'s files are read from their compiled form: it is the compile of
    these files, whole, and every row validates (doctor warns otherwise: every command then
    parses the TOML, correct but slower)."""
    data = read_data(directory)
    return read_part(
        compiled_documents(directory, data), lambda d: bool(validate(d)), lambda: False
    )
