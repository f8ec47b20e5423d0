"""Recognising hand-written CUDA configuration, on the shapes real projects write."""

from __future__ import annotations

from typing import Any

import pytest

from poetry_cuda.backends.readers import READERS
from poetry_cuda.files import parse_toml
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.request.handwritten import HandWritten
from poetry_cuda.request.handwritten import index_variant
from poetry_cuda.request.handwritten import recognise
from poetry_cuda.request.settings import Mirror


FAMILIES = load().families
MIRRORS = {"pytorch": Mirror("https://mirror.example/torch/{variant}/simple")}


def _recognised(text: str, mirrors: dict[str, Mirror] | None = None) -> HandWritten:
    document: dict[str, Any] = parse_toml(text)
    return recognise(document, FAMILIES, mirrors or {}, READERS)


@pytest.mark.parametrize(
    ("url", "family", "variant", "upstream"),
    [
        ("https://download.pytorch.org/whl/cu126", "torch", "cu126", True),
        ("https://download.pytorch.org/whl/cu126/", "torch", "cu126", True),
        ("https://www.paddlepaddle.org.cn/packages/stable/cu118/", "paddle", "cu118", True),
        ("https://mirror.example/torch/cu124/simple/", "torch", "cu124", False),  # configured
        ("https://mirror.sjtu.edu.cn/pytorch-wheels/cu121/", "torch", "cu121", False),
        ("https://mirrors.seu.edu.cn/pytorch/whl/cu118/simple/", "torch", "cu118", False),
        ("https://mirrors.aliyun.com/pytorch-wheels/cpu", "torch", "cpu", False),
        # ROCm and XPU builds of the family (issue 41 pattern 6), by the rule of their labels.
        ("https://download.pytorch.org/whl/rocm6.2", "torch", "rocm6.2", True),
        ("https://download.pytorch.org/whl/xpu", "torch", "xpu", True),
    ],
)
def test_an_index_is_known_by_its_family_template_its_mirror_or_its_path(
    url: str, family: str, variant: str, upstream: bool
) -> None:
    found = index_variant(url, FAMILIES, MIRRORS)
    assert found is not None
    assert (found[0].name, found[1], found[2]) == (family, variant, upstream)


@pytest.mark.parametrize(
    "url",
    [
        "https://download.pytorch.org/whl/nightly/cu128",  # nightlies are not the releases
        "https://pypi.org/simple",
        "https://pkg.example/simple/cu124",  # names no family
    ],
)
def test_other_indexes_are_not_taken_for_a_cuda_index(url: str) -> None:
    assert index_variant(url, FAMILIES, {}) is None


def test_a_poetry_source_of_any_name_pins_its_variant_in_every_group() -> None:
    hand = _recognised(
        """
[tool.poetry.dependencies]
torch = {version = "^2.5", source = "pytorch-cuda"}
[tool.poetry.group.train.dependencies]
torchvision = [{version = "^0.20", source = "pytorch-cuda", markers = "sys_platform == 'linux'"}]
[[tool.poetry.source]]
name = "pytorch-cuda"
url = "https://download.pytorch.org/whl/cu126"
priority = "explicit"
"""
    )
    assert [(p.package, p.variant, p.kind, p.where) for p in hand.pins] == [
        ("torch", "cu126", "index", "[tool.poetry.dependencies]"),
        ("torchvision", "cu126", "index", "[tool.poetry.group.train.dependencies]"),
    ]
    assert hand.pins[1].marker == "sys_platform == 'linux'"
    assert not hand.indexes[0].implicit
    assert hand.asked("torch")[0].evidence == (
        "its source pytorch-cuda is https://download.pytorch.org/whl/cu126"
    )


def test_labels_and_wheel_urls_pin_their_variant_and_version() -> None:
    hand = _recognised(
        """
[project]
dependencies = [
  "torch==2.1.0+cu118",
  "torchvision @ https://download.pytorch.org/whl/cu118/torchvision-0.16.0%2Bcu118-cp311-cp311-linux_x86_64.whl",
]
[tool.poetry.dependencies]
torchaudio = [{url = "https://download.pytorch.org/whl/cu118/torchaudio-2.1.0%2Bcu118-cp311-cp311-linux_x86_64.whl", markers = "sys_platform == 'linux'"}]
"""
    )
    assert sorted((p.package, p.kind, p.variant, p.version) for p in hand.pins) == [
        ("torch", "label", "cu118", "2.1.0"),
        ("torchaudio", "url", "cu118", "2.1.0"),
        ("torchvision", "url", "cu118", "0.16.0"),
    ]


