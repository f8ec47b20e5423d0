"""`[tool.poetry-cuda.mirrors]`: templates, tables with a layout, and mirrors known by name."""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import InputFileError
from poetry_cuda.files import parse_toml
from poetry_cuda.knowledge.packaged import known_mirrors
from poetry_cuda.knowledge.packaged import mirrors_of
from poetry_cuda.knowledge.tables import MIRRORS_FILE
from poetry_cuda.knowledge.tables import validate_mirrors
from poetry_cuda.request.settings import Mirror
from poetry_cuda.request.settings import mirrors_said
from poetry_cuda.request.settings import parse_settings
from poetry_cuda.request.settings import resolve_mirror


if TYPE_CHECKING:
    from poetry_cuda.knowledge.model import KnownMirror


KEY = "[tool.poetry-cuda] mirrors.pytorch"


def parse(text: str) -> tuple[KnownMirror, ...]:
    return validate_mirrors({MIRRORS_FILE: parse_toml(text)})


def mirror_of(value: Any) -> Mirror:
    document = {"tool": {"poetry-cuda": {"mirrors": {"pytorch": value}}}}
    return parse_settings(document).mirrors["pytorch"]


def test_a_template_is_a_simple_mirror() -> None:
    mirror = mirror_of("https://mirror.example/whl/{variant}")
    assert (mirror.template, mirror.layout, mirror.name) == (
        "https://mirror.example/whl/{variant}",
        "simple",
        None,
    )
    assert mirror.url("cu124") == "https://mirror.example/whl/cu124"


def test_a_template_without_the_variant_gets_it_appended() -> None:
    assert (
        mirror_of("https://mirror.example/whl/").url("cu124") == "https://mirror.example/whl/cu124"
    )


def test_a_suffix_after_the_variant_is_kept() -> None:
    mirror = mirror_of("https://mirror.example/whl/{variant}/simple/")
    assert mirror.url("cu118") == "https://mirror.example/whl/cu118/simple/"
    assert mirror.serves("https://mirror.example/whl/cu118/simple")
    assert not mirror.serves("https://mirror.example/whl/cu118/")


def test_a_table_gives_the_layout() -> None:
    mirror = mirror_of({"url": "https://mirror.example/wheels/{variant}/", "layout": "flat"})
    assert (mirror.layout, mirror.url("cpu")) == ("flat", "https://mirror.example/wheels/cpu/")
    assert mirror_of({"url": "https://mirror.example/{variant}/"}).layout == "simple"


@pytest.mark.parametrize(
    ("value", "culprit"),
    [
        ({"url": "https://mirror.example/{variant}/", "layout": "find-links"}, "layout"),
        ({"layout": "flat"}, "url"),
        ({"url": ""}, "url"),
        ({"url": "http://mirror.example/{variant}/"}, "url"),
        ({"url": "https://mirror.example/{variant}/", "format": "flat"}, "format"),
        (12, ""),
    ],
)
def test_a_bad_table_names_its_key(value: Any, culprit: str) -> None:
    with pytest.raises(ConfigError) as caught:
        mirror_of(value)
    assert caught.value.what.startswith(f"{KEY}{'.' + culprit if culprit else ''}:")
    assert caught.value.fix


def test_a_loopback_mirror_may_be_plain_http() -> None:
    mirror = mirror_of({"url": "http://127.0.0.1:8080/flat/{variant}/", "layout": "flat"})
    assert mirror.url("cu124") == "http://127.0.0.1:8080/flat/cu124/"


