"""`lock` with `[tool.poetry-cuda.wheel-variants]`: the label poetry-cuda chooses from the
family's variant index (the test world's, torch 2.9.1 in torch 2.9's published shapes) is
recorded in cuda.lock with its properties, the managed entries pin the label's build, and
plain Poetry / uv install it; `lock --check` is fresh afterwards."""

from __future__ import annotations

import copy
import json
import subprocess

from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.files import read_toml
from poetry_cuda.planning.variant_metadata import FILE_LIMIT
from tests.support.example import PYPI
from tests.support.variant_world import TORCH_29
from tests.support.variant_world import build_world
from tests.support.variant_world import serve_index


if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli


pytestmark = pytest.mark.slow

DRIVER = {"version": "550.54.14", "cuda": "12.4", "source": "nvml"}
RTX_4090 = {"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}
GTX_1080 = {"index": 1, "name": "NVIDIA GeForce GTX 1080", "compute_capability": "6.1"}


def _profile(*gpus: dict[str, Any]) -> dict[str, Any]:
    return {"schema": 1, "os": "linux", "machine": "x86_64", "driver": DRIVER, "gpus": list(gpus)}


@pytest.fixture
def variant_index(tmp_path: Path) -> Iterator[str]:
    """torch 2.9.1's variant wheels and its -variants.json, as torch 2.9 published them."""
    build_world(tmp_path / "variant-files", TORCH_29, version="2.9.1")
    with serve_index(tmp_path / "variant-files", tmp_path / "variant-root") as url:
        yield url


def _project(
    directory: Path, server: WorldServer, index: str, host: dict[str, Any], backend: str
) -> Path:
    project = directory / "project"
    (project / "hosts").mkdir(parents=True)
    (project / "hosts" / "gpu.json").write_text(json.dumps(host))
    if backend == "poetry":
        manager = (
            '[tool.poetry]\npackage-mode = false\n\n[[tool.poetry.source]]\nname = "'
            f'{PYPI}"\nurl = "{server.pypi_url}"\npriority = "primary"\n'
        )
    else:
        manager = (
            f'[tool.uv]\npackage = false\n\n[[tool.uv.index]]\nname = "{PYPI}"\n'
            f'url = "{server.pypi_url}"\ndefault = true\n'
        )
    (project / "pyproject.toml").write_text(
        '[project]\nname = "variant-project"\nversion = "0.1.0"\n'
        'requires-python = ">=3.11,<3.12"\ndependencies = ["torch==2.9.1"]\n\n'
        f"{manager}\n"
        '[tool.poetry-cuda]\ntargets = ["hosts/*.json"]\n\n'
        f'[tool.poetry-cuda.mirrors]\npytorch = "{server.pytorch_mirror}"\n\n'
        f'[tool.poetry-cuda.wheel-variants]\ntorch = "{index}"\n'
    )
    return project


def _installed(project: Path) -> str:
    python = project / ".venv" / "bin" / "python"
    return subprocess.run(
        [str(python), "-c", "import torch; print(torch.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def _torch(project: Path) -> dict[str, Any]:
    packages = read_toml(project / "cuda.lock")["packages"]
    found: dict[str, Any] = next(p for p in packages if p["name"] == "torch")
    return found


@pytest.mark.parametrize("backend", ["poetry", "uv"])
@pytest.mark.parametrize(
    ("gpus", "variant", "label", "priority"),
    [
        ((RTX_4090,), "cu128", "cuda12.8", "2"),
        ((RTX_4090, GTX_1080), "cu126", "cuda12.6", "3"),  # cuda12.8 has no sm_61
    ],
    ids=["rtx4090", "rtx4090+gtx1080"],
)
def test_lock_records_the_label_and_plain_install_gets_its_build(
    cli: Cli,
    tmp_path: Path,
    server: WorldServer,
    variant_index: str,
    backend: str,
    gpus: tuple[dict[str, Any], ...],
    variant: str,
    label: str,
    priority: str,
) -> None:
    project = _project(tmp_path, server, variant_index, _profile(*gpus), backend)
    result = cli.run("lock", cwd=project)
    assert result.code == 0, result.stderr

    torch = _torch(project)
    assert (torch["variant"], torch["variant-label"]) == (variant, label)
    expected = TORCH_29["variants"][label]
    assert torch["variant-properties"] == sorted(
        f"{namespace} :: {feature} :: {value}"
        for namespace, features in expected.items()
        for feature, values in features.items()
        for value in values
    )
    assert f"priority :: order :: {priority}" in torch["variant-properties"]
    assert cli.run("lock", "--check", cwd=project).code == 0
    # Where the installer's NVIDIA provider (the highest GPU only) would pick otherwise.
    picks_other = "a variant-enabled installer picks cuda12.8" in result.stderr
    assert picks_other == (label == "cuda12.6")

    if backend == "poetry":
        install = cli.run("--no-plugins", "install", cwd=project, program="poetry")
    else:
        install = cli.run("sync", cwd=project, program="uv")
    assert install.code == 0, install.stderr
    assert _installed(project) == f"2.9.1+{variant}"


def test_a_build_without_a_variant_wheel_is_planned_again(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    """An index that publishes no cuda12.8: the 4090 gets cu126, whose label it has, and
    `lock --check` plans the same from cuda.lock's builds passed over."""
    document = copy.deepcopy(TORCH_29)
    del document["variants"]["cuda12.8"]
    build_world(tmp_path / "files", document, version="2.9.1")
    with serve_index(tmp_path / "files", tmp_path / "root") as index:
        project = _project(tmp_path, server, index, _profile(RTX_4090), "poetry")
        result = cli.run("lock", cwd=project)
        assert result.code == 0, result.stderr
        assert "cu128 has no variant wheel for the targets" in result.stderr
        torch = _torch(project)
        assert (torch["variant"], torch["variant-label"]) == ("cu126", "cuda12.6")
        assert cli.run("lock", "--check", cwd=project).code == 0


def test_a_family_without_a_variant_index_is_refused(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    project = _project(tmp_path, server, "http://127.0.0.1:1/simple/", _profile(RTX_4090), "poetry")
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("\ntorch = ", "\npaddle = "))
    result = cli.run("lock", cwd=project)
    assert result.code == 2
    assert "wheel-variants.paddle" in result.stderr
    assert "use one of torch" in result.stderr


def test_an_unreadable_variant_index_is_said_and_records_no_label(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    project = _project(
        tmp_path, server, server.url("/no-such-index/"), _profile(RTX_4090), "poetry"
    )
    result = cli.run("lock", cwd=project)
    assert result.code == 0, result.stderr
    assert "no variant label recorded for torch" in result.stderr
    assert "variant-label" not in _torch(project)
    assert _torch(project)["variant"] == "cu128"


def test_a_variants_file_over_its_limit_is_said_with_its_own_limit(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    # Issue 40, item 9: a -variants.json over its 4 MiB limit was said to be "larger than
    # 16 MiB" (the limit of index pages).
    path = build_world(tmp_path / "files", TORCH_29, version="2.9.1")
    path.write_bytes(path.read_bytes() + b" " * FILE_LIMIT)  # still JSON, too large
    with serve_index(tmp_path / "files", tmp_path / "root") as index:
        project = _project(tmp_path, server, index, _profile(RTX_4090), "poetry")
        result = cli.run("lock", cwd=project)
    assert result.code == 0, result.stderr
    assert f"larger than {FILE_LIMIT // 1024**2} MiB" in result.stderr, result.stderr
    assert "16 MiB" not in result.stderr
    assert "no variant label recorded for torch" in result.stderr


def test_doctor_and_check_read_the_record_back(
    cli: Cli, tmp_path: Path, server: WorldServer, variant_index: str
) -> None:
    project = _project(tmp_path, server, variant_index, _profile(RTX_4090), "poetry")
    assert cli.run("lock", cwd=project).code == 0
    path = project / "cuda.lock"
    path.write_text(path.read_text().replace("sm_arch :: 80_real", "sm_arch :: 80 real"))
    doctor = cli.run("doctor", "--json", cwd=project)
    assert doctor.code == 1
    assert "variant-properties" in doctor.stdout
    check = cli.run("lock", "--check", cwd=project)
    assert check.code == 2
    assert "variant-properties" in check.stderr
