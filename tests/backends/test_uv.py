"""The uv backend's pure parts: the managed entries in pyproject.toml, uv.lock, the lookup of uv."""

from __future__ import annotations

import os
import sys

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.backends.base import LockedEntry
from poetry_cuda.backends.choice import choose
from poetry_cuda.backends.uv import editor as uv_editor
from poetry_cuda.backends.uv.manager import UvManager
from poetry_cuda.backends.uv.runner import UV_ENV
from poetry_cuda.backends.uv.runner import check_version
from poetry_cuda.backends.uv.runner import default_index
from poetry_cuda.backends.uv.runner import environment
from poetry_cuda.backends.uv.runner import find_uv
from poetry_cuda.backends.uv.runner import run_lock
from poetry_cuda.cli.registry import package_manager
from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import ResolutionError
from poetry_cuda.errors import UsageError
from poetry_cuda.files import parse_toml
from poetry_cuda.knowledge.packaged import load as load_knowledge
from poetry_cuda.planning.managed import CUDA_PLATFORMS
from poetry_cuda.planning.managed import Managed
from poetry_cuda.planning.managed import Pin
from poetry_cuda.planning.plan import PYPI
from poetry_cuda.planning.plan import Source


if TYPE_CHECKING:
    from collections.abc import Collection
    from pathlib import Path


FAMILIES = load_knowledge().families


def rewrite(text: str, managed: Managed, previous: Collection[str]) -> str:
    """The uv editor's rewrite, knowing the packaged families' own indexes."""
    return uv_editor.rewrite(text, managed, previous, FAMILIES)


PYPROJECT = """\
# A user's comment that must survive.
[project]
name = "demo"
version = "0.1.0"
requires-python = ">=3.11,<3.12"
dependencies = ["torch==2.5.1",   "torchvision==0.20.1"]  # odd spacing kept

[dependency-groups]
dev = ["pytest>=8"]

[tool.uv]
package = false

[[tool.uv.index]]
name = "corporate"
url = "https://pypi.corp.example/simple"
default = true

[tool.uv.sources]
helper = { path = "../helper" }

[tool.ruff]
line-length = 88
"""
CU124_URL = "https://download.pytorch.org/whl/cu124"
CU124 = Managed(
    sources=(("pytorch-cu124", CU124_URL),),
    pins=(Pin("torch", "pytorch-cu124"), Pin("torchvision", "pytorch-cu124")),
)
CU118 = Managed(
    sources=(("pytorch-cu118", "https://download.pytorch.org/whl/cu118"),),
    pins=(Pin("torch", "pytorch-cu118"),),
)
MANAGED_SOURCE = [{"index": "pytorch-cu124", "marker": CUDA_PLATFORMS}]


def test_writes_explicit_indexes_marked_sources_and_the_group() -> None:
    text = rewrite(PYPROJECT, CU124, previous=())
    data = parse_toml(text)
    uv = data["tool"]["uv"]
    assert uv["index"][1] == {"name": "pytorch-cu124", "url": CU124_URL, "explicit": True}
    assert uv["sources"]["torch"] == MANAGED_SOURCE
    assert uv["sources"]["torchvision"] == MANAGED_SOURCE
    assert data["dependency-groups"]["poetry-cuda"] == [
        f"torch; {CUDA_PLATFORMS}",
        f"torchvision; {CUDA_PLATFORMS}",
    ]
    assert "# Managed by poetry-cuda" in text
    # Every user entry keeps its bytes.
    assert text.startswith(PYPROJECT.split("[dependency-groups]")[0])
    for kept in (
        'dev = ["pytest>=8"]\n',
        (
            '[[tool.uv.index]]\nname = "corporate"\nurl = "https://pypi.corp.example/simple"\n'
            "default = true\n"
        ),
        'helper = { path = "../helper" }\n',
        "[tool.ruff]\nline-length = 88\n",
    ):
        assert kept in text


def test_a_pypi_pin_goes_in_the_group_without_a_source() -> None:
    managed = Managed(CU124.sources, (*CU124.pins, Pin("nvidia-cuda-nvcc-cu12", None, "==12.4.*")))
    data = parse_toml(rewrite(PYPROJECT, managed, previous=()))
    assert "nvidia-cuda-nvcc-cu12" not in data["tool"]["uv"]["sources"]
    assert data["dependency-groups"]["poetry-cuda"][-1] == (
        f"nvidia-cuda-nvcc-cu12==12.4.*; {CUDA_PLATFORMS}"
    )


