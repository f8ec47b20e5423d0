"""The adoption corpus is real: the plain package manager locks every fixture as its authors
wrote it, and takes each pinned family from the variant the case says it pins."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

import pytest
import tomlkit

from poetry_cuda.files import read_toml
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
    from tests.support.cli import Cli


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


GPU_HOST = {
    "schema": 1,
    "os": "linux",
    "machine": "x86_64",
    "driver": {"version": "580.65.06"},
    "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}],
}
LOCKS = ("pyproject.toml", "poetry.lock", "uv.lock", "cuda.lock")


def _files(project: Path) -> dict[str, bytes | None]:
    return {n: (project / n).read_bytes() if (project / n).exists() else None for n in LOCKS}


def _adopted_lines(output: str) -> str:
    return "\n".join(line for line in output.splitlines() if line.startswith("Adopted "))


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_poetry_cuda_adopts_it(
    case: AdoptionCase, server: WorldServer, cli: Cli, tools: Tools, tmp_path: Path
) -> None:
    """plan keeps the authors' variant; lock takes at most one `--adopt`, which it names; the
    lock installs with the plain package manager, and locking again changes no byte."""
    project = render(case, tmp_path / "project", server)
    (project / "gpu.json").write_text(json.dumps(GPU_HOST))
    target = ("--target", "gpu.json")
    before = _files(project)

    plan = cli.run("plan", *target, "--json", cwd=project)
    assert plan.code == 0, plan.stderr
    chosen = json.loads(plan.stdout)
    if case.pins == MULTI:
        extras = {extra["name"]: extra for extra in chosen["extras"]}
        assert len(extras) > 1
        assert any(extra["serves"] == ["gpu.json"] for extra in extras.values())
        assert all(extra["variant"] != "cpu" for extra in extras.values() if extra["serves"])
        assert not [p for p in chosen["packages"] if p["name"] == "torch"]  # nothing written
    else:
        for family, variant in case.pins.items():
            lead = next(p for p in chosen["packages"] if p["name"] == FAMILY_LEADS[family])
            assert lead["variant"] == variant, lead
            assert lead["reason"].startswith(f"the project asks for {variant}: "), lead

    first = cli.run("lock", *target, cwd=project)
    adopted = ""
    if first.code == 2:
        assert "--adopt" in first.stderr, first.stderr
        assert _files(project) == before  # a refusal writes nothing
        preview = cli.run("lock", "--adopt", "--dry-run", *target, cwd=project)
        assert preview.code == 0, preview.stderr
        assert _files(project) == before
        first = cli.run("lock", "--adopt", *target, cwd=project)
        adopted = _adopted_lines(first.stdout)
        assert adopted, first.stdout
    assert first.code == 0, first.stdout + first.stderr
    locked = read_toml(project / "cuda.lock")
    if case.pins == MULTI:
        assert {e["name"] for e in locked["extras"]} == set(extras)
    else:
        recorded = {p["name"]: p["variant"] for p in locked["packages"]}
        for family, variant in case.pins.items():
            assert recorded[FAMILY_LEADS[family]] == variant

    # Every line the authors wrote is still there, unless the adoption said it changed.
    text = (project / "pyproject.toml").read_text()
    for line in authors_text(case, server).splitlines():
        if line.strip() and line not in text.splitlines():
            # The key a line sets, or the last part of a table's header: [[...dependencies.torch]]
            key = line.split("=")[0].strip(" [{]\"'").rsplit(".", 1)[-1]
            assert adopted and key in adopted, (line, adopted)

    after = _files(project)
    again = cli.run("lock", *target, cwd=project)
    assert again.code == 0, again.stderr
    assert _files(project) == after
    if case.backend == "uv":
        tools.uv("lock", cwd=project)
        tools.uv("sync", cwd=project)
    else:
        tools.poetry("lock", cwd=project)
        tools.poetry("install", "--no-root", cwd=project)  # the fixtures hold no package
    assert _files(project) == after


@pytest.mark.slow
@pytest.mark.parametrize(("slug", "cuda"), [("whisperx", "cu126"), ("pulse-from-face", "cu117")])
def test_another_build_takes_the_authors_entries_over_in_one_adopt(
    slug: str, cuda: str, server: WorldServer, cli: Cli, tools: Tools, tmp_path: Path
) -> None:
    """Asking for another build than the authors pinned: one refusal that lists every entry,
    then `--adopt` moves them, and the plain package manager installs the result."""
    case = next(c for c in CASES if c.slug == slug)
    project = render(case, tmp_path / "project", server)
    (project / "gpu.json").write_text(json.dumps(GPU_HOST))
    asked = ("--target", "gpu.json", "--cuda", cuda)
    before = _files(project)

    refused = cli.run("lock", *asked, cwd=project)
    assert refused.code == 2, refused.stdout + refused.stderr
    assert "the plan contradicts:" in refused.stderr
    assert "--adopt`" in refused.stderr
    assert _files(project) == before

    adopted = cli.run("lock", "--adopt", *asked, cwd=project)
    assert adopted.code == 0, adopted.stdout + adopted.stderr
    # One change per entry the refusal listed (a package's entries are taken over together).
    listed = [line for line in refused.stderr.splitlines() if line.startswith("  ")]
    changed = _adopted_lines(adopted.stdout).splitlines()
    assert 0 < len(changed) <= len(listed) + 1, (listed, changed)  # + the cuda setting
    recorded = {p["name"]: p["variant"] for p in read_toml(project / "cuda.lock")["packages"]}
    assert recorded["torch"] == cuda
    # The build asked for is the project's cuda setting now: a plain lock keeps it.
    assert read_toml(project / "pyproject.toml")["tool"]["poetry-cuda"]["cuda"] == cuda
    again = cli.run("lock", "--target", "gpu.json", cwd=project)
    assert again.code == 0, again.stderr
    if case.backend == "uv":
        tools.uv("sync", cwd=project)
    else:
        tools.poetry("install", "--no-root", cwd=project)


@pytest.mark.slow
def test_a_package_only_an_extra_installs_stays_optional(
    server: WorldServer, cli: Cli, tools: Tools, tmp_path: Path
) -> None:
    """text-generation-inference makes torch optional behind an extra: after the lock a
    plain install still leaves it out, and the extra installs the CUDA build."""
    case = next(c for c in CASES if c.slug == "tgi-server")
    project = render(case, tmp_path / "project", server)
    (project / "gpu.json").write_text(json.dumps(GPU_HOST))
    locked = cli.run("lock", "--target", "gpu.json", cwd=project)
    assert locked.code == 0, locked.stderr
    venv = project / ".venv"
    versions = "import importlib.metadata as m; print(m.version('torch'))"
    tools.poetry("install", "--no-root", cwd=project)
    with pytest.raises(ToolError, match="PackageNotFoundError"):
        tools.python(venv, versions)
    tools.poetry("install", "--no-root", "--extras", "torch", cwd=project)
    assert tools.python(venv, versions).endswith("+cu130")
