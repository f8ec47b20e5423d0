"""Issue 40 item 3: a host of many GPUs is planned, locked and checked in linear time.

A 3.1 MiB profile (under the 4 MiB cap) listing 100,000 AMD GPUs did not finish planning in
45 s: each GPU was looked up in a tuple of the others (1,000 / 2,000 / 4,000 GPUs took 0.8 /
2.9 / 13 s), so a committed profile could stall `plan`, `lock` and `lock --check`. A plan
depends on the distinct architectures only; every loop over GPUs is linear. These tests
give 100,000 GPUs, which a quadratic loop would take hours over, under a time limit of a
few minutes (no timing assertion: the limit only stops a stalled run).
"""

from __future__ import annotations

import json

from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.files import PROFILE_LIMIT
from poetry_cuda.files import read_toml
from poetry_cuda.host.detect import _Merged
from poetry_cuda.host.probe import GpuFacts
from poetry_cuda.host.probe import ProbeResult
from poetry_cuda.host.profiles import ProbeReport
from poetry_cuda.host.profiles import profile_from_json
from poetry_cuda.knowledge import packaged
from poetry_cuda.planning.rocm import plan_accelerator
from poetry_cuda.versions import ComputeCapability
from tests.locking.test_lock_rocm import UV
from tests.locking.test_lock_rocm import server  # noqa: F401 - the ROCm world, a fixture
from tests.locking.test_lock_rocm import write_project


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Cli
    from tests.support.index import IndexServer


MANY = 100_000
MI250X = {"vendor": "amd", "gfx": "gfx90a"}


def amd_host(*gpus: dict[str, Any]) -> dict[str, Any]:
    return {"schema": 2, "os": "linux", "machine": "x86_64", "gpus": list(gpus)}


@pytest.mark.timeout(60)
def test_planning_many_amd_gpus_is_linear() -> None:
    # Discrete and integrated AMD GPUs and Intel GPUs: the plan serves the discrete ones
    # and names each kind it leaves out once, however many GPUs are of that kind.
    raphael = {"name": "Raphael", "vendor": "amd", "gfx": "gfx1036"}
    arc = {"name": "Arc A770", "vendor": "intel", "device_ip": "12.55.8"}
    gpus = [MI250X] * (MANY // 2) + [raphael] * (MANY // 4) + [arc] * (MANY // 4)
    profile = profile_from_json(amd_host(*gpus), "many.json")
    plan = plan_accelerator(profile, ("2.9.1",), rocm_kb=packaged.rocm(), xpu_kb=packaged.xpu())
    assert (plan.accelerator, plan.variant) == ("rocm", "rocm6.4")
    assert len(plan.gpus) == MANY // 2
    left_out = [str(w) for w in plan.warnings if "is not served" in str(w)]
    assert len(left_out) == 2, left_out
    assert "Raphael (gfx1036) is not served" in left_out[0]
    assert "Arc A770 (12.55.8) is not served" in left_out[1]


@pytest.mark.timeout(60)
def test_merging_the_probes_of_many_nvidia_gpus_is_linear() -> None:
    # NVML names the GPUs, nvidia-smi adds what it lacked: each GPU is matched by its UUID
    # or index in constant time.
    merged = _Merged()
    nvml = tuple(GpuFacts(index=i, name="RTX 4090", uuid=f"GPU-{i}") for i in range(MANY))
    smi = tuple(
        GpuFacts(index=i, uuid=f"GPU-{i}", compute_capability=ComputeCapability(8, 9))
        for i in range(MANY)
    )
    merged.add(ProbeResult(report=ProbeReport("nvml", "found", ""), gpus=nvml))
    merged.add(ProbeResult(report=ProbeReport("nvidia-smi", "found", ""), gpus=smi))
    gpus, problems = merged.gpu_list()
    assert len(gpus) == MANY
    assert not problems
    assert {gpu.source for gpu in gpus} == {"nvml+nvidia-smi"}


@pytest.mark.slow
@pytest.mark.timeout(400)
def test_a_committed_profile_of_many_amd_gpus_does_not_stall_plan_lock_or_check(
    cli: Cli,
    tmp_path: Path,
    server: IndexServer,  # noqa: F811 - the fixture imported above
) -> None:
    hosts = {"many.json": {"gpus": [MI250X] * MANY}}
    project = write_project(tmp_path, server, "uv", hosts=hosts)
    profile = project / "hosts" / "many.json"
    assert profile.stat().st_size < PROFILE_LIMIT  # a profile poetry-cuda reads
    plan = cli.run("plan", "--json", cwd=project, env=UV, timeout=120)
    assert plan.code == 0, plan.stderr
    torch = json.loads(plan.stdout)["packages"][0]
    assert (torch["variant"], torch["accelerator"]) == ("rocm6.4", "rocm")
    locked = cli.run("lock", cwd=project, env=UV, timeout=120)
    assert locked.code == 0, locked.stderr
    # cuda.lock records the architecture once, as it does a compute capability.
    [target] = read_toml(project / "cuda.lock")["targets"]
    assert target["amd-gfx"] == ["gfx90a"]
    checked = cli.run("lock", "--check", cwd=project, env=UV, timeout=120)
    assert checked.code == 0, checked.stdout + checked.stderr
