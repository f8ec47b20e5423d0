"""Projects that plan apart per fork (platform, extra, group), written for the test world.

`forked_project` writes a uv project whose authors' lines are `body` (with `{pytorch}` for
download.pytorch.org/whl), then what only the test world needs: the pytorch mirror and the
PyPI stand-in as uv's default index, and a GPU target. `lock_as_found` runs the adoption
sequence every fork pattern goes through, asserting each step.
"""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

from poetry_cuda.files import read_toml
from poetry_cuda.host.system_files import SYSFS_ROOT_ENV
from tests.support import fake_sysfs
from tests.support.fake_nvml import RTX_4090
from tests.support.fake_sysfs import FakeSysfs


if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli
    from tests.support.fake_nvml import FakeNvml


GPU_HOST = {
    "schema": 1,
    "os": "linux",
    "machine": "x86_64",
    "driver": {"version": "580.65.06"},
    "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}],
}
FILES = ("pyproject.toml", "uv.lock", "cuda.lock")


def forked_project(directory: Path, server: WorldServer, body: str) -> Path:
    directory.mkdir(parents=True)
    (directory / "gpu.json").write_text(json.dumps(GPU_HOST))
    world = (
        f'\n[tool.poetry-cuda.mirrors]\npytorch = "{server.pytorch_mirror}"\n\n'
        f'[[tool.uv.index]]\nname = "local-pypi"\ndefault = true\nurl = "{server.pypi_url}"\n'
    )
    text = body.replace("{pytorch}", server.url("/whl")).rstrip("\n") + "\n" + world
    (directory / "pyproject.toml").write_text(text)
    return directory


def files(project: Path) -> dict[str, bytes | None]:
    return {n: (project / n).read_bytes() if (project / n).exists() else None for n in FILES}


def lock_as_found(
    cli: Cli, project: Path, targets: tuple[str, ...] = ("--target", "gpu.json")
) -> dict[str, dict[str, Any]]:
    """`lock --dry-run`, `lock`, a second `lock` and `lock --check`, each as a fork pattern
    needs it; cuda.lock's forks by name."""
    before = files(project)
    dry = cli.run("lock", "--dry-run", *targets, cwd=project)
    assert dry.code == 0, dry.stdout + dry.stderr
    assert files(project) == before
    first = cli.run("lock", *targets, cwd=project)
    assert first.code == 0, first.stdout + first.stderr
    assert (project / "pyproject.toml").read_bytes() == before["pyproject.toml"]  # as found
    after = files(project)
    again = cli.run("lock", cwd=project)
    assert again.code == 0, again.stdout + again.stderr
    assert files(project) == after
    check = cli.run("lock", "--check", cwd=project)
    assert check.code == 0, check.stdout + check.stderr
    return {e["name"]: e for e in read_toml(project / "cuda.lock")["extras"]}


HOSTS: dict[str, dict[str, Any]] = {
    "gpu.json": GPU_HOST,
    "amd.json": {
        "schema": 2,
        "os": "linux",
        "machine": "x86_64",
        "gpus": [{"name": "AMD Instinct MI250X", "vendor": "amd", "gfx": "gfx90a"}],
    },
    "arc.json": {
        "schema": 2,
        "os": "linux",
        "machine": "x86_64",
        "gpus": [{"name": "Intel Arc A770", "vendor": "intel", "device_ip": "12.55.8"}],
        "xpu": {"driver": "1.6.32224", "source": "level-zero"},
    },
    "cpu.json": {"schema": 2, "os": "linux", "machine": "x86_64", "gpus": []},
}


def gpu_world(dest: Path, world: Path, rocm: Path) -> Path:
    """One tree with the standard world's indexes and the ROCm world's `/whl/rocm*` and
    `/whl/xpu` (and, on the PyPI stand-in, the Intel runtime the XPU builds pin), linked."""
    dest.mkdir(parents=True)
    for top in world.iterdir():
        if top.name not in ("whl", "simple"):
            (dest / top.name).symlink_to(top)
    for folder in ("whl", "simple"):
        (dest / folder).mkdir(parents=True)
        for entry in (world / folder).iterdir():
            (dest / folder / entry.name).symlink_to(entry)
        for entry in (rocm / folder).iterdir():
            if not (dest / folder / entry.name).exists():  # PyPI's torch stays the world's
                (dest / folder / entry.name).symlink_to(entry)
    return dest


def write_hosts(project: Path) -> tuple[str, ...]:
    """The four hosts as target files in `project`; the `--target` arguments naming them."""
    arguments: list[str] = []
    for name, facts in HOSTS.items():
        (project / name).write_text(json.dumps(facts))
        arguments += ["--target", name]
    return tuple(arguments)


MACHINES = ("nvidia", "amd", "intel", "cpu")


def machine_env(machine: str, fake_nvml: FakeNvml, root: Path) -> dict[str, str]:
    """The environment in which a `poetry-cuda` command detects `machine`: an RTX 4090
    through the fake NVML, or no NVIDIA driver and a fake file system (below `root`) with
    an MI250X (`amd`), an MI50 (`mi50`, gfx906), an Arc A770 (`intel`), a UHD Graphics
    770 (`uhd770`, older than Arc) or no GPU (`cpu`)."""
    if machine == "nvidia":
        return fake_nvml.scenario(gpus=[RTX_4090])
    sysfs = FakeSysfs(root / machine)
    machines = {
        "amd": fake_sysfs.mi250x,
        "mi50": fake_sysfs.mi50,
        "intel": fake_sysfs.arc_a770,
        "uhd770": fake_sysfs.intel_igpu,
    }
    build = machines.get(machine)
    if build is not None:
        build(sysfs)
    return {**fake_nvml.scenario(library=False), SYSFS_ROOT_ENV: str(sysfs.root)}


def synced_fork(cli: Cli, project: Path, env: dict[str, str]) -> str:
    """What `sync --dry-run` selects on the machine `env` makes it detect: the options after
    ``uv sync --locked`` (``--extra rocm``, ``--group cu128``)."""
    dry = cli.run("sync", "--dry-run", cwd=project, env=env)
    assert dry.code == 0, dry.stdout + dry.stderr
    run = next(line for line in dry.stdout.splitlines() if line.startswith("Would run: "))
    assert run.startswith("Would run: uv sync --locked "), dry.stdout
    return run.removeprefix("Would run: uv sync --locked ")
