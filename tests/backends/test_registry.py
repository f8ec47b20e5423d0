"""The one list of backends: every backend registers its reader, editor and manager there."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.backends.adoption_edit import adopt
from poetry_cuda.backends.readers import READERS
from poetry_cuda.backends.registry import BACKENDS
from poetry_cuda.backends.registry import editors
from poetry_cuda.backends.registry import loaded
from poetry_cuda.backends.registry import registered
from poetry_cuda.cli.registry import package_manager
from poetry_cuda.errors import UsageError
from poetry_cuda.request.settings import BACKENDS as SETTINGS


if TYPE_CHECKING:
    from poetry_cuda.backends.base import Registered


def test_every_backend_the_settings_name_is_registered_once() -> None:
    names = [backend.name for backend in BACKENDS]
    assert sorted(names) == sorted(set(names))
    assert set(names) == set(SETTINGS) - {"auto"}


@pytest.mark.parametrize("backend", BACKENDS, ids=lambda b: b.name)
def test_each_entry_point_names_what_it_says(backend: Registered) -> None:
    entry = registered(backend.name)
    manager = package_manager(entry.name)
    assert manager.name == entry.name
    editor = loaded(entry.editor)
    for method in ("adopt_pin", "drop_index", "make_explicit"):
        assert callable(getattr(editor, method))
    reader = loaded(entry.reader)
    for method in ("dependencies", "indexes", "entries", "pins"):
        assert callable(getattr(reader, method))
    assert reader in READERS
    assert editor in editors()


def test_a_backend_this_release_lacks_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="cannot lock pdm projects"):
        package_manager("pdm")


def test_adopt_goes_through_the_registered_editors() -> None:
    text = '[tool.poetry.dependencies]\ntorch = { version = "2.5.1", source = "cu" }\n'
    assert adopt(text, (), (), (), None) == (text, [])
