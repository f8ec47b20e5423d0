"""Adopting hand-written CUDA setups: the authors' variant is the request, what is already
right stays, and every contradicted entry is listed at once."""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import NoVariantError
from poetry_cuda.planning.adoption import pinned_request
from poetry_cuda.planning.adoption import review
from poetry_cuda.planning.managed import Managed
from poetry_cuda.request.settings import CudaRequest
from tests.support.plans import KB
from tests.support.plans import linux_host
from tests.support.plans import plan_text


if TYPE_CHECKING:
    from poetry_cuda.planning.targets import Target


RTX4090_570 = linux_host("gpu.json", "570.124.06", "8.9")
POETRY_CU124 = """
[project]
name = "app"
version = "0"
dependencies = ["torch==2.5.1", "torchvision==0.20.1", "numpy"]

[tool.poetry.dependencies]
torch = {source = "pytorch-cuda"}
torchvision = {source = "pytorch-cuda"}

[[tool.poetry.source]]
name = "pytorch-cuda"
url = "https://download.pytorch.org/whl/cu124"
priority = "explicit"
"""


def _plan(text: str, host: Target = RTX4090_570, **changes: Any) -> Any:
    planned = plan_text(text, [host], **changes)
    return planned.plan, planned.hand, planned.settings


def test_the_projects_source_is_its_request_and_is_used_as_written() -> None:
    plan, hand, _ = _plan(POETRY_CU124)
    torch = plan.choice("torch")
    # The driver runs cu126 and cu128 too: without the pin the plan would choose cu128.
    assert torch.variant == "cu124"
    assert str(torch.reason).startswith(
        "the project asks for cu124: its source pytorch-cuda is "
        "https://download.pytorch.org/whl/cu124; driver 570.124.06 supports CUDA <= 12.8"
    )
    assert (torch.source.name, torch.source.adopted) == ("pytorch-cuda", True)
    adoption = review(plan, hand)
    assert adoption.conflicts == ()
    assert adoption.kept == {"torch", "torchvision"}
    assert Managed.of(plan, adoption.kept) == Managed((), (), ("pytorch-cuda",), adoption.kept)


def test_another_cuda_request_lists_every_entry_it_contradicts_at_once() -> None:
    plan, hand, _ = _plan(POETRY_CU124, cuda=CudaRequest.parse("cu121"))
    assert plan.choice("torch").variant == "cu121"
    adoption = review(plan, hand)
    said = [c.said for c in adoption.conflicts]
    assert len(said) == 2
    assert said[0].startswith('[tool.poetry.dependencies] torch = { source = "pytorch-cuda" }: ')
    assert "pins cu124 through pytorch-cuda" in said[0]
    assert "the plan chooses cu121 (pytorch-cu121" in said[0]
    assert said[1].startswith("[tool.poetry.dependencies] torchvision")
    assert [i.name for i in adoption.unused] == ["pytorch-cuda"]
    error = adoption.error("poetry cuda lock")
    assert error.exit_code == 2
    assert "2 entries the plan contradicts" in error.what
    assert "taking them over leaves unused" in error.what
    assert "`poetry cuda lock --adopt`" in error.fix


def test_a_pinned_build_that_cannot_run_exits_3_naming_the_pin_and_what_would_run() -> None:
    old_driver = linux_host("gpu.json", "535.104.05", "8.9")  # CUDA 12.2
    text = POETRY_CU124.replace("whl/cu124", "whl/cu128").replace("2.5.1", "2.7.1")
    text = text.replace("0.20.1", "0.22.1")
    with pytest.raises(NoVariantError) as raised:
        _plan(text, old_driver, policy="native")
    assert raised.value.exit_code == 3
    assert "the project pins cu128: its source pytorch-cuda" in raised.value.what
    assert "--cuda" in raised.value.fix
    assert "--adopt" in raised.value.fix


def test_the_authors_cpu_builds_for_other_platforms_stay_beside_the_cuda_one() -> None:
    plan, hand, _ = _plan(
        """
[project]
name = "app"
version = "0"
dependencies = ["torch==2.5.1"]
[tool.uv.sources]
torch = [
  { index = "pytorch-cpu", marker = "sys_platform == 'darwin'" },
  { index = "pytorch-cu121", marker = "sys_platform == 'linux'" },
]
[[tool.uv.index]]
name = "pytorch-cpu"
url = "https://download.pytorch.org/whl/cpu"
explicit = true
[[tool.uv.index]]
name = "pytorch-cu121"
url = "https://download.pytorch.org/whl/cu121"
explicit = true
"""
    )
    assert plan.choice("torch").variant == "cu121"
    adoption = review(plan, hand)
    assert adoption.conflicts == ()
    assert adoption.kept == {"torch"}


def test_a_wheel_pinned_by_url_is_the_request_and_is_taken_over_by_adopt() -> None:
    url = "https://download.pytorch.org/whl/cu118/torch-2.1.0%2Bcu118-cp311-cp311-linux_x86_64.whl"
    plan, hand, settings = _plan(
        f'[project]\nname = "a"\nversion = "0"\ndependencies = ["torch @ {url}"]\n'
    )
    torch = plan.choice("torch")
    assert (torch.variant, torch.version) == ("cu118", "2.1.0+cu118")
    adoption = review(plan, hand)
    assert "pins the cu118 wheel 2.1.0 by URL" in adoption.conflicts[0].why
    assert pinned_request(plan, settings, hand, KB.families) == "cu118"


def test_an_implicit_index_of_another_variant_is_a_conflict() -> None:
    plan, hand, _ = _plan(
        POETRY_CU124 + '[tool.uv]\nextra-index-url = ["https://download.pytorch.org/whl/cu118"]\n'
    )
    # Two builds are asked for (the source's cu124, the index's cu118): the newest that runs.
    assert plan.choice("torch").variant == "cu124"
    said = [c.said for c in review(plan, hand).conflicts]
    assert said == [
        (
            "[tool.uv] extra-index-url 'https://download.pytorch.org/whl/cu118' "
            "(https://download.pytorch.org/whl/cu118): serves cu118 builds of torch to the "
            "resolver without a pin, and the plan chooses cu124 (pytorch-cuda)"
        )
    ]


def test_a_poetry_1_source_is_a_conflict_that_adopt_makes_explicit() -> None:
    text = POETRY_CU124.replace('priority = "explicit"', "secondary = true")
    plan, hand, _ = _plan(text)
    adoption = review(plan, hand)
    assert [i.name for i in adoption.outdated] == ["pytorch-cuda"]
    assert "secondary = true is a Poetry 1.x setting" in adoption.conflicts[0].why


def test_without_pins_nothing_changes() -> None:
    plan, hand, settings = _plan('[project]\nname = "a"\nversion = "0"\ndependencies = ["torch"]\n')
    assert not plan.choice("torch").source.adopted
    assert review(plan, hand).conflicts == ()
    assert pinned_request(plan, settings, hand, KB.families) is None


def test_a_labelled_pin_that_another_request_contradicts_is_listed() -> None:
    plan, hand, _ = _plan(
        '[project]\nname = "a"\nversion = "0"\ndependencies = ["torch==2.5.1+cu121"]\n',
        cuda=CudaRequest.parse("cu124"),
    )
    (conflict,) = review(plan, hand).conflicts
    assert conflict.why.startswith("pins the cu121 build (2.5.1+cu121); the plan chooses cu124")
    with pytest.raises(ConfigError):
        raise review(plan, hand).error("poetry-cuda lock")
