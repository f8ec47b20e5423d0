"""Pattern 9 of the adoption issue: torch pinned by wheel URL in PEP 508 strings, one per
Python and platform, in an extra of a setuptools project. They are treated as Poetry's
`url =` pins are: `lock` refuses (exit 2) naming `lock --adopt`, which takes them over."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import read_toml
from tests.support.forked import files
from tests.support.forked import forked_project


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli


pytestmark = pytest.mark.slow
WHEEL = "{pytorch}/cu128/torch-2.8.0%2Bcu128-cp311-cp311-"
PROJECT = f"""[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "url-pins"
version = "0.1.0"
requires-python = ">=3.11,<3.12"
dependencies = []

[project.optional-dependencies]
gpu = [
  "torch @ {WHEEL}linux_x86_64.whl ; python_version == '3.11' and platform_system == 'Linux'",
  "torch @ {WHEEL}win_amd64.whl ; python_version == '3.11' and platform_system == 'Windows'",
]

[tool.uv]
package = false
"""


def test_url_pins_in_pep508_strings(cli: Cli, server: WorldServer, tmp_path: Path) -> None:
    project = forked_project(tmp_path / "project", server, PROJECT)
    before = files(project)
    for dry in ((), ("--dry-run",)):
        refused = cli.run("lock", *dry, "--target", "gpu.json", cwd=project)
        assert refused.code == 2, refused.stdout + refused.stderr
        assert "lock --adopt" in refused.stderr
        assert "pins the cu128 wheel 2.8.0 by URL" in refused.stderr
        assert files(project) == before
    preview = cli.run("lock", "--adopt", "--dry-run", "--target", "gpu.json", cwd=project)
    assert preview.code == 0, preview.stdout + preview.stderr
    assert files(project) == before

    adopted = cli.run("lock", "--adopt", "--target", "gpu.json", cwd=project)
    assert adopted.code == 0, adopted.stdout + adopted.stderr
    assert "Adopted" in adopted.stdout
    torch = next(p for p in read_toml(project / "cuda.lock")["packages"] if p["name"] == "torch")
    assert (torch["variant"], torch["version"]) == ("cu128", "2.8.0+cu128")
    text = (project / "pyproject.toml").read_text()
    assert "torch @" not in text
    assert 'torch==2.8.0; python_version == \\"3.11\\" and platform_system == \\"Linux\\"' in text

    after = files(project)
    again = cli.run("lock", cwd=project)
    assert again.code == 0, again.stdout + again.stderr
    assert files(project) == after
    check = cli.run("lock", "--check", cwd=project)
    assert check.code == 0, check.stdout + check.stderr
