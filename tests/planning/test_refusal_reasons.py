"""A refusal names the rule that removed the builds, and its fix offers only what passes
every rule (issue 39, item 9a: torch 2.15.0 refused for Requires-Python was blamed on the
GPUs, and offered again as a fix)."""

from __future__ import annotations

import dataclasses
import re

from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.backends.readers import READERS
from poetry_cuda.errors import NoVariantError
from poetry_cuda.host.profiles import profile_from_json
from poetry_cuda.planning.assemble import make_plan
from poetry_cuda.planning.targets import settle
from poetry_cuda.request.dependencies import read_dependencies
from poetry_cuda.request.handwritten import recognise
from poetry_cuda.request.settings import Settings
from tests.planning.test_release_availability import GTX1080_580
from tests.planning.test_release_availability import KB
from tests.planning.test_release_availability import RTX4090_575
from tests.planning.test_release_availability import RTX5090_580
from tests.planning.test_release_availability import _release
from tests.planning.test_release_availability import plan


if TYPE_CHECKING:
    from poetry_cuda.knowledge.model import KnowledgeBase


def _refusal(deps: list[str], doc: dict[str, Any], python: str) -> tuple[str, str, str]:
    with pytest.raises(NoVariantError) as raised:
        plan(deps, dict(doc), python=python)
    text = raised.value.render()
    why = next(line for line in text.splitlines() if line.startswith("Why: "))
    fix = next(line for line in text.splitlines() if line.startswith("Fix: "))
    return text, why, fix


def test_requires_python_refusal_names_python_and_offers_no_refused_version() -> None:
    assert _release("2.15").requires_python == ">=3.11"  # PyPI torch 2.15.0 METADATA
    text, why, fix = _refusal(["torch==2.15.0"], RTX5090_580, ">=3.10")
    assert "kernels" not in why and "driver" not in why
    assert "requires-python (>=3.10)" in why and "Python 3.10" in why and ">=3.11" in why
    offered = re.search(r"versions that would serve these targets: (\S+) to (\S+) ", fix)
    assert offered is not None and offered.group(2) == "2.14.1"  # the newest for 3.10
    assert "2.15.0" not in fix
    assert "narrow the project's requires-python to leave out Python 3.10" in fix
    # A CPU build of 2.15.0 installs on no more Pythons: the fallback is not offered.
    assert "allow-cpu-fallback" not in fix
    assert "satisfies every target" not in text


def test_a_release_refused_by_python_and_by_the_driver_names_both_and_offers_no_narrowing() -> None:
    """Narrowing requires-python alone would not help where the release's builds do not run
    on the target either (torch 2.15.0 is CUDA 13 only; a 575 driver runs CUDA <= 12.9)."""
    text, why, fix = _refusal(["torch==2.15.0"], RTX4090_575, ">=3.10")
    assert "driver must run the build's CUDA version" in why
    assert "Python 3.10 is outside the Requires-Python of torch 2.15.0 (>=3.11)" in why
    assert "cu130 ruled out" in text and "580" in text
    assert "narrow" not in fix and "2.15.0" not in fix
    assert "allow-cpu-fallback" not in fix  # a CPU 2.15.0 installs on no more Pythons


def test_requires_python_refusal_of_a_cpu_plan_is_not_blamed_on_the_driver() -> None:
    text, why, fix = _refusal(["torch==2.15.0"], {"os": "linux", "machine": "x86_64"}, ">=3.10")
    assert "NVIDIA driver" not in why and "Requires-Python of torch 2.15.0 (>=3.11)" in why
    assert "torch 2.15.0 requires Python >=3.11" in text
    assert "leave out Python 3.10" in fix and "newest: 2.14.1" in fix


def test_a_refusal_by_the_targets_still_names_the_targets() -> None:
    gtx1080 = {
        "os": "linux",
        "machine": "x86_64",
        "driver": {"version": "580.95.05"},
        "gpus": [{"compute_capability": "6.1"}],
    }
    _, why, fix = _refusal(["torch==2.15.0"], gtx1080, ">=3.11")
    assert why == (
        "Why: every GPU of every target must have kernels in the build, and its driver must "
        "run the build's CUDA version"
    )
    assert "allow-cpu-fallback" in fix


# -- item 9b: a build never considered says which member it lacks, and what would help ------


def _kb_where_2_15_has_no_cu132_torchaudio() -> KnowledgeBase:
    """The knowledge base as if torch 2.15 were published without torchaudio 2.11.1: its
    cu132 build then has no torchaudio (2.11.0, the other stable-ABI one, has no cu132)."""
    torch = next(f for f in KB.families if f.name == "torch")
    releases = tuple(
        dataclasses.replace(
            r,
            pairs=tuple({k: v for k, v in p.items() if k != "torchaudio"} for p in r.pairs),
            ranges=tuple(x for x in r.ranges if x.member != "torchaudio"),
        )
        if r.series == "2.15"
        else r
        for r in torch.releases
    )
    family = dataclasses.replace(torch, releases=releases)
    return dataclasses.replace(
        KB, families=tuple(family if f.name == "torch" else f for f in KB.families)
    )


def _warnings(deps: list[str], kb: KnowledgeBase) -> list[str]:
    target, _ = settle(profile_from_json(dict(GTX1080_580), "t"), KB.nvidia)
    pyproject: dict[str, Any] = {"project": {"dependencies": deps}}
    hand = recognise(pyproject, KB.families, Settings().mirrors, READERS)
    result = make_plan(
        read_dependencies(pyproject, READERS), [target], Settings(), kb, hand, python=">=3.11"
    )
    assert {c.name: c.version for c in result.packages}["torch"] == "2.14.1+cu126"
    return [str(w) for w in result.warnings if "passed over" in str(w)]


def test_a_build_without_member_versions_names_the_member_and_the_fix() -> None:
    kb = _kb_where_2_15_has_no_cu132_torchaudio()
    (constrained,) = _warnings(["torch", "torchaudio>=2.11"], kb)
    assert "member versions" not in constrained
    assert (
        "cu132 has no torchaudio build at a version the project allows (torchaudio >=2.11); "
        "widening that constraint would let it be considered" in constrained
    )
    (unconstrained,) = _warnings(["torch", "torchaudio"], kb)
    assert "cu132: no torchaudio build is published with this release" in unconstrained
