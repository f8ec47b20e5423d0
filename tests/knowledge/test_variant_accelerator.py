"""A variant's accelerator: named by its label, checked against its CUDA version."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import InputFileError
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.knowledge.packaged import load_directory
from tests.knowledge.test_loader import edit
from tests.knowledge.test_loader import write_minimal


if TYPE_CHECKING:
    from pathlib import Path


ROCM_VARIANT = '\n[[release.variant]]\nname = "rocm6.4"\nplatforms = ["linux-x86_64"]\n'


def test_every_shipped_variant_is_cuda_or_cpu() -> None:
    for family in load().families:
        for release in family.releases:
            for variant in release.variants:
                expected = "cpu" if variant.cuda is None else "cuda"
                assert variant.accelerator == expected, (family.name, variant.name)


def test_a_rocm_variant_is_not_a_cpu_build(tmp_path: Path) -> None:
    data = write_minimal(tmp_path)
    with (data / "torch.toml").open("a") as file:
        file.write(ROCM_VARIANT)
    (torch,) = load_directory(data).families
    rocm = torch.releases[0].variant("rocm6.4")
    assert rocm is not None
    assert rocm.cuda is None
    assert rocm.accelerator == "rocm"
    assert not rocm.is_cpu


@pytest.mark.parametrize(
    ("old", "new", "where", "problem"),
    [
        ('name = "cu124"', 'name = "cuda124"', "variant[cuda124].name", "names no accelerator"),
        ('cuda = "12.4"\nsass', "sass", "variant[cu124].cuda", "missing: cu124 is a CUDA build"),
        (
            'name = "cpu"\n',
            'name = "cpu"\ncuda = "12.4"\n',
            "variant[cpu].cuda",
            "cpu is a CPU build, not a CUDA one",
        ),
    ],
)
def test_a_label_that_disagrees_with_its_cuda_version_is_refused(
    tmp_path: Path, old: str, new: str, where: str, problem: str
) -> None:
    data = write_minimal(tmp_path)
    edit(data, "torch.toml", old, new)
    with pytest.raises(InputFileError) as caught:
        load_directory(data)
    assert caught.value.what.startswith(f"torch.toml: release[2.5].{where}:"), caught.value.what
    assert problem in caught.value.what
