"""What poetry.lock installs into one interpreter: Poetry's rules, read off the lock."""

from __future__ import annotations

import json

from pathlib import Path

import pytest

from poetry_cuda.errors import ConfigError
from poetry_cuda.files import parse_toml
from poetry_cuda.wheelstore.install import Interpreter
from poetry_cuda.wheelstore.locked import PYPI
from poetry_cuda.wheelstore.locked import Origin
from poetry_cuda.wheelstore.locked import select


LINUX_311 = Interpreter(
    root=Path("/venv"),
    python=Path("/venv/bin/python"),
    paths={},
    tags=(
        "cp311-cp311-manylinux_2_28_x86_64",
        "cp311-cp311-manylinux_2_17_x86_64",
        "cp311-abi3-manylinux_2_17_x86_64",
        "py3-none-manylinux_2_17_x86_64",
        "py3-none-manylinux2014_x86_64",
        "py3-none-any",
    ),
    markers={
        "implementation_name": "cpython",
        "implementation_version": "3.11.7",
        "os_name": "posix",
        "platform_machine": "x86_64",
        "platform_python_implementation": "CPython",
        "platform_release": "6.8.0",
        "platform_system": "Linux",
        "platform_version": "#1 SMP",
        "python_full_version": "3.11.7",
        "python_version": "3.11",
        "sys_platform": "linux",
    },
    version=(3, 11),
)
SHA = {name: f"{index:064x}" for index, name in enumerate("abcdefghij", start=1)}

LOCK = parse_toml(
    f"""
[[package]]
name = "torch"
version = "2.5.1+cu124"
groups = ["main"]
files = [
    {{file = "torch-2.5.1+cu124-cp311-cp311-linux_x86_64.whl", hash = "sha256:{SHA["a"]}"}},
    {{file = "torch-2.5.1+cu124-cp311-cp311-manylinux_2_28_x86_64.whl", hash = "sha256:{SHA["b"]}"}},
    {{file = "torch-2.5.1+cu124-cp312-cp312-manylinux_2_28_x86_64.whl", hash = "sha256:{SHA["c"]}"}},
]
[package.source]
type = "legacy"
url = "https://download.pytorch.org/whl/cu124"
reference = "pytorch-cu124"

[[package]]
name = "nvidia-cublas-cu12"
version = "12.4.5.8"
groups = ["main"]
markers = 'platform_system == "Linux" and platform_machine == "x86_64"'
files = [
    {{file = "nvidia_cublas_cu12-12.4.5.8-py3-none-manylinux2014_x86_64.whl", hash = "sha256:{SHA["d"]}"}},
    {{file = "nvidia_cublas_cu12-12.4.5.8-py3-none-win_amd64.whl", hash = "sha256:{SHA["e"]}"}},
]

[[package]]
name = "colorama"
version = "0.4.6"
groups = ["main"]
markers = 'sys_platform == "win32"'
files = [{{file = "colorama-0.4.6-py2.py3-none-any.whl", hash = "sha256:{SHA["f"]}"}}]

[[package]]
name = "pytest"
version = "8.0.0"
groups = ["dev"]
files = [{{file = "pytest-8.0.0-py3-none-any.whl", hash = "sha256:{SHA["g"]}"}}]

[[package]]
name = "flash-attn"
version = "2.7.4.post1"
groups = ["main"]
files = [{{file = "flash_attn-2.7.4.post1.tar.gz", hash = "sha256:{SHA["h"]}"}}]

[[package]]
name = "mine"
version = "0.1.0"
groups = ["main"]
files = []
[package.source]
type = "directory"
url = "../mine"

[[package]]
name = "wheelie"
version = "1.0"
groups = ["main"]
files = [{{file = "wheelie-1.0-py3-none-any.whl", hash = "sha256:{SHA["i"]}"}}]
[package.source]
type = "url"
url = "https://example.org/wheelie-1.0-py3-none-any.whl"

[[package]]
name = "localwheel"
version = "2.0"
groups = ["main"]
markers = {{main = 'extra == "cu124"'}}
optional = true
files = [{{file = "localwheel-2.0-py3-none-any.whl", hash = "sha256:{SHA["j"]}"}}]
[package.source]
type = "file"
url = "wheels/localwheel-2.0-py3-none-any.whl"

[metadata]
lock-version = "2.1"
python-versions = ">=3.11,<3.12"
"""
)


