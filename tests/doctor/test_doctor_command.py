"""`doctor` through the real console scripts, with the real pynvml loading the fake
libnvidia-ml.so.1, real project folders and venvs, and the real /usr/local/cuda."""

from __future__ import annotations

import json

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.planning.plan import SystemRequirement
from tests.support.doctor_projects import CU124_LIBS
from tests.support.doctor_projects import fresh_project
from tests.support.doctor_projects import locked_torch
from tests.support.doctor_projects import make_venv
from tests.support.doctor_projects import torch_dist
from tests.support.doctor_projects import torch_package
from tests.support.fake_nvml import GTX_1080_TI
from tests.support.fake_nvml import RTX_4090
from tests.support.projects import write_project


if TYPE_CHECKING:
    from tests.support.cli import Cli
    from tests.support.fake_nvml import FakeNvml


SYSTEM_CUDA = Path("/usr/local/cuda")


def findings(stdout: str) -> list[dict[str, Any]]:
    report = json.loads(stdout)
    assert report["schema"] == 1
    assert report["summary"] == {
        status: sum(f["status"] == status for f in report["findings"])
        for status in ("ok", "warn", "fail")
    }
    rows: list[dict[str, Any]] = report["findings"]
    return rows


def find(rows: list[dict[str, Any]], area: str, check: str) -> dict[str, Any]:
    (row,) = [r for r in rows if r["area"] == area and r["check"] == check]
    return row


def cpu_torch_project(tmp_path: Path, *, interpreter: bool = False) -> Path:
    project = fresh_project(
        tmp_path / "demo",
        packages=[torch_package()],
        poetry_lock=[locked_torch("2.5.1+cu124", "pytorch-cu124", CU124_LIBS)],
    )
    make_venv(project / ".venv", [torch_dist("2.5.1+cpu", None)], interpreter=interpreter)
    return project