def test_a_bounded_pin_carries_its_version_in_the_group() -> None:
    managed = Managed(CU124.sources, (Pin("torch", "pytorch-cu124", "<2.7.0"),))
    data = parse_toml(rewrite(PYPROJECT, managed, previous=()))
    assert data["tool"]["uv"]["sources"]["torch"] == MANAGED_SOURCE
    assert data["dependency-groups"]["poetry-cuda"] == [f"torch<2.7.0; {CUDA_PLATFORMS}"]


def test_a_project_without_uv_tables_gets_them() -> None:
    plain = '[project]\nname = "demo"\nversion = "0.1.0"\n\n[tool.ruff]\nline-length = 88\n'
    text = rewrite(plain, CU124, previous=())
    assert text.startswith(plain)
    assert "\n[[tool.uv.index]]\n" in text
    assert "\n[tool.uv.sources]\n" in text
    assert parse_toml(text)["tool"]["uv"]["sources"]["torch"] == MANAGED_SOURCE
    assert rewrite(text, Managed((), ()), previous=("pytorch-cu124",)) == plain


def test_rewriting_the_same_plan_changes_nothing() -> None:
    once = rewrite(PYPROJECT, CU124, previous=())
    assert rewrite(once, CU124, previous=("pytorch-cu124",)) == once
    assert rewrite(PYPROJECT, Managed((), ()), previous=()) == PYPROJECT


def test_switching_variant_replaces_only_managed_entries() -> None:
    once = rewrite(PYPROJECT, CU124, previous=())
    switched = rewrite(once, CU118, previous=("pytorch-cu124",))
    data = parse_toml(switched)
    assert [i["name"] for i in data["tool"]["uv"]["index"]] == ["corporate", "pytorch-cu118"]
    assert set(data["tool"]["uv"]["sources"]) == {"helper", "torch"}
    assert data["dependency-groups"] == {
        "dev": ["pytest>=8"],
        "poetry-cuda": [f"torch; {CUDA_PLATFORMS}"],
    }
    assert rewrite(switched, CU124, previous=("pytorch-cu118",)) == once


def test_an_empty_plan_removes_every_managed_entry() -> None:
    once = rewrite(PYPROJECT, CU124, previous=())
    assert rewrite(once, Managed((), ()), previous=("pytorch-cu124",)) == PYPROJECT


def test_an_explicit_index_of_the_same_name_and_url_is_adopted() -> None:
    own = (
        PYPROJECT
        + f'\n[[tool.uv.index]]\nname = "pytorch-cu124"\nurl = "{CU124_URL}"\nexplicit = true\n'
    )
    text = rewrite(own, CU124, previous=())
    assert [i["name"] for i in parse_toml(text)["tool"]["uv"]["index"]] == [
        "corporate",
        "pytorch-cu124",
    ]


@pytest.mark.parametrize(
    "entry",
    [
        'name = "pytorch-cu124"\nurl = "https://mirror.example/cu124"\nexplicit = true\n',
        f'name = "pytorch-cu124"\nurl = "{CU124_URL}"\n',
    ],
)
def test_a_user_index_of_a_managed_name_is_a_conflict(entry: str) -> None:
    own = PYPROJECT + f"\n[[tool.uv.index]]\n{entry}"
    with pytest.raises(ConfigError) as raised:
        rewrite(own, CU124, previous=())
    assert "'pytorch-cu124'" in raised.value.what
    assert CU124_URL in raised.value.why


@pytest.mark.parametrize(
    "source",
    [
        '{ index = "corporate" }',
        '[{ index = "pytorch-cu124" }]',  # a managed index, but on every platform
        '{ url = "https://example.org/torch-2.5.1-cp311-cp311-linux_x86_64.whl" }',
    ],
)
def test_a_user_source_for_a_managed_package_is_a_conflict(source: str) -> None:
    own = PYPROJECT.replace('helper = { path = "../helper" }', f"Torch = {source}")
    with pytest.raises(ConfigError) as raised:
        rewrite(own, CU124, previous=())
    assert raised.value.exit_code == 2
    assert f"Torch = {source}" in raised.value.what
    assert "'pytorch-cu124'" in raised.value.what


