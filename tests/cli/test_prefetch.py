"""What a command starts ahead is one `Prefetched`: the NVML worker for detection and uv's
part of a lock, handed down together and stopped together when the command ends."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.backends.uv.runner import UvAhead
from poetry_cuda.cli.prefetch import start_ahead
from poetry_cuda.planning.targets import TARGET_ENV


if TYPE_CHECKING:
    from typing import Any


PYPROJECT = '[project]\nname = "demo"\nversion = "1.0"\nrequires-python = ">=3.10"\n'
# A target given: the plan detects nothing, so no NVML worker starts.
ENVIRON = {TARGET_ENV: "host.json"}


def no_options(name: str) -> Any:
    return None


def project(tmp_path: Path, tool: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT + tool)
    return tmp_path


def test_a_uv_projects_lock_is_started_ahead_and_stopped_with_the_command(
    tmp_path: Path,
) -> None:
    prefetched = start_ahead("lock", no_options, ENVIRON, project(tmp_path, "\n[tool.uv]\n"))
    assert prefetched.early is None
    ahead = prefetched.ahead
    assert isinstance(ahead, UvAhead)  # `uv lock` in a scratch copy: no uv.lock yet
    assert ahead.scratch is not None
    scratch = Path(ahead.scratch.name)
    prefetched.stop()
    assert ahead.process.poll() is not None
    assert not scratch.exists()
    assert not (tmp_path / "uv.lock").exists()


def test_a_poetry_projects_lock_starts_no_uv(tmp_path: Path) -> None:
    tool = '\n[tool.poetry]\nname = "demo"\n'
    prefetched = start_ahead("lock", no_options, ENVIRON, project(tmp_path, tool))
    assert prefetched.ahead is None
    prefetched.stop()


def test_only_lock_starts_uv(tmp_path: Path) -> None:
    prefetched = start_ahead("plan", no_options, ENVIRON, project(tmp_path, "\n[tool.uv]\n"))
    assert (prefetched.early, prefetched.ahead) == (None, None)
