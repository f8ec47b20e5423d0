"""`detect` and `plan` through the real console scripts, with the real pynvml loading the fake
libnvidia-ml.so.1: the whole chain from a driver to a variant, without a GPU."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

import pytest

from tests.support.fake_nvml import GTX_1080_TI
from tests.support.fake_nvml import RTX_4090
from tests.support.projects import write_project


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Cli
    from tests.support.fake_nvml import FakeNvml


def test_one_gpu_json(cli: Cli, fake_nvml: FakeNvml, tmp_path: Path) -> None:
    result = cli.run("detect", "--json", cwd=tmp_path, env=fake_nvml.scenario())
    assert result.code == 0, result.stderr
    profile = json.loads(result.stdout)
    assert profile["schema"] == 2
    assert profile["os"] == "linux"
    assert profile["driver"] == {
        "version": "550.54.14",
        "cuda": "12.4",
        "source": "nvml",
        "cuda_source": "nvml",
    }
    (gpu,) = profile["gpus"]
    assert gpu["name"] == "NVIDIA GeForce RTX 4090"
    assert gpu["compute_capability"] == "8.9"
    assert gpu["uuid"].startswith("GPU-")


def test_plugin_and_script_agree(cli: Cli, fake_nvml: FakeNvml, tmp_path: Path) -> None:
    env = fake_nvml.scenario(gpus=(RTX_4090, GTX_1080_TI))
    script = cli.run("detect", "--json", cwd=tmp_path, env=env)
    plugin = cli.run("cuda", "detect", "--json", cwd=tmp_path, env=env, program="poetry")
    assert plugin.code == 0, plugin.stderr
    assert json.loads(plugin.stdout) == json.loads(script.stdout)
    assert [g["compute_capability"] for g in json.loads(script.stdout)["gpus"]] == ["8.9", "6.1"]


def test_readable_report(cli: Cli, fake_nvml: FakeNvml, tmp_path: Path) -> None:
    result = cli.run("detect", cwd=tmp_path, env=fake_nvml.scenario())
    assert result.code == 0
    assert "NVIDIA driver: 550.54.14 [nvml]" in result.stdout
    assert "Highest CUDA the driver supports: 12.4 [nvml]" in result.stdout
    assert "compute capability 8.9 (sm_89)" in result.stdout


@pytest.mark.parametrize(
    ("scenario", "expected"),
    [
        ({"library": False}, "NVIDIA driver: none found"),
        ({"init_error": 9}, "NVIDIA driver: none found"),
        ({"init_error": 18}, "Driver/library version mismatch"),
        ({"init_crash": True}, "nvml: error"),
    ],
)
def test_failure_states_are_reports_not_tracebacks(
    cli: Cli, fake_nvml: FakeNvml, tmp_path: Path, scenario: dict[str, object], expected: str
) -> None:
    env = fake_nvml.scenario(**scenario)  # type: ignore[arg-type]
    result = cli.run("detect", cwd=tmp_path, env=env)
    assert result.code == 0, result.stderr
    assert expected in result.stdout


def test_mismatch_report_says_how_to_fix(cli: Cli, fake_nvml: FakeNvml, tmp_path: Path) -> None:
    result = cli.run("detect", cwd=tmp_path, env=fake_nvml.scenario(init_error=18))
    assert "reboot" in result.stdout


def test_plan_for_this_machine(cli: Cli, fake_nvml: FakeNvml, tmp_path: Path) -> None:
    write_project(tmp_path, name="p", dependencies=["torch>=2.4"])
    # A GTX 1080 Ti on driver 580: cu128 and later have no sm_6x kernels, cu126 does.
    env = fake_nvml.scenario(driver="580.65.06", cuda=13000, gpus=(GTX_1080_TI,))
    result = cli.run("plan", "--json", cwd=tmp_path, env=env)
    assert result.code == 0, result.stderr
    plan = json.loads(result.stdout)
    assert plan["targets"] == ["this machine"]
    torch = plan["packages"][0]
    assert torch["variant"] == "cu126"
    assert "sm_61" in torch["reason"]


def test_driver_override_from_the_environment(
    cli: Cli, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    env = {**fake_nvml.scenario(), "POETRY_CUDA_DRIVER_VERSION": "470.82.01"}
    result = cli.run("detect", "--json", cwd=tmp_path, env=env)
    assert result.code == 0, result.stderr
    driver = json.loads(result.stdout)["driver"]
    assert driver["version"] == "470.82.01"
    assert driver["cuda"] == "11.4"
    assert driver["cuda_source"] == "driver table"


def test_detect_validates_target_files(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "t.json").write_text('{"os": "linux", "driver": {"version": "550.54.14"}}')
    result = cli.run("detect", "--json", "--target", "t.json", cwd=tmp_path)
    assert result.code == 0
    assert json.loads(result.stdout)["driver"]["cuda"] == "12.4"
    (tmp_path / "bad.json").write_text('{"os": "linux", "gpus": [{"compute_capability": "x"}]}')
    result = cli.run("detect", "--target", "bad.json", cwd=tmp_path)
    assert result.code == 2
    assert "bad.json: gpus[0].compute_capability" in result.stderr