def test_a_source_an_earlier_lock_wrote_is_replaced() -> None:
    once = rewrite(PYPROJECT, CU124, previous=())
    text = rewrite(once, CU124, previous=("pytorch-cu124",))
    assert parse_toml(text)["tool"]["uv"]["sources"]["torch"] == MANAGED_SOURCE


def test_locked_reads_uv_lock_entries(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "uv.lock").write_text(
        f"""\
version = 1
requires-python = "==3.11.*"

[[package]]
name = "torch"
version = "2.5.1+cu124"
source = {{ registry = "{CU124_URL}" }}
dependencies = [
    {{ name = "filelock" }},
    {{ name = "nvidia-cuda-runtime-cu12", marker = "platform_machine == 'x86_64'" }},
]
wheels = [
    {{ url = "{CU124_URL}/torch/torch-2.5.1%2Bcu124-cp311-cp311-linux_x86_64.whl", hash = "sha256:00" }},
]

[[package]]
name = "torch"
version = "2.5.1"
source = {{ registry = "https://pypi.corp.example/simple" }}
sdist = {{ url = "https://pypi.corp.example/files/torch-2.5.1.tar.gz", hash = "sha256:00" }}

[[package]]
name = "torchvision"
version = "0.20.1"
source = {{ registry = "https://pypi.org/simple" }}
dependencies = [{{ name = "torch", version = "2.5.1+cu124", source = {{ registry = "{CU124_URL}" }} }}]
"""
    )
    backend = UvManager()
    cuda, default = backend.locked(tmp_path, "Torch")
    assert cuda == LockedEntry(
        version="2.5.1+cu124",
        source_name=None,
        source_url=CU124_URL,
        files=("torch-2.5.1+cu124-cp311-cp311-linux_x86_64.whl",),
        dependencies=(("filelock", "*"), ("nvidia-cuda-runtime-cu12", "*")),
    )
    assert cuda.is_from(Source("pytorch-cu124", CU124_URL + "/"))
    assert not cuda.is_from(PYPI)
    # The project's default index stands in for PyPI, as does PyPI itself.
    assert default.source_url is None and default.is_from(PYPI)
    assert default.files == ("torch-2.5.1.tar.gz",)
    [vision] = backend.locked(tmp_path, "torchvision")
    assert vision.is_from(PYPI)
    assert vision.dependencies == (("torch", "==2.5.1+cu124"),)
    assert backend.locked(tmp_path, "numpy") == []
    assert backend.locked(tmp_path / "missing", "torch") == []


def test_default_index_comes_from_the_project_then_the_environment() -> None:
    data = parse_toml(PYPROJECT)
    assert default_index(data, {}) == "https://pypi.corp.example/simple"
    assert default_index({}, {"UV_DEFAULT_INDEX": "https://m.example/simple"}) == (
        "https://m.example/simple"
    )
    assert default_index({}, {}) is None