def test_uv_extras_with_their_own_indexes_make_a_multi_variant_project() -> None:
    hand = _recognised(
        """
[project.optional-dependencies]
cpu = ["torch>=2.5"]
cu124 = ["torch>=2.5"]
[tool.uv.sources]
torch = [{ index = "pytorch-cpu", extra = "cpu" }, { index = "pytorch-cu124", extra = "cu124" }]
[[tool.uv.index]]
name = "pytorch-cpu"
url = "https://download.pytorch.org/whl/cpu"
explicit = true
[[tool.uv.index]]
name = "pytorch-cu124"
url = "https://download.pytorch.org/whl/cu124"
explicit = true
"""
    )
    assert hand.extras("torch") == {"cpu": "cpu", "cu124": "cu124"}
    assert hand.asked("torch") == ()  # no pin holds for the whole project


def test_one_optional_cuda_extra_is_an_ordinary_pin() -> None:
    hand = _recognised('[project.optional-dependencies]\ngpu = ["torch==2.5.1+cu124"]\n')
    assert hand.extras("torch") == {}
    assert [p.variant for p in hand.asked("torch")] == ["cu124"]


def test_an_implicit_index_selects_the_variant_without_a_pin() -> None:
    hand = _recognised(
        """
[[tool.uv.index]]
name = "pytorch"
url = "https://download.pytorch.org/whl/cu121"
[tool.uv]
extra-index-url = ["https://download.pytorch.org/whl/cu118"]
[[tool.poetry.source]]
name = "later"
url = "https://download.pytorch.org/whl/cu124"
priority = "supplemental"
"""
    )
    assert [(i.name, i.variant) for i in hand.implicit("torch")] == [
        ("pytorch", "cu121"),
        ("https://download.pytorch.org/whl/cu118", "cu118"),
    ]


def test_poetry_cudas_own_entries_are_not_hand_written() -> None:
    hand = _recognised(
        """
[dependency-groups]
poetry-cuda = [
  "torch; sys_platform == 'linux' or sys_platform == 'win32'",
  "torchvision; sys_platform == 'linux' or sys_platform == 'win32'",
]
[tool.uv.sources]
torch = [{ index = "pytorch-cu124", marker = "sys_platform == 'linux' or sys_platform == 'win32'" }]
torchvision = [{ index = "mine", marker = "sys_platform == 'linux' or sys_platform == 'win32'" }]
[[tool.uv.index]]
name = "pytorch-cu124"
url = "https://download.pytorch.org/whl/cu124"
explicit = true
[[tool.uv.index]]
name = "mine"
url = "https://download.pytorch.org/whl/cu124"
explicit = true
"""
    )
    assert [i.name for i in hand.indexes] == ["mine"]  # pytorch-cu124 is the name we give it
    assert hand.pins == ()  # both are pinned by our own group, in the shape we write


def test_an_index_named_as_poetry_cuda_names_one_is_the_authors_when_they_pin_to_it() -> None:
    """uv's guide names its indexes as poetry-cuda does: pytorch-cu124 at .../whl/cu124."""
    hand = _recognised(
        """
[tool.uv.sources]
torch = [{ index = "pytorch-cu124", extra = "cu124" }]
[[tool.uv.index]]
name = "pytorch-cu124"
url = "https://download.pytorch.org/whl/cu124"
explicit = true
"""
    )
    assert [i.name for i in hand.indexes] == ["pytorch-cu124"]
    assert [(p.package, p.extra) for p in hand.pins] == [("torch", "cu124")]


def test_a_poetry_1_source_is_recognised_with_its_old_priority() -> None:
    hand = _recognised(
        '[[tool.poetry.source]]\nname = "t"\nurl = "https://download.pytorch.org/whl/cu118"\n'
        "secondary = true\n"
    )
    assert hand.indexes[0].old_priority == "secondary = true"
    assert not hand.indexes[0].implicit


def test_each_managers_tables_are_recognised_through_its_reader() -> None:
    document: dict[str, Any] = parse_toml(
        """
[project]
dependencies = ["torch==2.5.1+cu124"]
[tool.poetry.dependencies]
torchvision = {version = "^0.20", source = "pt"}
[[tool.poetry.source]]
name = "pt"
url = "https://download.pytorch.org/whl/cu126"
"""
    )
    alone = recognise(document, FAMILIES, {}, ())
    assert [(p.package, p.where) for p in alone.pins] == [("torch", "[project] dependencies")]
    assert alone.indexes == ()
    both = recognise(document, FAMILIES, {}, READERS)
    assert [p.package for p in both.pins] == ["torchvision", "torch"]
    assert [i.name for i in both.indexes] == ["pt"]
