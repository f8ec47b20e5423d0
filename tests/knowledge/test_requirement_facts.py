"""Hidden system requirements in the shipped data, checked against what the sources say."""

from __future__ import annotations

from tests.support import knowledge as lookup


def test_paddle_26_from_pypi_loads_cuda_118_and_cudnn_86() -> None:
    # Read from the 2.6.2 wheels on PyPI: paddle/version/__init__.py and METADATA.
    variant = lookup.variant("paddle", "2.6", "cu118")
    needs = {r.kind: r for r in variant.requirements}
    assert set(needs) == {"cuda-runtime", "cudnn"}
    assert needs["cuda-runtime"].spec == ">=11.8,<12"
    assert needs["cudnn"].spec == ">=8.6.0,<9"
    assert {r.confidence for r in needs.values()} == {"verified"}
    assert all("packages/stable/cu118/" in r.satisfy for r in needs.values())


def test_paddle_26_post120_needs_cuda_12_and_cudnn_89() -> None:
    needs = {r.kind: r.spec for r in lookup.variant("paddle", "2.6", "cu120").requirements}
    assert needs == {"cuda-runtime": ">=12.0,<13", "cudnn": ">=8.9.1,<9"}


def test_paddle_3_brings_its_libraries_as_wheels() -> None:
    for series in ("3.0", "3.1", "3.2", "3.3"):
        for variant in lookup.release("paddle", series).variants:
            assert variant.requirements == (), (series, variant.name)


def test_packages_that_compile_cuda_code_need_nvcc() -> None:
    names = {name for name, _ in lookup.KB.builds_with_nvcc}
    expected = {"flash-attn", "mmcv", "detectron2", "sam2", "apex", "deepspeed", "xformers"}
    assert expected | {"llama-cpp-python", "pycuda"} <= names
    assert all(r.kind == "nvcc" for _, r in lookup.KB.builds_with_nvcc)