def test_environment_is_the_project_venv_or_uv_project_environment(tmp_path: Path) -> None:
    assert environment(tmp_path, {}) is None
    (tmp_path / ".venv").mkdir()
    assert environment(tmp_path, {}) == tmp_path / ".venv"
    (tmp_path / "envs" / "cuda").mkdir(parents=True)
    assert environment(tmp_path, {"UV_PROJECT_ENVIRONMENT": "envs/cuda"}) == (
        tmp_path / "envs" / "cuda"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert environment(tmp_path / "envs", {"UV_PROJECT_ENVIRONMENT": str(elsewhere)}) == elsewhere
    # uv ignores an active virtual environment for project commands.
    assert environment(tmp_path, {"VIRTUAL_ENV": str(elsewhere)}) == tmp_path / ".venv"


def test_auto_chooses_uv_for_uv_projects(tmp_path: Path) -> None:
    assert choose("auto", tmp_path, parse_toml(PYPROJECT)) == "uv"
    assert choose("auto", tmp_path, {}) == "poetry"
    (tmp_path / "uv.lock").write_text("version = 1\n")
    assert choose("auto", tmp_path, {}) == "uv"
    assert package_manager("uv").lockfile == "uv.lock"


def fake_uv(folder: Path, version: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "uv"
    script.write_text(f"#!/bin/sh\necho 'uv {version}'\n")
    script.chmod(0o755)
    return script


@pytest.mark.skipif(os.name == "nt", reason="a shell-script uv")
def test_find_uv_honours_the_environment_variable(tmp_path: Path) -> None:
    script = fake_uv(tmp_path / "bin", "0.4.30")
    assert find_uv({UV_ENV: str(script)}) == str(script)
    with pytest.raises(UsageError) as raised:
        find_uv({UV_ENV: str(tmp_path / "nowhere" / "uv")})
    assert UV_ENV in raised.value.what


@pytest.mark.skipif(os.name == "nt", reason="a shell-script uv")
def test_find_uv_falls_back_to_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uv", None)  # no uv Python package: `import uv` fails
    script = fake_uv(tmp_path / "bin", "0.6.0")
    assert find_uv({"PATH": str(script.parent)}) == str(script)
    with pytest.raises(UsageError) as raised:
        find_uv({"PATH": str(tmp_path / "empty")})
    assert "uv is not installed" in raised.value.what
    assert UV_ENV in raised.value.fix


@pytest.mark.skipif(os.name == "nt", reason="a shell-script uv")
@pytest.mark.parametrize(
    ("printed", "ok"), [("0.4.30", False), ("0.5.0", True), ("0.13.9 (abc 2025-01-01)", True)]
)
def test_check_version_needs_uv_0_5(tmp_path: Path, printed: str, ok: bool) -> None:
    script = str(fake_uv(tmp_path, printed))
    if ok:
        assert check_version(script) >= (0, 5, 0)
        return
    with pytest.raises(UsageError) as raised:
        check_version(script)
    assert "uv 0.4.30" in raised.value.what and "0.5.0 or newer" in raised.value.what


@pytest.mark.skipif(os.name == "nt", reason="a shell-script uv")
def test_check_version_rejects_something_else(tmp_path: Path) -> None:
    script = tmp_path / "uv"
    script.write_text("#!/bin/sh\necho 'not uv'\n")
    script.chmod(0o755)
    with pytest.raises(UsageError) as raised:
        check_version(str(script))
    assert "not a uv version" in raised.value.what


def test_entries_of_an_earlier_lock_are_ours_without_cuda_lock() -> None:
    # cuda.lock (which names the managed indexes) was deleted: the sources of the packages in
    # our group are still recognised as ours, and the group itself is ours by name.
    once = rewrite(PYPROJECT, CU124, previous=())
    mirror = Managed(
        (("pytorch-cu124-mirror", "https://mirror.example/cu124"),),
        (Pin("torch", "pytorch-cu124-mirror"),),
    )
    data = parse_toml(rewrite(once, mirror, previous=()))
    assert data["tool"]["uv"]["sources"]["torch"] == [
        {"index": "pytorch-cu124-mirror", "marker": CUDA_PLATFORMS}
    ]
    assert data["dependency-groups"]["poetry-cuda"] == [f"torch; {CUDA_PLATFORMS}"]


OWN_INDEX = '\n[[tool.uv.index]]\nname = "internal"\nurl = "https://pkg.example/simple"\n'


@pytest.mark.parametrize("explicit", ["explicit = true\n", ""])
def test_an_index_cuda_lock_names_is_never_deleted_unless_it_is_ours(explicit: str) -> None:
    """A committed cuda.lock listing the user's own index (here their default PyPI mirror)."""
    for text, name in ((PYPROJECT + OWN_INDEX + explicit, "internal"), (PYPROJECT, "corporate")):
        for managed in (CU124, Managed((), ())):
            with pytest.raises(ConfigError) as raised:
                rewrite(text, managed, previous=(name,))
            assert f"'{name}'" in raised.value.what and "cuda.lock" in raised.value.what


def test_a_user_source_on_an_index_cuda_lock_names_is_kept() -> None:
    """Shaped as poetry-cuda writes its sources, on an index of the user's (set in uv.toml)."""
    own = PYPROJECT.replace(
        'helper = { path = "../helper" }',
        f'helper = [{{ index = "internal", marker = "{CUDA_PLATFORMS}" }}]',
    )
    for managed in (CU124, Managed((), ())):
        data = parse_toml(rewrite(own, managed, previous=("internal",)))
        assert data["tool"]["uv"]["sources"]["helper"] == [
            {"index": "internal", "marker": CUDA_PLATFORMS}
        ]
    assert rewrite(own, Managed((), ()), previous=("internal",)) == own


@pytest.mark.parametrize("plan", [CU124, Managed((), ())], ids=["plan", "empty-plan"])
def test_a_dependency_group_of_our_name_without_the_marker_is_a_conflict(plan: Managed) -> None:
    own = PYPROJECT.replace(
        'dev = ["pytest>=8"]', 'dev = ["pytest>=8"]\npoetry-cuda = ["torchaudio==2.5.1"]'
    )
    with pytest.raises(ConfigError) as raised:
        rewrite(own, plan, previous=("pytorch-cu124",))
    assert "poetry-cuda" in raised.value.what and "Managed by poetry-cuda" in raised.value.what


INLINE_INDEXES = PYPROJECT.replace(
    '\n[[tool.uv.index]]\nname = "corporate"\nurl = "https://pypi.corp.example/simple"\n'
    "default = true\n",
    "",
).replace(
    "package = false\n",
    "package = false\nindex = [\n"
    '    { name = "mine", url = "https://pkg.example/simple" },  # kept\n'
    '    { name = "corporate", url = "https://pypi.corp.example/simple", default = true },\n'
    "]\n",
)


def test_an_inline_index_array_gets_inline_entries() -> None:
    text = rewrite(INLINE_INDEXES, CU124, previous=())
    indexes = parse_toml(text)["tool"]["uv"]["index"]
    assert indexes[-1] == {"name": "pytorch-cu124", "url": CU124_URL, "explicit": True}
    assert [i["name"] for i in indexes] == ["mine", "corporate", "pytorch-cu124"]
    assert '"https://pkg.example/simple" },  # kept\n' in text
    assert rewrite(text, CU124, previous=("pytorch-cu124",)) == text
    switched = rewrite(text, CU118, previous=("pytorch-cu124",))
    assert [i["name"] for i in parse_toml(switched)["tool"]["uv"]["index"]] == [
        "mine",
        "corporate",
        "pytorch-cu118",
    ]
    cleared = rewrite(switched, Managed((), ()), previous=("pytorch-cu118",))
    assert parse_toml(cleared) == parse_toml(INLINE_INDEXES)


def test_an_inline_dependency_groups_table_gets_the_group_inside() -> None:
    own = PYPROJECT.replace('[dependency-groups]\ndev = ["pytest>=8"]\n', "").replace(
        "[project]\n", 'dependency-groups = { dev = ["pytest>=8"] }\n\n[project]\n'
    )
    text = rewrite(own, CU124, previous=())
    groups = parse_toml(text)["dependency-groups"]
    assert groups["dev"] == ["pytest>=8"]
    assert groups["poetry-cuda"] == [f"torch; {CUDA_PLATFORMS}", f"torchvision; {CUDA_PLATFORMS}"]
    assert rewrite(text, CU124, previous=("pytorch-cu124",)) == text
    assert parse_toml(rewrite(text, Managed((), ()), previous=("pytorch-cu124",))) == parse_toml(
        own
    )


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('tool = { uv = { package = false } }\n[project]\nname = "x"\n', "inline"),
        ('[project]\nname = "x"\n\n[tool]\nuv = { package = false }\n', "inline"),
        ("[tool]\nuv.package = false\n", "another table"),
        ('[tool.uv]\nindex = "internal"\n', "array of tables"),
        ("[tool.uv]\nsources = 1\n", "tool.uv.sources must be a table"),
        ('dependency-groups = "dev"\n', "dependency-groups must be a table"),
    ],
    ids=[
        "inline-tool",
        "inline-tool-uv",
        "dotted-keys",
        "index-string",
        "sources-integer",
        "groups-string",
    ],
)
def test_a_layout_that_cannot_be_edited_faithfully_is_refused(text: str, says: str) -> None:
    with pytest.raises(ConfigError) as raised:
        rewrite(text, CU124, previous=())
    assert raised.value.exit_code == 2
    assert says in raised.value.render()
    assert raised.value.fix


