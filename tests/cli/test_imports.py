"""What each command imports: the guard of start-up time that is not a timing assertion.

A command's start-up is mostly its imports, so each command is run, as the console script
runs it, in a fresh interpreter that then lists every module it loaded. A module a command
does not need (cleo for `--version`, tomlkit for `doctor`, poetry-core for `env`) or more
modules than its budget is a regression, found here before any benchmark shows it.
The budgets sit a little above today's counts; lower them when an import goes away.
"""

from __future__ import annotations

import json
import subprocess
import sys

from typing import TYPE_CHECKING

import pytest

from tests.support.example import torch_example
from tests.support.isolation import hermetic_env
from tests.support.projects import write_cuda_lock


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import WorldServer


PREAMBLE = "import json, os, sys\n"
RUNNER = (
    PREAMBLE
    + """
sys.argv = ["poetry-cuda", *sys.argv[2:]]
from poetry_cuda.cli.console import main
code = main()
with open(os.environ["MODULES_OUT"], "w") as file:
    json.dump({"code": code, "modules": sorted(sys.modules)}, file)
"""
)
CLEO = ("cleo",)
TOML_EDITOR = ("tomlkit",)
POETRY_APPLICATION = ("poetry.console", "poetry.config", "poetry.factory", "poetry.poetry")
POETRY_CORE = ("poetry.core",)
NVML = ("pynvml",)  # only ever in the time-limited worker
# Detection's probes: a plan for the example's own host profiles detects nothing.
PROBES = ("poetry_cuda.host.detect", "poetry_cuda.host.nvml", "poetry_cuda.host.toolkits")
# What the script's front end must not bring in: shutil (argparse asks it the terminal's
# width, and it loads bz2 and lzma) and difflib (only a mistyped command's name needs it).
FRONT_END = ("shutil", "difflib")


def imported(project: Path, home: Path, *args: str) -> tuple[int, set[str]]:
    out = home / "modules.json"
    env = hermetic_env(home, MODULES_OUT=str(out))
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, "-", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.is_file(), done.stderr
    result = json.loads(out.read_text())
    return result["code"], set(result["modules"])


def under(modules: set[str], prefixes: tuple[str, ...]) -> list[str]:
    """The modules that are one of `prefixes` or inside one."""
    inside = tuple(f"{prefix}." for prefix in prefixes)
    return sorted(m for m in modules if m in prefixes or m.startswith(inside))


def baseline(home: Path) -> set[str]:
    """What the interpreter and the runner's own imports load before the command runs."""
    done = subprocess.run(
        [sys.executable, "-c", PREAMBLE + "print(json.dumps(sorted(sys.modules)))"],
        env=hermetic_env(home),
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(done.stdout))


@pytest.fixture
def poetry_project(tmp_path: Path, server: WorldServer) -> Path:
    return torch_example(tmp_path / "poetry", server)


@pytest.fixture
def uv_project(tmp_path: Path, server: WorldServer) -> Path:
    return torch_example(tmp_path / "uv", server, backend="uv")


def test_version_imports_nothing_but_its_own_answer(tmp_path: Path, poetry_project: Path) -> None:
    code, modules = imported(poetry_project, tmp_path, "--version")
    assert code == 0
    extra = modules - baseline(tmp_path)
    assert extra <= {
        "__future__",
        "gc",  # built into the interpreter: its import loads nothing
        "poetry_cuda",
        "poetry_cuda.cli",
        "poetry_cuda.cli.console",
        "poetry_cuda.cli.terminal",
    }, sorted(extra)


# (command, project backend, forbidden prefixes, module budget)
CASES = [
    # `plan` reads cuda.lock's targets, as `lock` does (`locking.recorded`).
    ("plan", "poetry", CLEO + TOML_EDITOR + POETRY_APPLICATION + NVML + PROBES + FRONT_END, 236),
    ("detect", "poetry", CLEO + TOML_EDITOR + POETRY_CORE + POETRY_APPLICATION + NVML, 205),
    ("doctor", "poetry", CLEO + TOML_EDITOR + POETRY_APPLICATION + NVML, 330),
    ("doctor", "uv", CLEO + TOML_EDITOR + POETRY_APPLICATION + NVML, 330),
    # `env` reads cuda.lock and, of the knowledge base, only the single tables it needs
    # (the mirrors known by name, the preferred package), each checked alone from the compiled
    # form (tests/knowledge/test_compiled.py): no package family's releases.
    ("env", "uv", CLEO + TOML_EDITOR + POETRY_CORE + POETRY_APPLICATION + NVML, 220),
]


@pytest.mark.parametrize(
    ("command", "backend", "forbidden", "budget"),
    CASES,
    ids=[f"{command}-{backend}" for command, backend, *_ in CASES],
)
def test_a_command_imports_only_what_it_needs(
    command: str,
    backend: str,
    forbidden: tuple[str, ...],
    budget: int,
    tmp_path: Path,
    poetry_project: Path,
    uv_project: Path,
) -> None:
    project = poetry_project if backend == "poetry" else uv_project
    if command == "env":
        write_cuda_lock(project, fresh=False)
    code, modules = imported(project, tmp_path, command)
    assert code in (0, 1, 2)
    assert under(modules, forbidden) == []
    assert len(modules) <= budget, f"{len(modules)} modules: lower the imports or the budget"


def test_the_uv_backend_locks_without_poetry_or_cleo(tmp_path: Path, uv_project: Path) -> None:
    code, modules = imported(uv_project, tmp_path, "lock")
    assert code == 0
    assert under(modules, CLEO + POETRY_APPLICATION + NVML) == []


def test_a_poetry_project_never_loads_the_uv_backend(tmp_path: Path, poetry_project: Path) -> None:
    code, modules = imported(poetry_project, tmp_path, "lock")
    assert code == 0
    # uv's own tables are read (and adopted) in every project, since the authors may have
    # written them (`backends.readers`); what runs uv is never loaded for a Poetry project.
    assert (
        under(modules, ("poetry_cuda.backends.uv.runner", "poetry_cuda.backends.uv.manager")) == []
    )


@pytest.mark.parametrize(
    "args", [("--help",), ("plan", "--help"), ("help", "run"), ("lokc",), ("plan", "--bogus")]
)
def test_help_and_usage_errors_need_no_cleo(
    args: tuple[str, ...], tmp_path: Path, poetry_project: Path
) -> None:
    code, modules = imported(poetry_project, tmp_path, *args)
    assert code in (0, 2)
    assert under(modules, CLEO + POETRY_APPLICATION + TOML_EDITOR) == []
