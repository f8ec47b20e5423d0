"""The package managers as the interface loads them: by name, one at a time, cheaply."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from poetry_cuda.cli.registry import package_manager
from poetry_cuda.doctor.facts import install_hint
from poetry_cuda.errors import UsageError


@pytest.mark.parametrize(
    ("name", "lockfile", "hint"),
    [("poetry", "poetry.lock", "poetry install"), ("uv", "uv.lock", "uv sync")],
)
def test_a_manager_is_loaded_by_its_name(name: str, lockfile: str, hint: str) -> None:
    manager = package_manager(name)
    assert (manager.name, manager.lockfile, manager.install_hint) == (name, lockfile, hint)
    # The hint doctor's fixes name is the install `sync` runs, without its options.
    assert str(manager.install_command((), ())).startswith(hint)


def test_a_backend_this_release_lacks_is_bad_input() -> None:
    with pytest.raises(UsageError, match="cannot lock pdm projects") as raised:
        package_manager("pdm")
    assert raised.value.exit_code == 2


@pytest.mark.parametrize(
    ("recorded", "hint"),
    [
        ("uv", "uv sync"),
        ("poetry", "poetry install"),
        (None, "poetry install"),
        ("pdm", "poetry install"),
    ],
)
def test_doctor_names_the_recorded_managers_install(recorded: str | None, hint: str) -> None:
    assert install_hint(recorded, package_manager) == hint


LOADED = """
import json, sys
from poetry_cuda.cli.registry import package_manager
package_manager(sys.argv[1])
print(json.dumps(sorted(sys.modules)))
"""


@pytest.mark.parametrize(("name", "other"), [("poetry", "uv"), ("uv", "poetry")])
def test_loading_a_manager_loads_neither_the_other_nor_its_editors_toolkit(
    name: str, other: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", LOADED, name], capture_output=True, text=True, check=True
    )
    modules = json.loads(done.stdout)
    assert f"poetry_cuda.backends.{name}.manager" in modules
    # The other backend is registered (its package names its parts: `backends.registry`);
    # none of them is loaded.
    loaded = [m for m in modules if m.startswith(f"poetry_cuda.backends.{other}")]
    assert loaded == [f"poetry_cuda.backends.{other}"]
    # tomlkit, Poetry's application and cleo wait for the first edit or lock (`lazy`).
    assert [m for m in modules if m.split(".")[0] in ("tomlkit", "cleo")] == []
    assert [m for m in modules if m.startswith(("poetry.console", "poetry.factory"))] == []
