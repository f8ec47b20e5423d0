"""`plan` through the real console scripts, on the bundled example and on bad input."""

from __future__ import annotations

import json
import shutil
import sys

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.support.example import EXAMPLES


if TYPE_CHECKING:
    from tests.support.cli import Cli
    from tests.support.fake_nvml import FakeNvml


@pytest.fixture
def torch_project(tmp_path: Path) -> Path:
    project = tmp_path / "torch_project"
    shutil.copytree(EXAMPLES / "torch_project", project)
    return project


def test_plan_json_on_the_example(cli: Cli, torch_project: Path) -> None:
    result = cli.run("plan", "--json", cwd=torch_project)
    assert result.code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["schema"] == 1
    assert document["policy"] == "newest"
    assert document["targets"] == ["hosts/laptop-macos.json", "hosts/workstation-rtx4090.json"]
    torch = document["packages"][0]
    assert torch["name"] == "torch"
    assert torch["variant"] == "cu124"
    assert torch["cuda"] == "12.4"
    assert torch["source"] == {
        "name": "pytorch-cu124",
        "url": "https://download.pytorch.org/whl/cu124",
    }
    assert "sm_89" in torch["reason"]
    assert document["packages"][1]["name"] == "torchvision"


@pytest.mark.parametrize("targets", [(), ("--target", "hosts/workstation-rtx4090.json")])
def test_item6_lock_dry_run_json_prints_what_plan_json_prints(
    cli: Cli, torch_project: Path, targets: tuple[str, ...]
) -> None:
    plan = cli.run("plan", "--json", *targets, cwd=torch_project)
    assert plan.code == 0, plan.stderr
    document = json.loads(plan.stdout)
    assert "base_image" in document
    for program, args in (("poetry-cuda", ["lock"]), ("poetry", ["cuda", "lock"])):
        dry = cli.run(*args, "--dry-run", "--json", *targets, cwd=torch_project, program=program)
        assert dry.code == 0, dry.stderr
        assert json.loads(dry.stdout) == document
    assert not (torch_project / "cuda.lock").exists()  # a dry run writes nothing


def test_plan_readable_output(cli: Cli, torch_project: Path) -> None:
    result = cli.run("plan", "--target", "hosts/workstation-rtx4090.json", cwd=torch_project)
    assert result.code == 0
    assert "cu124 from pytorch-cu124" in result.stdout
    assert "driver 550.54.14 supports CUDA <= 12.4" in result.stdout
    assert result.stdout.splitlines()[-1] == "Backend: poetry (pyproject.toml has [tool.poetry])"


def test_plan_names_the_backend_auto_picks_and_why(cli: Cli, torch_project: Path) -> None:
    pyproject = torch_project / "pyproject.toml"
    text = pyproject.read_text().replace("[tool.poetry]\npackage-mode = false\n", "")
    pyproject.write_text(text.replace("poetry.core.masonry.api", "uv_build"))
    result = cli.run("plan", cwd=torch_project)
    assert result.code == 0, result.stderr
    assert "Backend: uv (the build backend is uv_build)" in result.stdout.splitlines()
    # Inside Poetry, the plan says what auto picks; only `lock` refuses to guess uv there.
    plugin = cli.run("cuda", "plan", cwd=torch_project, program="poetry")
    assert "Backend: uv (the build backend is uv_build)" in plugin.stdout.splitlines()
    refused = cli.run("cuda", "lock", cwd=torch_project, program="poetry")
    assert refused.code == 2
    assert "found a uv project (the build backend is uv_build)" in refused.stderr


def test_poetry_plugin_and_script_agree(cli: Cli, torch_project: Path) -> None:
    script = cli.run("plan", "--json", cwd=torch_project)
    plugin = cli.run("cuda", "plan", "--json", cwd=torch_project, program="poetry")
    assert plugin.code == 0, plugin.stderr
    assert json.loads(plugin.stdout) == json.loads(script.stdout)


def test_no_variant_is_exit_3(cli: Cli, torch_project: Path) -> None:
    blackwell = torch_project / "hosts" / "workstation-rtx4090.json"
    blackwell.write_text(
        json.dumps(
            {
                "os": "linux",
                "driver": {"version": "570.124.06"},
                "gpus": [{"compute_capability": "12.0"}],
            }
        )
    )
    result = cli.run("plan", cwd=torch_project)
    assert result.code == 3
    assert "sm_120" in result.stderr
    assert "2.7.0" in result.stderr


