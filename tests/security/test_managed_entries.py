"""What `lock` may rewrite or delete in pyproject.toml, end to end with real Poetry and real uv.

A committed cuda.lock is input from a teammate or an attacker: the entries it names are
poetry-cuda's only when pyproject.toml itself says so (an explicit source whose name and URL
poetry-cuda produces, a group with its marker line). Layouts tomlkit cannot edit faithfully are
refused, and the ones it can are edited in the user's own shape; nothing is ever written that
does not parse. Every refusal is exit 2 with a fix, and leaves every file byte-identical.
"""

from __future__ import annotations

import re

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import parse_toml
from poetry_cuda.files import read_toml
from tests.support.example import PYPI
from tests.support.example import torch_example
from tests.support.hostile_projects import BACKENDS
from tests.support.hostile_projects import lock
from tests.support.hostile_projects import lock_files
from tests.support.hostile_projects import snapshot


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli
    from tests.support.example import Backend


pytestmark = pytest.mark.slow
OWN_INDEX = {
    "poetry": '\n[[tool.poetry.source]]\nname = "internal"\nurl = "https://pkg.example/simple"\n'
    'priority = "explicit"\n',
    "uv": '\n[[tool.uv.index]]\nname = "internal"\nurl = "https://pkg.example/simple"\n'
    "explicit = true\n",
}
OWN_GROUP = {
    "poetry": "\n[tool.poetry.group.poetry-cuda]\noptional = true\n\n"
    '[tool.poetry.group.poetry-cuda.dependencies]\ntorchaudio = "2.5.1"\n',
    "uv": '\n[dependency-groups]\npoetry-cuda = ["torchaudio==2.5.1"]\n',
}


def _append(project: Path, text: str) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + text)


def _list_in_cuda_lock(project: Path, *names: str) -> None:
    path = project / "cuda.lock"
    text = path.read_text()
    recorded = re.search(r"^managed-sources = \[(.*)\]$", text, re.MULTILINE)
    assert recorded is not None, text
    extra = ", ".join(f'"{name}"' for name in names)
    path.write_text(text.replace(recorded.group(0), f"managed-sources = [{recorded[1]}, {extra}]"))


def _refused(cli: Cli, project: Path, backend: Backend, *says: str) -> str:
    before = snapshot(project, backend)
    result = lock(cli, project)
    assert result.code == 2, result.stdout + result.stderr
    for part in says:
        assert part in result.stderr, (part, result.stderr)
    assert "Fix:" in result.stderr
    assert snapshot(project, backend) == before
    return result.stderr


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_cuda_lock_naming_the_users_own_indexes_deletes_nothing(
    cli: Cli, tmp_path: Path, server: WorldServer, backend: Backend
) -> None:
    """Both the user's PyPI mirror (the project's primary index) and an explicit index of theirs."""
    project = torch_example(tmp_path, server, backend)
    _append(project, OWN_INDEX[backend])
    assert lock(cli, project).code == 0
    _list_in_cuda_lock(project, "internal")
    _refused(cli, project, backend, "'internal'", "cuda.lock")
    _list_in_cuda_lock(project, PYPI)
    _refused(cli, project, backend, f"'{PYPI}'")
    # The fix the message gives: without cuda.lock, both are the user's and stay.
    (project / "cuda.lock").unlink()
    assert lock(cli, project).code == 0
    table = read_toml(project / "pyproject.toml")["tool"][backend]
    names = [entry["name"] for entry in table["source" if backend == "poetry" else "index"]]
    assert PYPI in names and "internal" in names


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_users_own_group_of_the_managed_name_is_not_replaced(
    cli: Cli, tmp_path: Path, server: WorldServer, backend: Backend
) -> None:
    project = torch_example(tmp_path, server, backend)
    _append(project, OWN_GROUP[backend])
    _refused(cli, project, backend, "poetry-cuda", "Managed by poetry-cuda")


HEADER = {"poetry": "[tool.poetry]\npackage-mode = false\n", "uv": "[tool.uv]\npackage = false\n"}


