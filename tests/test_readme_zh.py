"""The Chinese pages stay faithful Chinese versions of the English ones: README.zh-CN.md of
README.md, and docs/zh-CN/X.md of docs/X.md; each pair linked both ways at the top, with the
same sections and the same commands in its console blocks, in the terms the catalogue uses."""

from __future__ import annotations

import os
import re

from pathlib import Path

import pytest

from tests.test_zh_output import AVOIDED


ROOT = Path(__file__).resolve().parents[1]
ENGLISH = ROOT / "README.md"
CHINESE = ROOT / "README.zh-CN.md"
DOCS = ROOT / "docs"
# The reference pages that have a Chinese version (the others say they are in English).
TRANSLATED = ("commands", "configuration", "cuda-lock", "knowledge", "troubleshooting")
PAIRS = [(ENGLISH, CHINESE), *((DOCS / f"{n}.md", DOCS / "zh-CN" / f"{n}.md") for n in TRANSLATED)]
IDS = ["README", *TRANSLATED]
# The lines where a page names its other language.
TOP = 8


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def headings(text: str, level: str) -> list[str]:
    prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    return [line for line in prose.splitlines() if line.startswith(f"{level} ")]


def console_commands(text: str) -> list[str]:
    """The commands of every console block, without their comments (which are translated).

    In a block that shows a session, the commands are its `$ ` lines; the rest is output.
    """
    commands = []
    for block in re.findall(r"```console\n(.*?)```", text, re.DOTALL):
        lines = block.splitlines()
        prompted = [line[2:] for line in lines if line.startswith("$ ")]
        for line in prompted or lines:
            command = line.split("  #", 1)[0].strip()
            if command:
                commands.append(command)
    return commands


@pytest.mark.parametrize(("english", "chinese"), PAIRS, ids=IDS)
def test_each_page_links_to_the_other_at_the_top(english: Path, chinese: Path) -> None:
    for path, other in ((english, chinese), (chinese, english)):
        top = read(path).splitlines()[:TOP]
        link = Path(os.path.relpath(other, path.parent)).as_posix()
        assert any(f"]({link})" in line for line in top), (path.name, top)


@pytest.mark.parametrize(("english", "chinese"), PAIRS, ids=IDS)
def test_both_have_the_same_sections(english: Path, chinese: Path) -> None:
    for level in ("#", "##", "###"):
        en, zh = headings(read(english), level), headings(read(chinese), level)
        assert len(en) == len(zh), (english.name, en, zh)


@pytest.mark.parametrize(("english", "chinese"), PAIRS, ids=IDS)
def test_both_show_the_same_commands(english: Path, chinese: Path) -> None:
    assert console_commands(read(chinese)) == console_commands(read(english))
    assert console_commands(read(ENGLISH))  # the parse found the blocks


@pytest.mark.parametrize("name", TRANSLATED)
def test_the_chinese_docs_use_the_agreed_terms(name: str) -> None:
    text = read(DOCS / "zh-CN" / f"{name}.md")
    for avoided in AVOIDED:
        assert avoided not in text, avoided
    prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    for bracketed in re.findall(r"（[^（）\n]*）", prose):
        words = re.sub(r"`[^`]*`|\{[^{}]*\}|https?://\S+", "", bracketed)
        assert not re.search(r"[,;:] ", words), bracketed
