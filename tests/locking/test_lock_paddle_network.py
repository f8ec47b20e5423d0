"""The paddle example against the real PyPI: paddlepaddle-gpu 2.6.2 declares no nvidia-*
dependencies, so cuda.lock must record the CUDA runtime and cuDNN it loads from the system,
and doctor on this machine checks them."""

from __future__ import annotations

import json
import shutil

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import read_toml
from tests.support.example import EXAMPLES


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Cli


pytestmark = [pytest.mark.network, pytest.mark.slow]


def test_lock_records_paddles_system_needs_and_doctor_checks_them(cli: Cli, tmp_path: Path) -> None:
    project = tmp_path / "paddle_project"
    shutil.copytree(EXAMPLES / "paddle_project", project)
    # Plan for a Linux GPU host on driver 550 whatever this machine has.
    locked = cli.run("lock", cwd=project, env={"POETRY_CUDA_DRIVER_VERSION": "550.54.14"})
    assert locked.code == 0, locked.stderr

    cuda_lock = read_toml(project / "cuda.lock")
    (paddle,) = cuda_lock["packages"]
    assert (paddle["name"], paddle["variant"], paddle["source"]) == (
        "paddlepaddle-gpu",
        "cu118",
        "pypi",
    )
    assert paddle["version"] == "2.6.2"
    needs = {r["kind"]: r for r in cuda_lock["system-requirements"]}
    assert set(needs) == {"cuda-runtime", "cudnn"}
    assert needs["cuda-runtime"]["spec"] == ">=11.8,<12"
    assert needs["cudnn"]["spec"] == ">=8.6.0,<9"
    assert all(r["package"] == "paddlepaddle-gpu" for r in needs.values())
    assert "packages/stable/cu118/" in needs["cuda-runtime"]["satisfy"]

    # Doctor on this machine as it is: its own driver (if any), toolkits and libraries.
    result = cli.run("doctor", "--json", cwd=project)
    report = json.loads(result.stdout)
    # The system libraries' findings (inside a container, doctor also checks its image).
    findings = report["findings"]
    system = {
        f["check"]: f for f in findings if f["area"] == "system" and f["check"] != "base-image"
    }
    assert set(system) == {"cuda-runtime", "cudnn"}
    for kind, finding in system.items():
        assert finding["subject"] == "paddlepaddle-gpu"
        assert needs[kind]["spec"] in finding["message"]
        if finding["status"] == "fail":
            assert finding["fix"] == needs[kind]["satisfy"]
    detected = json.loads(cli.run("detect", "--json", cwd=project).stdout)
    if not any(t["version"].startswith("11.") for t in detected["toolkits"]):
        assert system["cuda-runtime"]["status"] != "ok"
    # A machine without a GPU is told what is missing (a warning); `--strict` fails it.
    missing = "warn" if detected["driver"] is None else "fail"
    if not any(c["version"].startswith("8") for c in detected["cudnn"]):
        assert system["cudnn"]["status"] == missing
    failed = any(f["status"] == "fail" for f in report["findings"])
    assert result.code == (1 if failed else 0)
    if detected["driver"] is None:
        strict = cli.run("doctor", "--strict", cwd=project)
        assert strict.code == 1, strict.stdout