NOT_UTF8 = "printf 'caf\\351 \\377\\376 broken\\n' >&2"


@pytest.mark.skipif(os.name == "nt", reason="a shell-script uv")
def test_a_uv_that_prints_no_utf8_fails_with_its_message(tmp_path: Path) -> None:
    script = tmp_path / "uv"
    script.write_text(
        '#!/bin/sh\nif [ "$1" = --version ]; then echo "uv 0.6.0"; exit 0; fi\n'
        f"{NOT_UTF8}\nexit 2\n"
    )
    script.chmod(0o755)
    with pytest.raises(ResolutionError) as raised:
        run_lock(str(script), tmp_path, regenerate=False)
    assert "caf\ufffd \ufffd\ufffd broken" in raised.value.what

    script.write_text(f"#!/bin/sh\n{NOT_UTF8}\nexit 1\n")
    with pytest.raises(UsageError) as version:
        check_version(str(script))
    assert "not a uv version" in version.value.what


def test_a_layout_without_our_entries_is_left_alone() -> None:
    text = (
        '[project]\nname = "x"\n\n[tool]\nuv = { sources = { helper = { path = "../helper" } } }\n'
    )
    assert rewrite(text, Managed((), ()), previous=("pytorch-cu124",)) == text


DEFAULTS = """\
default-groups = [
    # Managed by poetry-cuda: `poetry-cuda lock` rewrites this list.
{}]
"""


