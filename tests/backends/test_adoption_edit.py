"""`lock --adopt` rewrites exactly the entries the review names, and nothing else."""

from __future__ import annotations

from typing import Any

from poetry_cuda.backends.adoption_edit import adopt
from poetry_cuda.planning.adoption import pinned_request
from poetry_cuda.planning.adoption import review
from poetry_cuda.request.settings import CudaRequest
from tests.support.plans import KB
from tests.support.plans import linux_host
from tests.support.plans import plan_text


GPU = linux_host("gpu.json", "570.124.06", "8.9")


def _adopted(text: str, **changes: Any) -> tuple[str, list[str]]:
    planned = plan_text(text, [GPU], **changes)
    adoption = review(planned.plan, planned.hand)
    cuda = None
    if adoption.taken:
        cuda = pinned_request(planned.plan, planned.settings, planned.hand, KB.families)
    return adopt(text, adoption.taken, adoption.unused, adoption.outdated, cuda)


POETRY = """\
[tool.poetry]
name = "app"

[tool.poetry.dependencies]
python = "~3.11"
# the CUDA build, by hand
torch = {version = "^2.5", source = "torch118", extras = ["opt-einsum"]}
torchvision = [
  {version = "0.20.1", source = "torch118", markers = "sys_platform == 'linux'"},
  {version = "0.20.1", markers = "sys_platform == 'darwin'"},
]
numpy = "^2"  # unrelated

[[tool.poetry.source]]
name = "torch118"
url = "https://download.pytorch.org/whl/cu118"
priority = "explicit"

[[tool.poetry.source]]
name = "internal"
url = "https://pkg.example/simple"
priority = "supplemental"
"""


def test_poetry_pins_lose_their_source_and_the_unused_source_goes() -> None:
    text, changes = _adopted(POETRY, cuda=CudaRequest.parse("cu124"))
    assert text == POETRY.replace(
        'torch = {version = "^2.5", source = "torch118", extras = ["opt-einsum"]}',
        'torch = {version = "^2.5", extras = ["opt-einsum"]}',
    ).replace(
        """torchvision = [
  {version = "0.20.1", source = "torch118", markers = "sys_platform == 'linux'"},
  {version = "0.20.1", markers = "sys_platform == 'darwin'"},
]""",
        'torchvision = "0.20.1"',
    ).replace(
        '[[tool.poetry.source]]\nname = "torch118"\nurl = "https://download.pytorch.org/whl/cu118"'
        '\npriority = "explicit"\n\n',
        "",
    )
    assert changes == [
        (
            '[tool.poetry.dependencies] torch = { version = "^2.5", source = "torch118", extras = '
            '["opt-einsum"] } -> { version = "^2.5", extras = ["opt-einsum"] }'
        ),
        (
            '[tool.poetry.dependencies] torchvision = [{ version = "0.20.1", source = "torch118", '
            'markers = "sys_platform == \'linux\'" }, { version = "0.20.1", markers = '
            '"sys_platform == \'darwin\'" }] -> "0.20.1"'
        ),
        (
            "[[tool.poetry.source]] 'torch118' (https://download.pytorch.org/whl/cu118): removed "
            "(no longer used)"
        ),
    ]


def test_the_authors_variant_becomes_the_cuda_setting_when_the_pins_go() -> None:
    url = "https://download.pytorch.org/whl/cu118/torch-2.1.0%2Bcu118-cp311-cp311-linux_x86_64.whl"
    text, changes = _adopted(
        f'[project]\nname = "a"\nversion = "0"\ndependencies = [\n  "torch @ {url}",\n]\n'
    )
    assert text == (
        '[project]\nname = "a"\nversion = "0"\ndependencies = [\n  "torch==2.1.0",\n]\n'
        '\n[tool.poetry-cuda]\ncuda = "cu118"\n'
    )
    assert changes[-1].startswith('[tool.poetry-cuda] cuda = "cu118" set: ')


def test_labels_are_stripped_and_uv_sources_removed() -> None:
    original = """\
[project]
name = "a"
version = "0"
dependencies = ["torch==2.5.1+cu121", "numpy"]

[tool.uv.sources]
torch = { index = "cu121" }
numpy = { index = "internal" }

[[tool.uv.index]]
name = "cu121"
url = "https://download.pytorch.org/whl/cu121"
explicit = true
"""
    text, changes = _adopted(original, cuda=CudaRequest.parse("cu124"))
    assert text == (
        '[project]\nname = "a"\nversion = "0"\ndependencies = ["torch==2.5.1", "numpy"]\n\n'
        '[tool.uv.sources]\nnumpy = { index = "internal" }\n'
    )
    assert len(changes) == 3


def test_a_poetry_1_source_is_made_explicit_and_keeps_its_place() -> None:
    original = POETRY.replace('priority = "explicit"', "secondary = true")
    text, changes = _adopted(original)
    assert text == POETRY
    assert changes == [
        (
            "[[tool.poetry.source]] 'torch118' (https://download.pytorch.org/whl/cu118): "
            'secondary = true -> priority = "explicit"'
        )
    ]


def test_a_group_whose_name_holds_dots_is_edited_in_place() -> None:
    original = POETRY.replace(
        "[tool.poetry.dependencies]\npython", '[tool.poetry.group."gpu.train".dependencies]\npython'
    )
    text, changes = _adopted(original, cuda=CudaRequest.parse("cu124"))
    assert '[tool.poetry.group."gpu.train".dependencies]' in text
    assert 'torch = {version = "^2.5", extras = ["opt-einsum"]}' in text
    assert changes[0].startswith("[tool.poetry.group.gpu.train.dependencies] torch = ")


def test_an_unused_source_is_removed_where_the_sources_are_split_around_other_tables() -> None:
    internal = '[[tool.poetry.source]]\nname = "internal"\nurl = "https://pkg.example/simple"\npriority = "supplemental"\n'
    original = (
        POETRY.replace(internal, "") + '\n[build-system]\nrequires = ["poetry-core"]\n\n' + internal
    )
    text, changes = _adopted(original, cuda=CudaRequest.parse("cu124"))
    assert 'name = "torch118"' not in text
    assert 'name = "internal"' in text
    assert changes[-1].endswith("removed (no longer used)")
