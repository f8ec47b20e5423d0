"""Reading index pages in the shapes the real indexes serve them (tests/indexes/pages/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from poetry_cuda.indexes.listing import Anchor
from poetry_cuda.indexes.listing import Wheel
from poetry_cuda.indexes.listing import anchors
from poetry_cuda.indexes.listing import files
from poetry_cuda.indexes.listing import wheel_of
from poetry_cuda.indexes.listing import wheels


PAGES = Path(__file__).parent / "pages"


def read(name: str, base: str, media: str = "text/html", package: str | None = None) -> list[Wheel]:
    return list(wheels(anchors((PAGES / name).read_text(), media), base, package))


def test_a_pytorch_page_gives_labels_tags_and_absolute_urls() -> None:
    found = read("pytorch_cu124_torch.html", "https://download.pytorch.org/whl/cu124/torch/")
    first = found[1]
    assert (first.name, first.version, first.public, first.local) == (
        "torch",
        "2.5.1+cu124",
        "2.5.1",
        "cu124",
    )
    assert (first.pythons, first.abis, first.platforms) == (
        ("cp310",),
        ("cp310",),
        ("linux_x86_64",),
    )
    assert first.url == (
        "https://download.pytorch.org/whl/cu124/torch-2.5.1%2Bcu124-cp310-cp310-linux_x86_64.whl"
    )
    assert first.requires_python is None  # download.pytorch.org gives none
    assert [w.version for w in found] == ["2.4.1+cu124", *["2.5.1+cu124"] * 4]


def test_platform_and_python_of_each_wheel() -> None:
    found = read("pytorch_cu124_torch.html", "https://download.pytorch.org/whl/cu124/torch/")
    on = {(w.version, w.pythons[0], w.abis[0], w.platforms[0]): w for w in found}
    linux310 = on["2.5.1+cu124", "cp310", "cp310", "linux_x86_64"]
    assert linux310.serves_platform("linux", "x86_64")
    assert not linux310.serves_platform("linux", "aarch64")
    assert not linux310.serves_platform("windows", "x86_64")
    assert linux310.serves_python("3.10") and not linux310.serves_python("3.11")
    free = on["2.5.1+cu124", "cp313", "cp313t", "linux_x86_64"]
    assert free.serves_python("3.13")  # the tag's interpreter; the ABI is the free-threaded one
    assert on["2.5.1+cu124", "cp311", "cp311", "win_amd64"].serves_platform("windows", "x86_64")
    assert on["2.5.1+cu124", "cp312", "cp312", "linux_aarch64"].serves_platform("linux", "aarch64")


def test_pypi_html_gives_requires_python_unescaped() -> None:
    found = read("pypi_simple_torchvision.html", "https://pypi.org/simple/torchvision/")
    assert [w.version for w in found] == ["0.20.1", "0.20.1", "0.29.2"]  # the sdist is no wheel
    assert found[0].requires_python == ">=3.8"
    assert found[0].serves_platform("linux", "x86_64")  # manylinux1
    assert found[1].serves_platform("macos", "arm64")
    stable = found[2]
    assert stable.pythons == ("py3",) and stable.abis == ("none",)
    assert stable.serves_platform("linux", "aarch64")  # manylinux_2_28
    assert stable.serves_python("3.12")
    assert not stable.serves_python("3.9")  # Requires-Python >=3.10


def test_pep_691_json() -> None:
    found = read(
        "pep691_torch.json",
        "https://pypi.org/simple/torch/",
        "application/vnd.pypi.simple.v1+json",
    )
    assert [(w.version, w.requires_python) for w in found] == [
        ("2.15.0", ">=3.11"),
        ("2.15.0", ">=3.11"),
    ]
    assert found[0].serves_python("3.11") and not found[0].serves_python("3.10")
    assert found[1].serves_platform("windows", "x86_64")


def test_a_paddle_flat_listing_read_for_one_package() -> None:
    base = "https://www.paddlepaddle.org.cn/packages/stable/cu126/"
    found = read("paddle_stable_cu126.html", base, package="paddlepaddle-gpu")
    assert [(w.name, w.version, w.platforms[0]) for w in found] == [
        ("paddlepaddle-gpu", "3.0.0", "linux_x86_64"),
        ("paddlepaddle-gpu", "3.0.0", "win_amd64"),
        ("paddlepaddle-gpu", "3.1.0", "linux_aarch64"),
    ]
    assert found[0].url == base + "paddlepaddle_gpu-3.0.0-cp311-cp311-linux_x86_64.whl"
    assert len(read("paddle_stable_cu126.html", base)) == 4  # every package's, unfiltered


def test_pypi_json_api_every_release() -> None:
    found = read(
        "pypi_json_onnxruntime_gpu.json",
        "https://pypi.org/pypi/onnxruntime-gpu/json",
        "application/json",
        "onnxruntime_gpu",
    )
    # `urls` repeats a file of `releases`: read once.
    assert [(w.version, w.requires_python) for w in found] == [
        ("1.26.0", ">=3.11"),
        ("1.20.1", None),
    ]
    assert found[1].serves_platform("linux", "x86_64")  # two manylinux tags, one file


@pytest.mark.parametrize(
    "href",
    [
        "torch-2.5.1.tar.gz",
        "not-a-wheel.whl",
        "../",
        "torch-2.5.1+cu124-cp311-cp311-linux_x86_64.whl.metadata",
    ],
)
def test_links_that_name_no_wheel(href: str) -> None:
    assert wheel_of(Anchor(href), "https://m.example/whl/cu124/torch/") is None


@pytest.mark.parametrize(
    "text",
    ["", "[]", '{"files": "x"}', '{"files": [1, {"url": 2}]}', "{", '{"releases": {"1": 3}}'],
)
def test_json_of_another_shape_lists_nothing(text: str) -> None:
    assert anchors(text, "application/json") == ()


def test_a_misspelt_requires_python_decides_nothing() -> None:
    anchor = Anchor("torch-2.5.1-cp311-cp311-linux_x86_64.whl", ">=3.8,,")
    wheel = wheel_of(anchor, "https://m.example/")
    assert wheel is not None and wheel.serves_python("3.11")


def test_abi3_serves_later_pythons() -> None:
    wheel = wheel_of(Anchor("x-1.0-cp39-abi3-manylinux_2_17_x86_64.whl"), "https://m.example/")
    assert wheel is not None
    assert wheel.serves_python("3.13") and not wheel.serves_python("3.8")


def test_every_file_of_an_html_page_by_name_yanked_too() -> None:
    """What a locked file is found by: a yanked one still installs where a lock pins it."""
    page = """<html><body>
    <a href="torch-2.5.1%2Bcu124-cp311-cp311-linux_x86_64.whl#sha256=abc">x</a>
    <a href="https://files.example/t/torch-2.4.1-cp311-none-any.whl" data-yanked="">y</a>
    <a href="torch-2.4.1.tar.gz">torch-2.4.1.tar.gz</a>
    <a href="../other/torch-2.5.1%2Bcu124-cp311-cp311-linux_x86_64.whl">a second link</a>
    </body></html>"""
    assert files(anchors(page), "https://download.example/whl/cu124/torch/") == {
        "torch-2.5.1+cu124-cp311-cp311-linux_x86_64.whl": (
            "https://download.example/whl/cu124/torch/torch-2.5.1%2Bcu124-cp311-cp311-linux_x86_64.whl"
        ),
        "torch-2.4.1-cp311-none-any.whl": "https://files.example/t/torch-2.4.1-cp311-none-any.whl",
        "torch-2.4.1.tar.gz": "https://download.example/whl/cu124/torch/torch-2.4.1.tar.gz",
    }


def test_every_file_of_a_json_page_by_name() -> None:
    page = (
        '{"files": [{"filename": "x-1-py3-none-any.whl", "url": "../../x/x-1-py3-none-any.whl"}]}'
    )
    found = anchors(page, "application/vnd.pypi.simple.v1+json")
    assert files(found, "https://pypi.example/simple/x/") == {
        "x-1-py3-none-any.whl": "https://pypi.example/x/x-1-py3-none-any.whl"
    }
    assert files(anchors("{", "application/vnd.pypi.simple.v1+json"), "https://p.example/") == {}


def test_a_link_of_another_scheme_is_listed_as_it_is() -> None:
    """Listing decides nothing about fetching: the fetch refuses what the rule of URLs refuses."""
    found = files(anchors('<a href="file:///etc/x-1-py3-none-any.whl">x</a>'), "https://p.example/")
    assert found == {"x-1-py3-none-any.whl": "file:///etc/x-1-py3-none-any.whl"}
