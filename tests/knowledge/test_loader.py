"""The loader: reading the packaged data, and one clear error per kind of broken row."""

from __future__ import annotations

import shutil
import sys

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import InputFileError
from poetry_cuda.files import parse_toml
from poetry_cuda.files import parse_with_tomlkit
from poetry_cuda.knowledge.model import LeadRange
from poetry_cuda.knowledge.packaged import DATA
from poetry_cuda.knowledge.packaged import load
from poetry_cuda.knowledge.packaged import load_directory
from poetry_cuda.knowledge.tables import BASE_IMAGES_FILE
from poetry_cuda.knowledge.tables import MIRRORS_FILE
from poetry_cuda.knowledge.tables import REDIST_COMPONENTS_FILE
from poetry_cuda.knowledge.tables import TOOLKIT_WHEELS_FILE
from poetry_cuda.versions import CudaVersion


if TYPE_CHECKING:
    from pathlib import Path


NVIDIA = """\
schema = 1

[[toolkit]]
cuda = "12.4"
linux = "550.54.14"
windows = "551.61"
source = "release notes"
confidence = "verified"

[[floor]]
major = 12
linux = "525.60.13"
windows = "528.33"
source = "compatibility guide"
confidence = "verified"

[[arch]]
major = 12
oldest = "5.0"
source = "release notes"
confidence = "verified"
"""

FIXED = """\
schema = 1

[[flavour]]
package = "cupy-cuda12x"
versions = ">=0"
cuda = ">=12.0,<13"
oldest_arch = "5.0"
source = "cupy docs"
confidence = "verified"

[[flavour.requirement]]
kind = "cuda-runtime"
spec = ">=12.0,<13"
reason = "loads the toolkit's libraries"
satisfy = "install the toolkit"

[[nvcc]]
package = "flash-attn"
spec = ""
reason = "compiles kernels"
satisfy = "install a toolkit"
source = "setup.py"
confidence = "third-party"
"""

TORCH = """\
schema = 1

[family]
name = "torch"
lead = "torch"
members = ["torch", "torchvision"]
mechanism = "index"
version_form = "local"
index = "https://download.example/whl/{variant}"
mirror_key = "pytorch"
source_prefix = "pytorch"
source = "release matrix"
confidence = "verified"

[[release]]
series = "2.5"
source = "build matrix"
confidence = "verified"
pairs = [{torch = "2.5.1", torchvision = "0.20.1"}]
pypi = {linux-x86_64 = "cu124", windows-x86_64 = "cpu"}

[[release.variant]]
name = "cpu"
platforms = ["linux-x86_64", "windows-x86_64"]

[[release.variant]]
name = "cu124"
cuda = "12.4"
sass = ["5.0", "8.0", "9.0"]
platforms = ["linux-x86_64", "windows-x86_64"]

[[release.variant.build]]
platform = "windows-x86_64"
sass = ["8.0", "9.0"]
"""


def write_minimal(directory: Path) -> Path:
    """A data folder of one family, with the packaged copies of the tables beside them."""
    for name, text in (("nvidia.toml", NVIDIA), ("fixed.toml", FIXED), ("torch.toml", TORCH)):
        (directory / name).write_text(text)
    for name in (MIRRORS_FILE, TOOLKIT_WHEELS_FILE, REDIST_COMPONENTS_FILE, BASE_IMAGES_FILE):
        shutil.copyfile(DATA / name, directory / name)
    return directory


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return write_minimal(tmp_path)


def edit(directory: Path, name: str, old: str, new: str) -> None:
    path = directory / name
    text = path.read_text()
    assert old in text, f"{old!r} not in {name}"
    path.write_text(text.replace(old, new, 1))


