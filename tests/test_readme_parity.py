"""README.md and README.zh-CN.md tell the same facts, and the first screen gets a user going.

Both name the same environment variables, commands and durations; both have the per-user
mirror section; the repository URL they give is the project's own; the first screen says how
poetry-cuda compares with uv's torch backend and conda's `__cuda`; the reference (commands,
configuration, cuda.lock, host profiles, knowledge base, troubleshooting, benchmarks, code
layout) lives in docs/, and every link between them leads to a file and a heading that exist;
the Quick start's failed plan is what `plan` prints.
"""

from __future__ import annotations

import re
import shutil

from pathlib import Path
from typing import TYPE_CHECKING

import tomlkit

from tests.support.example import EXAMPLES


if TYPE_CHECKING:
    from tests.support.cli import Cli


ROOT = Path(__file__).resolve().parents[1]
ENGLISH = ROOT / "README.md"
CHINESE = ROOT / "README.zh-CN.md"
PROJECT = tomlkit.parse((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
REPOSITORY = str(PROJECT["urls"]["Repository"])
TOOLS = ("poetry", "poetry-cuda", "uv", "python3", "pip", "pipx", "git", "export", "eval")
# Units of time in either language, as one name.
UNITS = {"minute": "min", "minutes": "min", "分钟": "min", "second": "s", "seconds": "s", "秒": "s"}


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def spans(text: str) -> list[str]:
    """Every inline code span outside the fenced blocks and every console command, whitespace
    collapsed, `<命令>` read as `<command>`."""
    blocks = re.findall(r"```[a-z]*\n(.*?)```", text, re.DOTALL)
    prose = re.sub(r"```[a-z]*\n.*?```", "", text, flags=re.DOTALL)
    found = [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", prose)]
    for block in blocks:
        lines = block.splitlines()
        prompted = [line[2:] for line in lines if line.startswith("$ ")]
        found += [line.split("  #", 1)[0].strip() for line in prompted or lines]
    return [span.replace("<命令>", "<command>") for span in found if span]


def commands(text: str) -> set[str]:
    return {s for s in spans(text) if s.split(" ", 1)[0] in TOOLS and " " in s}


def variables(text: str) -> set[str]:
    return set(
        re.findall(r"\b(?:POETRY_CUDA|POETRY|UV|CUDA|LD|LC|PYTHON)_[A-Z0-9_]*[A-Z0-9]\b", text)
    )


def durations(text: str) -> list[tuple[str, str]]:
    found = re.findall(r"(\d+(?:\.\d+)?) ?(minutes?|seconds?|分钟|秒)(?![A-Za-z])", text)
    return sorted((number, UNITS[unit]) for number, unit in found)


def test_both_name_the_same_environment_variables() -> None:
    assert variables(read(CHINESE)) == variables(read(ENGLISH))
    assert "POETRY_CUDA_MIRROR_PYTORCH" in variables(read(CHINESE))


def test_both_show_the_same_commands() -> None:
    english, chinese = commands(read(ENGLISH)), commands(read(CHINESE))
    assert chinese == english, (sorted(english - chinese), sorted(chinese - english))
    assert "poetry config http-basic.<source-name> <user> <token>" in chinese


def test_both_state_the_same_durations() -> None:
    assert durations(read(CHINESE)) == durations(read(ENGLISH))


def test_both_have_the_per_user_mirror_section() -> None:
    for path, heading in ((ENGLISH, "A mirror for yourself only"), (CHINESE, "只给自己用的镜像")):
        text = read(path)
        section = text.split(f"\n### {heading}\n", 1)[1].split("\n## ", 1)[0]
        assert "POETRY_CUDA_MIRROR_PYTORCH" in section
        assert "poetry config http-basic." in section


def test_the_first_screen_has_a_runnable_command_and_the_repository() -> None:
    assert REPOSITORY.startswith("https://") and "..." not in REPOSITORY
    for path in (ENGLISH, CHINESE):
        first_screen = "\n".join(read(path).splitlines()[:20])
        block = re.search(r"```console\n(.*?)```", first_screen, re.DOTALL)
        assert block is not None, path
        assert block.group(1).splitlines() == [
            f"git clone {REPOSITORY}",
            f"cd {REPOSITORY.rsplit('/', 1)[1]}",
            "python3 tools/dev.py demo",
        ]
        text = read(path)
        assert f"git+{REPOSITORY}" in text
        assert "git+https://..." not in text


def test_benchmark_tables_and_the_code_layout_live_in_docs() -> None:
    for path in (ENGLISH, CHINESE):
        text = read(path)
        assert "benchmarks:start" not in text
        assert "](docs/benchmarks.md)" in text
        assert "](docs/architecture.md)" in text
        assert len(text.splitlines()) < 400
    benchmarks = read(ROOT / "docs" / "benchmarks.md")
    assert "<!-- benchmarks:start -->" in benchmarks
    assert "<!-- benchmarks:end -->" in benchmarks
    assert "## Code layout" in read(ROOT / "docs" / "architecture.md")


# What a newcomer compares poetry-cuda with, named on the first screen of both READMEs.
ALTERNATIVES = (
    "--torch-backend=auto",
    "UV_TORCH_BACKEND",
    "uv lock",
    "uv 0.13.10",
    "__cuda",
    "pixi",
)
FIRST_SCREEN = 45
# The reference pages, linked from both READMEs.
REFERENCE = {
    "docs/architecture.md",
    "docs/benchmarks.md",
    "docs/commands.md",
    "docs/configuration.md",
    "docs/cuda-lock.md",
    "docs/host-profiles.md",
    "docs/knowledge.md",
    "docs/troubleshooting.md",
}
# Markdown links to local files, outside code: `](path)` or `](path#anchor)`.
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_first_screen_says_how_it_compares() -> None:
    for path in (ENGLISH, CHINESE):
        first_screen = "\n".join(read(path).splitlines()[:FIRST_SCREEN])
        for alternative in ALTERNATIVES:
            assert alternative in first_screen, (path.name, alternative)


def local_links(text: str) -> list[str]:
    prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    return [link for link in LINK.findall(prose) if not re.match(r"[a-z]+:", link)]


def anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    prose = re.sub(r"```.*?```", "", read(path), flags=re.DOTALL)
    return {anchor(line.lstrip("#")) for line in prose.splitlines() if line.startswith("#")}


def test_both_link_the_reference_in_docs() -> None:
    for path in (ENGLISH, CHINESE):
        linked = {link.split("#", 1)[0] for link in local_links(read(path))}
        # The Chinese README links the Chinese version of a page where there is one.
        if path == CHINESE:
            linked = {link.replace("docs/zh-CN/", "docs/") for link in linked}
        assert linked >= REFERENCE, (path.name, sorted(REFERENCE - linked))


def test_every_local_link_leads_to_a_file_and_a_heading() -> None:
    pages = [ENGLISH, CHINESE, *sorted((ROOT / "docs").glob("**/*.md"))]
    for page in pages:
        for link in local_links(read(page)):
            target, _, fragment = link.partition("#")
            file = (page.parent / target).resolve() if target else page
            assert file.exists(), (page.name, link)
            if fragment and file.suffix == ".md":
                assert fragment in anchors(file), (page.name, link)


def quick_start_block(path: Path) -> list[str]:
    """The console block of the Quick start that shows the failed plan."""
    text = read(path)
    blocks: list[str] = re.findall(r"```console\n(.*?)```", text, re.DOTALL)
    return next(b for b in blocks if ">=2.15" in b).splitlines()


def test_the_quick_start_shows_what_plan_prints_for_a_fresh_torch(cli: Cli, tmp_path: Path) -> None:
    project = tmp_path / "torch_project"
    shutil.copytree(EXAMPLES / "torch_project", project)
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text().replace('"torch==2.5.1"', '"torch>=2.15"')
    pyproject.write_text(text.replace('    "torchvision==0.20.1",\n', ""))
    for path, env in ((ENGLISH, {}), (CHINESE, {"LANG": "zh_CN.UTF-8"})):
        lines = quick_start_block(path)
        assert lines[0] == "$ poetry cuda plan"
        shown = lines[1 : lines.index('$ poetry add "torch<2.15"')]
        result = cli.run("cuda", "plan", cwd=project, program="poetry", env=env)
        assert result.code == 3, result
        assert (result.stdout + result.stderr).splitlines() == shown
    pyproject.write_text(pyproject.read_text().replace('"torch>=2.15"', '"torch<2.15"'))
    fixed = cli.run("plan", "--target", "hosts/workstation-rtx4090.json", cwd=project)
    assert fixed.code == 0, fixed
    assert "expects 2.14.1+cu126" in fixed.stdout
