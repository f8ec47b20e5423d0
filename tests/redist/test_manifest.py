"""Reading redistrib_<release>.json, choosing the release and the archives nvcc needs."""

from __future__ import annotations

import copy
import json

from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import InputFileError
from poetry_cuda.files import parse_toml
from poetry_cuda.knowledge.packaged import nvcc_parts
from poetry_cuda.knowledge.tables import REDIST_COMPONENTS_FILE
from poetry_cuda.knowledge.tables import validate_nvcc_parts
from poetry_cuda.redist import components
from poetry_cuda.redist.manifest import REDIST_PLATFORMS
from poetry_cuda.redist.manifest import check_component
from poetry_cuda.redist.manifest import check_platform
from poetry_cuda.redist.manifest import check_version
from poetry_cuda.redist.manifest import nvcc_archives
from poetry_cuda.redist.manifest import parse_manifest
from poetry_cuda.redist.manifest import read_manifest
from poetry_cuda.redist.manifest import release_for
from poetry_cuda.redist.manifest import releases
from poetry_cuda.versions import CudaVersion


if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


SHA = "a" * 64


def _platform(component: str, version: str, platform: str, size: object = "1234") -> Any:
    suffix = "zip" if platform.startswith("windows") else "tar.xz"
    return {
        "relative_path": f"{component}/{platform}/{component}-{platform}-{version}-archive.{suffix}",
        "sha256": SHA,
        "md5": "b" * 32,
        "size": size,
    }


def _component(name: str, version: str, platforms: tuple[str, ...]) -> Any:
    entry: dict[str, Any] = {"name": name, "license": "CUDA Toolkit", "version": version}
    entry |= {p: _platform(name, version, p) for p in platforms}
    return entry


PLATFORMS = ("linux-x86_64", "linux-sbsa", "windows-x86_64")
M124: dict[str, Any] = {
    "release_date": "2024-04-11",
    "release_label": "12.4.1",
    "release_product": "cuda",
    "cuda_cccl": _component("cuda_cccl", "12.4.127", PLATFORMS),
    "cuda_cudart": _component("cuda_cudart", "12.4.127", PLATFORMS),
    "cuda_nvcc": _component("cuda_nvcc", "12.4.131", PLATFORMS),
    "libcublas": _component("libcublas", "12.4.5.8", PLATFORMS),
    # The shape of cuda_compat from 13.2 on: variants nested below the platform.
    "cuda_compat": {
        "name": "CUDA Forward Compatability",
        "version": "595.71.05",
        "linux-x86_64": {"cuda13.2": _platform("cuda_compat", "595.71.05", "linux-x86_64")},
        "cuda_variant": ["13.2"],
    },
}


def test_a_manifest_reads_into_components_and_archives() -> None:
    release = parse_manifest(M124, "redistrib_12.4.1.json")
    assert (release.version, release.date, release.cuda) == (
        "12.4.1",
        "2024-04-11",
        CudaVersion(12, 4),
    )
    nvcc = release.components["cuda_nvcc"]
    assert nvcc.version == "12.4.131"
    archive = nvcc.archives["linux-sbsa"]
    assert archive.size == 1234  # NVIDIA writes sizes as decimal strings
    assert archive.file_name == "cuda_nvcc-linux-sbsa-12.4.131-archive.tar.xz"
    assert release.components["cuda_compat"].archives == {}


def test_the_archives_nvcc_needs_for_cuda_12() -> None:
    release = parse_manifest(M124, "redistrib_12.4.1.json")
    found = nvcc_archives(release, "linux-x86_64")
    assert [a.component for a in found] == ["cuda_nvcc", "cuda_cudart", "cuda_cccl"]
    assert {a.platform for a in found} == {"linux-x86_64"}


def test_cuda_13_needs_crt_and_nvvm_too() -> None:
    names = ("cuda_nvcc", "cuda_crt", "libnvvm", "cuda_cudart", "cuda_cccl")
    document = {"release_date": "2025-08-04", "release_label": "13.0.0"}
    document |= {n: _component(n, "13.0.48", PLATFORMS) for n in names}
    found = nvcc_archives(parse_manifest(document, "redistrib_13.0.0.json"), "linux-sbsa")
    assert [a.component for a in found] == list(names)


def test_a_manifest_without_release_label_takes_the_file_name() -> None:
    document = {k: v for k, v in M124.items() if k != "release_label"}  # as 11.4.4's
    assert parse_manifest(document, "redistrib_12.4.1.json").version == "12.4.1"


def test_a_missing_component_is_named() -> None:
    document = {k: v for k, v in M124.items() if k != "cuda_cudart"}
    with pytest.raises(InputFileError) as raised:
        nvcc_archives(parse_manifest(document, "redistrib_12.4.1.json"), "linux-x86_64")
    assert "redistrib_12.4.1.json: no component cuda_cudart" in str(raised.value)


def test_a_missing_platform_is_named_with_what_there_is() -> None:
    document = copy.deepcopy(M124)
    del document["cuda_cccl"]["linux-sbsa"]
    with pytest.raises(InputFileError) as raised:
        nvcc_archives(parse_manifest(document, "redistrib_12.4.1.json"), "linux-sbsa")
    message = str(raised.value)
    assert "cuda_cccl has no archive for linux-sbsa" in message
    assert "linux-x86_64, windows-x86_64" in message


