"""The NVIDIA CUDA image a lock needs, for every system requirement the knowledge base knows.

Each expectation is derived from the image table itself (`data/base_images.toml`), so a row
added or corrected there moves the expectation with it; a few named cases pin what a user
reads (the issue's own example: Paddle 2.6 from PyPI needs CUDA 11.8 and cuDNN 8).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from poetry_cuda.knowledge import packaged
from poetry_cuda.planning.base_image import choose_base_image
from poetry_cuda.planning.plan import SystemRequirement
from poetry_cuda.versions import CudaVersion


if TYPE_CHECKING:
    from collections.abc import Iterator

    from poetry_cuda.knowledge.base_images import BaseImage
    from poetry_cuda.knowledge.model import SystemNeed


IMAGES = packaged.base_images()


def needs_of(package: str, rows: tuple[SystemNeed, ...]) -> tuple[SystemRequirement, ...]:
    return tuple(SystemRequirement(package, r.kind, r.spec, r.reason, r.satisfy) for r in rows)


def known_cases() -> Iterator[tuple[str, tuple[SystemRequirement, ...], CudaVersion | None]]:
    """Every variant and fixed flavour with system requirements, as the lock records them."""
    base = packaged.load()
    for family in base.families:
        for release in family.releases:
            for variant in release.variants:
                if variant.requirements:
                    label = f"{family.lead}-{release.series}-{variant.name}"
                    yield label, needs_of(family.lead, variant.requirements), variant.cuda
    for flavour in base.fixed:
        if flavour.requirements:
            label = f"{flavour.package}[{flavour.extra or ''}]-{flavour.versions}"
            yield label, needs_of(flavour.package, flavour.requirements), None
    for package, need in base.builds_with_nvcc:
        yield f"{package}-build", needs_of(package, (need,)), None


CASES = list(known_cases())


def admits(spec: str, version: Version) -> bool:
    return SpecifierSet(spec).contains(version, prereleases=True)


def expected(needs: tuple[SystemRequirement, ...]) -> str | None:
    """What the table says, read plainly: the newest image whose CUDA every CUDA requirement
    admits and whose cuDNN flavour every cuDNN requirement admits."""
    kinds = {r.kind for r in needs}
    flavour = (
        "devel"
        if "nvcc" in kinds
        else "runtime"
        if kinds & {"cuda-runtime", "nccl", "cudnn"}
        else "base"
    )
    for image in IMAGES:  # newest first
        minor = Version(f"{image.cuda.major}.{image.cuda.minor}")
        if not all(admits(r.spec, minor) for r in needs if r.kind in ("cuda-runtime", "nvcc")):
            continue
        if "cudnn" in kinds:
            if image.cudnn is None or not all(
                admits(r.spec, image.cudnn) for r in needs if r.kind == "cudnn"
            ):
                continue
            return f"nvidia/cuda:{image.cuda}-{image.cudnn_tag}-{flavour}-{image.cudnn_os[0]}"
        return f"nvidia/cuda:{image.cuda}-{flavour}-{image.os[0]}"
    return None


@pytest.mark.parametrize(("label", "needs", "cuda"), CASES, ids=[c[0] for c in CASES])
def test_every_known_requirement_gets_the_image_the_table_gives(
    label: str, needs: tuple[SystemRequirement, ...], cuda: CudaVersion | None
) -> None:
    if not any(r.kind in ("cuda-runtime", "nvcc") for r in needs) and cuda is not None:
        pytest.skip("no CUDA requirement: the lock's CUDA decides (tested below)")
    choice = choose_base_image(needs, cuda, None, IMAGES)
    assert choice.image == expected(needs), choice.reason


def test_the_knowledge_base_has_requirements_to_check() -> None:
    kinds = {r.kind for _, needs, _ in CASES for r in needs}
    assert {"cuda-runtime", "cudnn", "nvcc"} <= kinds


def image(cuda: str) -> BaseImage:
    return next(i for i in IMAGES if str(i.cuda) == cuda)


def need(kind: str, spec: str, package: str = "paddlepaddle-gpu") -> SystemRequirement:
    return SystemRequirement(package, kind, spec, "built with it", "install it")


def test_paddle_26_from_pypi_gets_cuda_118_with_cudnn_8() -> None:
    needs = (need("cuda-runtime", ">=11.8,<12"), need("cudnn", ">=8.6,<9"))
    choice = choose_base_image(needs, CudaVersion(11, 8), None, IMAGES)
    row = image("11.8.0")
    assert choice.image == f"nvidia/cuda:11.8.0-cudnn8-runtime-{row.cudnn_os[0]}"
    assert "cuDNN 8.9.6.50" in str(choice.reason)
    assert "not confirmed" in str(choice.reason)  # the 11.8 row is uncertain: said


def test_wheels_that_bring_every_library_need_only_the_base_image() -> None:
    choice = choose_base_image((), CudaVersion(12, 4), None, IMAGES)
    assert choice.image == f"nvidia/cuda:12.4.1-base-{image('12.4.1').os[0]}"
    assert "base image is enough" in str(choice.reason)


def test_an_image_older_than_the_builds_says_the_driver_chose_it() -> None:
    # A cluster's A100 nodes on R535 (CUDA 12.2) beside newer ones: cu128 wheels, a 12.2 image.
    choice = choose_base_image((), CudaVersion(12, 8), CudaVersion(12, 2), IMAGES)
    assert choice.image is not None and choice.image.startswith("nvidia/cuda:12.2.2-base-")
    assert "the oldest driver among the Linux targets runs CUDA <= 12.2" in str(choice.reason)
    exact = choose_base_image((), CudaVersion(12, 8), CudaVersion(12, 8), IMAGES)
    assert "oldest driver" not in str(exact.reason)


def test_a_cuda_minor_without_its_own_image_takes_the_next_of_its_major() -> None:
    assert not any(str(i.cuda).startswith("12.7.") for i in IMAGES)
    choice = choose_base_image((), CudaVersion(12, 7), None, IMAGES)
    assert choice.image is not None and choice.image.startswith("nvidia/cuda:12.8.2-base-")


def test_nvcc_needs_the_devel_image_within_the_drivers_reach() -> None:
    needs = (need("nvcc", ">=12.0,<13", "flash-attn"),)
    choice = choose_base_image(needs, CudaVersion(12, 4), CudaVersion(12, 4), IMAGES)
    assert choice.image == f"nvidia/cuda:12.4.1-devel-{image('12.4.1').os[0]}"
    unbounded = choose_base_image(needs, CudaVersion(12, 4), None, IMAGES)
    assert unbounded.image is not None and unbounded.image.startswith("nvidia/cuda:12.9.2-devel-")


def test_wheels_satisfied_requirements_leave_the_base_image() -> None:
    met = SystemRequirement("torch", "cudnn", ">=9,<10", "r", "s", satisfied_by="nvidia-cudnn-cu12")
    choice = choose_base_image((met,), CudaVersion(12, 6), None, IMAGES)
    assert choice.image is not None and "-base-" in choice.image


def test_a_cudnn_8_with_cuda_12_4_has_no_image_and_says_what_to_do() -> None:
    needs = (need("cuda-runtime", ">=12.4,<13"), need("cudnn", ">=8.6,<9"))
    choice = choose_base_image(needs, CudaVersion(12, 4), None, IMAGES)
    assert choice.image is None
    assert "install them in the Dockerfile" in str(choice.reason)
    assert "cudnn >=8.6,<9" in str(choice.reason)


def test_a_cpu_lock_needs_no_cuda_image() -> None:
    assert choose_base_image((), None, None, IMAGES).image is None


def test_cudnn_flavour_comes_from_a_release_that_carries_it() -> None:
    # 12.5.1 has no cuDNN tag on Ubuntu 24.04: the cuDNN image is the newest that has one.
    row = image("12.5.1")
    assert row.os[0] not in row.cudnn_os
    needs = (need("cuda-runtime", ">=12.5,<12.6"), need("cudnn", ">=9,<10"))
    choice = choose_base_image(needs, CudaVersion(12, 5), None, IMAGES)
    assert choice.image == f"nvidia/cuda:12.5.1-cudnn-runtime-{row.cudnn_os[0]}"


def test_image_table_invariants() -> None:
    assert [i.cuda for i in IMAGES] == sorted((i.cuda for i in IMAGES), reverse=True)
    for row in IMAGES:
        assert row.source
        assert set(row.cudnn_os) <= set(row.os)
        if row.cudnn_tag in ("cudnn8", "cudnn9"):
            assert row.cudnn is not None and str(row.cudnn.major) == row.cudnn_tag[-1]
