"""The install gate and the unused-GPU rule (`locking.state`, `locking.recorded.unserved`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.locking.recorded import unserved
from poetry_cuda.locking.state import Gate
from poetry_cuda.locking.state import lock_command
from tests.support.doctor_projects import torch_package
from tests.support.plans import KB
from tests.support.plans import linux_host


if TYPE_CHECKING:
    from poetry_cuda.planning.targets import Target


GPU = linux_host("gpu", "550.54.14", "8.9")
PASCAL_OLD_DRIVER = linux_host("old", "470.57.02", "6.1")
NO_DRIVER = linux_host("laptop", None)
LOCK = lock_command("poetry")


def test_a_cpu_build_on_a_gpu_machine_is_said_with_lock_target_this() -> None:
    (said,) = unserved([torch_package("2.5.1+cpu", "cpu")], "auto", GPU, KB, lock=LOCK)
    assert said.startswith("torch cpu from cuda.lock will not use this machine's GPU")
    assert "`poetry cuda lock --target this` (or `poetry-cuda lock --target this`)" in said


def test_a_cuda_build_the_driver_cannot_run_is_said() -> None:
    (said,) = unserved([torch_package()], "auto", PASCAL_OLD_DRIVER, KB, lock=LOCK)
    assert "torch cu124 from cuda.lock will not use this machine's GPU" in said


@pytest.mark.parametrize(
    ("variant", "requested", "target"),
    [
        ("cu124", "auto", GPU),  # it runs here
        ("cpu", "cpu", GPU),  # CPU builds asked for
        ("cpu", "auto", NO_DRIVER),  # no GPU to leave unused
    ],
)
def test_nothing_to_say(variant: str, requested: str, target: Target) -> None:
    package = torch_package(f"2.5.1+{variant}", variant)
    assert unserved([package], requested, target, KB, lock=LOCK) == []


def test_the_gate_names_the_projects_lock() -> None:
    assert Gate(None, fresh=True).open
    reasons = Gate("dead", fresh=False).reasons(lock_command("uv"))
    assert len(reasons) == 2
    assert all("`uv run poetry-cuda lock` (or `poetry-cuda lock`)" in r for r in reasons)
    assert "poetry cuda lock" not in " ".join(reasons)
