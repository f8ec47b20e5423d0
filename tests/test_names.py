"""`canonical_name` against packaging's `canonicalize_name`, the reference it stands in for."""

from __future__ import annotations

import pytest

from hypothesis import given
from hypothesis import strategies as st
from packaging.utils import canonicalize_name

from poetry_cuda.names import canonical_name


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("torch", "torch"),
        ("Torch", "torch"),
        ("nvidia_cudnn_cu12", "nvidia-cudnn-cu12"),
        ("paddlepaddle-gpu", "paddlepaddle-gpu"),
        ("oslo.concurrency", "oslo-concurrency"),
        ("jax__cuda12.-_plugin", "jax-cuda12-plugin"),
        ("", ""),
    ],
)
def test_names_read_as_pep_503_writes_them(name: str, canonical: str) -> None:
    assert canonical_name(name) == canonical == canonicalize_name(name)


@given(st.text(alphabet=st.sampled_from("aZz09-_. .Ä\u0130K\u212a"), max_size=20))
def test_every_name_reads_as_packaging_reads_it(name: str) -> None:
    assert canonical_name(name) == canonicalize_name(name)