def test_the_wheels_poetry_installs_here() -> None:
    chosen = select(LOCK, LINUX_311, project=Path("/project"))
    assert [(w.name, w.wheel.filename, w.wheel.sha256) for w in chosen.wheels] == [
        ("torch", "torch-2.5.1+cu124-cp311-cp311-manylinux_2_28_x86_64.whl", SHA["b"]),
        (
            "nvidia-cublas-cu12",
            "nvidia_cublas_cu12-12.4.5.8-py3-none-manylinux2014_x86_64.whl",
            SHA["d"],
        ),
        ("wheelie", "wheelie-1.0-py3-none-any.whl", SHA["i"]),
    ]
    torch, cublas, wheelie = chosen.wheels
    assert torch.origin == Origin(
        "index", "https://download.pytorch.org/whl/cu124", "pytorch-cu124"
    )
    assert torch.direct_url is None
    assert cublas.origin == Origin("index", PYPI)
    assert wheelie.origin == Origin("url", "https://example.org/wheelie-1.0-py3-none-any.whl")
    assert json.loads(wheelie.direct_url or "") == {
        "url": "https://example.org/wheelie-1.0-py3-none-any.whl",
        "archive_info": {"hashes": {"sha256": SHA["i"]}},
    }
    assert [(s.name, s.why) for s in chosen.skipped] == [
        ("flash-attn", "no wheel for this interpreter: Poetry builds it"),
        ("mine", "a directory dependency: Poetry installs it"),
    ]


def test_groups_and_extras_decide_as_poetry_does() -> None:
    chosen = select(
        LOCK, LINUX_311, project=Path("/project"), groups=["main", "dev"], extras=["cu124"]
    )
    names = [w.name for w in chosen.wheels]
    assert "pytest" in names
    [local] = [w for w in chosen.wheels if w.name == "localwheel"]
    assert local.origin == Origin("file", "/project/wheels/localwheel-2.0-py3-none-any.whl")
    assert json.loads(local.direct_url or "")["url"] == (
        "file:///project/wheels/localwheel-2.0-py3-none-any.whl"
    )


def test_a_lock_older_than_format_2_1_is_refused_with_a_fix() -> None:
    old = {**LOCK, "metadata": {"lock-version": "2.0"}}
    with pytest.raises(ConfigError, match=r"lock format 2\.0") as refused:
        select(old, LINUX_311, project=Path("/project"))
    assert "poetry lock" in refused.value.fix


def test_a_lock_that_installs_one_distribution_twice_is_refused() -> None:
    twice = parse_toml(
        f"""
[[package]]
name = "nvidia-cublas"
version = "13.4.1.3"
groups = ["main"]
markers = 'sys_platform == "linux"'
files = [{{file = "nvidia_cublas-13.4.1.3-py3-none-manylinux_2_17_x86_64.whl", hash = "sha256:{SHA["a"]}"}}]

[[package]]
name = "nvidia-cublas"
version = "13.10.0.20"
groups = ["main"]
markers = 'platform_system == "Linux"'
files = [{{file = "nvidia_cublas-13.10.0.20-py3-none-manylinux_2_17_x86_64.whl", hash = "sha256:{SHA["b"]}"}}]

[metadata]
lock-version = "2.1"
"""
    )
    with pytest.raises(ConfigError, match="installs nvidia-cublas twice") as refused:
        select(twice, LINUX_311, project=Path("/project"))
    assert refused.value.what.endswith("13.4.1.3 and 13.10.0.20")
    assert "poetry cuda lock" in refused.value.fix
