"""The adoption corpus is real: the plain package manager locks every fixture as its authors
wrote it, and takes each pinned family from the variant the case says it pins."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
import tomlkit

from tests.support.adoption_corpus import CASES
from tests.support.adoption_corpus import FAMILY_LEADS
from tests.support.adoption_corpus import FIXTURES
from tests.support.adoption_corpus import LOCAL_WORLD_MARKER
from tests.support.adoption_corpus import MULTI
from tests.support.adoption_corpus import SEEN_IN
from tests.support.adoption_corpus import AdoptionCase
from tests.support.adoption_corpus import authors_text
from tests.support.adoption_corpus import render
from tests.support.projects import locked_packages
from tests.support.tools import ToolError
from tests.support.tools import Tools


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer


def case_id(case: AdoptionCase) -> str:
    return case.slug


@pytest.fixture
def tools(tmp_path: Path) -> Tools:
    return Tools(tmp_path / "home")


def test_every_fixture_is_a_case_that_names_where_it_was_seen() -> None:
    assert {case.fixture for case in CASES} == set(FIXTURES.glob("*.toml"))
    for case in CASES:
        assert case.fixture.read_text().startswith(SEEN_IN), case.slug
        assert "/" in case.seen_in.split(",")[0], case.slug


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_render_keeps_the_authors_lines_and_adds_the_world_below(
    case: AdoptionCase, server: WorldServer, tmp_path: Path
) -> None:
    text = (render(case, tmp_path, server) / "pyproject.toml").read_text()
    authors, marker, appended = text.partition(LOCAL_WORLD_MARKER)
    assert marker
    assert authors.rstrip("\n") == authors_text(case, server).rstrip("\n")
    assert "{" + "pytorch}" not in text and "{" + "paddle}" not in text
    assert "[tool.poetry-cuda.mirrors]" in appended
    tomlkit.parse(text)


def locked_urls(project: Path, backend: str, package: str) -> list[str]:
    """The index or file URL of every locked entry of `package`."""
    lock = project / ("uv.lock" if backend == "uv" else "poetry.lock")
    sources = [entry["source"] for entry in locked_packages(lock, package)]
    return [source.get("registry") or source.get("url", "") for source in sources]


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_the_plain_package_manager_locks_it(
    case: AdoptionCase, server: WorldServer, tools: Tools, tmp_path: Path
) -> None:
    project = render(case, tmp_path / "project", server)
    if case.poetry_refuses:
        with pytest.raises(ToolError, match="secondary"):
            tools.poetry("lock", cwd=project)
        return
    if case.backend == "uv":
        tools.uv("lock", cwd=project)
    else:
        tools.poetry("lock", cwd=project)
    if case.pins == MULTI:
        # Each extra takes torch from its own index: several sources for one package.
        assert len(set(locked_urls(project, case.backend, "torch"))) > 1
        return
    for family, variant in case.pins.items():
        index = server.pytorch_url(variant) if family == "torch" else server.paddle_url(variant)
        urls = locked_urls(project, case.backend, FAMILY_LEADS[family])
        assert any(url.rstrip("/").startswith(index) for url in urls), (family, urls)
