"""Every layout of pyproject.toml, every plan: `rewrite` refuses (exit 2) or writes valid TOML.

The layouts are the shapes TOML allows for the tables poetry-cuda edits (standard, inline,
dotted keys, inline arrays, values of the wrong type). Whatever the plan and whatever a
cuda.lock claims, the result parses, holds exactly the user's data besides the managed
entries, keeps each of the user's lines (extended only where an inline table or array gets
our entry), and rewriting it with the same plan changes nothing.
"""

from __future__ import annotations

import itertools
import re

from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.backends.poetry import editor as poetry_editor
from poetry_cuda.backends.uv import editor as uv_editor
from poetry_cuda.errors import ConfigError
from poetry_cuda.files import parse_toml
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.planning.managed import Managed
from poetry_cuda.planning.managed import Pin


if TYPE_CHECKING:
    from collections.abc import Callable


FAMILIES = load().families
CU124 = ("pytorch-cu124", "https://download.pytorch.org/whl/cu124")
CU118 = ("pytorch-cu118", "https://download.pytorch.org/whl/cu118")
PLANS = {
    "cu124": Managed((CU124,), (Pin("torch", CU124[0]), Pin("torchvision", CU124[0]))),
    "cu118": Managed((CU118,), (Pin("torch", CU118[0]),)),
    "nvcc-only": Managed((), (Pin("nvidia-cuda-nvcc-cu12", None, "==12.4.*"),)),
    "empty": Managed((), ()),
}
# What a cuda.lock may claim: nothing, our own source, the user's source, both.
PREVIOUS = {
    "none": (),
    "ours": (CU124[0],),
    "users": ("internal",),
    "both": (CU124[0], "internal"),
}
HEAD = '# kept\n[project]\nname = "demo"\ndependencies = ["torch==2.5.1"]\n'
OWN = '{ name = "internal", url = "https://pkg.example/simple" }'
OWN_TABLE = 'name = "internal"\nurl = "https://pkg.example/simple"\n'

POETRY_LAYOUTS = {
    "none": HEAD,
    "standard": HEAD + "\n[tool.poetry]\npackage-mode = false\n",
    "sources": HEAD + f"\n[[tool.poetry.source]]\n{OWN_TABLE}",
    "inline-sources": HEAD + f"\n[tool.poetry]\nsource = [{OWN}]  # mine\n",
    "multiline-sources": HEAD + f"\n[tool.poetry]\nsource = [\n    {OWN},\n]\n",
    "inline-tool": f"tool = {{ poetry = {{ source = [{OWN}] }} }}\n" + HEAD,
    "inline-poetry": HEAD + f"\n[tool]\npoetry = {{ source = [{OWN}] }}\n",
    "dotted": HEAD + f"\n[tool]\npoetry.source = [{OWN}]\n",
    "inline-group": HEAD + '\n[tool.poetry]\ngroup = { dev = { dependencies = { x = "*" } } }\n',
    "groups": HEAD + '\n[tool.poetry.group.dev.dependencies]\npytest = "*"\n\n[tool.ruff]\nx = 1\n',
    "string-dependencies": HEAD + '\n[tool.poetry.group.dev]\ndependencies = "pytest"\n',
    "own-group": HEAD + '\n[tool.poetry.group.poetry-cuda.dependencies]\ntorchaudio = "2.5.1"\n',
    "source-string": HEAD + '\n[tool.poetry]\nsource = "internal"\n',
    "later-tables": HEAD + "\n[tool.poetry]\nx = 1\n\n[tool.ruff]\ny = 2\n\n[tool.poetry.extras]\n",
}
UV_LAYOUTS = {
    "none": HEAD,
    "standard": HEAD + "\n[tool.uv]\npackage = false\n",
    "indexes": HEAD + f"\n[[tool.uv.index]]\n{OWN_TABLE}",
    "inline-indexes": HEAD + f"\n[tool.uv]\nindex = [{OWN}]  # mine\n",
    "inline-tool": f"tool = {{ uv = {{ index = [{OWN}] }} }}\n" + HEAD,
    "inline-uv": HEAD + f"\n[tool]\nuv = {{ index = [{OWN}] }}\n",
    "dotted": HEAD + f"\n[tool]\nuv.index = [{OWN}]\n",
    "inline-sources": HEAD + '\n[tool.uv]\nsources = { helper = { path = "../helper" } }\n',
    "inline-groups": 'dependency-groups = { dev = ["pytest"] }\n' + HEAD,
    "own-group": HEAD + '\n[dependency-groups]\npoetry-cuda = ["torchaudio==2.5.1"]\n',
    "index-string": HEAD + '\n[tool.uv]\nindex = "internal"\n',
    "dev-group": HEAD + '\n[dependency-groups]\ndev = ["pytest"]\n',
    "default-groups": HEAD + '\n[tool.uv]\ndefault-groups = ["docs"]  # mine\n\n'
    '[dependency-groups]\ndocs = ["sphinx"]\n',
    "multiline-default-groups": HEAD + '\n[tool.uv]\ndefault-groups = [\n    "docs",  # mine\n]\n\n'
    '[dependency-groups]\ndocs = ["sphinx"]\n',
    "default-groups-all": HEAD + '\n[tool.uv]\ndefault-groups = "all"\n',
    "default-groups-string": HEAD + '\n[tool.uv]\ndefault-groups = "dev"\n',
    "inline-default-groups": HEAD + '\n[tool]\nuv = { default-groups = ["dev"] }\n',
}
BACKENDS: dict[str, tuple[Callable[..., str], dict[str, str]]] = {
    "poetry": (poetry_editor.rewrite, POETRY_LAYOUTS),
    "uv": (uv_editor.rewrite, UV_LAYOUTS),
}
CASES = [
    (backend, layout, plan, previous)
    for backend, (_, layouts) in BACKENDS.items()
    for layout, plan, previous in itertools.product(layouts, PLANS, PREVIOUS)
]