@pytest.mark.parametrize(
    ("content", "culprit"),
    [
        ("{", "not valid JSON"),
        ('{"os": "beos"}', "os: 'beos' is not one of"),
        ('{"os": "linux", "driver": {"version": "five"}}', "driver.version"),
        ('{"os": "linux", "driver": {"cuda": "12.4"}, "gpus": [{}]}', "gpus[0].compute_capability"),
        ('{"schema": 9, "os": "linux"}', "unsupported schema 9"),
        ("[]", "expected a JSON object"),
    ],
)
def test_bad_target_files_are_exit_2(
    cli: Cli, torch_project: Path, content: str, culprit: str
) -> None:
    target = torch_project / "bad.json"
    target.write_text(content)
    result = cli.run("plan", "--target", "bad.json", cwd=torch_project)
    assert result.code == 2
    assert "bad.json" in result.stderr
    assert culprit in result.stderr


@pytest.mark.parametrize(
    ("args", "culprit"),
    [
        (["--cuda", "cuda12"], "--cuda"),
        (["--policy", "fastest"], "--policy"),
        (["--target", "missing.json"], "target file not found"),
    ],
)
def test_bad_options_are_exit_2(
    cli: Cli, torch_project: Path, args: list[str], culprit: str
) -> None:
    result = cli.run("plan", *args, cwd=torch_project)
    assert result.code == 2
    assert culprit in result.stderr


def test_bad_pyproject_is_exit_2(cli: Cli, torch_project: Path) -> None:
    pyproject = torch_project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text() + "\n[tool.poetry-cuda.mirrors]\npytorch = 'http://x.example'\n"
    )
    result = cli.run("plan", cwd=torch_project)
    assert result.code == 2


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_a_plan_stopped_before_detecting_leaves_no_nvml_worker(
    cli: Cli, torch_project: Path, fake_nvml: FakeNvml
) -> None:
    """The NVML worker started ahead of detection, which this plan never reaches (a bad
    setting stops it first), is stopped when the command ends, not left hanging."""
    pyproject = torch_project / "pyproject.toml"
    text = pyproject.read_text().replace('targets = ["hosts/*.json"]', "cuda = 5")
    pyproject.write_text(text)
    env = fake_nvml.scenario(init_sleep=3600)
    result = cli.run("plan", cwd=torch_project, env=env)
    assert result.code == 2, result
    assert "cuda" in result.stderr
    needle = env["FAKE_NVML_CONFIG"].encode()
    left = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and needle in (entry / "environ").read_bytes():
                left.append(entry.name)
        except OSError:
            continue
    assert left == [], "the early NVML worker outlived the command"


def test_no_project_is_exit_2(cli: Cli, tmp_path: Path) -> None:
    result = cli.run("plan", cwd=tmp_path)
    assert result.code == 2
    assert "no pyproject.toml" in result.stderr


def test_target_from_the_environment(cli: Cli, torch_project: Path) -> None:
    pyproject = torch_project / "pyproject.toml"  # the variable counts only without `targets`
    pyproject.write_text(pyproject.read_text().replace('targets = ["hosts/*.json"]', ""))
    result = cli.run(
        "plan",
        "--json",
        cwd=torch_project,
        env={"POETRY_CUDA_TARGET": str(torch_project / "hosts" / "laptop-macos.json")},
    )
    assert result.code == 0
    assert json.loads(result.stdout)["packages"][0]["variant"] == "cpu"


def test_toolkit_wheels_show_as_additions(cli: Cli, torch_project: Path) -> None:
    pyproject = torch_project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace("targets = [", 'toolkit = "wheels"\ntargets = [')
    )
    result = cli.run("plan", "--json", cwd=torch_project)
    assert result.code == 0, result.stderr
    additions = json.loads(result.stdout)["additions"]
    assert {a["name"]: a["spec"] for a in additions}["nvidia-cuda-runtime-cu12"] == "==12.4.*"
    text = cli.run("plan", cwd=torch_project).stdout
    assert "Added to the poetry-cuda group (from PyPI):" in text
    assert "nvidia-cuda-cccl-cu12==12.4.*" in text


def test_paddle_2_6_on_windows_is_pypis_cuda_11_8_build(cli: Cli, tmp_path: Path) -> None:
    project = tmp_path / "paddle_project"
    shutil.copytree(EXAMPLES / "paddle_project", project)
    host = {
        "schema": 1,
        "os": "windows",
        "machine": "x86_64",
        "driver": {"version": "551.61"},
        "gpus": [{"index": 0, "compute_capability": "8.6"}],
    }
    (project / "windows.json").write_text(json.dumps(host))
    result = cli.run("plan", "--target", "windows.json", "--json", cwd=project)
    assert result.code == 0, result.stderr
    document = json.loads(result.stdout)
    [paddle] = document["packages"]
    assert (paddle["variant"], paddle["source"]["name"]) == ("cu118", "pypi")
    needs = {r["kind"]: r for r in document["system_requirements"]}
    assert needs["cudnn"]["spec"] == ">=8.6.0,<9"
    assert "Windows:" in needs["cudnn"]["satisfy"]