@pytest.mark.parametrize(
    ("name", "url", "layout"),
    [
        ("sjtu", "https://mirror.sjtu.edu.cn/pytorch-wheels/cu124/", "simple"),
        ("nju", "https://mirror.nju.edu.cn/pytorch/whl/cu124/", "simple"),
        ("seu", "https://mirrors.seu.edu.cn/pytorch/whl/cu124/simple/", "simple"),
        ("aliyun", "https://mirrors.aliyun.com/pytorch-wheels/cu124/", "flat"),
        ("SJTU", "https://mirror.sjtu.edu.cn/pytorch-wheels/cu124/", "simple"),
    ],
)
def test_a_known_mirror_by_name_expands_to_its_template_and_layout(
    name: str, url: str, layout: str
) -> None:
    mirror = mirror_of(name)
    assert (mirror.url("cu124"), mirror.layout, mirror.name) == (url, layout, name.lower())
    assert f'mirrors.pytorch = "{name.lower()}"' in mirror.said


def test_an_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError) as caught:
        mirror_of("tuna")
    assert caught.value.what == f"{KEY}: 'tuna' is neither a URL nor a known mirror"
    for name in ("sjtu", "nju", "seu", "aliyun"):
        assert f'"{name}"' in caught.value.why


def test_paddle_has_no_known_mirror_its_own_index_is_served_in_china() -> None:
    assert mirrors_of("paddle") == ()
    with pytest.raises(ConfigError, match=r"mirrors\.paddle: 'sjtu' is neither") as caught:
        parse_settings({"tool": {"poetry-cuda": {"mirrors": {"paddle": "sjtu"}}}})
    assert "none" in caught.value.why


def test_resolution_is_pure_and_names_the_given_key() -> None:
    """The per-user setting reads through the same function, with its own key."""
    mirror = resolve_mirror("aliyun", "POETRY_CUDA_MIRROR_PYTORCH", mirrors_of("pytorch"))
    assert mirror.layout == "flat"
    with pytest.raises(ConfigError, match=r"^POETRY_CUDA_MIRROR_PYTORCH: "):
        resolve_mirror("http://mirror.example/{variant}", "POETRY_CUDA_MIRROR_PYTORCH", ())


def test_every_row_has_a_source_and_an_https_template() -> None:
    for row in known_mirrors():
        assert row.source
        assert row.url.startswith("https://")
        assert "{variant}" in row.url
        assert row.confidence in ("verified", "third-party")


@pytest.mark.parametrize(
    ("row", "culprit"),
    [
        ('layout = "tree"', "layout"),
        ('url = "http://m.example/{variant}/"', "url"),
        ('url = "https://m.example/whl/"', "url"),
    ],
)
def test_a_bad_row_is_named(row: str, culprit: str) -> None:
    fields = {
        "family": '"pytorch"',
        "name": '"m"',
        "url": '"https://m.example/{variant}/"',
        "layout": '"simple"',
        "source": '"here"',
        "confidence": '"verified"',
    }
    key = row.split(" = ")[0]
    fields[key] = row.split(" = ", 1)[1]
    text = "schema = 1\n[[mirror]]\n" + "".join(f"{k} = {v}\n" for k, v in fields.items())
    with pytest.raises(InputFileError, match=rf"mirror\[pytorch\.m\]\.{culprit}"):
        parse(text)


def test_a_row_listed_twice_is_refused() -> None:
    row = (
        '[[mirror]]\nfamily = "pytorch"\nname = "m"\nurl = "https://m.example/{variant}/"\n'
        'layout = "simple"\nsource = "here"\nconfidence = "verified"\n'
    )
    with pytest.raises(InputFileError, match="listed twice"):
        parse("schema = 1\n" + row + row)


def test_a_message_about_an_unreachable_index_names_the_mirror_setting() -> None:
    said = mirrors_said(parse_settings({"tool": {"poetry-cuda": {"mirrors": {"pytorch": "seu"}}}}))
    assert said.startswith(f'the mirror in use: {KEY} = "seu" (https://mirrors.seu.edu.cn/')
    assert 'mirrors known by name: pytorch = "sjtu", "seu", "nju", "aliyun" (flat: uv only)' in said


def test_a_message_about_an_unreachable_index_says_when_no_mirror_is_set() -> None:
    said = mirrors_said(parse_settings({}))
    assert said.startswith("no mirror is set in [tool.poetry-cuda.mirrors]")
    assert '"sjtu"' in said
