"""The transaction's journal, undo and recovery on real files (the processes are in
tests/robustness/test_transactions.py and test_stress.py)."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import InputFileError
from poetry_cuda.locking import transaction
from poetry_cuda.locking.transaction import JOURNAL
from poetry_cuda.locking.transaction import Transaction
from poetry_cuda.locking.transaction import Undo


if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


NAMES = ("pyproject.toml", "poetry.lock", "cuda.lock")
POSIX = pytest.mark.skipif(os.name != "posix", reason="links, pipes and flock of POSIX")


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
    assert "stopped before it finished" in str(recovery.lines()[0])
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
    said: list[object] = []
    with transaction.exclusive(project, said.append), transaction.exclusive(project, said.append):
        pass
    assert said == []  # the second entry did not wait for the first


# Links, and what is found under the names a run edits


def test_a_journal_of_poetry_cuda_is_read_back_whole(project: Path) -> None:
    edits = Transaction(project, NAMES)
    edits.write("cuda.lock", "version = 1\n")
    journal = transaction.read_journal(project)
    assert journal is not None and journal.pid == os.getpid() and not journal.finished
    assert [f.name for f in journal.files] == list(NAMES)
    assert journal.files[0].before == b"[project]\nname = 'a'\n"
    assert journal.files[2].before is None and journal.files[2].ours


@POSIX
def test_the_journal_is_written_in_the_project_never_through_a_link(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / JOURNAL).symlink_to("../created")
    edits = Transaction(project, NAMES)
    assert not (tmp_path / "created").exists()
    assert (project / JOURNAL).is_file() and not (project / JOURNAL).is_symlink()
    edits.commit()
    assert not (project / JOURNAL).exists()
    assert not (tmp_path / "created").exists()


@POSIX
def test_a_link_the_run_found_is_written_and_undone_through(tmp_path: Path) -> None:
    (tmp_path / "shared").mkdir()
    (tmp_path / "project").mkdir()
    target = tmp_path / "shared" / "pyproject.toml"
    target.write_text("a = 1\n")
    link = tmp_path / "project" / "pyproject.toml"
    link.symlink_to("../shared/pyproject.toml")
    edits = Transaction(tmp_path / "project", NAMES)
    edits.write("pyproject.toml", "a = 2\n")
    assert link.is_symlink() and target.read_text() == "a = 2\n"
    undo, _ = edits.undo()
    assert undo.restored == ("pyproject.toml",)
    assert link.is_symlink() and target.read_text() == "a = 1\n"


@POSIX
def test_a_link_that_moved_during_the_run_is_neither_written_nor_undone(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    for name in ("first", "second"):
        (tmp_path / name).write_text(f"{name} = 1\n")
    link = tmp_path / "project" / "pyproject.toml"
    link.symlink_to("../first")
    edits = Transaction(tmp_path / "project", NAMES)
    edits.write("pyproject.toml", "first = 2\n")
    link.unlink()
    link.symlink_to("../second")  # someone points the link elsewhere
    with pytest.raises(InputFileError, match="changed during the run"):
        edits.write("pyproject.toml", "first = 3\n")
    undo, _ = edits.undo()
    assert undo.failed == (
        "pyproject.toml (it is no longer the symbolic link the run found; check it by hand)",
    )
    assert (tmp_path / "second").read_text() == "second = 1\n"
    assert (tmp_path / "first").read_text() == "first = 2\n"  # left as the user's to check


@POSIX
def test_a_link_that_appears_during_the_run_is_not_followed(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "victim").write_text("precious\n")
    edits = Transaction(project, NAMES)
    edits.write("cuda.lock", "version = 1\n")
    (project / "cuda.lock").unlink()
    (project / "cuda.lock").symlink_to("../victim")
    with pytest.raises(InputFileError, match="changed during the run"):
        edits.write("cuda.lock", "version = 2\n")
    undo, _ = edits.undo()
    assert undo.failed[0].startswith("cuda.lock (it is a symbolic link")
    assert (tmp_path / "victim").read_text() == "precious\n"


@POSIX
@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda p: p.symlink_to("../created"), "a symbolic link to a file that does not exist"),
        (lambda p: p.symlink_to(p.name), "a loop of symbolic links"),
        (lambda p: p.mkdir(), "not a regular file but a folder"),
        (lambda p: os.mkfifo(p), "not a regular file but a named pipe (FIFO)"),
        (lambda p: p.symlink_to("../folder"), "a symbolic link to a folder"),
    ],
    ids=["dangling", "loop", "folder", "pipe", "link to a folder"],
)
def test_a_file_of_another_kind_is_refused_before_the_journal(
    tmp_path: Path, make: Callable[[Path], None], said: str
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "folder").mkdir()
    make(project / "poetry.lock")
    with pytest.raises(InputFileError) as error:
        Transaction(project, NAMES)
    assert said in error.value.what and error.value.why and error.value.fix
    assert not (project / JOURNAL).exists()
    assert not (tmp_path / "created").exists()


def test_a_run_edits_only_the_files_of_a_run(project: Path) -> None:
    with pytest.raises(ValueError, match="at most once"):
        Transaction(project, ("pyproject.toml", "README.md"))
    with pytest.raises(ValueError, match="at most once"):
        Transaction(project, ("cuda.lock", "cuda.lock"))
    assert not (project / JOURNAL).exists()


# Whose journal: a live run's or a dead run's

HOLD = """
import fcntl, os, sys
descriptor = os.open(sys.argv[1], os.O_RDONLY)
fcntl.flock(descriptor, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()
"""


def test_run_state_tells_a_live_run_from_a_dead_one(project: Path) -> None:
    assert transaction.run_state(project) is None
    Transaction(project, NAMES)  # and the process "dies": the journal stays
    assert transaction.run_state(project) == "dead"
    with transaction.exclusive(project, print):
        assert transaction.run_state(project) == "live"  # this process's own run


@POSIX
def test_run_state_sees_another_process_holding_the_project(project: Path) -> None:
    Transaction(project, NAMES)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(project)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        assert transaction.run_state(project) == "live"
    finally:
        holder.communicate("")
    assert transaction.run_state(project) == "dead"
