"""The transaction's journal, undo and recovery on real files (the processes are in
tests/robustness/test_transactions.py and test_stress.py)."""

from __future__ import annotations

import base64
import json

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import InputFileError
from poetry_cuda.locking import transaction
from poetry_cuda.locking.transaction import JOURNAL
from poetry_cuda.locking.transaction import Transaction
from poetry_cuda.locking.transaction import Undo


if TYPE_CHECKING:
    from pathlib import Path


NAMES = ("pyproject.toml", "poetry.lock", "cuda.lock")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'a'\n")
    (tmp_path / "poetry.lock").write_text("# lock\n")
    return tmp_path  # no cuda.lock yet


def test_a_committed_transaction_leaves_its_writes_and_no_journal(project: Path) -> None:
    edits = Transaction(project, NAMES)
    assert (project / JOURNAL).is_file()
    edits.write("cuda.lock", "version = 1\n")
    edits.commit()
    assert (project / "cuda.lock").read_text() == "version = 1\n"
    assert not (project / JOURNAL).exists()


def test_undo_restores_what_is_ours_and_keeps_what_is_not(project: Path) -> None:
    edits = Transaction(project, NAMES)
    edits.write("pyproject.toml", "[project]\nname = 'b'\n")
    edits.write("cuda.lock", "version = 1\n")
    (project / "cuda.lock").write_text("version = 1\n# the user's edit\n")
    undo, signals = edits.undo()
    assert signals == []
    assert undo == Undo(
        restored=("pyproject.toml",), unchanged=("poetry.lock",), kept=("cuda.lock",)
    )
    assert (project / "pyproject.toml").read_text() == "[project]\nname = 'a'\n"
    assert (project / "cuda.lock").read_text().endswith("# the user's edit\n")
    assert not (project / JOURNAL).exists()


def test_what_the_package_manager_writes_is_ours_while_it_runs(project: Path) -> None:
    edits = Transaction(project, NAMES)
    edits.expect_writes("poetry.lock")
    (project / "poetry.lock").write_text("# half a lock")
    undo, _ = edits.undo()
    assert undo.restored == ("poetry.lock",)
    assert (project / "poetry.lock").read_text() == "# lock\n"


def test_a_new_file_is_removed_by_the_undo(project: Path) -> None:
    edits = Transaction(project, NAMES)
    edits.write("cuda.lock", "version = 1\n")
    undo, _ = edits.undo()
    assert undo.restored == ("cuda.lock",)
    assert not (project / "cuda.lock").exists()


def test_recovery_undoes_a_run_that_died(project: Path) -> None:
    edits = Transaction(project, NAMES)
    edits.write("pyproject.toml", "[project]\nname = 'b'\n")
    del edits  # the process died: the journal stays
    recovery = transaction.recover(project)
    assert recovery is not None and not recovery.finished
    assert recovery.undo.restored == ("pyproject.toml",)
    assert "stopped before it finished" in recovery.lines()[0]
    assert (project / "pyproject.toml").read_text() == "[project]\nname = 'a'\n"
    assert transaction.recover(project) is None


def test_recovery_of_a_finished_run_only_removes_the_journal(project: Path) -> None:
    edits = Transaction(project, NAMES)
    edits.write("pyproject.toml", "[project]\nname = 'b'\n")
    edits._flush(state="done")  # died between the last write and the journal's removal
    recovery = transaction.recover(project)
    assert recovery is not None and recovery.finished
    assert (project / "pyproject.toml").read_text() == "[project]\nname = 'b'\n"
    assert not (project / JOURNAL).exists()


def _journal(project: Path, **changes: object) -> None:
    document: dict[str, object] = {
        "poetry-cuda-journal": 1,
        "pid": 7,
        "state": "running",
        "files": [
            {
                "name": "pyproject.toml",
                "before": base64.b64encode(b"x").decode(),
                "ours": [],
                "tool-writing": True,
            }
        ],
    }
    document.update(changes)
    (project / JOURNAL).write_text(json.dumps(document))


@pytest.mark.parametrize(
    "changes",
    [
        {"files": [{"name": "../outside", "before": None, "ours": [], "tool-writing": True}]},
        {"files": [{"name": "/etc/passwd", "before": None, "ours": [], "tool-writing": True}]},
        {"files": [{"name": "a", "before": "not base64!", "ours": [], "tool-writing": True}]},
        {"files": [{"name": "a"}]},
        {"state": "maybe"},
        {"pid": "7"},
        {"poetry-cuda-journal": 2},
    ],
)
def test_a_hostile_or_damaged_journal_is_refused_and_nothing_is_touched(
    project: Path, changes: dict[str, object]
) -> None:
    _journal(project, **changes)
    before = (project / "pyproject.toml").read_bytes()
    with pytest.raises(InputFileError) as error:
        transaction.recover(project)
    assert "journal" in error.value.what and "delete" in error.value.fix
    assert (project / "pyproject.toml").read_bytes() == before
    assert (project / JOURNAL).exists()


def test_a_journal_that_is_not_json_is_refused(project: Path) -> None:
    (project / JOURNAL).write_bytes(b"\xff\x00")
    with pytest.raises(InputFileError):
        transaction.recover(project)


@pytest.mark.parametrize("value", ["soon", "-1", "1e9", "nan"])
def test_a_bad_wait_limit_names_the_variable(value: str) -> None:
    with pytest.raises(ConfigError) as error:
        transaction.wait_limit({"POETRY_CUDA_LOCK_TIMEOUT": value})
    assert "POETRY_CUDA_LOCK_TIMEOUT" in error.value.what


def test_the_project_lock_is_reentrant_within_a_process(project: Path) -> None:
    said: list[str] = []
    with transaction.exclusive(project, said.append), transaction.exclusive(project, said.append):
        pass
    assert said == []  # the second entry did not wait for the first
