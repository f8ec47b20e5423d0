"""The Poetry backend's editor: the sources and the group poetry-cuda writes in pyproject.toml."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.backends.poetry import editor as poetry_editor
from poetry_cuda.backends.poetry.editor import add_pins
from poetry_cuda.errors import ConfigError
from poetry_cuda.files import parse_toml
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.planning.managed import Managed
from poetry_cuda.planning.managed import Pin
from poetry_cuda.planning.managed import is_our_source


if TYPE_CHECKING:
    from collections.abc import Collection


FAMILIES = load().families


def rewrite(text: str, managed: Managed, previous: Collection[str]) -> str:
    """The Poetry editor's rewrite, knowing the packaged families' own sources."""
    return poetry_editor.rewrite(text, managed, previous, FAMILIES)


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


def test_writes_explicit_sources_and_a_group_plain_install_installs() -> None:
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
    assert "optional" not in group  # `poetry install` installs it without --with
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


MIRROR_URL = "https://mirror.example/whl/cu124"
MIRROR = next(f for f in FAMILIES if f.name == "torch").source_name(
    "cu124", MIRROR_URL, mirrored=True
)
OWN_SOURCE = '\n[[tool.poetry.source]]\nname = "internal"\nurl = "https://pkg.example/simple"\n'


@pytest.mark.parametrize(
    ("name", "url", "ours"),
    [
        ("pytorch-cu124", "https://download.pytorch.org/whl/cu124", True),
        ("paddle-cu118", "https://www.paddlepaddle.org.cn/packages/stable/cu118/", True),
        (MIRROR, MIRROR_URL, True),
        ("pytorch-cu124", "https://download.pytorch.org/whl/cu118", False),
        ("pytorch-cu124", MIRROR_URL, False),  # a mirror always carries its digest
        (MIRROR, "https://mirror.example/whl/cu124/", False),
        (MIRROR.replace("cu124", "cu118"), MIRROR_URL, False),
        ("internal", "https://pkg.example/simple", False),
        ("pytorch-", "https://download.pytorch.org/whl/", False),
        ("pytorch-cu124", None, False),
    ],
)
def test_a_source_is_ours_only_with_a_name_and_url_poetry_cuda_produces(
    name: str, url: str | None, ours: bool
) -> None:
    assert is_our_source(name, url, FAMILIES) is ours


@pytest.mark.parametrize("priority", ['priority = "explicit"\n', 'priority = "primary"\n'])
def test_a_source_cuda_lock_names_is_never_deleted_unless_it_is_ours(priority: str) -> None:
    """A committed cuda.lock listing the user's own source (here their PyPI mirror)."""
    text = PYPROJECT + OWN_SOURCE + priority
    for managed in (CU124, Managed((), ())):
        with pytest.raises(ConfigError) as raised:
            rewrite(text, managed, previous=("internal",))
        assert "'internal'" in raised.value.what and "cuda.lock" in raised.value.what
        assert "delete cuda.lock" in raised.value.fix


def test_our_name_with_another_url_is_not_ours_even_when_cuda_lock_says_so() -> None:
    text = PYPROJECT + (
        '\n[[tool.poetry.source]]\nname = "pytorch-cu124"\nurl = "https://other.example"\n'
        'priority = "explicit"\n'
    )
    with pytest.raises(ConfigError, match="already exists"):
        rewrite(text, CU124, previous=("pytorch-cu124",))
    with pytest.raises(ConfigError, match="not one poetry-cuda writes"):
        rewrite(text, CU118, previous=("pytorch-cu124",))


def test_an_earlier_release_s_mirror_source_is_adopted_and_dropped() -> None:
    """Entries written before this release carry no marker: their name and URL vouch for them."""
    mirrored = Managed(((MIRROR, MIRROR_URL),), (Pin("torch", MIRROR),))
    once = rewrite(PYPROJECT + OWN_SOURCE, mirrored, previous=())
    assert rewrite(once, mirrored, previous=()) == once
    assert rewrite(once, mirrored, previous=(MIRROR,)) == once
    switched = rewrite(once, CU118, previous=(MIRROR,))
    names = [s["name"] for s in parse_toml(switched)["tool"]["poetry"]["source"]]
    assert names == ["internal", "pytorch-cu118"]


