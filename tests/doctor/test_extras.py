"""A multi-variant project's extras: the one that fits a host, and doctor's check of the
installed build against it."""

from __future__ import annotations

import dataclasses

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.doctor.extras import check_extras
from poetry_cuda.doctor.extras import pick_extras
from poetry_cuda.doctor.extras import refusal
from poetry_cuda.doctor.installed import read_environment
from poetry_cuda.versions import CudaVersion
from tests.doctor.test_checks import KB
from tests.doctor.test_checks import target
from tests.support.doctor_projects import make_venv
from tests.support.doctor_projects import torch_dist
from tests.support.plans import STACKS
from tests.support.projects import CPU_EXTRA
from tests.support.projects import CU124_EXTRA


if TYPE_CHECKING:
    from pathlib import Path

    from poetry_cuda.doctor.extras import Pick
    from poetry_cuda.doctor.installed import Environment
    from poetry_cuda.locking.lockfile import LockedExtra
    from poetry_cuda.planning.targets import Target
    from poetry_cuda.request.settings import Policy


CU118_EXTRA = dataclasses.replace(
    CU124_EXTRA, name="cu118", variant="cu118", cuda=CudaVersion(11, 8)
)
CU128_EXTRA = dataclasses.replace(
    CU124_EXTRA,
    name="cu128",
    variant="cu128",
    cuda=CudaVersion(12, 8),
    arches=(*CU124_EXTRA.arches, "sm_100", "sm_120"),
)
EXTRAS = (CPU_EXTRA, CU118_EXTRA, CU124_EXTRA, CU128_EXTRA)
DRIVER_570 = ("570.86.10", "8.9")  # CUDA 12.8


def picks(host: Target, *, policy: Policy = "newest", fallback: bool = False) -> tuple[Pick, ...]:
    return pick_extras(EXTRAS, host, KB.nvidia, STACKS, policy=policy, allow_cpu_fallback=fallback)


def chosen(
    host: Target, *, policy: Policy = "newest", fallback: bool = False
) -> LockedExtra | None:
    (pick,) = picks(host, policy=policy, fallback=fallback)
    return pick.extra


@pytest.mark.parametrize(
    ("driver", "policy", "expected"),
    [
        ("570.86.10", "newest", "cu128"),
        ("550.54.14", "newest", "cu128"),  # CUDA 12.x minor-version compatibility
        ("550.54.14", "native", "cu124"),
        ("470.82.01", "newest", "cu118"),  # CUDA 11.4: no 12.x build runs
    ],
)
def test_the_highest_cuda_extra_that_runs_by_the_policy(
    driver: str, policy: Policy, expected: str
) -> None:
    extra = chosen(target(driver, "8.9"), policy=policy)
    assert extra is not None
    assert extra.name == expected


def test_the_reason_names_the_driver_and_the_better_extra_that_lost() -> None:
    (pick,) = picks(target("550.54.14", "8.9"), policy="native")
    assert "driver 550.54.14 supports CUDA <= 12.4" in str(pick.reason)
    assert "not cu128" in str(pick.reason) and "policy native" in str(pick.reason)


def test_no_driver_gets_the_cpu_extra() -> None:
    assert chosen(target(None)) == CPU_EXTRA


def test_a_gpu_no_cuda_extra_serves_is_refused_unless_cpu_fallback() -> None:
    kepler = target("550.54.14", "3.5")
    assert chosen(kepler) is None
    assert chosen(kepler, fallback=True) == CPU_EXTRA
    error = refusal(picks(kepler), kepler)
    assert error is not None
    assert error.exit_code == 3
    for name in ("cpu", "cu118", "cu124", "cu128"):
        assert f"\n  {name}: " in error.what
    assert "allow-cpu-fallback" in error.what + error.fix


def environment(tmp_path: Path, version: str, cuda: str | None) -> Environment:
    return read_environment(
        make_venv(tmp_path / ".venv", [torch_dist(version, cuda)]), KB.installed
    )


@pytest.mark.parametrize(
    ("host", "version", "cuda", "status", "said"),
    [
        (DRIVER_570, "2.7.0+cu128", "12.8", "ok", "the cu128 extra is installed"),
        (DRIVER_570, "2.7.0", "12.8", "ok", "the cu128 extra is installed"),  # PyPI's build
        (DRIVER_570, "2.5.1+cpu", None, "fail", "torch.cuda.is_available() will be False"),
        (DRIVER_570, "2.5.1+cu124", "12.4", "warn", "cu128 is the one that fits here best"),
        (("470.82.01", "8.9"), "2.5.1+cu124", "12.4", "fail", "cannot run here"),
        (DRIVER_570, "2.5.1+cu121", "12.1", "fail", "the build of none of cuda.lock's extras"),
    ],
)
def test_the_installed_build_against_the_fitting_extra(
    tmp_path: Path,
    host: tuple[str, str],
    version: str,
    cuda: str | None,
    status: str,
    said: str,
) -> None:
    machine = target(*host)
    found = check_extras(picks(machine), environment(tmp_path, version, cuda), KB, machine)
    fits, installed = found
    assert fits.status == "ok" and fits.area == "host"
    assert installed.status == status
    assert said in installed.message
    if status != "ok":
        assert "sync" in installed.fix


def test_nothing_installed_fails_and_names_sync(tmp_path: Path) -> None:
    machine = target(*DRIVER_570)
    empty = read_environment(make_venv(tmp_path / ".venv", []), KB.installed)
    (_, installed) = check_extras(picks(machine), empty, KB, machine)
    assert installed.status == "fail"
    assert "sync" in installed.fix and "cu128" in installed.fix


def test_no_fitting_extra_is_a_host_failure() -> None:
    kepler = target("550.54.14", "3.5")
    (found,) = check_extras(picks(kepler), None, KB, kepler)
    assert (found.area, found.status) == ("host", "fail")
