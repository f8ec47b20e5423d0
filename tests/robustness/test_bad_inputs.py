"""Bad input, table-driven: one clear message, the documented exit code, no file changed.

Every case starts from a project that was locked successfully (pyproject.toml,
poetry.lock and cuda.lock all present), breaks one thing, runs the real command, and
checks the exit code, that the message names the culprit and a fix, that no traceback
is printed (the Cli fixture checks), and that every lock-relevant file is byte-identical.
"""

from __future__ import annotations

import json
import os
import shutil

from dataclasses import dataclass
from dataclasses import field
from typing import TYPE_CHECKING

import pytest

from tests.support.catalog import WorldServer
from tests.support.example import EXAMPLES
from tests.support.example import configure
from tests.support.example import snapshot


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterator
    from pathlib import Path

    from tests.support.catalog import World
    from tests.support.cli import Cli


pytestmark = pytest.mark.slow
FILES = ("pyproject.toml", "poetry.lock", "uv.lock", "cuda.lock")
TARGETS_LINE = 'targets = ["hosts/*.json"]'
RTX_4090 = json.loads((EXAMPLES / "torch_project/hosts/workstation-rtx4090.json").read_text())


def config(extra: str) -> Callable[[Path], None]:
    """Add lines to `[tool.poetry-cuda]`."""

    def change(project: Path) -> None:
        pyproject = project / "pyproject.toml"
        text = pyproject.read_text()
        assert TARGETS_LINE in text
        pyproject.write_text(text.replace(TARGETS_LINE, f"{TARGETS_LINE}\n{extra}"))

    return change


def replace(old: str, new: str, name: str = "pyproject.toml") -> Callable[[Path], None]:
    def change(project: Path) -> None:
        path = project / name
        text = path.read_text()
        assert old in text, old
        path.write_text(text.replace(old, new, 1))

    return change


def write(name: str, content: str | bytes) -> Callable[[Path], None]:
    def change(project: Path) -> None:
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)

    return change


def host(**fields: object) -> str:
    return json.dumps({**RTX_4090, **fields})