def test_cpu_torch_fails_and_both_entry_points_agree(
    cli: Cli, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    project = cpu_torch_project(tmp_path)
    env = fake_nvml.scenario()
    script = cli.run("doctor", "--json", cwd=project, env=env)
    assert script.code == 1, script.stderr
    rows = findings(script.stdout)
    assert json.loads(script.stdout)["status"] == "fail"
    assert (
        find(rows, "host", "driver")["message"] == "driver 550.54.14 supports CUDA <= 12.4 [nvml]"
    )
    installed = find(rows, "environment", "installed")
    assert installed["status"] == "fail"
    assert "a CPU build of torch (2.5.1+cpu)" in installed["message"]
    assert installed["fix"].startswith("run `poetry install`")
    wheels = find(rows, "environment", "nvidia-wheels")
    assert "nvidia-cublas-cu12, nvidia-cuda-runtime-cu12, nvidia-cudnn-cu12" in wheels["message"]
    assert all(r["fix"] is None for r in rows if r["status"] == "ok")
    assert all(r["fix"] for r in rows if r["status"] != "ok")

    plugin = cli.run("cuda", "doctor", "--json", cwd=project, env=env, program="poetry")
    assert plugin.code == 1, plugin.stderr
    assert json.loads(plugin.stdout) == json.loads(script.stdout)


def test_readable_report(cli: Cli, fake_nvml: FakeNvml, tmp_path: Path) -> None:
    result = cli.run("doctor", cwd=cpu_torch_project(tmp_path), env=fake_nvml.scenario())
    assert result.code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "Backend: poetry (cuda.lock records it)"
    for title in ("Host", "Locks", "Installed environment"):
        assert title in lines
    assert "  ok    GPU 0: NVIDIA GeForce RTX 4090, compute capability 8.9" in lines
    failure = next(i for i, line in enumerate(lines) if "a CPU build of torch" in line)
    assert lines[failure].startswith("  FAIL  ")
    assert lines[failure + 1].startswith("        Fix: run `poetry install`")
    assert lines[-1].endswith("failure(s)")


def test_every_gpu_must_be_served(cli: Cli, fake_nvml: FakeNvml, tmp_path: Path) -> None:
    project = fresh_project(
        tmp_path / "demo",
        dependencies=["torch==2.7.1"],
        packages=[torch_package("2.7.1+cu128", "cu128")],
    )
    env = fake_nvml.scenario(driver="580.65.06", cuda=13000, gpus=(RTX_4090, GTX_1080_TI))
    rows = findings(cli.run("doctor", "--json", cwd=project, env=env).stdout)
    arches = [r for r in rows if r["check"] == "architecture"]
    assert [(r["subject"], r["status"]) for r in arches] == [
        ("torch on gpu0", "ok"),
        ("torch on gpu1", "fail"),
    ]
    assert "sm_61" in arches[1]["message"]


def test_without_cuda_lock_reports_the_host_and_what_to_run(
    cli: Cli, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    write_project(tmp_path, name="p")
    result = cli.run("doctor", "--json", cwd=tmp_path, env=fake_nvml.scenario())
    assert result.code == 0, result.stderr
    rows = findings(result.stdout)
    assert find(rows, "host", "driver")["status"] == "ok"
    lock = find(rows, "locks", "cuda.lock")
    assert lock["status"] == "warn"
    assert "poetry cuda lock" in lock["fix"]
    assert "Backend" not in result.stdout  # the JSON keeps its fields


def test_without_cuda_lock_the_report_names_the_backend_its_files_point_to(
    cli: Cli, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    write_project(tmp_path, name="p")
    (tmp_path / "uv.lock").write_text("version = 1\n")
    result = cli.run("doctor", cwd=tmp_path, env=fake_nvml.scenario())
    assert result.stdout.splitlines()[0] == "Backend: uv (uv.lock exists)", result.stdout


def test_item4_doctor_passes_a_cpu_only_ci_machine_and_fails_it_with_strict(
    cli: Cli, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    # A team lock for an RTX 4090 machine, installed as locked, checked where no GPU is.
    project = fresh_project(
        tmp_path / "demo",
        packages=[torch_package()],
        poetry_lock=[locked_torch("2.5.1+cu124", "pytorch-cu124")],
    )
    make_venv(project / ".venv", [torch_dist("2.5.1+cu124", "12.4")])
    no_gpu = fake_nvml.scenario(library=False)
    result = cli.run("doctor", "--json", cwd=project, env=no_gpu)
    assert result.code == 0, result.stdout
    report = json.loads(result.stdout)
    assert (report["status"], report["strict"]) == ("warn", False)
    rows = findings(result.stdout)
    driver = find(rows, "host", "driver")
    assert driver["status"] == "warn"
    assert "no GPU and is not among cuda.lock's targets" in driver["message"]
    assert "doctor --strict" in driver["fix"]
    # What needs no GPU is still checked: the locks, and the build installed as locked.
    assert find(rows, "locks", "fresh")["status"] == "ok"
    assert find(rows, "environment", "installed")["status"] == "ok"

    strict = cli.run("doctor", "--json", "--strict", cwd=project, env=no_gpu)
    assert strict.code == 1, strict.stdout
    assert json.loads(strict.stdout)["strict"] is True
    driver = find(findings(strict.stdout), "host", "driver")
    assert driver["status"] == "fail"
    assert "install the NVIDIA driver" in driver["fix"]
    plugin = cli.run("cuda", "doctor", "--strict", cwd=project, env=no_gpu, program="poetry")
    assert plugin.code == 1, plugin.stderr
    assert "no NVIDIA driver found; cuda.lock locks CUDA builds" in plugin.stdout


def test_item4_without_a_gpu_a_wrong_installed_build_still_fails(
    cli: Cli, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    project = cpu_torch_project(tmp_path)
    result = cli.run("doctor", "--json", cwd=project, env=fake_nvml.scenario(library=False))
    assert result.code == 1
    rows = findings(result.stdout)
    assert find(rows, "host", "driver")["status"] == "warn"
    assert find(rows, "environment", "installed")["status"] == "fail"


def test_bad_driver_override_is_bad_input(cli: Cli, tmp_path: Path) -> None:
    write_project(tmp_path, name="p")
    result = cli.run("doctor", cwd=tmp_path, env={"POETRY_CUDA_DRIVER_VERSION": "latest"})
    assert result.code == 2
    assert "'latest' is not a driver version" in result.stderr


def test_deep_check_inside_the_venv(cli: Cli, fake_nvml: FakeNvml, tmp_path: Path) -> None:
    project = cpu_torch_project(tmp_path, interpreter=True)
    result = cli.run("doctor", "--json", "--deep", cwd=project, env=fake_nvml.scenario())
    assert result.code == 1, result.stderr
    deep = [r for r in findings(result.stdout) if r["area"] == "deep"]
    assert [(r["check"], r["status"]) for r in deep] == [("import", "ok"), ("cuda", "fail")]
    assert "torch.version.cuda is None" in deep[1]["message"]
    assert deep[1]["fix"] == "run `poetry install` to install the locked build"


@pytest.mark.skipif(
    not (SYSTEM_CUDA / "bin" / "nvcc").exists(), reason="no CUDA toolkit at /usr/local/cuda"
)
def test_nvcc_major_against_the_real_toolkit(cli: Cli, fake_nvml: FakeNvml, tmp_path: Path) -> None:
    detected = cli.run("detect", "--json", cwd=tmp_path, env=fake_nvml.scenario())
    real = str(SYSTEM_CUDA.resolve())
    (version,) = [
        t["version"] for t in json.loads(detected.stdout)["toolkits"] if t["root"] == real
    ]
    major = int(version.split(".")[0])

    def nvcc(spec: str) -> dict[str, Any]:
        requirement = SystemRequirement("flash-attn", "nvcc", spec, "compiles", "install nvcc")
        project = fresh_project(
            tmp_path / spec.replace("<", "").replace(">=", "").replace(",", "-"),
            dependencies=["flash-attn"],
            requirements=[requirement],
        )
        result = cli.run("doctor", "--json", cwd=project, env=fake_nvml.scenario())
        return find(findings(result.stdout), "system", "nvcc")

    matching = nvcc(f">={major}.0,<{major + 1}")
    assert matching["status"] == "ok"
    assert "/bin/nvcc" in matching["message"]
    other = nvcc(f">={major - 1}.0,<{major}")
    assert other["status"] == "fail"
    assert other["fix"] == "install nvcc"
    assert f"found only {major}." in other["message"]


def test_in_a_pod_the_image_is_checked_against_the_locks_base_image(
    cli: Cli, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    image = "nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04"
    project = fresh_project(tmp_path / "demo", base_image=image)
    # A pod's runtime may leave no file; Kubernetes' variable says doctor runs in one.
    pod = {**fake_nvml.scenario(), "KUBERNETES_SERVICE_HOST": "10.96.0.1"}
    cuda_12 = {"CUDA_VERSION": "12.4.1", "NV_CUDNN_VERSION": "9.1.0.70-1"}
    result = cli.run("doctor", "--json", cwd=project, env={**pod, **cuda_12})
    row = find(findings(result.stdout), "system", "base-image")
    assert row["status"] == "warn"
    assert row["message"] == (
        f"the container's image has CUDA 12.4.1; the lock's base image {image} has CUDA 11.8.0"
    )
    assert row["fix"] == f"build the image FROM {image} (`poetry-cuda plan` names it)"

    cuda_118 = {"CUDA_VERSION": "11.8.0", "NV_CUDNN_VERSION": "8.9.6.50"}
    text = cli.run("doctor", cwd=project, env={**pod, **cuda_118})
    assert any(
        line.startswith("  ok    ")
        and line.endswith(f"CUDA 11.8.0 and cuDNN 8.9.6.50 meets {image}")
        for line in text.stdout.splitlines()
    ), text.stdout
    chinese = {"LANG": "zh_CN.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}
    zh = cli.run("doctor", cwd=project, env={**pod, **cuda_12, **chinese})
    assert f"容器镜像中是 CUDA 12.4.1；锁文件记录的基础镜像 {image} 是 CUDA 11.8.0" in zh.stdout


HUGE = 60_000


@pytest.mark.parametrize(
    ("field", "value", "key"),
    [
        ("variant", "v" * HUGE, "packages[0].variant"),
        ("variant-label", "l" * HUGE, "packages[0].variant-label"),
        ("variant-properties", ["p" * HUGE], "packages[0].variant-properties[0]"),
        ("reason", "r" * HUGE, "packages[0].reason"),
    ],
)
def test_a_committed_lock_with_an_overlong_string_is_reported_as_damaged(
    cli: Cli, fake_nvml: FakeNvml, tmp_path: Path, field: str, value: object, key: str
) -> None:
    # Issue 40, item 8: every string field kind, plain and --json.
    import tomlkit

    project = cpu_torch_project(tmp_path)
    document = tomlkit.parse((project / "cuda.lock").read_text())
    document["packages"][0][field] = value
    (project / "cuda.lock").write_text(tomlkit.dumps(document))
    said = f"{key}: a value of {HUGE} characters"

    done = cli.run("doctor", "--json", cwd=project, env=fake_nvml.scenario())
    assert done.code == 1, done.stderr
    row = find(findings(done.stdout), "locks", "cuda.lock")
    assert row["status"] == "fail"
    assert row["message"].startswith("cuda.lock is damaged: "), row
    assert said in row["message"]
    assert len(row["message"]) < 1_000
    assert row["fix"] == (
        "restore it from version control, or remove it and run `poetry cuda lock` to write it anew"
    )

    plain = cli.run("doctor", cwd=project, env=fake_nvml.scenario())
    assert plain.code == 1, plain.stderr
    [line] = [line for line in plain.stdout.splitlines() if "cuda.lock is damaged" in line]
    assert line.startswith("  FAIL  ")
    assert said in line
    assert "Traceback" not in plain.stdout + plain.stderr


# Runs doctor as the console script does, with the installed knowledge base read from `DATA`.
WITH_DATA = """
import sys
from pathlib import Path
import poetry_cuda.knowledge.packaged as packaged
packaged.DATA = Path(sys.argv[1])
sys.argv = ["poetry-cuda", *sys.argv[2:]]
from poetry_cuda.cli.console import main
sys.exit(main())
"""


@pytest.mark.parametrize("damage", ["sound", "damaged", "stale"])
def test_a_damaged_or_stale_knowledge_cache_is_a_doctor_warning(
    cli: Cli, fake_nvml: FakeNvml, tmp_path: Path, damage: str
) -> None:
    # Issue 40, item 8: the packaged compiled.json is never written at run time; a damaged
    # or stale one is passed over silently (every command parses the TOML), so doctor says so.
    import shutil
    import subprocess
    import sys

    from poetry_cuda.knowledge.compiled import FILE
    from poetry_cuda.knowledge.packaged import DATA

    data = tmp_path / "data"
    shutil.copytree(DATA, data)
    if damage == "damaged":
        raw = bytearray((data / FILE).read_bytes())
        raw[-100] ^= 0x01
        (data / FILE).write_bytes(bytes(raw))
    elif damage == "stale":
        with (data / "torch.toml").open("a") as toml:
            toml.write("\n# edited after the compile\n")
    project = cpu_torch_project(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", WITH_DATA, str(data), "doctor", "--json"],
        cwd=project,
        env={**cli.env, **fake_nvml.scenario()},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr  # the CPU build of torch fails, as ever
    rows = [r for r in findings(done.stdout) if r["check"] == "knowledge-cache"]
    if damage == "sound":
        assert rows == []
        return
    [row] = rows
    assert (row["area"], row["status"]) == ("host", "warn")
    assert row["message"] == (
        "the installed poetry-cuda's knowledge cache is damaged: every command reads the "
        "TOML instead (slower)"
    )
    assert row["fix"] == "reinstall poetry-cuda"
