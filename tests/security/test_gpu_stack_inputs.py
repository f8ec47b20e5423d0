"""Hostile and unforeseen AMD and Intel inputs through the real CLI: no traceback, one message.

Schema-2 target profiles with gfx targets no table lists, malformed gfx and device IPs, GPUs
that mix vendors' facts, hosts ROCm is not published for, and a cuda.lock whose target tables
carry bad AMD and Intel facts. Whatever the input, `plan`, `plan --json`, `lock --dry-run`
and `doctor` end with a documented exit code (SPEC: 0 success, 1 a doctor finding, 2 a bad
input file, 3 no variant), never 1 with "unexpected error"; a refusal is one message that says
what went wrong, why and how to fix it, and names the file at fault.
"""

from __future__ import annotations

import json
import shutil

from typing import TYPE_CHECKING
from typing import Any

import pytest

from tests.support.cli import Cli
from tests.support.index import IndexServer
from tests.support.isolation import UV_OFFLINE
from tests.support.rocm_world import build_rocm_world


if TYPE_CHECKING:
    from collections.abc import Iterator
    from collections.abc import Mapping
    from pathlib import Path

    from tests.support.cli import Result


pytestmark = pytest.mark.slow
UV = {**UV_OFFLINE, "UV_HTTP_RETRIES": "0"}
LINUX = "sys_platform == 'linux'"
MI250X: dict[str, object] = {"name": "AMD Instinct MI250X", "vendor": "amd", "gfx": "gfx90a"}
ARC: dict[str, object] = {"name": "Intel Arc A770", "vendor": "intel", "device_ip": "12.55.8"}


def amd(gfx: object, **more: object) -> dict[str, object]:
    return {"name": "AMD GPU", "vendor": "amd", "gfx": gfx, **more}


def intel(device_ip: object) -> dict[str, object]:
    return {"name": "Intel GPU", "vendor": "intel", "device_ip": device_ip}


def linux(*gpus: Mapping[str, object], **facts: object) -> dict[str, object]:
    return {"schema": 2, "os": "linux", "machine": "x86_64", "gpus": list(gpus), **facts}