@pytest.mark.parametrize("plan", [CU124, Managed((), ())], ids=["plan", "empty-plan"])
def test_a_group_of_our_name_without_the_marker_is_a_conflict(plan: Managed) -> None:
    text = PYPROJECT + (
        "\n[tool.poetry.group.poetry-cuda]\noptional = true\n\n"
        '[tool.poetry.group.poetry-cuda.dependencies]\ntorchaudio = "2.5.1"\n'
    )
    with pytest.raises(ConfigError) as raised:
        rewrite(text, plan, previous=())
    assert "[tool.poetry.group.poetry-cuda]" in raised.value.what
    assert "Managed by poetry-cuda" in raised.value.what
    assert add_pins(text, [Pin("torch", "pytorch-cu124")]) == text


INLINE_SOURCES = PYPROJECT.replace(
    "package-mode = false\n",
    "package-mode = false\n"
    "source = [\n"
    '    { name = "internal", url = "https://pkg.example/simple" },  # our PyPI mirror\n'
    "]\n",
)


def test_an_inline_source_array_gets_inline_entries() -> None:
    text = rewrite(INLINE_SOURCES, CU124, previous=())
    sources = parse_toml(text)["tool"]["poetry"]["source"]
    assert [s["name"] for s in sources] == ["internal", "pytorch-cu124"]
    assert sources[1] == {
        "name": "pytorch-cu124",
        "url": "https://download.pytorch.org/whl/cu124",
        "priority": "explicit",
    }
    assert '"https://pkg.example/simple" },  # our PyPI mirror\n' in text
    assert rewrite(text, CU124, previous=("pytorch-cu124",)) == text
    switched = rewrite(text, CU118, previous=("pytorch-cu124",))
    names = [s["name"] for s in parse_toml(switched)["tool"]["poetry"]["source"]]
    assert names == ["internal", "pytorch-cu118"]
    cleared = rewrite(switched, Managed((), ()), previous=("pytorch-cu118",))
    assert parse_toml(cleared) == parse_toml(INLINE_SOURCES)
    assert cleared.startswith(INLINE_SOURCES.split("]\n")[0])


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('tool = { poetry = { package-mode = false } }\n[project]\nname = "x"\n', "inline"),
        ('[project]\nname = "x"\n\n[tool]\npoetry = { package-mode = false }\n', "inline"),
        ("[tool.poetry]\ngroup = { dev = { dependencies = { pytest = '*' } } }\n", "inline"),
        ("[tool]\npoetry.package-mode = false\n", "another table"),
        ('[tool.poetry.group.dev]\ndependencies = "torch"\n', "dependencies must be a table"),
        ('[tool.poetry.group]\ndev = "torch"\n', "tool.poetry.group.dev must be a table"),
        ('[tool.poetry]\nsource = "internal"\n', "array of tables"),
        ('[tool.poetry]\nsource = ["internal"]\n', "array of tables"),
        ('tool = "poetry"\n', "tool must be a table"),
    ],
    ids=[
        "inline-tool",
        "inline-tool-poetry",
        "inline-group",
        "dotted-keys",
        "group-dependencies-string",
        "group-string",
        "source-string",
        "source-strings",
        "tool-string",
    ],
)
def test_a_layout_that_cannot_be_edited_faithfully_is_refused(text: str, says: str) -> None:
    with pytest.raises(ConfigError) as raised:
        rewrite(text, CU124, previous=())
    assert raised.value.exit_code == 2
    assert says in raised.value.render()
    assert raised.value.fix


def test_a_layout_without_our_entries_is_left_alone() -> None:
    text = 'tool = { poetry = { package-mode = false } }\n[project]\nname = "x"\n'
    assert rewrite(text, Managed((), ()), previous=("pytorch-cu124",)) == text


def test_a_bounded_pin_carries_its_version() -> None:
    managed = Managed(CU124.sources, (Pin("torch", "pytorch-cu124", "<2.7.0"),))
    group = parse_toml(rewrite(PYPROJECT, managed, previous=()))["tool"]["poetry"]["group"]
    assert group["poetry-cuda"]["dependencies"]["torch"] == {
        "version": "<2.7.0",
        "source": "pytorch-cu124",
        "markers": "sys_platform == 'linux' or sys_platform == 'win32'",
    }
