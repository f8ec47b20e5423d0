"""The accelerator a variant label names: one rule, used by the knowledge base and cuda.lock."""

from __future__ import annotations

import pytest

from poetry_cuda.accelerators import accelerator_of
from poetry_cuda.accelerators import build_accelerator


@pytest.mark.parametrize(
    ("label", "accelerator"),
    [
        ("cu124", "cuda"),
        ("cu118", "cuda"),
        ("cu12x", "cuda"),
        ("rocm6.4", "rocm"),
        ("rocm6.2.4", "rocm"),
        ("xpu", "xpu"),
        ("cpu", "cpu"),
        ("cuda12x", None),
        ("cu", None),
        ("rocm", None),
        ("CPU", None),
        ("cpu ", None),
        ("", None),
    ],
)
def test_a_label_names_its_accelerator(label: str, accelerator: str | None) -> None:
    assert accelerator_of(label) == accelerator


def test_a_gpu_build_without_a_cuda_version_is_no_cpu_build() -> None:
    assert build_accelerator("rocm6.4", has_cuda=False) == "rocm"
    assert build_accelerator("xpu", has_cuda=False) == "xpu"
    assert build_accelerator("cpu", has_cuda=False) == "cpu"
    # A fixed flavour's label (cupy-cuda12x's) is CUDA by its CUDA version.
    assert build_accelerator("cuda12x", has_cuda=True) == "cuda"
    assert build_accelerator("cuda12x", has_cuda=False) == "cpu"