RTX: dict[str, object] = {"name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}
MIXED_GFX = ("gfx90a", "gfx1100", "gfx942", "gfx1036", "gfx9999", "gfx908", "gfx1201", "gfx90c")
PROFILES: dict[str, dict[str, Any]] = {
    "unknown gfx": linux(amd("gfx9999")),
    "APU gfx1036": linux(amd("gfx1036", name="AMD Raphael iGPU")),
    "gfx000": linux(amd("gfx000")),
    "gfx with features": linux(amd("gfx90a:sramecc+:xnack-")),
    "empty gfx": linux(amd("")),
    "numeric gfx": linux(amd(5)),
    "null gfx": linux(amd(None)),
    "amd with a compute capability": linux(amd("gfx90a", compute_capability="8.0")),
    "vendor AMD in capitals": linux({**MI250X, "vendor": "AMD"}),
    "intel device ip 12": linux(intel("12")),
    "intel device ip a.b.c": linux(intel("a.b.c")),
    "intel device ip 7": linux(intel(7)),
    "kernel driver garbage": linux(MI250X, rocm={"version": "6.4.1", "kernel_driver": "x; rm"}),
    "kernel driver number": linux(MI250X, rocm={"version": None, "kernel_driver": 6.12}),
    "rocm not an object": linux(MI250X, rocm="6.4"),
    "windows amd": {**linux(MI250X), "os": "windows", "machine": "AMD64"},
    "aarch64 amd": {**linux(MI250X), "machine": "aarch64"},
    "macos amd": {**linux(amd("gfx1030")), "os": "macos", "machine": "x86_64"},
    "64 amd gpus of mixed gfx": linux(
        *(amd(MIXED_GFX[i % len(MIXED_GFX)], index=i) for i in range(64))
    ),
    "nvidia and amd": linux(
        RTX, MI250X, driver={"version": "550.54.14", "cuda": "12.4", "source": "target"}
    ),
    "gfx in an nvidia gpu": linux(
        {**RTX, "gfx": "gfx90a"}, driver={"version": "550.54.14", "source": "target"}
    ),
    "device ip on an amd gpu": linux({**MI250X, "device_ip": "12.55.8"}),
    "windows intel named AMD64": {**linux(ARC), "os": "windows", "machine": "AMD64"},
    "schema 1 with an amd gpu": {**linux(MI250X), "schema": 1},
    "gfx with a thousand features": linux(amd("gfx90a" + ":xnack-" * 1000)),
    "intel device ip huge": linux(intel("1" * 5000)),
    "intel with bad xpu driver": linux(ARC, xpu={"driver": "", "source": "level-zero"}),
}
# Bad values of the AMD and Intel facts a cuda.lock's [[targets]] records.
LOCK_TARGET_VALUES: dict[str, tuple[str, str]] = {
    "amd-gfx not a list": ("amd-gfx", '"gfx90a"'),
    "amd-gfx malformed": ("amd-gfx", '["gfx90a:xnack-"]'),
    "amd-gfx number": ("amd-gfx", "[90]"),
    "amdgpu garbage": ("amdgpu", '"6.12.12; rm -rf /"'),
    "amdgpu table": ("amdgpu", "{ version = 1 }"),
    "intel-device-ips bad": ("intel-device-ips", '["a.b.c"]'),
    "intel-device-ips number": ("intel-device-ips", "[12]"),
    "level-zero empty": ("level-zero", '""'),
    "level-zero list": ("level-zero", '["1.6"]'),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IndexServer]:
    world = build_rocm_world(tmp_path_factory.mktemp("rocm-world"))
    with IndexServer(world.root) as index:
        yield index


def write_project(directory: Path, server: IndexServer) -> Path:
    project = directory / "stack_project"
    (project / "hosts").mkdir(parents=True)
    (project / "hosts" / "mi250x.json").write_text(json.dumps(linux(MI250X)))
    (project / "pyproject.toml").write_text(
        '[project]\nname = "stack-project"\nversion = "0.1.0"\nrequires-python = ">=3.11,<3.12"\n'
        f'dependencies = ["torch>=2.8,<2.10; {LINUX}", "torchvision; {LINUX}"]\n\n'
        '[tool.poetry-cuda]\ntargets = ["hosts/*.json"]\n\n'
        f'[tool.poetry-cuda.mirrors]\npytorch = "{server.url("/whl/{variant}/")}"\n\n'
        "[tool.uv]\npackage = false\nenvironments = [\"sys_platform == 'linux'\"]\n\n"
        f'[[tool.uv.index]]\nname = "local-pypi"\nurl = "{server.url("/simple/")}"\n'
        "default = true\n"
    )
    return project


def assert_explained(result: Result, *, allowed: tuple[int, ...], culprit: str) -> None:
    """A documented exit code; a refusal is one message (what, why, fix) naming `culprit`."""
    assert result.code in allowed, result
    assert "unexpected error" not in result.stderr, result
    if result.code == 0:
        return
    if result.code == 1:  # doctor: the failing finding names the file at fault
        assert culprit in result.stdout, result
        return
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    whys = [i for i, line in enumerate(lines) if line.startswith("Why: ")]
    fixes = [line for line in lines if line.startswith("Fix: ")]
    assert len(whys) == 1 and len(fixes) == 1, result.stderr
    what = lines[whys[0] - 1] if whys[0] else ""
    assert culprit in what, result.stderr


@pytest.mark.parametrize("name", PROFILES)
def test_a_hostile_profile_is_planned_or_refused_clearly(
    cli: Cli, tmp_path: Path, server: IndexServer, name: str
) -> None:
    project = write_project(tmp_path, server)
    target = project / "target.json"
    target.write_text(json.dumps(PROFILES[name]))
    for command in (("plan",), ("plan", "--json"), ("lock", "--dry-run")):
        result = cli.run(*command, "--target", str(target), cwd=project, env=UV)
        assert_explained(result, allowed=(0, 2, 3), culprit="target.json")
        if command == ("plan", "--json") and result.code == 0:
            document = json.loads(result.stdout)
            assert document["targets"] == [str(target)]


@pytest.fixture(scope="module")
def locked(tmp_path_factory: pytest.TempPathFactory, server: IndexServer) -> Path:
    """A uv project locked for an MI250X: its cuda.lock records the ROCm accelerator."""
    cli = Cli(tmp_path_factory.mktemp("home"))
    project = write_project(tmp_path_factory.mktemp("locked"), server)
    result = cli.run("lock", cwd=project, env=UV)
    assert result.code == 0, result.stderr
    assert 'accelerator = "rocm"' in (project / "cuda.lock").read_text()
    return project


@pytest.mark.parametrize("name", LOCK_TARGET_VALUES)
def test_a_lock_with_bad_stack_facts_is_refused_clearly(
    cli: Cli, tmp_path: Path, locked: Path, name: str
) -> None:
    key, value = LOCK_TARGET_VALUES[name]
    project = tmp_path / "project"
    shutil.copytree(locked, project, ignore=shutil.ignore_patterns(".venv"))
    cuda_lock = project / "cuda.lock"
    text = cuda_lock.read_text()
    recorded = f'{key} = ["gfx90a"]\n' if key == "amd-gfx" else None
    if recorded is not None and recorded in text:
        text = text.replace(recorded, f"{key} = {value}\n")
    else:  # the fact was not recorded: add it to the target's table
        text = text.replace('amd-gfx = ["gfx90a"]\n', f'amd-gfx = ["gfx90a"]\n{key} = {value}\n')
    assert f"{key} = {value}" in text
    cuda_lock.write_text(text)
    for command in (("doctor",), ("doctor", "--json"), ("plan",), ("lock", "--check"), ("env",)):
        result = cli.run(*command, cwd=project, env=UV)
        assert_explained(result, allowed=(0, 1, 2), culprit="cuda.lock")
