"""Where targets come from, and what a recorded target is (pure, on real profile files)."""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

from poetry_cuda.backends.readers import READERS
from poetry_cuda.host.detect import detect_this_machine
from poetry_cuda.host.profiles import Driver
from poetry_cuda.host.profiles import HostProfile
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.locking.lockfile import TargetFacts
from poetry_cuda.planning.planner import Options
from poetry_cuda.planning.planner import plan_project
from poetry_cuda.planning.targets import collect
from poetry_cuda.planning.targets import settle
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion


if TYPE_CHECKING:
    from pathlib import Path


DETECTED = HostProfile("linux", "x86_64", None, label="this machine")
GPU = {
    "schema": 1,
    "os": "linux",
    "machine": "x86_64",
    "driver": {"version": "550.54.14", "cuda": "12.4"},
    "gpus": [{"index": 0, "name": "RTX 4090", "compute_capability": "8.9"}],
}


def _collect(
    project: Path, options: tuple[str, ...], recorded: tuple[HostProfile, ...]
) -> tuple[list[HostProfile], str]:
    return collect(
        project=project,
        options=options,
        environ_target=None,
        configured=(),
        recorded=recorded,
        detect=lambda: DETECTED,
    )


def test_the_recorded_targets_are_planned_for_when_none_is_given(tmp_path: Path) -> None:
    (tmp_path / "gpu.json").write_text(json.dumps(GPU))
    [gpu], _ = _collect(tmp_path, (str(tmp_path / "gpu.json"),), ())
    target, _ = settle(gpu, load().nvidia)
    recorded = TargetFacts.of(target).profile()
    assert _collect(tmp_path, (), (recorded,)) == ([recorded], "cuda.lock")
    assert _collect(tmp_path, (), ()) == ([DETECTED], "this machine")
    # A recorded target settles to the same facts as the profile it was made from.
    again, _ = settle(recorded, load().nvidia)
    assert TargetFacts.of(again).facts == TargetFacts.of(target).facts


def test_this_names_the_detected_machine_among_the_targets(tmp_path: Path) -> None:
    (tmp_path / "gpu.json").write_text(json.dumps(GPU))
    profiles, origin = _collect(tmp_path, ("this", str(tmp_path / "gpu.json")), ())
    assert origin == "--target"
    assert [p.label for p in profiles] == ["this machine", str(tmp_path / "gpu.json")]


def test_facts_ignore_the_label_and_the_machines_spelling() -> None:
    cc = TargetFacts(
        "a.json", "linux", "x86_64", DriverVersion.parse("550.54.14"), CudaVersion(12, 4), ()
    )
    same = TargetFacts("/abs/a.json", "linux", "AMD64", cc.driver, cc.cuda, ())
    other = TargetFacts(
        "a.json", "linux", "x86_64", DriverVersion.parse("535.104.05"), CudaVersion(12, 2), ()
    )
    assert cc.facts == same.facts
    assert cc.facts != other.facts


def test_a_driver_without_gpus_is_warned_about() -> None:
    profile = HostProfile(
        "linux", "x86_64", Driver(DriverVersion.parse("550.54.14"), None, "procfs"), label="box"
    )
    target, warnings = settle(profile, load().nvidia)
    assert target.cuda == CudaVersion(12, 4)
    assert any("box: the NVIDIA driver lists no GPU" in w for w in warnings)


def test_the_no_gpu_warning_is_only_for_cpu_plans(tmp_path: Path) -> None:
    (tmp_path / "laptop.json").write_text(json.dumps({"schema": 1, "os": "linux"}))
    options = Options(targets=(str(tmp_path / "laptop.json"),))
    pyproject = tmp_path / "pyproject.toml"
    head = '[project]\nname = "x"\nversion = "0"\ndependencies = ["torch==2.5.1"]\n'
    pyproject.write_text(head)
    cpu = plan_project(
        tmp_path, options, load(), {}, detect=detect_this_machine, readers=READERS
    ).plan
    assert any("serves no GPU (CPU builds only)" in w for w in map(str, cpu.warnings))
    pyproject.write_text(head + '[tool.poetry-cuda]\ncuda = "12.4"\n')
    cuda = plan_project(
        tmp_path, options, load(), {}, detect=detect_this_machine, readers=READERS
    ).plan
    torch = cuda.choice("torch")
    assert torch is not None
    assert torch.variant == "cu124"
    assert not any("serves no GPU" in w for w in map(str, cuda.warnings))
    assert any("no target has an NVIDIA driver; chose cu124" in w for w in map(str, cuda.warnings))
