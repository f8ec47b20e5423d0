"""The demo the README's first screen offers: what it says the demo prints, the demo prints.

`python3 tools/dev.py demo` sets up `.venv`, then runs tools/demo.py with it; the test runs
tools/demo.py with this environment's Python. The README says the `2.5.1+cu124` it prints is a
small stand-in wheel served on 127.0.0.1, so the test checks that the lock took torch from there.
"""

from __future__ import annotations

import subprocess
import sys

from pathlib import Path

import pytest

from tests.support.isolation import hermetic_env


ROOT = Path(__file__).resolve().parents[1]
FIRST_SCREEN = 45


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_demo_prints_the_stand_in_build_the_readme_names(tmp_path: Path) -> None:
    for readme in ("README.md", "README.zh-CN.md"):
        first_screen = "\n".join(
            (ROOT / readme).read_text(encoding="utf-8").splitlines()[:FIRST_SCREEN]
        )
        assert "`2.5.1+cu124`" in first_screen, readme
        assert "127.0.0.1" in first_screen, readme

    temporary = tmp_path / "tmp"
    temporary.mkdir()
    demo = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "demo.py")],
        cwd=ROOT,
        env=hermetic_env(tmp_path / "home", TMPDIR=str(temporary)),
        capture_output=True,
        text=True,
        timeout=540,
        check=False,
    )
    assert demo.returncode == 0, demo.stdout + demo.stderr
    lines = [line for line in demo.stdout.splitlines() if line.strip()]
    assert lines[-1] == "2.5.1+cu124", lines[-5:]
    assert 'url = "http://127.0.0.1:' in demo.stdout
    assert "Installing torch (2.5.1+cu124)" in demo.stdout
