"""`lock` as a transaction, with real processes: two runs at once, an edit saved during a
run, a burst of signals during the undo, and a run killed with SIGKILL.

Each run is made to wait inside Poetry's resolution by stalling the index until the
test releases it, so no test depends on how fast anything runs.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time

from typing import IO
from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import read_toml
from poetry_cuda.locking.transaction import JOURNAL
from poetry_cuda.locking.transaction import RESULT_WAIT
from tests.support.cli import BIN
from tests.support.example import snapshot
from tests.support.example import torch_entries
from tests.support.index import Fault


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterator
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli


pytestmark = pytest.mark.slow

# A wheel of the cu118 index: Poetry fetches it while it resolves, inside the lock's
# transaction (the check of the builds before it reads the index's pages only).
STALLED = "/whl/cu118/torch/torch-"
PATIENCE = 120.0  # seconds for a process to reach a point; far above any real run


@pytest.fixture
def project(locked_example: Path) -> Path:
    return locked_example


class Run:
    """A command in the background (`poetry-cuda lock ARGS` unless told), its stderr in a
    file to read as it grows."""

    def __init__(
        self,
        cli: Cli,
        project: Path,
        *args: str,
        env: dict[str, str] | None = None,
        command: tuple[str, ...] = ("poetry-cuda", "lock"),
    ):
        self.log_path = project.parent / f"run-{time.monotonic_ns()}.log"
        self._log: IO[str] = self.log_path.open("w")
        self.process = subprocess.Popen(
            [str(BIN / command[0]), *command[1:], *args],
            cwd=project,
            env={**cli.env, **(env or {})},
            stdout=subprocess.DEVNULL,
            stderr=self._log,
            text=True,
        )

    @property
    def stderr(self) -> str:
        return self.log_path.read_text()

    def finish(self) -> int:
        code = self.process.wait(timeout=PATIENCE)
        self._log.close()
        return code

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.finish()


@pytest.fixture
def runs() -> Iterator[list[Run]]:
    started: list[Run] = []
    yield started
    for run in started:
        run.kill()


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.05)


def stalled_run(cli: Cli, project: Path, server: WorldServer, runs: list[Run]) -> Run:
    """A lock switching to cu118, held inside Poetry's resolution until released."""
    server.inject(STALLED, Fault.stall(60))
    run = Run(cli, project, "--cuda", "cu118")
    runs.append(run)
    wait_until(lambda: server.request_count(STALLED) > 0, "the lock reached the index")
    return run


def waiting_run(
    cli: Cli,
    project: Path,
    runs: list[Run],
    *args: str,
    command: tuple[str, ...] = ("poetry-cuda", "lock"),
) -> Run:
    """A second run, once it says that it waits for the one holding the project."""
    run = Run(cli, project, *args, command=command)
    runs.append(run)
    wait_until(lambda: "Waiting for another poetry-cuda run" in run.stderr, "the run waits")
    return run


def leftovers(project: Path) -> list[str]:
    return sorted(p.name for p in project.iterdir() if p.name.endswith(".tmp") or p.name == JOURNAL)


def cuda_variants(project: Path) -> set[str]:
    """The variant each of the three files says torch has."""
    pyproject = (project / "pyproject.toml").read_text()
    in_pyproject = {v for v in ("cu118", "cu124") if f"pytorch-{v}" in pyproject}
    in_poetry_lock = {str(e[0]).partition("+")[2] for e in torch_entries(project) if "+" in e[0]}
    cuda_lock = read_toml(project / "cuda.lock")
    in_cuda_lock = {p["variant"] for p in cuda_lock["packages"] if p["name"] == "torch"}
    return in_pyproject | in_poetry_lock | in_cuda_lock


def test_a_second_lock_waits_for_the_first_then_plans_on_its_result(
    cli: Cli, project: Path, server: WorldServer, runs: list[Run]
) -> None:
    first = stalled_run(cli, project, server, runs)
    second = waiting_run(cli, project, runs, "--cuda", "cu118")
    assert second.process.poll() is None
    server.release_stalls()
    assert first.finish() == 0, first.stderr
    assert second.finish() == 0, second.stderr
    assert cuda_variants(project) == {"cu118"}
    assert leftovers(project) == []


