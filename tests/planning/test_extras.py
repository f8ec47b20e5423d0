"""Multi-variant projects: every extra judged on every target, the best fit named."""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.doctor.extras import pick_extras
from poetry_cuda.locking.lockfile import LockedExtra
from poetry_cuda.planning.managed import Managed
from tests.support.plans import KB
from tests.support.plans import STACKS
from tests.support.plans import linux_host
from tests.support.plans import plan_text


if TYPE_CHECKING:
    from poetry_cuda.planning.plan import Plan
    from poetry_cuda.planning.targets import Target
    from poetry_cuda.request.settings import Policy


UV_GUIDE = """
[project]
name = "app"
version = "0"
dependencies = []
[project.optional-dependencies]
cpu = ["torch==2.7.1"]
cu118 = ["torch==2.7.1"]
cu128 = ["torch==2.7.1"]
[tool.uv]
conflicts = [[{ extra = "cpu" }, { extra = "cu118" }, { extra = "cu128" }]]
[tool.uv.sources]
torch = [
  { index = "pytorch-cpu", extra = "cpu" },
  { index = "pytorch-cu118", extra = "cu118" },
  { index = "pytorch-cu128", extra = "cu128" },
]
[[tool.uv.index]]
name = "pytorch-cpu"
url = "https://download.pytorch.org/whl/cpu"
explicit = true
[[tool.uv.index]]
name = "pytorch-cu118"
url = "https://download.pytorch.org/whl/cu118"
explicit = true
[[tool.uv.index]]
name = "pytorch-cu128"
url = "https://download.pytorch.org/whl/cu128"
explicit = true
"""


def _plan(*targets: Target, **changes: Any) -> Plan:
    return plan_text(UV_GUIDE, targets, **changes).plan


def test_each_target_is_served_by_its_best_extra() -> None:
    plan = _plan(
        linux_host("new.json", "570.124.06", "8.9"),  # CUDA 12.8
        linux_host("old.json", "520.61.05", "7.5"),  # CUDA 11.8
        linux_host("laptop.json", None),
    )
    extras = {e.name: e for e in plan.extras}
    assert {name: e.serves for name, e in extras.items()} == {
        "cpu": ("laptop.json",),
        "cu118": ("old.json",),
        "cu128": ("new.json",),
    }
    assert extras["cu128"].reason.startswith(
        "fits new.json: driver 570.124.06 supports CUDA <= 12.8; "
    )
    assert extras["cu118"].reason.startswith("fits old.json: ")
    assert "sm_75" in extras["cu118"].arches
    assert str(extras["cu128"].cuda) == "12.8"
    assert extras["cpu"].cuda is None
    assert all(e.kind == "extra" for e in plan.extras)
    # The family is the authors' design: nothing is chosen or written for it.
    assert plan.choice("torch") is None
    assert Managed.of(plan) == Managed((), ())


def test_an_extra_that_runs_but_is_not_the_best_says_so() -> None:
    plan = _plan(linux_host("new.json", "570.124.06", "8.9"))
    extras = {e.name: e for e in plan.extras}
    assert extras["cu118"].serves == ()
    assert extras["cu118"].reason == "runs on new.json (where cu128 is newer)"
    assert extras["cpu"].reason.startswith("the CPU build, for machines without an NVIDIA driver")


def test_the_native_policy_passes_over_a_minor_compatible_extra() -> None:
    plan = _plan(linux_host("gpu.json", "525.60.13", "8.6"), policy="native")  # CUDA 12.0
    assert {e.name: e.serves for e in plan.extras}["cu118"] == ("gpu.json",)


def test_a_target_no_extra_runs_on_is_warned_about() -> None:
    plan = _plan(linux_host("kepler.json", "470.57.02", "3.5"))  # sm_35: no 2.7 build has it
    assert all(e.serves == () for e in plan.extras)
    assert any("no extra of the project runs on kepler.json" in w for w in map(str, plan.warnings))


def test_poetrys_exclusive_extras_are_a_multi_variant_project_too() -> None:
    """Poetry's docs: one source per extra, selected by `extra == '...'` markers."""
    text = """
[tool.poetry.dependencies]
python = "~3.11"
torch = [
  { version = "2.7.1", markers = "extra == 'cpu' and extra != 'cuda'", source = "pytorch-cpu", optional = true },
  { version = "2.7.1", markers = "extra == 'cuda' and extra != 'cpu'", source = "pytorch-cuda", optional = true },
]
[tool.poetry.extras]
cpu = ["torch"]
cuda = ["torch"]
[[tool.poetry.source]]
name = "pytorch-cpu"
url = "https://download.pytorch.org/whl/cpu"
priority = "explicit"
[[tool.poetry.source]]
name = "pytorch-cuda"
url = "https://download.pytorch.org/whl/cu126"
priority = "explicit"
"""
    targets = [linux_host("gpu.json", "570.124.06", "8.9"), linux_host("ci.json", None)]
    planned = plan_text(text, targets)
    assert planned.hand.extras("torch") == {"cpu": "cpu", "cuda": "cu126"}
    plan = planned.plan
    assert {e.name: e.serves for e in plan.extras} == {"cpu": ("ci.json",), "cuda": ("gpu.json",)}
    assert plan.choice("torch") is None


HOSTS = (
    linux_host("new.json", "570.124.06", "8.9"),  # CUDA 12.8: cu128
    linux_host("old.json", "520.61.05", "7.5"),  # CUDA 11.8: cu118
    linux_host("laptop.json", None),  # no driver: cpu
    linux_host("kepler.json", "470.57.02", "3.5"),  # no extra's build has sm_35
    linux_host("minor.json", "525.60.13", "8.6"),  # CUDA 12.0: cu128 only minor-compatible
)


@pytest.mark.parametrize("fallback", [False, True], ids=["no-fallback", "allow-cpu-fallback"])
@pytest.mark.parametrize("policy", ["newest", "native"])
def test_the_plan_names_the_extra_sync_installs(policy: Policy, fallback: bool) -> None:
    """One rule: on each target, `sync` (`pick_extras`, judging the builds cuda.lock
    records) installs the extra the plan says serves it, or refuses where the plan warns."""
    plan = _plan(*HOSTS, policy=policy, allow_cpu_fallback=fallback)
    recorded = [
        LockedExtra(e.name, e.kind, e.family, e.variant, e.cuda, e.arches, e.serves, e.reason)
        for e in plan.extras
    ]
    for target in HOSTS:
        (pick,) = pick_extras(
            recorded, target, KB.nvidia, STACKS, policy=policy, allow_cpu_fallback=fallback
        )
        served = [e.name for e in plan.extras if target.label in e.serves]
        assert served == ([pick.extra.name] if pick.extra else []), target.label
        refused = any(
            f"runs on {target.label}" in w and "refuse" in w for w in map(str, plan.warnings)
        )
        assert refused == (pick.extra is None), target.label
    kepler = {e.name: e.serves for e in plan.extras}["cpu"]
    assert ("kepler.json" in kepler) == fallback  # the CPU extra, only with the fallback