def _without_own_index(text: str, backend: Backend) -> tuple[str, str, str]:
    """`text` without its `[[...]]` PyPI stand-in; that entry as an inline table, and its key."""
    key, tail = (
        ("source", 'priority = "primary"') if backend == "poetry" else ("index", "default = true")
    )
    own = re.search(
        rf'\n\[\[tool\.{backend}\.{key}\]\]\nname = "(.*)"\nurl = "(.*)"\n{tail}\n', text
    )
    assert own is not None, text
    return text.replace(own[0], "\n"), f'{{ name = "{own[1]}", url = "{own[2]}", {tail} }}', key


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_inline_source_array_is_locked_in_its_own_shape(
    cli: Cli, tmp_path: Path, server: WorldServer, backend: Backend
) -> None:
    """`source = [{ ... }]` / `index = [{ ... }]`: Poetry and uv read what poetry-cuda wrote."""
    project = torch_example(tmp_path, server, backend)
    pyproject = project / "pyproject.toml"
    text, entry, key = _without_own_index(pyproject.read_text(), backend)
    text = text.replace(HEADER[backend], f"{HEADER[backend]}{key} = [{entry}]  # the stand-in\n")
    pyproject.write_text(text)

    result = lock(cli, project)
    assert result.code == 0, result.stderr
    written = pyproject.read_text()
    [ours] = [e for e in parse_toml(written)["tool"][backend][key] if e["name"] != PYPI]
    # The user's entry and comment keep their bytes; ours is one more inline table.
    added = re.search(r", \{ name = \"" + ours["name"] + r"\".*? \}", written)
    assert added is not None, written
    kept = written.replace(added[0], "")
    if backend == "uv":  # uv's table also gains our default-groups list, after the user's keys
        listed = re.search(
            r"default-groups = \[\n    # Managed by poetry-cuda.*?\n\]\n", kept, re.DOTALL
        )
        assert listed is not None, written
        kept = kept.replace(listed[0], "")
    assert kept.startswith(text.split("[tool.poetry-cuda]")[0])
    assert lock(cli, project, "--check").code == 0
    assert pyproject.read_text() == written


@pytest.mark.parametrize(
    ("backend", "layout"),
    [
        *((backend, layout) for backend in BACKENDS for layout in ("inline-table", "dotted-keys")),
        ("poetry", "dependencies-string"),
    ],
)
def test_a_layout_that_cannot_be_edited_faithfully_is_refused(
    cli: Cli, tmp_path: Path, server: WorldServer, backend: Backend, layout: str
) -> None:
    project = torch_example(tmp_path, server, backend)
    pyproject = project / "pyproject.toml"
    text, entry, key = _without_own_index(pyproject.read_text(), backend)
    first = HEADER[backend].splitlines()[1]
    if layout == "inline-table":
        # Only the manager's own table is inline; the rest of `tool` stays standard tables.
        inline = f"[tool]\n{backend} = {{ {first}, {key} = [{entry}] }}\n"
        text = text.replace(HEADER[backend], inline)
        says = "inline table"
    elif layout == "dotted-keys":
        dotted = f"[tool]\n{backend}.{first}\n{backend}.{key} = [{entry}]\n"
        text = text.replace(HEADER[backend], dotted)
        says = "another table"
    else:
        text = f'{pyproject.read_text()}\n[tool.poetry.group.dev]\ndependencies = "pytest"\n'
        says = "tool.poetry.group.dev.dependencies must be a table"
    pyproject.write_text(text)
    parse_toml(text)  # valid TOML, which Poetry and uv read
    _refused(cli, project, backend, says)
    assert lock(cli, project, "--check").code == 2


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"\x00\xff\xfe binary \x80", "is not a readable lock file"),
        (b"", "is not a lock file"),
        (b"[package]\nname = 1\n", "is not a readable lock file"),
        (b"version = 1\n[metadata]\n", "does not lock torch"),
    ],
    ids=["binary", "empty", "package-not-an-array", "no-packages"],
)
def test_a_lock_file_that_is_no_lock_is_stale(
    cli: Cli, tmp_path: Path, server: WorldServer, backend: Backend, content: bytes, says: str
) -> None:
    project = torch_example(tmp_path, server, backend)
    assert lock(cli, project).code == 0
    assert lock(cli, project, "--check").code == 0
    name = lock_files(backend)[1]
    (project / name).write_bytes(content)
    result = lock(cli, project, "--check")
    assert result.code == 1, result.stdout + result.stderr
    assert f"{name} {says}" in result.stderr
    (project / name).unlink()
    result = lock(cli, project, "--check")
    assert result.code == 1
    assert f"{name} does not exist" in result.stderr


def test_a_binary_poetry_lock_is_a_bad_input_file_when_sources_change(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    """Dropping the old variant's entries reads poetry.lock: its damage is named, not a crash."""
    project = torch_example(tmp_path, server, "poetry")
    assert lock(cli, project).code == 0
    (project / "poetry.lock").write_bytes(b"\x00\xff\xfe binary \x80")
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            "[tool.poetry-cuda]\n", '[tool.poetry-cuda]\ncuda = "cu118"\n'
        )
    )
    _refused(cli, project, "poetry", "poetry.lock")
    assert read_toml(project / "cuda.lock")["packages"][0]["variant"] == "cu124"
