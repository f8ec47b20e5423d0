"""doctor's fixes name `lock` and the install as the project's package manager runs them."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

from tests.support.projects import write_project


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Cli
    from tests.support.fake_nvml import FakeNvml


def test_a_uv_project_without_cuda_lock_is_told_uvs_commands(
    cli: Cli, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    write_project(tmp_path, name="p")
    (tmp_path / "uv.lock").write_text("version = 1\n")
    result = cli.run("doctor", "--json", cwd=tmp_path, env=fake_nvml.scenario())
    assert result.code == 0, result.stderr
    rows = json.loads(result.stdout)["findings"]
    lock = next(r for r in rows if (r["area"], r["check"]) == ("locks", "cuda.lock"))
    assert lock["status"] == "warn"
    assert "`uv run poetry-cuda lock`" in lock["fix"]
    assert "poetry cuda lock" not in result.stdout
    text = cli.run("doctor", cwd=tmp_path, env=fake_nvml.scenario())
    assert "poetry cuda lock" not in text.stdout
    assert "uv run poetry-cuda lock" in text.stdout
