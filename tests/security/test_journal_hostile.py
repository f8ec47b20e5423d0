"""A clone controls every file in the project, the journal and links included.

Whatever `.poetry-cuda.journal` and the files a run edits are (any name, any JSON, any type
at any key, a link, a folder, a pipe), `poetry-cuda lock` and the plugin's `poetry add`
either undo a dead run from a journal they can check whole, writing only pyproject.toml,
poetry.lock, uv.lock and cuda.lock and never through a link, or refuse with one clear
message (exit 2, what, why and fix) and change nothing: not in the project, not beside it.
"""

from __future__ import annotations

import base64
import json
import os
import shutil

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from poetry_cuda.locking import transaction
from poetry_cuda.locking.transaction import JOURNAL
from tests.support.catalog import WorldServer
from tests.support.cli import Cli
from tests.support.example import torch_example


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterator

    from tests.support.catalog import World
    from tests.support.cli import Result


pytestmark = pytest.mark.skipif(os.name != "posix", reason="links and pipes of POSIX")

EVIL = b"evil = true\n"
PRECIOUS = b"precious\n"


# -- a locked project per test, locked once per module ------------------------------------


@pytest.fixture(scope="module")
def module_server(world: World) -> Iterator[WorldServer]:
    with WorldServer(world) as running:
        yield running


@pytest.fixture(scope="module")
def module_cli(tmp_path_factory: pytest.TempPathFactory) -> Cli:
    return Cli(tmp_path_factory.mktemp("home"))


