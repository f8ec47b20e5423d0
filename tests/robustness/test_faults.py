"""Index faults during `lock`: a clear message, exit 4, every file unchanged, and a re-run
after the fault clears succeeds."""

from __future__ import annotations

import signal
import subprocess
import time

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.support.cli import BIN
from tests.support.example import snapshot
from tests.support.index import Fault


if TYPE_CHECKING:
    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli
    from tests.support.fake_nvml import FakeNvml


pytestmark = pytest.mark.slow


FAULTS = {
    "server-error": Fault.error(500),
    "not-found": Fault.error(404),
    "closed-mid-response": Fault.drop(),
    "stalled": Fault.stall(8),
}


@pytest.mark.parametrize("name", list(FAULTS))
def test_an_index_fault_fails_cleanly_and_changes_nothing(
    name: str, cli: Cli, locked_example: Path, server: WorldServer
) -> None:
    before = snapshot(locked_example)
    server.inject("/whl/cu118/", FAULTS[name])
    # Poetry's own request timeout, short so that the stall outlasts it.
    env = {"POETRY_REQUESTS_TIMEOUT": "2"}
    result = cli.run("lock", "--cuda", "cu118", cwd=locked_example, env=env)
    assert result.code == 4, result.stdout + result.stderr
    assert "Poetry's resolution failed" in result.stderr
    assert "Fix:" in result.stderr
    assert snapshot(locked_example) == before

    server.clear_faults()
    again = cli.run("lock", "--cuda", "cu118", cwd=locked_example)
    assert again.code == 0, again.stderr
    assert "2.5.1+cu118" in again.stdout


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interruption_while_detecting_the_host(
    signum: int, cli: Cli, locked_example: Path, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    """The earliest stage: NVML hangs in its worker while lock plans for this machine.

    The signal reaches poetry-cuda, never the worker (a session of its own), so the
    worker must be ended by poetry-cuda itself, at once: its hang is far longer than
    the time this test allows.
    """
    pyproject = locked_example / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('targets = ["hosts/*.json"]', ""))
    before = snapshot(locked_example)
    marker = tmp_path / "in-nvml-init"
    env = {**cli.env, **fake_nvml.scenario(init_sleep=3600, init_marker=marker)}
    process = subprocess.Popen(
        # `--target this`: cuda.lock records the targets, so only this names this machine.
        [str(BIN / "poetry-cuda"), "lock", "--target", "this"],
        cwd=locked_example,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():  # the worker is inside nvmlInit, so detection is under way
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the NVML worker never reached nvmlInit"
            time.sleep(0.05)
        process.send_signal(signum)
        _, stderr = process.communicate(timeout=120)
    finally:
        process.kill()
        process.communicate()
    assert process.returncode == 130, stderr
    assert "Interrupted" in stderr
    assert "Traceback" not in stderr
    assert snapshot(locked_example) == before
    assert not _processes_with(env["FAKE_NVML_CONFIG"]), "the NVML worker outlived poetry-cuda"


def _processes_with(text: str) -> list[int]:
    """Live processes whose environment holds `text` (this scenario's fake NVML)."""
    found = []
    needle = text.encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found
