"""A passing test run leaves nothing in the system temp folder (the README says so)."""

from __future__ import annotations

import getpass
import os
import subprocess
import sys

from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent


def _run_inner_suite(tmp_path: Path, body: str) -> tuple[int, Path]:
    """Run a one-test session with this project's pytest settings; the root of its temp dirs."""
    tests = tmp_path / "inner"
    tests.mkdir()
    (tests / "test_inner.py").write_text(
        "def test_writes(tmp_path, tmp_path_factory):\n"
        "    (tmp_path / 'big').write_bytes(b'x' * 4096)\n"
        "    (tmp_path_factory.mktemp('shared') / 'big').write_bytes(b'x' * 4096)\n"
        f"    {body}\n"
    )
    temp = tmp_path / "system-temp"
    temp.mkdir()
    env = {**os.environ, "TMPDIR": str(temp), "TEMP": str(temp), "TMP": str(temp)}
    env.pop("PYTEST_ADDOPTS", None)
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-c",
            str(ROOT / "pyproject.toml"),
            "--rootdir",
            str(tests),
            str(tests),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return completed.returncode, temp / f"pytest-of-{getpass.getuser()}"


def _files_under(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file()] if root.exists() else []


def test_a_passing_run_leaves_no_files_in_the_temp_folder(tmp_path: Path) -> None:
    returncode, root = _run_inner_suite(tmp_path, "assert True")
    assert returncode == 0
    assert _files_under(root) == []


def test_a_failing_run_keeps_the_failed_tests_folder(tmp_path: Path) -> None:
    returncode, root = _run_inner_suite(tmp_path, "assert False")
    assert returncode == 1
    assert any(path.name == "big" for path in _files_under(root))