def test_the_group_joins_uvs_default_groups_so_plain_uv_sync_installs_it() -> None:
    text = rewrite(PYPROJECT, CU124, previous=())
    # uv's own default, ["dev"], stays: the project defines a dev group.
    assert "[tool.uv]\npackage = false\n" + DEFAULTS.format('    "dev",\n    "poetry-cuda",\n') in (
        text
    )
    assert rewrite(text, CU124, previous=("pytorch-cu124",)) == text
    assert rewrite(text, Managed((), ()), previous=("pytorch-cu124",)) == PYPROJECT


def test_without_a_dev_group_the_list_names_only_ours() -> None:
    plain = '[project]\nname = "demo"\nversion = "0.1.0"\n'
    text = rewrite(plain, CU124, previous=())
    assert text.startswith(plain + "\n[tool.uv]\n" + DEFAULTS.format('    "poetry-cuda",\n') + "\n")
    assert rewrite(text, Managed((), ()), previous=("pytorch-cu124",)) == plain
    # A dev group added later is installed by default again: the list follows it.
    with_dev = text + "\n[dependency-groups.dev]\n"
    with_dev = text.replace("[dependency-groups]\n", '[dependency-groups]\ndev = ["pytest"]\n')
    again = rewrite(with_dev, CU124, previous=("pytorch-cu124",))
    assert parse_toml(again)["tool"]["uv"]["default-groups"] == ["dev", "poetry-cuda"]


@pytest.mark.parametrize(
    ("written", "with_ours", "without"),
    [
        (
            'default-groups = ["docs"]  # mine',
            'default-groups = ["docs", "poetry-cuda"]  # mine',
            'default-groups = ["docs"]  # mine',
        ),
        # The entry names the managed group: it goes with the group, whoever wrote it.
        (
            'default-groups = ["docs", "poetry-cuda"]',
            'default-groups = ["docs", "poetry-cuda"]',
            'default-groups = ["docs"]',
        ),
        ('default-groups = "all"', 'default-groups = "all"', 'default-groups = "all"'),
    ],
    ids=["list", "listed-already", "all"],
)
def test_a_users_default_groups_gain_only_our_entry(
    written: str, with_ours: str, without: str
) -> None:
    project = PYPROJECT.replace("package = false\n", f"package = false\n{written}\n")
    project = project.replace('dev = ["pytest>=8"]\n', 'dev = ["pytest>=8"]\ndocs = ["sphinx"]\n')
    text = rewrite(project, CU124, previous=())
    assert f"package = false\n{with_ours}\n\n[[tool.uv.index]]" in text
    assert "rewrites this list" not in text
    assert rewrite(text, CU124, previous=("pytorch-cu124",)) == text
    emptied = rewrite(text, Managed((), ()), previous=("pytorch-cu124",))
    assert emptied == project.replace(written, without)


def test_default_groups_that_are_no_list_are_refused() -> None:
    project = PYPROJECT.replace("package = false\n", 'package = false\ndefault-groups = "dev"\n')
    with pytest.raises(ConfigError, match=r'default-groups must be a list of group names or "all"'):
        rewrite(project, CU124, previous=())