def test_a_second_lock_gives_up_after_the_wait_limit(
    cli: Cli, project: Path, server: WorldServer, runs: list[Run]
) -> None:
    first = stalled_run(cli, project, server, runs)
    second = Run(cli, project, env={"POETRY_CUDA_LOCK_TIMEOUT": "0.5"})
    runs.append(second)
    assert second.finish() == 2
    assert "another poetry-cuda run is changing" in second.stderr
    assert "POETRY_CUDA_LOCK_TIMEOUT" in second.stderr
    assert "Traceback" not in second.stderr
    server.release_stalls()
    assert first.finish() == 0, first.stderr
    assert cuda_variants(project) == {"cu118"}


def test_a_bad_wait_limit_is_a_config_error(cli: Cli, project: Path) -> None:
    before = snapshot(project)
    result = cli.run("lock", cwd=project, env={"POETRY_CUDA_LOCK_TIMEOUT": "soon"})
    assert result.code == 2
    assert "POETRY_CUDA_LOCK_TIMEOUT" in result.stderr and "Fix:" in result.stderr
    assert snapshot(project) == before


def test_interrupting_the_first_of_two_runs_loses_neither(
    cli: Cli, project: Path, server: WorldServer, runs: list[Run]
) -> None:
    first = stalled_run(cli, project, server, runs)
    second = waiting_run(cli, project, runs, "--cuda", "cu118")
    first.process.send_signal(signal.SIGINT)
    assert first.finish() == 130, first.stderr
    # The second run waited through the first one's undo, then locked on its own.
    wait_until(lambda: server.request_count(STALLED) > 1, "the second run resolves")
    server.release_stalls()
    assert second.finish() == 0, second.stderr
    assert cuda_variants(project) == {"cu118"}
    assert leftovers(project) == []


def test_the_undo_keeps_an_edit_saved_during_the_lock(
    cli: Cli, project: Path, server: WorldServer, runs: list[Run]
) -> None:
    before = snapshot(project)
    run = stalled_run(cli, project, server, runs)
    pyproject = project / "pyproject.toml"
    wait_until(lambda: "pytorch-cu118" in pyproject.read_text(), "the managed entries")
    edited = pyproject.read_text() + "\n# saved by the user during the lock\n"
    pyproject.write_text(edited)
    run.process.send_signal(signal.SIGINT)
    assert run.finish() == 130
    assert pyproject.read_text() == edited  # the user's edit is not lost
    assert "Kept pyproject.toml as it is: changed by someone else" in run.stderr
    assert "poetry.lock and cuda.lock are as before" in run.stderr
    assert "pyproject.toml, " not in run.stderr  # no claim that it was restored
    after = snapshot(project)
    assert {k: v for k, v in after.items() if k != "pyproject.toml"} == {
        k: v for k, v in before.items() if k != "pyproject.toml"
    }
    assert leftovers(project) == []


@pytest.mark.parametrize("signals", [(signal.SIGINT,), (signal.SIGINT, signal.SIGTERM)])
def test_a_burst_of_signals_cannot_break_the_undo(
    cli: Cli, project: Path, server: WorldServer, runs: list[Run], signals: tuple[int, ...]
) -> None:
    before = snapshot(project)
    run = stalled_run(cli, project, server, runs)
    pid, sent = run.process.pid, 0
    # Up to 3,000 signals 0.3 ms apart, until the process has gone.
    while sent < 3000 and run.process.poll() is None:
        try:
            os.kill(pid, signals[sent % len(signals)])
        except ProcessLookupError:
            break
        sent += 1
        time.sleep(0.0003)
    assert run.finish() == 130, run.stderr
    assert snapshot(project) == before
    assert "Traceback" not in run.stderr and "KeyboardInterrupt" not in run.stderr
    assert "pyproject.toml, poetry.lock and cuda.lock are as before" in run.stderr
    assert leftovers(project) == []


