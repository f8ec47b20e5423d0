"""Poetry's configuration as poetry-cuda reads it before a lock: Poetry 1.x source settings."""

from __future__ import annotations

import pytest

from poetry_cuda.backends.poetry.rules import check_sources
from poetry_cuda.errors import ConfigError
from poetry_cuda.files import parse_toml


HEAD = '[project]\nname = "x"\nversion = "0"\n\n[tool.poetry]\npackage-mode = false\n\n'
SOURCE = '[[tool.poetry.source]]\nname = "pt"\nurl = "https://download.pytorch.org/whl/cu124"\n'


@pytest.mark.parametrize(
    ("setting", "says", "replacement"),
    [
        ("secondary = true", "secondary = true", '"supplemental"'),
        ("default = true", "default = true", '"primary"'),
        ('priority = "secondary"', "priority = 'secondary'", '"supplemental"'),
        ('priority = "default"', "priority = 'default'", '"primary"'),
    ],
)
def test_a_poetry_1_source_setting_is_named_with_its_replacement(
    setting: str, says: str, replacement: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        check_sources(parse_toml(HEAD + SOURCE + setting + "\n"))
    assert raised.value.exit_code == 2
    assert raised.value.what == f"[[tool.poetry.source]] 'pt': {says} is a Poetry 1.x setting"
    assert "Poetry 2 removed" in raised.value.why
    assert f"priority = {replacement}" in raised.value.fix


@pytest.mark.parametrize(
    "text",
    [
        HEAD + SOURCE + 'priority = "explicit"\n',
        HEAD + SOURCE,
        HEAD,
        'tool = "poetry"\n',
        '[tool]\npoetry = "x"\n',
        "[tool.poetry]\nsource = 1\n",
        "[tool.poetry]\nsource = [1, 2]\n",
    ],
    ids=["explicit", "no-priority", "no-source", "tool-string", "poetry-string", "int", "ints"],
)
def test_poetry_2_settings_and_other_layouts_pass(text: str) -> None:
    check_sources(parse_toml(text))  # other layouts are the editing layer's to judge