@pytest.fixture(scope="module")
def template(
    module_cli: Cli, module_server: WorldServer, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    project = torch_example(tmp_path_factory.mktemp("template"), module_server)
    result = module_cli.run("lock", cwd=project)
    assert result.code == 0, result.stderr
    return project


@pytest.fixture
def project(template: Path, tmp_path: Path) -> Path:
    """The locked example, and beside it what a hostile clone aims at: `../victim` (linked
    from the project as notes.txt) and an `.env` of the user's."""
    copy = tmp_path / "torch_project"
    shutil.copytree(template, copy, symlinks=True)
    (tmp_path / "victim").write_bytes(PRECIOUS)
    (copy / "notes.txt").symlink_to("../victim")
    (copy / ".env").write_text("SECRET=1\n")
    return copy


def tree(root: Path) -> dict[str, object]:
    """Every entry under `root` as it is: a link's text, a file's bytes, a folder, a pipe."""
    found: dict[str, object] = {}
    for folder, folders, files in os.walk(root):
        for name in folders + files:
            path = Path(folder) / name
            key = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[key] = ("link", str(path.readlink()))
            elif path.is_dir():
                found[key] = ("folder",)
            elif path.is_file():
                found[key] = path.read_bytes()
            else:
                found[key] = ("other", path.lstat().st_mode)
    return found


def entry(
    name: object, before: bytes | None = EVIL, ours: object = (), writing: object = True
) -> dict[str, object]:
    return {
        "name": name,
        "before": None if before is None else base64.b64encode(before).decode(),
        "ours": list(ours) if isinstance(ours, tuple) else ours,
        "tool-writing": writing,
    }


def journal(*entries: object, **top: object) -> dict[str, object]:
    document: dict[str, object] = {
        "poetry-cuda-journal": 1,
        "pid": 7,
        "state": "running",
        "files": list(entries),
    }
    document.update({key.replace("_", "-"): value for key, value in top.items()})
    return document


def write_journal(project: Path, document: object) -> None:
    path = project / JOURNAL
    if isinstance(document, bytes):
        path.write_bytes(document)
    else:
        path.write_text(document if isinstance(document, str) else json.dumps(document))


def assert_refused(result: Result) -> None:
    """One clear message, exit 2: what (naming the journal or the file), why and fix."""
    assert result.code == 2, result.stdout + result.stderr
    assert "Why:" in result.stderr and "Fix:" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


# -- a journal names only the files a run edits --------------------------------------------

HOSTILE_NAMES = {
    "a link to outside": "notes.txt",
    "a file lock never edits": "README.md",
    "a secret": ".env",
    "the journal": JOURNAL,
    "parent": "../victim",
    "absolute": "/etc/passwd",
    "absolute into the project": "/pyproject.toml",
    "nested": "hosts/pyproject.toml",
    "dot slash": "./pyproject.toml",
    "trailing slash": "pyproject.toml/",
    "backslash": "..\\victim",
    "windows drive": "C:\\Windows\\win.ini",
    "NUL": "pyproject.toml\x00.txt",
    "newline": "pyproject.toml\n",
    "trailing space": "pyproject.toml ",
    "upper case": "PYPROJECT.TOML",
    "fullwidth": "\uff50yproject.toml",
    "zero width": "pyproject\u200b.toml",
    "right-to-left override": "\u202elmot.tcejorpyp",
    "escape sequence": "\x1b]52;c;ZWNobw==\x07cuda.lock",
    "300 characters": "a" * 300,
    "a folder": "hosts",
    "empty": "",
    "dot": ".",
    "dot dot": "..",
    "a number": 5,
    "true": True,
    "null": None,
    "a list": ["pyproject.toml"],
    "an object": {"name": "pyproject.toml"},
}


@pytest.mark.parametrize("before", [EVIL, None], ids=["overwrite", "delete"])
@pytest.mark.parametrize("name", list(HOSTILE_NAMES.values()), ids=list(HOSTILE_NAMES))
def test_a_journal_naming_any_other_file_is_refused_and_nothing_changes(
    module_cli: Cli, project: Path, name: object, before: bytes | None
) -> None:
    # Beside a file lock does edit, so that only the stranger makes the journal hostile.
    write_journal(project, journal(entry("cuda.lock", b"x = 1\n"), entry(name, before)))
    before_tree = tree(project.parent)
    result = module_cli.run("lock", cwd=project)
    assert_refused(result)
    assert "not a journal poetry-cuda can undo a run from" in result.stderr
    assert "delete" in result.stderr
    assert tree(project.parent) == before_tree  # the journal included: the user decides
    assert (project.parent / "victim").read_bytes() == PRECIOUS


def test_a_journal_naming_a_file_twice_is_refused(module_cli: Cli, project: Path) -> None:
    write_journal(project, journal(entry("cuda.lock"), entry("cuda.lock", None)))
    before_tree = tree(project.parent)
    assert_refused(module_cli.run("lock", cwd=project))
    assert tree(project.parent) == before_tree


# -- a journal is JSON as poetry-cuda writes it, every value of its type and size ----------

DIGEST = "0" * 64
MALFORMED: dict[str, object] = {
    "files 5": journal() | {"files": 5},
    "files true": journal() | {"files": True},
    "files 3.5": journal() | {"files": 3.5},
    "files a string": journal() | {"files": "cuda.lock"},
    "files an object": journal() | {"files": {"name": "cuda.lock"}},
    "files null": journal() | {"files": None},
    "files of numbers": journal() | {"files": [1, 2]},
    "five files": journal(*(entry(n) for n in (*transaction.EDITED, "cuda.lock"))),
    "no files": {k: v for k, v in journal().items() if k != "files"},
    "no state": {k: v for k, v in journal().items() if k != "state"},
    "a key more": journal() | {"run": "rm -rf ~"},
    "a list": [journal()],
    "a string": "journal",
    "a number": 1,
    "null": None,
    "version true": journal(poetry_cuda_journal=True),
    "version 1.0": journal(poetry_cuda_journal=1.0),
    "version string": journal(poetry_cuda_journal="1"),
    "version 2": journal(poetry_cuda_journal=2),
    "pid true": journal(pid=True),
    "pid string": journal(pid="7"),
    "pid zero": journal(pid=0),
    "pid negative": journal(pid=-1),
    "pid huge": journal(pid=2**64),
    "pid float": journal(pid=7.5),
    "state maybe": journal(state="maybe"),
    "state null": journal(state=None),
    "entry a string": journal("cuda.lock"),
    "entry without before": journal({"name": "cuda.lock", "ours": [], "tool-writing": True}),
    "entry with a key more": journal(entry("cuda.lock") | {"mode": 0o777}),
    "before a number": journal(entry("cuda.lock") | {"before": 5}),
    "before not base64": journal(entry("cuda.lock") | {"before": "not base64!"}),
    "before not ASCII": journal(entry("cuda.lock") | {"before": "\u00e9t\u00e9=="}),
    "before a list": journal(entry("cuda.lock") | {"before": ["eA=="]}),
    "ours a string": journal(entry("cuda.lock", ours=DIGEST)),
    "ours of numbers": journal(entry("cuda.lock", ours=[1])),
    "ours not a digest": journal(entry("cuda.lock", ours=["../../etc"])),
    "ours upper case": journal(entry("cuda.lock", ours=["A" * 64])),
    "ours huge": journal(entry("cuda.lock", ours=[DIGEST] * 10_000)),
    "tool-writing a string": journal(entry("cuda.lock", writing="yes")),
    "tool-writing 1": journal(entry("cuda.lock", writing=1)),
    "tool-writing null": journal(entry("cuda.lock", writing=None)),
}
RAW: dict[str, bytes] = {
    "empty": b"",
    "not UTF-8": b"\xff\xfe\x00{",
    "not JSON": b"poetry-cuda-journal = 1\n",
    "a key twice": b'{"poetry-cuda-journal": 1, "pid": 7, "pid": 8, "state": "done", "files": []}',
    "a file twice by keys": json.dumps(journal())
    .replace('"files": []', '"files": [], "files": [{"name": "README.md"}]')
    .encode(),
    "NaN": b'{"poetry-cuda-journal": NaN, "pid": 7, "state": "done", "files": []}',
    "Infinity pid": b'{"poetry-cuda-journal": 1, "pid": Infinity, "state": "done", "files": []}',
    "a number of 5000 digits": (
        b'{"poetry-cuda-journal": 1, "pid": ' + b"9" * 5000 + b', "state": "done", "files": []}'
    ),
    "deep": b"[" * 100_000,
    "truncated": json.dumps(journal(entry("cuda.lock"))).encode()[:-7],
}


@pytest.mark.parametrize(
    "document",
    [*MALFORMED.values(), *RAW.values()],
    ids=[*MALFORMED, *(f"raw {name}" for name in RAW)],
)
def test_a_malformed_journal_is_one_clear_error_and_changes_nothing(
    module_cli: Cli, project: Path, document: object
) -> None:
    write_journal(project, document)
    before_tree = tree(project.parent)
    result = module_cli.run("lock", cwd=project)
    assert_refused(result)
    assert f"{JOURNAL}: not a journal poetry-cuda can undo a run from" in result.stderr
    assert tree(project.parent) == before_tree


@pytest.mark.parametrize(
    "document",
    [journal(entry("notes.txt")), journal() | {"files": 5}, b"\xff"],
    ids=["a stranger", "files 5", "not UTF-8"],
)
def test_check_and_sync_name_a_hostile_journal_as_lock_would(
    module_cli: Cli, project: Path, document: object
) -> None:
    write_journal(project, document)
    before_tree = tree(project.parent)
    check = module_cli.run("lock", "--check", cwd=project)
    assert check.code == 1
    assert "not a journal poetry-cuda can undo a run from" in check.stderr
    sync = module_cli.run("sync", "--dry-run", cwd=project)
    assert_refused(sync)
    assert "not a journal poetry-cuda can undo a run from" in sync.stderr
    assert "stopped before it finished" not in check.stderr + sync.stderr
    assert tree(project.parent) == before_tree


# -- the journal itself is never a link, a folder or a pipe --------------------------------


def dangling_link(project: Path) -> None:
    (project / JOURNAL).symlink_to("../created")


def link_to_a_valid_journal(project: Path) -> None:
    # Even a journal poetry-cuda would accept is not read through a link.
    (project.parent / "elsewhere.journal").write_text(json.dumps(journal(entry("cuda.lock"))))
    (project / JOURNAL).symlink_to("../elsewhere.journal")


def link_to_the_victim(project: Path) -> None:
    (project / JOURNAL).symlink_to("../victim")


def folder(project: Path) -> None:
    (project / JOURNAL).mkdir()
    (project / JOURNAL / "pyproject.toml").write_bytes(EVIL)


def pipe(project: Path) -> None:
    os.mkfifo(project / JOURNAL)


@pytest.mark.parametrize(
    "make", [dangling_link, link_to_a_valid_journal, link_to_the_victim, folder, pipe]
)
def test_a_journal_that_is_no_regular_file_is_refused_and_nothing_is_created(
    module_cli: Cli, project: Path, make: Callable[[Path], None]
) -> None:
    make(project)
    before_tree = tree(project.parent)
    result = module_cli.run("lock", cwd=project)
    assert_refused(result)
    assert "poetry-cuda writes its journal as a regular file" in result.stderr
    assert tree(project.parent) == before_tree
    assert not (project.parent / "created").exists()
    assert (project.parent / "victim").read_bytes() == PRECIOUS


# -- the files a run edits: regular files, or links to existing ones ----------------------


def cuda_lock_to_nowhere(project: Path) -> None:
    (project / "cuda.lock").unlink()
    (project / "cuda.lock").symlink_to("../created")


def poetry_lock_to_nowhere(project: Path) -> None:
    (project / "poetry.lock").unlink()
    (project / "poetry.lock").symlink_to("../created")


def poetry_lock_a_pipe(project: Path) -> None:
    (project / "poetry.lock").unlink()
    os.mkfifo(project / "poetry.lock")


def poetry_lock_a_folder(project: Path) -> None:
    (project / "poetry.lock").unlink()
    (project / "poetry.lock").mkdir()


def poetry_lock_a_loop(project: Path) -> None:
    (project / "poetry.lock").unlink()
    (project / "poetry.lock").symlink_to("loop.lock")
    (project / "loop.lock").symlink_to("poetry.lock")


@pytest.mark.parametrize(
    "make",
    [
        cuda_lock_to_nowhere,
        poetry_lock_to_nowhere,
        poetry_lock_a_pipe,
        poetry_lock_a_folder,
        poetry_lock_a_loop,
    ],
)
def test_a_file_a_run_edits_of_the_wrong_kind_is_refused_before_any_write(
    module_cli: Cli, project: Path, make: Callable[[Path], None]
) -> None:
    make(project)
    before_tree = tree(project.parent)
    result = module_cli.run("lock", cwd=project)
    assert_refused(result)
    assert tree(project.parent) == before_tree
    assert not (project.parent / "created").exists()


@pytest.mark.parametrize("name", ["cuda.lock", "poetry.lock"])
def test_a_lock_file_linked_out_of_the_project_is_refused_before_any_write(
    module_cli: Cli, project: Path, name: str
) -> None:
    # A regular file outside the project, which a hostile clone's link aims the lock at.
    (project / name).unlink()
    (project / name).symlink_to("../victim")
    before_tree = tree(project.parent)
    result = module_cli.run("lock", cwd=project)
    assert result.code == 2, result.stderr
    # cuda.lock is read (and the victim's bytes refused as TOML) before any write is planned.
    assert "outside the project" in result.stderr or name == "cuda.lock"
    assert tree(project.parent) == before_tree
    assert (project.parent / "victim").read_bytes() == PRECIOUS


# -- undoing a dead run never writes through a link ----------------------------------------


@pytest.mark.parametrize("name", ["cuda.lock", "pyproject.toml"])
def test_recovery_never_restores_through_a_link(module_cli: Cli, project: Path, name: str) -> None:
    # A journal as a dead run leaves it, and the file it names a link out of the project.
    write_journal(project, journal(entry(name, EVIL)))
    (project / name).unlink()
    (project / name).symlink_to("../victim")
    result = module_cli.run("lock", cwd=project)
    assert (project.parent / "victim").read_bytes() == PRECIOUS
    assert f"could not restore {name} (it is a symbolic link" in result.stderr
    assert not (project / JOURNAL).exists()  # the recovery is done; it said what it left
    # What the link leads to is no file of this kind: the lock then refuses it.
    assert result.code == 2 and "Fix:" in result.stderr, result.stderr


@pytest.mark.parametrize("name", transaction.EDITED)
def test_recovery_of_each_file_never_follows_a_link(tmp_path: Path, name: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "victim").write_bytes(PRECIOUS)
    (project / name).symlink_to("../victim")
    digest = transaction._digest(PRECIOUS)
    write_journal(project, journal(entry(name, EVIL, ours=(digest,))))
    recovery = transaction.recover(project)
    assert recovery is not None
    assert recovery.undo.failed and recovery.undo.failed[0].startswith(f"{name} (it is a symbolic")
    assert (tmp_path / "victim").read_bytes() == PRECIOUS
    assert (project / name).is_symlink()


def test_recovery_leaves_a_folder_where_a_file_was(module_cli: Cli, project: Path) -> None:
    write_journal(project, journal(entry("poetry.lock", EVIL)))
    (project / "poetry.lock").unlink()
    (project / "poetry.lock").mkdir()
    (project / "poetry.lock" / "keep").write_bytes(PRECIOUS)
    result = module_cli.run("lock", cwd=project)
    assert "could not restore poetry.lock (it is now a folder)" in result.stderr
    assert (project / "poetry.lock" / "keep").read_bytes() == PRECIOUS
    assert result.code == 2 and "Fix:" in result.stderr, result.stderr  # the folder refused


def test_a_valid_journal_restores_only_the_files_it_names(module_cli: Cli, project: Path) -> None:
    """The control: a journal as poetry-cuda writes it is used (not merely refused)."""
    original = (project / "pyproject.toml").read_bytes()
    half = original + b"# half written\n"
    (project / "pyproject.toml").write_bytes(half)
    ours = (transaction._digest(half),)
    write_journal(project, journal(entry("pyproject.toml", original, ours=ours, writing=False)))
    before_tree = tree(project.parent)
    result = module_cli.run("lock", "--check", cwd=project)
    assert result.code == 1  # --check changes nothing and names the dead run
    assert "a run that stopped before it finished" in result.stderr
    assert tree(project.parent) == before_tree
    result = module_cli.run("lock", cwd=project)
    assert result.code == 0, result.stderr
    assert "A previous run (process 7) stopped before it finished" in result.stderr
    assert "restored: pyproject.toml" in result.stderr
    assert (project / "pyproject.toml").read_bytes() == original
    after = tree(project.parent)
    del before_tree[f"torch_project/{JOURNAL}"]
    before_tree["torch_project/pyproject.toml"] = original
    assert after == before_tree


# -- the plugin's `poetry add` recovers first, by the same rules ---------------------------

PLUGIN_CASES = {
    "a link to outside": lambda project: write_journal(project, journal(entry("notes.txt"))),
    "a secret deleted": lambda project: write_journal(project, journal(entry(".env", None))),
    "files 5": lambda project: write_journal(project, journal() | {"files": 5}),
    "a dangling journal": dangling_link,
}


@pytest.mark.slow
@pytest.mark.parametrize("make", list(PLUGIN_CASES.values()), ids=list(PLUGIN_CASES))
def test_poetry_add_refuses_a_hostile_journal_before_poetry_changes_anything(
    module_cli: Cli, project: Path, make: Callable[[Path], None]
) -> None:
    make(project)
    before_tree = tree(project.parent)
    result = module_cli.run("add", "six", cwd=project, program="poetry")
    assert_refused(result)
    assert "poetry-cuda" in result.stderr
    assert tree(project.parent) == before_tree
    assert not (project.parent / "created").exists()
