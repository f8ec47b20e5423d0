"""The heavy third-party modules, each imported where it is first used.

A command imports only what its path needs (`tests/cli/test_imports.py` counts it): tomlkit
costs more than a plan takes, and Poetry's application more than a lock of a uv project
needs. So a module below `cli/` that needs one of these in some of its functions asks here,
and still imports everything else at its top: importing it stays cheap, and this file is
the one place that says which imports wait.
"""

from __future__ import annotations

from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from types import ModuleType


def tomlkit() -> ModuleType:
    """tomlkit (with its `items`, `container` and `exceptions`), the style-keeping editor."""
    import tomlkit

    return tomlkit


def requirements() -> ModuleType:
    """`packaging.requirements` (and with it packaging's markers and wheel tags), PEP 508."""
    import packaging.requirements

    return packaging.requirements


def poetry_application() -> ModuleType:
    """`poetry.console.application`: Poetry's own console application (`Application`)."""
    import poetry.console.application

    return poetry.console.application


def poetry_factory() -> ModuleType:
    """`poetry.factory`: the project as Poetry reads it (`Factory`)."""
    import poetry.factory

    return poetry.factory


def poetry_pyproject_errors() -> ModuleType:
    """`poetry.core.pyproject.exceptions`: how Poetry refuses a pyproject.toml."""
    import poetry.core.pyproject.exceptions

    return poetry.core.pyproject.exceptions


def cleo_argv_input() -> ModuleType:
    """`cleo.io.inputs.argv_input`: a command line as Poetry's application reads it."""
    import cleo.io.inputs.argv_input

    return cleo.io.inputs.argv_input


def cleo_buffered_output() -> ModuleType:
    """`cleo.io.outputs.buffered_output`: Poetry's output, kept to be shown in a message."""
    import cleo.io.outputs.buffered_output

    return cleo.io.outputs.buffered_output


def uv() -> ModuleType:
    """The `uv` Python package, which knows where its uv executable lies."""
    import uv

    return uv
