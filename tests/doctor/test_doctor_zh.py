"""doctor's rarer findings read in Chinese under a zh locale (issue 39, item 8): the extras,
the installed builds' kernels, --deep, the RECORD check and the project's toolkit. Each
finding is built by its check, then shown as `doctor` shows it to a zh reader."""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.doctor.deep import deep_findings
from poetry_cuda.doctor.extras import check_extras
from poetry_cuda.doctor.extras import refusal
from poetry_cuda.doctor.installed import read_environment
from poetry_cuda.doctor.records import check as check_records
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.messages import message
from poetry_cuda.wheelstore.store import Store
from tests.doctor.test_builds import build
from tests.doctor.test_builds import findings as build_findings
from tests.doctor.test_builds import host
from tests.doctor.test_checks import ROWS
from tests.doctor.test_checks import target
from tests.doctor.test_extras import DRIVER_570
from tests.doctor.test_extras import environment as torch_environment
from tests.doctor.test_extras import picks
from tests.doctor.test_records import SITE
from tests.doctor.test_records import install
from tests.support.doctor_projects import torch_package
from tests.test_zh_output import english_sentences


if TYPE_CHECKING:
    from pathlib import Path

    from poetry_cuda.doctor.findings import Finding


def shown(found: list[Finding]) -> str:
    """The findings as a zh reader sees them: each message, and each fix."""
    return "\n".join(
        line for f in found for line in (f.shown_message("zh"), f.shown_fix("zh")) if line
    )


def test_doctors_rarer_findings_read_in_chinese(tmp_path: Path) -> None:
    kb = load()
    machine = target(*DRIVER_570)
    extras = [
        *check_extras(
            picks(machine), torch_environment(tmp_path / "a", "2.5.1+cu124", "12.4"), kb, machine
        ),
        *check_extras(
            picks(machine), torch_environment(tmp_path / "b", "2.5.1+cpu", None), kb, machine
        ),
        *check_extras(picks(target("550.54.14", "3.5")), None, kb, target("550.54.14", "3.5")),
    ]
    kepler = target("550.54.14", "3.5")
    refused = refusal(picks(kepler), kepler)
    assert refused is not None
    builds = [
        *build_findings(build("sm_80 sm_90 compute_90"), host("8.9", "9.0", "7.5")),
        *build_findings(build("sm_80 compute_80"), host("9.0")),
        *build_findings(message("builds.not-installed", libraries="torch/lib/x.so"), host("8.9")),
    ]
    packages = [torch_package()]
    deep = [
        *deep_findings(
            {"torch": {"version": "2.5.1+cpu", "cuda": None}}, packages, "poetry install", ROWS
        ),
        *deep_findings({"torch": {"error": "OSError: libcudnn.so.9"}}, packages, "x", ROWS),
        *deep_findings(
            {"torch": {"version": "2.5.1+cu124", "cuda": "12.4", "available": False}},
            packages,
            "x",
            ROWS,
        ),
        *deep_findings(message("deep.timeout", seconds="120"), packages, "x", ROWS),
    ]
    root = tmp_path / "venv"
    install(root, "torch", "2.5.1", {"torch/__init__.py": b"", "torch/lib/libtorch.so": b"x" * 64})
    sound = check_records(
        read_environment(root, ()), kb, deep=False, install="poetry install", shared=True,
        store=Store(tmp_path / "store"),
    )  # fmt: skip
    (root / SITE / "torch/lib/libtorch.so").unlink()
    damaged = check_records(
        read_environment(root, ()), kb, deep=False, install="poetry install", shared=False,
        store=Store(tmp_path / "store"),
    )  # fmt: skip
    said = {
        "extras": shown(extras),
        "refusal": refused.render("zh"),
        "builds": shown(builds),
        "deep": shown(deep),
        "records": shown([*sound, *damaged]),
    }
    for name, text in said.items():
        assert english_sentences(text) == [], (name, text)
    assert "extra（cu128）适合这台机器：能在这里运行的 CUDA 版本最高的 extra" in said["extras"]
    assert "最适合这里的是 cu128" in said["extras"]
    assert "torch.cuda.is_available() 将为 False" in said["extras"]
    assert "原因：sync 为每个包族安装能在这台机器的驱动和 GPU 上运行的那个 extra" in said["refusal"]
    assert "在 torch 已安装的构建中没有内核" in said["builds"]
    assert "只有 compute_80 PTX，首次使用时 JIT 编译" in said["builds"]
    assert "无法得知已安装构建的架构：没有安装 torch/lib/x.so" in said["builds"]
    assert "torch 2.5.1+cpu 是 CPU 版" in said["deep"]
    assert "import torch 失败：OSError: libcudnn.so.9" in said["deep"]
    assert "检查没有在 120 秒内完成" in said["deep"]
    assert "个带 CUDA 的发行包" in said["records"]
    assert "torch/lib/libtorch.so：缺失" in said["records"]