def test_a_minimal_directory_loads(data: Path) -> None:
    kb = load_directory(data)
    (torch,) = kb.families
    (release,) = torch.releases
    assert release.pairs == ({"torch": "2.5.1", "torchvision": "0.20.1"},)
    cu124 = release.variant("cu124")
    assert cu124 is not None
    assert cu124.cuda == CudaVersion(12, 4)
    # Nested rows inherit the source and confidence of their parent.
    assert (cu124.source, cu124.confidence) == ("build matrix", "verified")
    assert cu124.platform_arches[0].source == "build matrix"
    (flavour,) = kb.fixed
    assert flavour.requirements[0].source == "cupy docs"
    assert kb.builds_with_nvcc[0][1].kind == "nvcc"
    assert kb.builds_with_nvcc[0][1].confidence == "third-party"


def test_companions_say_whether_the_index_labels_them(data: Path) -> None:
    edit(
        data,
        "torch.toml",
        'confidence = "verified"\n\n[[release]]',
        'confidence = "verified"\n\n[[family.companion]]\nname = "triton"\nlabelled = false\n'
        'source = "wheel names"\n\n[[release]]',
    )
    (torch,) = load_directory(data).families
    assert torch.companions == ("triton",)
    # The row inherits the family's confidence; members always carry the label.
    assert (torch.companion_rows[0].source, torch.companion_rows[0].confidence) == (
        "wheel names",
        "verified",
    )
    assert not torch.labels("triton")
    assert torch.labels("torchvision")


def test_a_member_may_serve_a_range_of_lead_versions(data: Path) -> None:
    edit(
        data,
        "torch.toml",
        'torchvision = "0.20.1"}',
        'torchvision = {version = "0.20.1", requires = ">=2.5.0"}}',
    )
    (release,) = load_directory(data).families[0].releases
    # The pair keeps the version; the range sits beside it.
    assert release.pairs == ({"torch": "2.5.1", "torchvision": "0.20.1"},)
    assert release.ranges == (LeadRange("torchvision", "0.20.1", ">=2.5.0"),)


def test_the_lead_is_put_first_in_every_pair(data: Path) -> None:
    edit(
        data,
        "torch.toml",
        '{torch = "2.5.1", torchvision = "0.20.1"}',
        '{torchvision = "0.20.1", torch = "2.5.1"}',
    )
    (release,) = load_directory(data).families[0].releases
    assert release.versions == ("2.5.1",)


