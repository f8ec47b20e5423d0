"""The message catalogue: both texts of every message, the locale, and the sites that use it."""

from __future__ import annotations

import ast
import dataclasses

from pathlib import Path
from typing import get_args

import pytest

from poetry_cuda.doctor.findings import fail
from poetry_cuda.errors import NoVariantError
from poetry_cuda.messages import CATALOGUE
from poetry_cuda.messages import MessageId
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import codeset_of
from poetry_cuda.messages import language_of
from poetry_cuda.messages import message
from poetry_cuda.messages import placeholders


PACKAGE = Path(__file__).resolve().parents[1] / "poetry_cuda"
# Where the translated messages are built, and a message id each must use.
SITES = {
    "planning/refusals.py": "no-variant.first-line",
    "backends/poetry/runner.py": "resolution.poetry-failed",
    "backends/uv/runner.py": "resolution.uv-failed",
    "doctor/checks.py": "driver.none",
    "doctor/system.py": "doctor.system-none-found",
    "doctor/findings.py": "doctor.area.host",
    "cli/commands/doctor.py": "doctor.summary",
    "cli/commands/plan.py": "system.needs-because",
}


def _ids_used(path: Path) -> set[str]:
    """The ids of every `message("...")` call in `path` (both of `message("a" if x else
    "b")`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    firsts = [
        node.args[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "message"
        and node.args
    ]
    ids = [
        arg
        for first in firsts
        for arg in ((first.body, first.orelse) if isinstance(first, ast.IfExp) else (first,))
    ]
    return {
        arg.value for arg in ids if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
    }


def test_every_id_has_both_texts_with_the_same_placeholders() -> None:
    assert set(CATALOGUE) == set(get_args(MessageId))
    for id, texts in CATALOGUE.items():
        assert texts.en.strip(), id
        assert texts.zh.strip(), id
        assert texts.zh != texts.en, id
        assert placeholders(texts.en) == placeholders(texts.zh), id


def test_every_id_is_used_and_every_used_id_exists() -> None:
    used = set().union(*(_ids_used(path) for path in PACKAGE.rglob("*.py")))
    assert used == set(CATALOGUE)


@pytest.mark.parametrize(("site", "id"), sorted(SITES.items()))
def test_the_chosen_sites_use_the_catalogue(site: str, id: str) -> None:
    assert id in _ids_used(PACKAGE / site)


@pytest.mark.parametrize(
    ("environ", "language"),
    [
        ({}, "en"),
        ({"LANG": "zh_CN.UTF-8"}, "zh"),
        ({"LANG": "zh_TW.UTF-8"}, "zh"),
        ({"LANG": "en_US.UTF-8"}, "en"),
        ({"LANG": "C"}, "en"),
        ({"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh"),
        ({"LC_ALL": "C.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8"}, "en"),
        ({"LC_ALL": "", "LANG": "zh_CN.UTF-8"}, "zh"),
        # Issue 40 item 8: every rule of the locale's precedence.
        ({"LC_ALL": "zh_CN.UTF-8", "LC_MESSAGES": "en_US.UTF-8", "LANG": "en_US"}, "zh"),
        ({"LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_HK.UTF-8"}, "zh"),
        ({"LC_MESSAGES": "C", "LANG": "zh_CN.UTF-8"}, "en"),
        ({"LC_ALL": "POSIX", "LANG": "zh_CN.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "zh_SG.GB2312"}, "zh"),
        ({"LANG": "zh_TW.Big5"}, "zh"),
        ({"LANG": "zh_CN.GB18030"}, "zh"),
        ({"LANGUAGE": "zh_CN:en", "LANG": "en_US.UTF-8"}, "zh"),
        ({"LANGUAGE": "fr:zh_TW", "LANG": "en_US.UTF-8"}, "zh"),
        ({"LANGUAGE": "en_GB:zh_CN", "LANG": "zh_CN.UTF-8"}, "en"),
        ({"LANGUAGE": "", "LANG": "zh_CN.UTF-8"}, "zh"),
        ({"LANGUAGE": "zh_CN", "LANG": "C"}, "en"),  # gettext ignores LANGUAGE under C
        ({"LANGUAGE": "zh_CN"}, "en"),  # no locale at all is the C locale
    ],
)
def test_the_locale_picks_the_language(environ: dict[str, str], language: str) -> None:
    assert language_of(environ) == language


@pytest.mark.parametrize(
    ("environ", "codeset"),
    [
        ({"LANG": "zh_CN.GB18030"}, "gb18030"),
        ({"LC_ALL": "zh_CN.UTF-8", "LANG": "zh_CN.GB18030"}, "utf-8"),
        ({"LC_ALL": "", "LC_MESSAGES": "zh_TW.Big5", "LANG": "en_US.UTF-8"}, "big5"),
        ({"LANG": "zh_CN"}, None),  # no codeset named: Python's own choice stands
        ({"LANG": "zh_CN.NOSUCHCODESET"}, None),
        ({"LANG": "de_DE.ISO-8859-15@euro"}, "iso8859-15"),
        ({}, None),
    ],
)
def test_the_locale_names_the_codeset(environ: dict[str, str], codeset: str | None) -> None:
    assert codeset_of(environ) == codeset


def test_a_message_is_english_unless_asked_and_nests() -> None:
    problem = message("driver.none")
    finding = message("doctor.driver-but-cuda-locked", problem=problem)
    assert str(finding) == "no NVIDIA driver found; cuda.lock locks CUDA builds"
    assert finding.text("zh") == "未找到 NVIDIA 驱动；而 cuda.lock 锁定的是 CUDA 构建"


def test_an_error_keeps_its_english_parts_and_renders_chinese() -> None:
    error = NoVariantError(
        Phrase((message("no-variant.first-line", lead="torch", asked="torch"), "  cu124: x"), "\n"),
        why=message("no-variant.why"),
        fix=Phrase((message("no-variant.fix-cpu"), message("no-variant.fix-or-cpu-fallback"))),
    )
    assert error.what == "No variant of torch satisfies every target (torch):\n  cu124: x"
    assert error.fix.startswith('plan CPU builds with cuda = "cpu", or set allow-cpu-fallback')
    assert error.render() == str(error)
    assert error.render().splitlines()[-1] == f"Fix: {error.fix}"
    chinese = error.render("zh").splitlines()
    assert chinese[0] == "torch 没有能满足所有目标主机的构建（torch）："
    assert chinese[1] == "  cu124: x"
    assert chinese[2].startswith("原因：")
    assert chinese[3].startswith('解决办法：设置 cuda = "cpu"')


def test_a_finding_keeps_english_and_shows_the_reader_s_language() -> None:
    finding = fail("host", "driver", message("driver.none"), message("doctor.fix-lock"))
    assert finding.message == "no NVIDIA driver found"
    assert finding.to_json()["fix"] == "run `poetry cuda lock` (or `poetry-cuda lock`)"
    assert finding.shown_message("zh") == "未找到 NVIDIA 驱动"
    assert finding.shown_fix("zh") == "运行 `poetry cuda lock`（或 `poetry-cuda lock`）"
    # A copy with another text shows that text, never the original's translation.
    copied = dataclasses.replace(finding, message="the driver is gone")
    assert copied.shown_message("zh") == "the driver is gone"
    assert copied.shown_fix("zh") == finding.shown_fix("zh")
