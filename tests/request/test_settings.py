from __future__ import annotations

from typing import Any

import pytest

from poetry_cuda.errors import ConfigError
from poetry_cuda.request.settings import CudaRequest
from poetry_cuda.request.settings import parse_settings
from poetry_cuda.urls import check_index_url
from poetry_cuda.versions import CudaVersion


def settings_of(table: dict[str, Any]) -> Any:
    return parse_settings({"tool": {"poetry-cuda": table}})


def test_defaults_when_the_table_is_absent() -> None:
    settings = parse_settings({"project": {"name": "x"}})
    assert settings.cuda.kind == "auto"
    assert settings.policy == "newest"
    assert settings.allow_cpu_fallback is False
    assert settings.backend == "auto"
    assert settings.toolkit == "system"
    assert settings.targets == ()
    assert settings.mirrors == {}


def test_every_key_read() -> None:
    settings = settings_of(
        {
            "cuda": ">=12.1,<12.7",
            "policy": "native",
            "allow-cpu-fallback": True,
            "targets": ["hosts/*.json"],
            "backend": "uv",
            "toolkit": "wheels",
            "mirrors": {"pytorch": "https://mirror.example/whl/{variant}"},
            "packages": {"My_Ext": {"needs": ["nvcc>=12.1,<13", "cudnn>=9"]}},
        }
    )
    assert settings.policy == "native"
    assert settings.allow_cpu_fallback is True
    assert settings.targets == ("hosts/*.json",)
    assert settings.backend == "uv"
    assert settings.toolkit == "wheels"
    assert settings.packages[0].name == "my-ext"
    assert settings.packages[0].needs == (("nvcc", ">=12.1,<13"), ("cudnn", ">=9"))
    assert settings.cuda.allows(CudaVersion(12, 6))
    assert not settings.cuda.allows(CudaVersion(12, 8))


@pytest.mark.parametrize(
    ("text", "allowed", "refused"),
    [
        ("auto", [None, CudaVersion(12, 4)], []),
        ("cpu", [None], [CudaVersion(12, 4)]),
        ("cu124", [CudaVersion(12, 4)], [None, CudaVersion(12, 1), CudaVersion(12, 6)]),
        ("12.4", [CudaVersion(12, 4)], [CudaVersion(12, 6)]),
        ("11.8", [CudaVersion(11, 8)], [CudaVersion(12, 8)]),
        (">=12.1,<12.7", [CudaVersion(12, 1), CudaVersion(12, 6)], [CudaVersion(12, 8), None]),
        ("<13", [CudaVersion(12, 9), CudaVersion(11, 8)], [CudaVersion(13, 0)]),
    ],
)
def test_cuda_request(
    text: str, allowed: list[CudaVersion | None], refused: list[CudaVersion | None]
) -> None:
    request = CudaRequest.parse(text)
    assert all(request.allows(v) for v in allowed)
    assert not any(request.allows(v) for v in refused)
    assert str(request) == text


def test_redist_toolkit_and_its_mirror() -> None:
    default = settings_of({"toolkit": "redist"})
    assert default.toolkit == "redist"
    assert default.redist_url == "https://developer.download.nvidia.com/compute/cuda/redist/"
    mirrored = settings_of(
        {
            "toolkit": "redist",
            "mirrors": {
                "cuda-redist": "http://127.0.0.1:8080/cuda/redist",
                "pytorch": "https://mirror.example/whl/{variant}",
            },
        }
    )
    assert mirrored.redist_url == "http://127.0.0.1:8080/cuda/redist"
    assert list(mirrored.mirrors) == ["pytorch"]  # not an index family


@pytest.mark.parametrize(
    ("table", "culprit"),
    [
        ({"cuda": "cuda12"}, "cuda"),
        ({"cuda": 12.4}, "cuda"),
        ({"cuda": ""}, "cuda"),
        ({"policy": "fastest"}, "policy"),
        ({"backend": "pip"}, "backend"),
        ({"toolkit": "conda"}, "toolkit"),
        ({"allow-cpu-fallback": "yes"}, "allow-cpu-fallback"),
        ({"targets": "hosts/*.json"}, "targets"),
        ({"targets": [1]}, "targets"),
        ({"mirrors": {"pytorch": "http://mirror.example/whl"}}, "mirrors.pytorch"),
        ({"mirrors": {"pytorch": "ftp://127.0.0.1/whl"}}, "mirrors.pytorch"),
        ({"mirrors": {"conda": "https://mirror.example"}}, "mirrors.conda"),
        ({"mirrors": "https://mirror.example"}, "mirrors"),
        ({"mirrors": {"cuda-redist": "http://mirror.example/redist"}}, "mirrors.cuda-redist"),
        ({"mirrors": {"cuda-redist": {"url": "https://m.example"}}}, "mirrors.cuda-redist"),
        ({"packages": {"ext": {"needs": ["gcc>=12"]}}}, "packages.ext.needs"),
        ({"packages": {"ext": {"needs": ["nvcc>=twelve"]}}}, "packages.ext.needs"),
        ({"packages": {"ext": {"wants": []}}}, "packages.ext"),
        ({"variant": "cu124"}, "variant"),
    ],
)
def test_bad_settings_name_the_key_and_a_fix(table: dict[str, Any], culprit: str) -> None:
    with pytest.raises(ConfigError) as caught:
        settings_of(table)
    assert f"[tool.poetry-cuda] {culprit}" in caught.value.what
    assert caught.value.fix
    assert caught.value.exit_code == 2


@pytest.mark.parametrize(
    "url",
    [
        "https://download.pytorch.org/whl/cu124",
        "http://127.0.0.1:8080/whl/{variant}",
        "http://127.9.9.9/whl",
        "http://localhost/whl",
        "http://[::1]:9000/whl",
    ],
)
def test_index_urls_accepted(url: str) -> None:
    assert check_index_url(url, "k") == url


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("http://mirror.example/whl", "not an https URL"),
        ("http://10.0.0.1/whl", "not an https URL"),
        ("file:///srv/whl", "not an https URL"),
        ("whl", "not an https URL"),
        ("https://", "not a well-formed URL: it has no host"),
    ],
)
def test_index_urls_refused(url: str, said: str) -> None:
    with pytest.raises(ConfigError, match=said):
        check_index_url(url, "k")
