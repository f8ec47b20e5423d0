"""A plain test run leaves out the slow tests marked network; CI's entry point runs them."""

from __future__ import annotations

import os
import subprocess
import sys

from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
NETWORK = "tests/locking/test_lock_paddle_network.py"


def collected(*args: str) -> list[str]:
    """The test ids a session with this project's settings and `args` would run."""
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return [line for line in completed.stdout.splitlines() if "::" in line]


def test_a_plain_run_deselects_the_network_tests() -> None:
    assert collected(NETWORK) == []


def test_ci_selects_every_test() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    assert 'tools/dev.py test -m ""' in script
    assert collected(NETWORK, "-m", "")
    assert collected(NETWORK, "-m", "network")
