"""`[tool.poetry-cuda.wheel-variants]`: which families' variant labels `lock` records, and
from which index."""

from __future__ import annotations

from typing import Any

import pytest

from poetry_cuda.errors import ConfigError
from poetry_cuda.knowledge.packaged import variant_indexes
from poetry_cuda.request.settings import parse_settings


def chosen(value: Any) -> dict[str, str]:
    return parse_settings({"tool": {"poetry-cuda": {"wheel-variants": value}}}).wheel_variants


def test_true_is_the_knowledge_bases_index() -> None:
    torch = next(row for row in variant_indexes() if row.family == "torch")
    assert chosen({"torch": True}) == {"torch": torch.url}


def test_a_url_is_a_mirror_of_it_ending_in_a_slash() -> None:
    assert chosen({"torch": "http://127.0.0.1:8000/simple"}) == {
        "torch": "http://127.0.0.1:8000/simple/"
    }


def test_false_and_absent_opt_out() -> None:
    assert chosen({"torch": False}) == {}
    assert parse_settings({}).wheel_variants == {}


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"paddle": True}, "no variant index of this family is known"),
        ({"torch": 1}, "must be true, false or the URL"),
        ({"torch": "http://mirror.example/simple/"}, "https"),
        (["torch"], "wheel-variants"),
    ],
)
def test_a_bad_value_is_exit_2_naming_the_key(value: Any, problem: str) -> None:
    with pytest.raises(ConfigError, match="wheel-variants") as raised:
        chosen(value)
    assert problem in str(raised.value)
