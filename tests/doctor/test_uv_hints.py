"""doctor in a uv project names the script in its fixes: `poetry cuda lock` does not lock a
uv project, so a fix that offers it names what does not work there."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

from tests.support.doctor_projects import torch_package
from tests.support.projects import write_cuda_lock
from tests.support.projects import write_project


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Cli
    from tests.support.fake_nvml import FakeNvml


def uv_project(folder: Path) -> Path:
    write_project(folder, dependencies=("torch==2.5.1",), tool={"uv": {"package": False}})
    write_cuda_lock(folder, packages=[torch_package()])
    lock = folder / "cuda.lock"
    lock.write_text(lock.read_text().replace('backend = "poetry"', 'backend = "uv"'))
    return folder


def test_doctor_in_a_uv_project_names_the_script(
    cli: Cli, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    project = uv_project(tmp_path / "app")
    no_driver = fake_nvml.scenario(library=False)
    result = cli.run("doctor", "--json", "--strict", cwd=project, env=no_driver)
    findings = json.loads(result.stdout)["findings"]
    host = [f for f in findings if f["area"] == "host" and f["fix"]]
    assert {f["check"] for f in host} >= {"driver", "variant"}, findings
    for finding in host:
        assert "poetry cuda" not in finding["fix"], finding
    assert any("`poetry-cuda lock --cuda cpu`" in f["fix"] for f in host)


def test_doctor_in_a_poetry_project_keeps_the_plugin(
    cli: Cli, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    project = uv_project(tmp_path / "app")
    lock = project / "cuda.lock"
    lock.write_text(lock.read_text().replace('backend = "uv"', 'backend = "poetry"'))
    no_driver = fake_nvml.scenario(library=False)
    result = cli.run("doctor", "--json", "--strict", cwd=project, env=no_driver)
    driver = next(f for f in json.loads(result.stdout)["findings"] if f["check"] == "driver")
    assert "`poetry cuda lock --cuda cpu`" in driver["fix"]
