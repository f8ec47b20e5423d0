"""`targets = [...]` globs in pyproject.toml read files inside the project only: no `..`, no
absolute path, no symlink (file or folder) leading out, whatever the glob; bad patterns are one
config error."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

import pytest

from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.planning.targets import collect


if TYPE_CHECKING:
    from pathlib import Path

    from poetry_cuda.host.profiles import HostProfile


LINUX = json.dumps({"os": "linux"})
SECRET = json.dumps({"os": "windows"})  # only the files outside the project say windows


def _detect() -> HostProfile:
    raise AssertionError("configured targets must not fall back to detection")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """`project/` with hosts/ok.json, and links leading to `outside/`."""
    outside = tmp_path / "outside"
    (outside / "deeper").mkdir(parents=True)
    (outside / "x.json").write_text(SECRET)
    (outside / "deeper" / "y.json").write_text(SECRET)
    project = tmp_path / "project"
    (project / "hosts").mkdir(parents=True)
    (project / "hosts" / "ok.json").write_text(LINUX)
    return project


def _collect(project: Path, *patterns: str) -> list[HostProfile]:
    profiles, origin = collect(
        project=project,
        options=(),
        environ_target=None,
        configured=patterns,
        recorded=(),
        detect=_detect,
    )
    assert origin == "[tool.poetry-cuda] targets"
    return profiles


def test_a_pattern_inside_the_project(tree: Path) -> None:
    [profile] = _collect(tree, "hosts/*.json")
    assert (profile.os, profile.label) == ("linux", "hosts/ok.json")


@pytest.mark.parametrize(
    "pattern",
    [
        "../outside/*.json",
        "../outside/x.json",
        "hosts/../../outside/*.json",
        "*/../../outside/*.json",
        "hosts/**/../../../outside/x.json",
        "**/../../outside/**/*.json",
    ],
)
def test_parent_folders_are_refused(tree: Path, pattern: str) -> None:
    with pytest.raises(ConfigError, match="leaves the project"):
        _collect(tree, pattern)


def test_absolute_patterns_are_refused(tree: Path) -> None:
    outside = tree.parent / "outside"
    for pattern in (str(outside / "*.json"), str(outside / "x.json"), "/**/x.json"):
        with pytest.raises(ConfigError, match="leaves the project"):
            _collect(tree, pattern)


@pytest.mark.parametrize("pattern", ["hosts/*.json", "**/*.json", "hosts/link.json"])
def test_a_symlinked_file_leading_out_is_refused(tree: Path, pattern: str) -> None:
    (tree / "hosts" / "link.json").symlink_to(tree.parent / "outside" / "x.json")
    with pytest.raises(ConfigError, match="outside the project"):
        _collect(tree, pattern)


@pytest.mark.parametrize("pattern", ["linked/*.json", "linked/**/*.json", "linked/deeper/*.json"])
def test_a_symlinked_folder_leading_out_is_refused(tree: Path, pattern: str) -> None:
    (tree / "linked").symlink_to(tree.parent / "outside")
    with pytest.raises(ConfigError, match="outside the project"):
        _collect(tree, pattern)


def test_a_symlink_inside_the_project_is_fine(tree: Path) -> None:
    (tree / "alias.json").symlink_to(tree / "hosts" / "ok.json")
    [profile] = _collect(tree, "alias.json")
    assert profile.os == "linux"


@pytest.mark.parametrize("pattern", ["", ".", "./", "./.", "hosts/.."])
def test_patterns_that_name_no_file_are_config_errors(tree: Path, pattern: str) -> None:
    with pytest.raises(ConfigError, match="targets"):
        _collect(tree, pattern)


def test_a_folder_match_is_an_input_error_not_a_traceback(tree: Path) -> None:
    with pytest.raises(PoetryCudaError, match="hosts"):
        _collect(tree, "hosts")


segments = st.sampled_from(["..", ".", "*", "**", "hosts", "linked", "outside", "*.json", "x.json"])


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(parts=st.lists(segments, min_size=1, max_size=5), absolute=st.booleans())
def test_any_pattern_reads_inside_the_project_or_fails_cleanly(
    tree: Path, parts: list[str], absolute: bool
) -> None:
    if not (tree / "linked").exists():
        (tree / "linked").symlink_to(tree.parent / "outside")
    pattern = ("/" if absolute else "") + "/".join(parts)
    try:
        profiles = _collect(tree, pattern)
    except PoetryCudaError:
        return
    assert all(profile.os == "linux" for profile in profiles), pattern