@pytest.mark.parametrize(
    ("key", "value", "named"),
    [
        ("sha256", "xyz", "cuda_nvcc.linux-x86_64.sha256: not 64 hexadecimal digits"),
        ("size", "-1", "cuda_nvcc.linux-x86_64.size: expected a positive number"),
        ("size", True, "cuda_nvcc.linux-x86_64.size"),
        ("relative_path", "../../etc/passwd", "cuda_nvcc.linux-x86_64.relative_path"),
        ("relative_path", "/abs/x.tar.xz", "cuda_nvcc.linux-x86_64.relative_path"),
        ("relative_path", "https://evil.example/x.tar.xz", "relative_path"),
        ("relative_path", 7, "cuda_nvcc.linux-x86_64.relative_path: expected a string"),
    ],
)
def test_a_bad_value_is_named_by_its_key(key: str, value: object, named: str) -> None:
    document = copy.deepcopy(M124)
    document["cuda_nvcc"]["linux-x86_64"][key] = value
    with pytest.raises(InputFileError) as raised:
        parse_manifest(document, "redistrib_12.4.1.json")
    assert named in str(raised.value)
    assert raised.value.fix


def test_only_nvidias_platform_names_are_archives() -> None:
    # A platform named later (well formed) serves no host known here: left out, not an error.
    document = copy.deepcopy(M124)
    document["cuda_nvcc"]["linux-riscv64"] = _platform("cuda_nvcc", "12.4.131", "linux-riscv64")
    nvcc = parse_manifest(document, "redistrib_12.4.1.json").components["cuda_nvcc"]
    assert sorted(nvcc.archives) == sorted(PLATFORMS)
    for malformed in ("linux-x86_64/../../x", "Linux x86_64", "../linux-sbsa"):
        document = copy.deepcopy(M124)
        document["cuda_nvcc"][malformed] = _platform("cuda_nvcc", "12.4.131", "linux-x86_64")
        with pytest.raises(InputFileError, match="not a platform name"):
            parse_manifest(document, "redistrib_12.4.1.json")


@pytest.mark.parametrize(
    ("check", "good", "bad"),
    [
        (check_platform, REDIST_PLATFORMS, ("Linux x86_64", "linux-x86_64 ", "", "linux-riscv64")),
        (check_component, ("cuda_nvcc", "libnvvm", "cccl"), ("../x", "CUDA_NVCC", "", "a/b")),
        (check_version, ("12.4.131", "13.0.88", "3.3.1"), ("../12", "", "12.4/..", "v1")),
    ],
)
def test_the_names_the_store_files_by(
    check: Callable[[str], str], good: tuple[str, ...], bad: tuple[str, ...]
) -> None:
    assert [check(text) for text in good] == list(good)
    for text in bad:
        with pytest.raises(ValueError, match="not"):
            check(text)


def test_a_label_that_disagrees_with_the_file_name_is_refused() -> None:
    with pytest.raises(InputFileError, match="release_label"):
        parse_manifest(M124, "redistrib_12.4.0.json")


def test_a_manifest_file_is_read_bounded_and_as_json(tmp_path: Path) -> None:
    path = tmp_path / "redistrib_12.4.1.json"
    path.write_text(json.dumps(M124))
    assert read_manifest(path).version == "12.4.1"
    path.write_text("{not json")
    with pytest.raises(InputFileError, match="not valid JSON"):
        read_manifest(path)


LISTING = """<html><body><pre>
<a href="../">../</a>
<a href="cuda_nvcc/">cuda_nvcc/</a>
<a href="redistrib_12.4.0.json">redistrib_12.4.0.json</a>
<a href="redistrib_12.4.1.json">redistrib_12.4.1.json</a>
<a href='redistrib_12.10.0.json'>x</a>
<a href="/compute/cuda/redist/redistrib_12.6.3.json">redistrib_12.6.3.json</a>
<a href="redistrib_12.8.0_tar.json">mirror's extra</a>
<a href="redistrib_11.8.0.json">redistrib_11.8.0.json</a>
</pre></body></html>"""


def test_the_listing_gives_the_releases_in_version_order() -> None:
    assert releases(LISTING) == ("11.8.0", "12.4.0", "12.4.1", "12.6.3", "12.10.0")


def test_the_newest_patch_release_of_a_minor_wins() -> None:
    found = releases(LISTING)
    assert release_for(CudaVersion(12, 4), found) == "redistrib_12.4.1.json"
    assert release_for(CudaVersion(12, 10), found) == "redistrib_12.10.0.json"
    with pytest.raises(InputFileError, match=r"no release of CUDA 12\.9 .*12\.10\.0"):
        release_for(CudaVersion(12, 9), found)


def test_the_packaged_components_table_reads() -> None:
    rows = nvcc_parts()
    assert rows[0].first == CudaVersion(11, 4)
    assert all(row.source for row in rows)
    pick = components.nvcc_components
    assert pick(CudaVersion(12, 9)).components == ("cuda_nvcc", "cuda_cudart", "cuda_cccl")
    assert "cuda_crt" in pick(CudaVersion(13, 0)).components
    assert "cccl" in pick(CudaVersion(13, 3)).components


def test_before_the_first_release_there_are_no_archives() -> None:
    with pytest.raises(ConfigError, match=r"no redistributable archives for CUDA 11\.2"):
        components.nvcc_components(CudaVersion(11, 2))


def _row(first: str, names: str = '"cuda_nvcc"', source: str = 'source = "s"\n') -> str:
    return (
        f'[[release]]\nfirst = "{first}"\ncomponents = [{names}]\n{source}confidence = "verified"\n'
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("schema = 2", "schema"),
        ("schema = 1\n" + _row("12.0", '"cuda_cudart"'), "must include cuda_nvcc"),
        ("schema = 1\n" + _row("12.0") + _row("11.8"), "increasing order"),
        ("schema = 1\n" + _row("12.0", source=""), "release[12.0].source"),
    ],
)
def test_a_bad_components_table_is_named(text: str, problem: str) -> None:
    with pytest.raises(InputFileError) as raised:
        validate_nvcc_parts({REDIST_COMPONENTS_FILE: parse_toml(text)})
    assert problem in str(raised.value)