# The file to break, the text to replace and its replacement; then the file and key the
# message must name, and what it must say.
# fmt: off
BROKEN = [
    ('torch.toml', 'series = "2.5"\n', 'series = "2.5"\ncolour = "red"\n',
     'torch.toml: release[2.5].colour', 'unknown key'),
    ('torch.toml', 'mirror_key = "pytorch"\n', 'mirror_key = "pytorch"\nlogo = 1\n',
     'torch.toml: family.logo', 'unknown key'),
    ('nvidia.toml', 'linux = "550.54.14"', 'linux = "550.x"',
     'nvidia.toml: toolkit[12.4].linux', 'not a driver version'),
    ('nvidia.toml', 'cuda = "12.4"', 'cuda = "twelve"',
     'nvidia.toml: toolkit[twelve].cuda', 'not a CUDA version'),
    ('nvidia.toml', 'source = "release notes"\nconfidence = "verified"\n\n[[floor]]', 'confidence = "verified"\n\n[[floor]]',
     'nvidia.toml: toolkit[12.4].source', 'missing'),
    ('nvidia.toml', 'oldest = "5.0"', 'oldest = "sm5"',
     'nvidia.toml: arch[12].oldest', 'not a compute capability'),
    ('nvidia.toml', 'major = 12\nlinux', 'major = "12"\nlinux',
     'nvidia.toml: floor[12].major', 'expected a CUDA major version'),
    ('torch.toml', '"5.0", "8.0"', '"5.0", "8.x"',
     'torch.toml: release[2.5].variant[cu124].sass[1]', 'not a compute capability'),
    ('torch.toml', 'sass = ["5.0", "8.0", "9.0"]', 'sass = "8.0"',
     'torch.toml: release[2.5].variant[cu124].sass', 'expected a list of strings'),
    ('torch.toml', 'cuda = "12.4"\nsass', 'cuda = "12.4"\nconfidence = "uncertain"\nsass',
     'torch.toml: release[2.5].variant[cu124].note', 'uncertain row needs a note'),
    ('torch.toml', 'confidence = "verified"\npairs', 'confidence = "sure"\npairs',
     'torch.toml: release[2.5].confidence', 'not one of verified'),
    ('torch.toml', 'linux-x86_64 = "cu124"', 'linux-x86_64 = "cu121"',
     'torch.toml: release[2.5].pypi.linux-x86_64', 'not a variant of 2.5'),
    ('torch.toml', 'windows-x86_64 = "cpu"}', 'win64 = "cpu"}',
     'torch.toml: release[2.5].pypi.win64', 'not one of'),
    ('torch.toml', 'torchvision = "0.20.1"}', 'torchtext = "0.18.0"}',
     'torch.toml: release[2.5].pairs[0].torchtext', 'not a member (torch, torchvision)'),
    ('torch.toml', '{torch = "2.5.1",', '{torch = "2.5.x",',
     'torch.toml: release[2.5].pairs[0].torch', 'Invalid version'),
    ('torch.toml', '{torch = "2.5.1", ', '{',
     'torch.toml: release[2.5].pairs[0]', 'naming the lead package torch'),
    ('torch.toml', 'torchvision = "0.20.1"}', 'torchvision = {version = "0.20.1", requires = ">=2.x"}}',
     'torch.toml: release[2.5].pairs[0].torchvision.requires', 'Invalid specifier'),
    ('torch.toml', 'torchvision = "0.20.1"}', 'torchvision = {version = "0.20", requires = ">=2.5", abi = 3}}',
     'torch.toml: release[2.5].pairs[0].torchvision.abi', 'unknown key'),
    ('torch.toml', 'torchvision = "0.20.1"}', 'torchvision = {requires = ">=2.5"}}',
     'torch.toml: release[2.5].pairs[0].torchvision.version', 'missing'),
    ('torch.toml', 'torchvision = "0.20.1"}', 'torchvision = {version = "0.20.x", requires = ">=2.5"}}',
     'torch.toml: release[2.5].pairs[0].torchvision.version', 'Invalid version'),
    ('torch.toml', 'torchvision = "0.20.1"}', 'torchvision = {version = "0.20.1", requires = ">=2.6"}}',
     'torch.toml: release[2.5].pairs[0].torchvision.requires', 'leaves out the torch 2.5.1 it is paired with'),
    ('torch.toml', 'torchvision = "0.20.1"}', 'torchvision = 20}',
     'torch.toml: release[2.5].pairs[0].torchvision', 'expected a version string or {version, requires}'),
    ('torch.toml', '{torch = "2.5.1",', '{torch = {version = "2.5.1", requires = ">=2"},',
     'torch.toml: release[2.5].pairs[0].torch', 'the lead has no range'),
    ('torch.toml', 'series = "2.5"', 'series = "2.five"',
     'torch.toml: release[2.five].series', 'not a release series'),
    ('torch.toml', 'platform = "windows-x86_64"', 'platform = "linux-aarch64"',
     'torch.toml: release[2.5].variant[cu124].build[linux-aarch64].platform', "not among the variant's platforms"),
    ('torch.toml', 'platforms = ["linux-x86_64", "windows-x86_64"]\n\n[[release.variant]]', 'platforms = ["linux-arm"]\n\n[[release.variant]]',
     'torch.toml: release[2.5].variant[cpu].platforms[0]', 'not one of linux-x86_64'),
    ('torch.toml', 'index = "https://download.example/whl/{variant}"', 'index = "http://download.example/whl"',
     'torch.toml: family.index', "https URL containing '{variant}'"),
    ('torch.toml', 'members = ["torch", "torchvision"]', 'members = ["torchvision"]',
     'torch.toml: family.members', 'must include the lead package torch'),
    ('torch.toml', 'confidence = "verified"\n\n[[release]]', 'confidence = "verified"\n\n[[family.companion]]\nname = "triton"\nsource = "wheel names"\n\n[[release]]',
     'torch.toml: family.companion[triton].labelled', 'missing'),
    ('torch.toml', 'confidence = "verified"\n\n[[release]]', 'confidence = "verified"\n\n[[family.companion]]\nname = "torchvision"\nlabelled = false\n\n[[release]]',
     'torch.toml: family.companion[torchvision].name', 'already a member or a companion'),
    ('torch.toml', 'confidence = "verified"\n\n[[release]]', 'confidence = "verified"\ncompanions = ["triton"]\n\n[[release]]',
     'torch.toml: family.companions', 'unknown key'),
    ('torch.toml', 'mechanism = "index"', 'mechanism = "magic"',
     'torch.toml: family.mechanism', "'magic' is not one of index, fixed"),
    ('torch.toml', 'schema = 1', 'schema = 2',
     'torch.toml: schema', 'reads schema 1'),
    ('torch.toml', 'series = "2.5"', 'series = [',
     'torch.toml: not valid TOML', ''),
    ('fixed.toml', 'versions = ">=0"', 'versions = "2.x"',
     'fixed.toml: flavour[cupy-cuda12x].versions', 'Invalid specifier'),
    ('fixed.toml', 'spec = ">=12.0,<13"', 'spec = "twelve"',
     'fixed.toml: flavour[cupy-cuda12x].requirement[cuda-runtime].spec', 'Invalid specifier'),
    ('fixed.toml', 'kind = "cuda-runtime"', 'kind = "gpu"',
     'fixed.toml: flavour[cupy-cuda12x].requirement[gpu].kind', "'gpu' is not one of cuda-runtime"),
    ('fixed.toml', 'package = "flash-attn"', 'package = "Flash_Attn"',
     'fixed.toml: nvcc[Flash_Attn].package', 'not a normalized name'),
    ('fixed.toml', 'source = "setup.py"\n', '',
     'fixed.toml: nvcc[flash-attn].source', 'missing'),
    ('fixed.toml', 'satisfy = "install a toolkit"\n', 'satisfy = ""\n',
     'fixed.toml: nvcc[flash-attn].satisfy', 'must not be empty'),
]
# fmt: on