def truncate_cuda_lock(project: Path) -> None:
    path = project / "cuda.lock"
    text = path.read_bytes()
    path.write_bytes(text[: len(text) // 2])


def directory_for(name: str) -> Callable[[Path], None]:
    def change(project: Path) -> None:
        path = project / name
        path.unlink()
        path.mkdir()
        (path / "inside").write_text("x")

    return change


def nothing(project: Path) -> None:
    return None


@dataclass(frozen=True)
class Case:
    id: str
    change: Callable[[Path], None]
    says: tuple[str, ...]  # substrings of the message: the culprit, the problem
    code: int = 2
    args: tuple[str, ...] = ("lock",)
    env: dict[str, str] = field(default_factory=dict)


CASES = [
    # pyproject.toml itself
    Case("broken-toml", write("pyproject.toml", "[project\nname = 1\n"), ("pyproject.toml",)),
    Case("invalid-utf8", write("pyproject.toml", b"[project]\nname = '\xff\xfe'\n"), ("UTF-8",)),
    Case(
        "dependencies-not-a-list",
        replace(
            'dependencies = [\n    "torch==2.5.1",\n    "torchvision==0.20.1",\n]',
            'dependencies = "torch"',
        ),
        ("dependencies",),
    ),
    Case(
        "bad-requirement", replace('"torch==2.5.1"', '"torch===="'), ("torch: '===='", "constraint")
    ),
    Case("no-pyproject", lambda project: (project / "pyproject.toml").unlink(), ("no pyproject",)),
    # [tool.poetry-cuda] keys and types
    Case("unknown-key", config('polcy = "native"'), ("polcy", "unknown key")),
    Case("cuda-wrong-type", config("cuda = 124"), ("cuda",)),
    Case("cuda-unknown-variant", config('cuda = "cu99x"'), ("cu99x",)),
    Case("cuda-nonsense", config('cuda = "banana"'), ("banana",)),
    Case("cuda-broken-range", config('cuda = ">=12.1,<"'), (">=12.1,<",)),
    Case("policy-unknown", config('policy = "fastest"'), ("policy", "fastest")),
    Case("policy-wrong-type", config("policy = 1"), ("policy",)),
    Case("backend-unknown", config('backend = "pip"'), ("backend", "pip")),
    Case("toolkit-unknown", config('toolkit = "conda"'), ("toolkit", "conda")),
    Case("fallback-wrong-type", config('allow-cpu-fallback = "yes"'), ("allow-cpu-fallback",)),
    Case("targets-not-a-list", replace(TARGETS_LINE, 'targets = "hosts/*.json"'), ("targets",)),
    Case("targets-escape", replace(TARGETS_LINE, 'targets = ["../*.json"]'), ("../*.json",)),
    Case("targets-absolute", replace(TARGETS_LINE, 'targets = ["/etc/*.json"]'), ("/etc/*.json",)),
    Case(
        "targets-match-nothing",
        replace(TARGETS_LINE, 'targets = ["nowhere/*.json"]'),
        ("nowhere/*.json",),
    ),
    Case(
        "mirror-plain-http",
        replace("http://127.0.0.1", "http://mirror.example"),
        ("mirror.example", "https"),
    ),
    Case("mirror-ftp", replace("http://127.0.0.1", "ftp://127.0.0.1"), ("ftp://",)),
    Case(
        "mirror-unknown-family",
        replace(
            "[tool.poetry-cuda.mirrors]\n", '[tool.poetry-cuda.mirrors]\ntensorflow = "https://x"\n'
        ),
        ("tensorflow",),
    ),
    Case("mirror-wrong-type", replace('pytorch = "http', 'pytorch = 5\nx = "http'), ("pytorch",)),
    Case(
        "needs-bad-spec",
        config('[tool.poetry-cuda.packages.my-ext]\nneeds = ["nvcc>>12"]'),
        ("nvcc>>12",),
    ),
    Case(
        "needs-not-a-list", config('[tool.poetry-cuda.packages.my-ext]\nneeds = "nvcc"'), ("needs",)
    ),
    Case(
        "needs-unknown-kind",
        config('[tool.poetry-cuda.packages.my-ext]\nneeds = ["gizmo>=1"]'),
        ("gizmo",),
    ),
    # command-line options
    Case("option-cuda", nothing, ("--cuda", "cu99x"), args=("lock", "--cuda", "cu99x")),
    Case("option-policy", nothing, ("--policy", "fast"), args=("lock", "--policy", "fast")),
    Case(
        "option-target-missing",
        nothing,
        ("missing.json",),
        args=("lock", "--target", "missing.json"),
    ),
    Case("option-unknown", nothing, ("--frobnicate",), args=("lock", "--frobnicate")),
    Case("unknown-command", nothing, ("nonsense", "poetry-cuda list"), args=("nonsense",)),
    Case("unknown-global-option", nothing, ("--frobnicate",), args=("--frobnicate", "lock")),
    # target files
    Case(
        "target-not-json",
        write("hosts/workstation-rtx4090.json", "{driver: 550"),
        ("workstation-rtx4090.json",),
    ),
    Case(
        "target-not-an-object",
        write("hosts/workstation-rtx4090.json", "[1, 2]"),
        ("workstation-rtx4090.json",),
    ),
    Case("target-unknown-os", write("hosts/workstation-rtx4090.json", host(os="beos")), ("beos",)),
    Case(
        "target-bad-driver",
        write("hosts/workstation-rtx4090.json", host(driver={"version": "abc"})),
        ("abc",),
    ),
    Case(
        "target-bad-capability",
        write(
            "hosts/workstation-rtx4090.json",
            host(gpus=[{"index": 0, "compute_capability": "nine"}]),
        ),
        ("nine",),
    ),
    Case(
        "target-future-schema",
        write("hosts/workstation-rtx4090.json", host(schema=99)),
        ("schema",),
    ),
    Case(
        "target-bad-driver-cuda",
        write("hosts/workstation-rtx4090.json", host(driver={"cuda": "12.x"})),
        ("12.x",),
    ),
    Case(
        "target-is-a-directory",
        directory_for("hosts/workstation-rtx4090.json"),
        ("workstation-rtx4090.json",),
    ),
    Case(
        "target-env-missing",
        replace(TARGETS_LINE, ""),  # the variable counts only without `targets`
        ("gone.json",),
        args=("plan",),
        env={"POETRY_CUDA_TARGET": "gone.json"},
    ),
    # cuda.lock
    Case("cuda-lock-truncated", truncate_cuda_lock, ("cuda.lock",)),
    Case("cuda-lock-garbled", write("cuda.lock", b"\x00\x01\x02 garbage \xff"), ("cuda.lock",)),
    Case(
        "cuda-lock-future",
        replace("version = 2", "version = 99", "cuda.lock"),
        ("cuda.lock", "version"),
    ),
    Case(
        "cuda-lock-wrong-type",
        replace("policy = ", "policy = 1\nx = ", "cuda.lock"),
        ("cuda.lock", "policy"),
    ),
    Case(
        "cuda-lock-missing-key",
        replace("content-hash", "contents-hash", "cuda.lock"),
        ("cuda.lock", "content-hash"),
    ),
    Case("cuda-lock-is-a-directory", directory_for("cuda.lock"), ("cuda.lock",)),
    # the decision itself
    Case(  # the label alone is the project's request; asking for another build contradicts it
        "pin-contradicts-request",
        replace('"torch==2.5.1"', '"torch==2.5.1+cpu"'),
        ("2.5.1+cpu", "cu124", "--adopt"),
        args=("lock", "--cuda", "cu124"),
    ),
    Case(
        "no-variant-for-the-gpu",
        write(
            "hosts/workstation-rtx4090.json",
            host(gpus=[{"index": 0, "name": "Tesla K40", "compute_capability": "3.5"}]),
        ),
        ("sm_35", "no known torch build"),
        code=3,
    ),
    # No torch build has CUDA 11.0: bad config, naming the variants that exist.
    Case("a-cuda-request-no-build-has", config('cuda = "11.0"'), ("11.0", "cu118"), code=2),
]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, world: World) -> Iterator[Path]:
    from tests.support.cli import Cli

    home = tmp_path_factory.mktemp("home")
    project = tmp_path_factory.mktemp("template") / "torch_project"
    shutil.copytree(EXAMPLES / "torch_project", project)
    with WorldServer(world) as server:
        configure(project, server)
        result = Cli(home).run("lock", cwd=project)
        assert result.code == 0, result.stderr
        yield project


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case: Case, cli: Cli, template: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(template, project)
    case.change(project)
    before = snapshot(project, FILES)
    result = cli.run(*case.args, cwd=project, env=case.env, timeout=120)
    assert result.code == case.code, result.stderr + result.stdout
    message = result.stderr
    for part in case.says:
        assert part in message, (part, message)
    assert "Fix:" in message, message
    assert message.count("\n") < 15, message  # one message, not a dump
    assert snapshot(project, FILES) == before


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root can write anywhere")
def test_a_read_only_project_folder(cli: Cli, template: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(template, project)
    config('cuda = "cu118"')(project)
    before = snapshot(project, FILES)
    project.chmod(0o555)
    try:
        result = cli.run("lock", cwd=project)
    finally:
        project.chmod(0o755)
    assert result.code == 2, result.stderr
    assert "cannot write" in result.stderr
    assert snapshot(project, FILES) == before


def test_there_are_enough_cases() -> None:
    assert len(CASES) >= 40
