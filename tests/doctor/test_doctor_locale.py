"""`doctor` follows the user's locale: a Chinese report under `LANG=zh_CN.UTF-8`."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

from poetry_cuda.planning.plan import SystemRequirement
from tests.support.doctor_projects import fresh_project
from tests.support.doctor_projects import torch_package


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Cli
    from tests.support.fake_nvml import FakeNvml


# LANG decides only where LC_ALL and LC_MESSAGES are unset, as for any program.
CHINESE = {"LANG": "zh_CN.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}
ENGLISH = {"LANG": "C.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}


def unmet_project(tmp_path: Path) -> Path:
    """A project whose locked CUDA build needs a driver and a cuDNN this machine lacks
    (doctor fails that only with --strict, as on a GPU runner)."""
    cudnn = SystemRequirement(
        "paddlepaddle-gpu",
        "cudnn",
        ">=99",
        "it loads the system's cuDNN",
        "install cuDNN 99 from NVIDIA",
    )
    return fresh_project(tmp_path / "demo", packages=[torch_package()], requirements=[cudnn])


def test_a_chinese_locale_gets_chinese_findings(
    cli: Cli, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    project = unmet_project(tmp_path)
    no_driver = fake_nvml.scenario(library=False)
    for program, args in (
        ("poetry-cuda", ["doctor", "--strict"]),
        ("poetry", ["cuda", "doctor", "--strict"]),
    ):
        result = cli.run(*args, cwd=project, env={**no_driver, **CHINESE}, program=program)
        assert result.code == 1, result.stderr
        lines = result.stdout.splitlines()
        for title in ("主机", "锁文件", "系统依赖"):
            assert title in lines, result.stdout
        assert "  FAIL  未找到 NVIDIA 驱动；而 cuda.lock 锁定的是 CUDA 构建" in lines
        unmet = next(line for line in lines if "paddlepaddle-gpu 需要 cudnn >=99" in line)
        assert unmet.startswith("  FAIL  ")
        # What cuda.lock records (the reason, the fix) is quoted as it was written.
        assert "（it loads the system's cuDNN）" in unmet
        assert "        解决办法：install cuDNN 99 from NVIDIA（cuda.lock 记录的办法）" in lines
        assert "        解决办法：安装 NVIDIA 驱动" in "\n".join(lines)
        assert lines[-1].endswith("项失败")


def test_english_stays_the_default_and_json_stays_english(
    cli: Cli, fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    project = unmet_project(tmp_path)
    no_driver = fake_nvml.scenario(library=False)
    english = cli.run("doctor", "--strict", cwd=project, env={**no_driver, **ENGLISH})
    assert "  FAIL  no NVIDIA driver found; cuda.lock locks CUDA builds" in english.stdout
    assert "System requirements" in english.stdout.splitlines()
    report = json.loads(
        cli.run("doctor", "--json", "--strict", cwd=project, env={**no_driver, **CHINESE}).stdout
    )
    driver = next(f for f in report["findings"] if f["check"] == "driver")
    assert driver["message"] == "no NVIDIA driver found; cuda.lock locks CUDA builds"