@pytest.mark.parametrize(("name", "old", "new", "where", "problem"), BROKEN)
def test_broken_data_names_the_file_and_key(
    data: Path, name: str, old: str, new: str, where: str, problem: str
) -> None:
    edit(data, name, old, new)
    with pytest.raises(InputFileError) as caught:
        load_directory(data)
    assert caught.value.exit_code == 2
    assert caught.value.what.startswith(where + ":"), caught.value.what
    assert problem in caught.value.what
    assert "Fix: correct" in caught.value.render()


def test_a_missing_data_file(data: Path) -> None:
    (data / "fixed.toml").unlink()
    with pytest.raises(InputFileError, match=r"fixed\.toml: cannot be read"):
        load_directory(data)


def test_every_toml_besides_nvidia_and_fixed_is_a_family(data: Path) -> None:
    other = TORCH.replace('name = "torch"', 'name = "other"').replace("pytorch", "other")
    (data / "other.toml").write_text(other)
    (data / "notes.txt").write_text("not data")
    assert [f.name for f in load_directory(data).families] == ["other", "torch"]


def test_load_is_cached() -> None:
    assert load() is load()


def test_tomlkit_reads_the_shipped_files_like_tomllib() -> None:
    # Python 3.10 has no tomllib: the tomlkit path must give the same data.
    for entry in DATA.iterdir():
        if entry.name.endswith(".toml"):
            text = entry.read_text(encoding="utf-8")
            assert parse_with_tomlkit(text) == parse_toml(text), entry.name


def test_tomllib_is_used_where_python_has_it() -> None:
    if sys.version_info >= (3, 11):
        import tomllib

        error: type[Exception] = tomllib.TOMLDecodeError
    else:
        import tomlkit.exceptions

        error = tomlkit.exceptions.ParseError
    with pytest.raises(error):
        parse_toml("key = ")