def test_a_run_killed_mid_lock_is_undone_by_the_next(
    cli: Cli, project: Path, server: WorldServer, runs: list[Run]
) -> None:
    before = snapshot(project)
    run = stalled_run(cli, project, server, runs)
    wait_until(lambda: "pytorch-cu118" in (project / "pyproject.toml").read_text(), "half a lock")
    run.process.kill()
    run.finish()
    server.release_stalls()
    assert (project / JOURNAL).is_file()
    assert snapshot(project) != before  # half done: pyproject.toml names cu118

    check = cli.run("lock", "--check", cwd=project)
    assert check.code == 1
    assert JOURNAL in check.stderr
    assert (project / JOURNAL).is_file()  # --check writes nothing
    install = cli.run("install", "--dry-run", cwd=project, program="poetry")
    assert f"left {JOURNAL}; run `poetry cuda lock` to undo it" in install.stderr

    again = cli.run("lock", cwd=project)
    assert again.code == 0, again.stderr
    assert f"A previous run (process {run.process.pid}) stopped before it finished" in again.stderr
    assert "restored: pyproject.toml" in again.stderr
    # Undone, then locked as before: no orphan cu118 source is left for --check to miss.
    assert snapshot(project) == before
    assert leftovers(project) == []
    assert cli.run("lock", "--check", cwd=project).code == 0


def test_poetry_add_waits_for_a_running_lock_then_adds_on_its_result(
    cli: Cli, project: Path, server: WorldServer, runs: list[Run]
) -> None:
    first = stalled_run(cli, project, server, runs)
    add = waiting_run(cli, project, runs, "torchaudio==2.5.1", command=("poetry", "add"))
    server.release_stalls()
    assert first.finish() == 0, first.stderr
    assert add.finish() == 0, add.stderr
    # The add ran after the lock and left torch and torchaudio on one build.
    cuda_lock = read_toml(project / "cuda.lock")
    variants = {p["name"]: p["variant"] for p in cuda_lock["packages"]}
    assert variants["torchaudio"] == variants["torch"]
    assert leftovers(project) == []
    assert cli.run("lock", "--check", cwd=project).code == 0


def test_a_running_lock_is_no_dead_run_to_check_install_or_sync(
    cli: Cli, project: Path, server: WorldServer, runs: list[Run]
) -> None:
    first = stalled_run(cli, project, server, runs)
    assert (project / JOURNAL).is_file()  # the live run's journal

    check = cli.run("lock", "--check", cwd=project)
    assert check.code == 1
    assert "another poetry-cuda run is changing the project now" in check.stderr
    install = cli.run("install", "--dry-run", cwd=project, program="poetry")
    assert "another poetry-cuda run is changing pyproject.toml and the locks now" in install.stderr
    # sync waits for the lock, as a second lock does, then installs what it left.
    sync = waiting_run(cli, project, runs, "--dry-run", command=("poetry-cuda", "sync"))
    server.release_stalls()
    assert first.finish() == 0, first.stderr
    assert sync.finish() == 0, sync.stderr
    for said in (check.stderr, install.stderr, sync.stderr):
        assert "stopped before it finished" not in said
    assert leftovers(project) == []


def test_sync_waits_for_a_running_lock_as_long_as_a_cold_lock_takes_and_installs_its_result(
    cli: Cli, project: Path, server: WorldServer, runs: list[Run]
) -> None:
    # Issue 40, item 8: sync gave up after the 120 s a second `lock` waits, shorter than a
    # cold lock; it waits for the lock's result, says so, and installs it.
    first = stalled_run(cli, project, server, runs)
    sync = waiting_run(cli, project, runs, command=("poetry-cuda", "sync"))
    assert f"(up to {RESULT_WAIT:g} s)" in sync.stderr
    server.release_stalls()
    assert first.finish() == 0, first.stderr
    assert sync.finish() == 0, sync.stderr
    python = project / ".venv" / "bin" / "python"
    installed = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('torch'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert installed.endswith("+cu118"), installed  # the new lock's build, not the old one's
    assert leftovers(project) == []


def test_sync_gives_up_on_a_running_lock_after_the_wait_limit(
    cli: Cli, project: Path, server: WorldServer, runs: list[Run]
) -> None:
    first = stalled_run(cli, project, server, runs)
    sync = Run(
        cli,
        project,
        "--dry-run",
        env={"POETRY_CUDA_LOCK_TIMEOUT": "0.5"},
        command=("poetry-cuda", "sync"),
    )
    runs.append(sync)
    assert sync.finish() == 2
    assert "another poetry-cuda run is changing" in sync.stderr
    assert "stopped before it finished" not in sync.stderr and "Fix:" in sync.stderr
    server.release_stalls()
    assert first.finish() == 0, first.stderr
