"""The one list of backends: a new package manager is one folder (`manager`, `runner`,
`reader`, `editor`, and its `BACKEND` in the package) and one line here.

Everything that goes through every backend reads this list: the readers of the authors'
tables (`backends.readers`), `lock --adopt`'s editors (`editors`, for
`backends.adoption_edit`) and the interface's loader of a manager by name
(`cli.registry.package_manager`). Editors and managers are imported when first used.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.backends import poetry
from poetry_cuda.backends import uv
from poetry_cuda.backends.base import Registered
from poetry_cuda.backends.base import unknown


if TYPE_CHECKING:
    from poetry_cuda.backends.base import AdoptingEditor


BACKENDS: tuple[Registered, ...] = (poetry.BACKEND, uv.BACKEND)


def registered(name: str) -> Registered:
    """The backend `name`; UsageError when this release has none of that name (a cuda.lock
    written by a newer one may name it)."""
    found = next((backend for backend in BACKENDS if backend.name == name), None)
    if found is None:
        raise unknown(name)
    return found


def loaded(entry: str) -> Any:
    """What the entry point `entry` names ("module" or "module:attribute"), imported now."""
    module, _, attribute = entry.partition(":")
    found = import_module(module)
    return getattr(found, attribute) if attribute else found


def installed_managers() -> list[str]:
    """The backends whose tool can run here, in the registry's order (imported on the call)."""
    return [backend.name for backend in BACKENDS if loaded(backend.installed)()]


@cache
def editors() -> tuple[AdoptingEditor, ...]:
    """Every backend's editor, for `lock --adopt` (imported on the first call)."""
    return tuple(loaded(backend.editor) for backend in BACKENDS)
