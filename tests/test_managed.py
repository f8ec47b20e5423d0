from __future__ import annotations

import pytest

from poetry_cuda.backends.poetry import add_pins
from poetry_cuda.backends.poetry import rewrite
from poetry_cuda.errors import ConfigError
from poetry_cuda.files import parse_toml
from poetry_cuda.managed import Managed
from poetry_cuda.managed import Pin


PYPROJECT = """\
# A user's comment that must survive.
[project]
name = "demo"
version = "0.1.0"
requires-python = ">=3.11,<3.12"
dependencies = ["torch==2.5.1",   "torchvision==0.20.1"]  # odd spacing kept

[tool.poetry]
package-mode = false

[tool.ruff]
line-length = 88
"""
CU124 = Managed(
    sources=(("pytorch-cu124", "https://download.pytorch.org/whl/cu124"),),
    pins=(Pin("torch", "pytorch-cu124"), Pin("torchvision", "pytorch-cu124")),
)
CU118 = Managed(
    sources=(("pytorch-cu118", "https://download.pytorch.org/whl/cu118"),),
    pins=(Pin("torch", "pytorch-cu118"),),
)


def test_writes_explicit_sources_and_the_optional_group() -> None:
    text = rewrite(PYPROJECT, CU124, previous=())
    data = parse_toml(text)
    assert data["tool"]["poetry"]["source"] == [
        {
            "name": "pytorch-cu124",
            "url": "https://download.pytorch.org/whl/cu124",
            "priority": "explicit",
        }
    ]
    group = data["tool"]["poetry"]["group"]["poetry-cuda"]
    assert group["optional"] is True
    assert group["dependencies"]["torch"] == {
        "version": "*",
        "source": "pytorch-cu124",
        "markers": "sys_platform == 'linux' or sys_platform == 'win32'",
    }
    # Every byte outside the managed entries is kept.
    assert text.startswith(PYPROJECT.split("[tool.ruff]")[0].rstrip("\n"))
    assert "[tool.ruff]\nline-length = 88\n" in text


def test_rewriting_the_same_plan_changes_nothing() -> None:
    once = rewrite(PYPROJECT, CU124, previous=())
    assert rewrite(once, CU124, previous=("pytorch-cu124",)) == once


def test_switching_variant_replaces_only_managed_entries() -> None:
    once = rewrite(PYPROJECT, CU124, previous=())
    switched = rewrite(once, CU118, previous=("pytorch-cu124",))
    data = parse_toml(switched)
    assert [s["name"] for s in data["tool"]["poetry"]["source"]] == ["pytorch-cu118"]
    assert list(data["tool"]["poetry"]["group"]["poetry-cuda"]["dependencies"]) == ["torch"]
    back = rewrite(switched, CU124, previous=("pytorch-cu118",))
    assert parse_toml(back) == parse_toml(once)


def test_an_empty_plan_removes_the_managed_entries() -> None:
    once = rewrite(PYPROJECT, CU124, previous=())
    cleared = rewrite(once, Managed((), ()), previous=("pytorch-cu124",))
    assert parse_toml(cleared) == parse_toml(PYPROJECT)


def test_user_sources_are_kept() -> None:
    text = PYPROJECT + '\n[[tool.poetry.source]]\nname = "internal"\nurl = "https://pkg.example"\n'
    data = parse_toml(rewrite(text, CU124, previous=()))
    assert [s["name"] for s in data["tool"]["poetry"]["source"]] == ["internal", "pytorch-cu124"]


def test_a_foreign_source_with_our_name_is_a_conflict() -> None:
    text = PYPROJECT + (
        '\n[[tool.poetry.source]]\nname = "pytorch-cu124"\nurl = "https://other.example"\n'
    )
    with pytest.raises(ConfigError, match="already exists"):
        rewrite(text, CU124, previous=())


def test_a_user_source_for_a_managed_package_is_a_conflict() -> None:
    text = PYPROJECT.replace(
        "package-mode = false",
        'package-mode = false\n\n[tool.poetry.dependencies]\ntorch = {source = "mine"}',
    )
    with pytest.raises(ConfigError, match="source = 'mine'"):
        rewrite(text, CU124, previous=())


def test_the_managed_group_is_set_apart_from_the_table_after_it() -> None:
    text = rewrite(PYPROJECT, CU124, previous=())
    assert '"}\n\n[tool.ruff]' in text
    alone = rewrite('[project]\nname = "demo"\n', CU124, previous=())
    assert alone.endswith('"}\n')


def test_add_pins_adds_to_the_group_and_keeps_everything_else() -> None:
    text = rewrite(PYPROJECT, CU118, previous=())
    added = add_pins(text, [Pin("torchaudio", "pytorch-cu118"), Pin("torch", "elsewhere")])
    group = parse_toml(added)["tool"]["poetry"]["group"]["poetry-cuda"]["dependencies"]
    assert group["torchaudio"]["source"] == "pytorch-cu118"
    assert group["torch"]["source"] == "pytorch-cu118"  # an existing pin is not replaced
    assert (
        added.replace(
            'torchaudio = {version = "*", source = "pytorch-cu118", markers = '
            "\"sys_platform == 'linux' or sys_platform == 'win32'\"}\n",
            "",
        )
        == text
    )
    assert add_pins(PYPROJECT, [Pin("torchaudio", "pytorch-cu118")]) == PYPROJECT
