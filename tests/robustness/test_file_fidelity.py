"""Files kept as the user had them, with the real `poetry-cuda lock`: line endings, BOM,
symlinks, owner and mode."""

from __future__ import annotations

import os

from typing import TYPE_CHECKING

import pytest

from tests.support.example import snapshot
from tests.support.example import torch_example


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli


pytestmark = pytest.mark.slow

USER = 65534  # nobody: the owner of a project that root locks


@pytest.fixture
def project(tmp_path: Path, server: WorldServer) -> Path:
    return torch_example(tmp_path, server)


def test_a_crlf_pyproject_stays_crlf(cli: Cli, project: Path) -> None:
    pyproject = project / "pyproject.toml"
    original = pyproject.read_bytes().replace(b"\n", b"\r\n")
    pyproject.write_bytes(original)
    result = cli.run("lock", cwd=project)
    assert result.code == 0, result.stderr
    written = pyproject.read_bytes()
    assert written.count(b"\n") == written.count(b"\r\n")  # every line break is CRLF
    assert set(original.split(b"\r\n")) <= set(written.split(b"\r\n"))  # the user's lines kept
    assert cli.run("lock", "--check", cwd=project).code == 0


def test_a_bom_pyproject_is_refused_for_poetry_naming_the_bom(cli: Cli, project: Path) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_bytes(b"\xef\xbb\xbf" + pyproject.read_bytes())
    before = snapshot(project)
    result = cli.run("lock", cwd=project)
    assert result.code == 2
    assert "byte order mark (BOM)" in result.stderr and "Fix:" in result.stderr
    assert snapshot(project) == before


def test_a_symlinked_pyproject_stays_a_link_to_its_updated_target(cli: Cli, project: Path) -> None:
    shared = project.parent / "shared"
    shared.mkdir()
    (project / "pyproject.toml").rename(shared / "pyproject.toml")
    (project / "pyproject.toml").symlink_to(shared / "pyproject.toml")
    result = cli.run("lock", cwd=project)
    assert result.code == 0, result.stderr
    assert (project / "pyproject.toml").is_symlink()
    assert "[tool.poetry.group.poetry-cuda" in (shared / "pyproject.toml").read_text()
    assert not [p for p in shared.iterdir() if p.name.endswith(".tmp")]


def test_a_new_cuda_lock_gets_the_umask_mode(cli: Cli, project: Path) -> None:
    old = os.umask(0o022)
    try:
        result = cli.run("lock", cwd=project)
    finally:
        os.umask(old)
    assert result.code == 0, result.stderr
    assert (project / "cuda.lock").stat().st_mode & 0o777 == 0o644


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_root_locking_a_users_project_leaves_the_users_files(cli: Cli, project: Path) -> None:
    for path in (project, *project.iterdir()):
        os.chown(path, USER, USER)
    result = cli.run("lock", cwd=project)
    assert result.code == 0, result.stderr
    for name in ("pyproject.toml", "poetry.lock", "cuda.lock"):
        info = (project / name).stat()
        assert (info.st_uid, info.st_gid) == (USER, USER), name
