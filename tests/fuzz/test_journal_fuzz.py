"""The journal reader and the recovery on random journals, as a clone or a damaged disk may
hold them: near-valid documents with a wrong value at any key, random JSON, random bytes.

The reader returns a journal that holds only what poetry-cuda writes, or raises its one clear
InputFileError (exit 2); it never raises anything else and never changes a file. The recovery
changes no file but the four a run edits, each only in the project folder itself, and never
follows a link out of it.
"""

from __future__ import annotations

import base64
import json
import os
import tempfile

from pathlib import Path
from typing import Any

import pytest

from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from poetry_cuda.errors import InputFileError
from poetry_cuda.locking import transaction
from poetry_cuda.locking.transaction import EDITED
from poetry_cuda.locking.transaction import JOURNAL


pytestmark = pytest.mark.skipif(os.name != "posix", reason="links of POSIX")

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
HOSTILE_NAMES = [
    "notes.txt",
    "README.md",
    ".env",
    "../victim",
    "/etc/passwd",
    "hosts",
    "hosts/../cuda.lock",
    "cuda.lock\x00",
    "CUDA.LOCK",
    "\uff43uda.lock",
    "a" * 300,
    JOURNAL,
]
DIGESTS = st.one_of(st.just("absent"), st.text("0123456789abcdef", min_size=64, max_size=64))

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=10**20, max_value=10**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from([*EDITED, *HOSTILE_NAMES]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=12,
)


def _or_anything(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly a valid value (nine times in ten), else any JSON value at all."""
    return st.integers(0, 9).flatmap(lambda n: values if n == 0 else valid)


entries = st.fixed_dictionaries(
    {
        "name": _or_anything(st.sampled_from(EDITED)).flatmap(
            lambda name: st.sampled_from([name, name, name, *HOSTILE_NAMES[:3]])
        ),
        "before": _or_anything(
            st.one_of(st.none(), st.binary(max_size=40).map(lambda b: base64.b64encode(b).decode()))
        ),
        "ours": _or_anything(st.lists(DIGESTS, max_size=3)),
        "tool-writing": _or_anything(st.booleans()),
    }
)
documents = st.fixed_dictionaries(
    {
        "poetry-cuda-journal": _or_anything(st.just(1)),
        "pid": _or_anything(st.integers(1, 2**32 - 1)),
        "state": _or_anything(st.sampled_from(["running", "done"])),
        "files": _or_anything(st.lists(entries, max_size=3)),
    }
)


def _reshaped(document: dict[str, Any], data: st.DataObject) -> object:
    """The document, one time in four with a key dropped or one added, or whole replaced."""
    change = data.draw(st.sampled_from(["none"] * 9 + ["drop", "add", "replace"]))
    if change == "drop":
        document.pop(data.draw(st.sampled_from(sorted(document))))
    elif change == "add":
        document[data.draw(st.text(max_size=12))] = data.draw(values)
    elif change == "replace":
        return data.draw(values)
    return document


journal_bytes = st.one_of(
    documents.map(lambda d: json.dumps(d).encode()),
    st.binary(max_size=200),
)


def _project(root: Path) -> Path:
    project = root / "project"
    project.mkdir()
    (root / "victim").write_bytes(b"precious\n")
    (project / "pyproject.toml").write_bytes(b"[project]\nname = 'a'\n")
    (project / "poetry.lock").write_bytes(b"# lock\n")
    (project / "cuda.lock").symlink_to("../victim")  # a link out of the project
    (project / "notes.txt").symlink_to("../victim")
    (project / "README.md").write_bytes(b"# read me\n")
    (project / "hosts").mkdir()
    return project


def _tree(root: Path) -> dict[str, object]:
    found: dict[str, object] = {}
    for folder, folders, files in os.walk(root):
        for name in folders + files:
            path = Path(folder) / name
            key = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[key] = ("link", str(path.readlink()))
            elif path.is_dir():
                found[key] = ("folder",)
            else:
                found[key] = path.read_bytes()
    return found


def _check_journal(journal: transaction.Journal) -> None:
    names = [item.name for item in journal.files]
    assert set(names) <= set(EDITED) and len(set(names)) == len(names)
    assert 0 < journal.pid < 2**32
    for item in journal.files:
        assert item.before is None or isinstance(item.before, bytes)
        assert all(d == "absent" or len(d) == 64 for d in item.ours)
        assert item.link is None  # a journal never makes a run follow a link


def _read(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        project = _project(root)
        (project / JOURNAL).write_bytes(data)
        before = _tree(root)
        try:
            journal = transaction.read_journal(project)
        except InputFileError as error:
            assert error.exit_code == 2
            assert "not a journal poetry-cuda can undo a run from" in error.what
            assert error.why and "delete" in error.fix
        else:
            assert journal is not None
            _check_journal(journal)
        assert _tree(root) == before


@FUZZ
@given(st.data())
def test_the_reader_returns_a_valid_journal_or_its_one_error(data: st.DataObject) -> None:
    document = _reshaped(data.draw(documents), data)
    _read(json.dumps(document).encode())


@FUZZ
@given(st.binary(max_size=300))
def test_the_reader_survives_any_bytes(data: bytes) -> None:
    _read(data)


@FUZZ
@given(journal_bytes)
def test_recovery_writes_only_the_files_a_run_edits_in_the_project(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        project = _project(root)
        (project / JOURNAL).write_bytes(data)
        before = _tree(root)
        try:
            transaction.recover(project)
        except InputFileError:
            assert _tree(root) == before  # refused whole: nothing changed
            return
        after = _tree(root)
        changed = {key for key in before.keys() | after.keys() if before.get(key) != after.get(key)}
        assert changed <= {f"project/{name}" for name in EDITED} | {f"project/{JOURNAL}"}
        assert "project/cuda.lock" not in changed  # a link: never restored through
        assert (root / "victim").read_bytes() == b"precious\n"