def _user_data(text: str) -> Any:
    """`text`'s data without what poetry-cuda manages (and the empty tables that leaves)."""
    data = parse_toml(text)
    tool = data.get("tool", {})
    defaults = tool.get("uv", {}).get("default-groups")
    if uv_editor.DEFAULTS_COMMENT in text:  # the whole list is ours
        del tool["uv"]["default-groups"]
    elif isinstance(defaults, list) and "poetry-cuda" in defaults:
        defaults.remove("poetry-cuda")
    for table, key in (("poetry", "source"), ("uv", "index")):
        entries = tool.get(table, {}).get(key)
        if isinstance(entries, list):
            tool[table][key] = [e for e in entries if not e["name"].startswith("pytorch-")]
    if isinstance(tool.get("poetry", {}).get("group"), dict):
        tool["poetry"]["group"].pop("poetry-cuda", None)
    for package in ("torch", "torchvision"):
        tool.get("uv", {}).get("sources", {}).pop(package, None)
    data.get("dependency-groups", {}).pop("poetry-cuda", None)
    return _pruned(data)


def _pruned(value: Any) -> Any:
    if isinstance(value, dict):
        inner = {key: _pruned(item) for key, item in value.items()}
        return {key: item for key, item in inner.items() if item not in ({}, [])}
    return value


@pytest.mark.parametrize(("backend", "layout", "plan", "previous"), CASES)
def test_rewrite_refuses_or_writes_valid_toml_with_the_users_data_kept(
    backend: str, layout: str, plan: str, previous: str
) -> None:
    rewrite, layouts = BACKENDS[backend]
    text = layouts[layout]
    try:
        result = rewrite(text, PLANS[plan], PREVIOUS[previous], FAMILIES)
    except ConfigError as error:
        assert error.exit_code == 2 and error.fix, error
        return
    assert _user_data(result) == _user_data(text)
    # A user's line changes only where an inline table or array gets our entry appended:
    # some line of the result still starts with all it held before its closing brackets.
    lines = result.splitlines()
    for line in set(text.splitlines()) - set(lines):
        held = re.sub(r"[\]}\s]*(#.*)?$", "", line)
        assert held.strip() and any(new.startswith(held) for new in lines), (line, result)
    wanted = tuple(name for name, _ in PLANS[plan].sources)
    assert rewrite(result, PLANS[plan], wanted, FAMILIES) == result
