"""README.zh-CN.md stays a faithful Chinese version of README.md: linked both ways, with the
same sections and the same commands in its console blocks."""

from __future__ import annotations

import re

from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[1]
ENGLISH = ROOT / "README.md"
CHINESE = ROOT / "README.zh-CN.md"


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def headings(text: str, level: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(f"{level} ")]


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


@pytest.mark.parametrize(("path", "other"), [(ENGLISH, CHINESE), (CHINESE, ENGLISH)])
def test_each_readme_links_to_the_other_at_the_top(path: Path, other: Path) -> None:
    top = read(path).splitlines()[:5]
    assert any(f"]({other.name})" in line for line in top), top


def test_both_have_the_same_sections() -> None:
    for level in ("##", "###"):
        english, chinese = headings(read(ENGLISH), level), headings(read(CHINESE), level)
        assert len(english) == len(chinese), (english, chinese)


def test_both_show_the_same_commands() -> None:
    assert console_commands(read(CHINESE)) == console_commands(read(ENGLISH))
    assert console_commands(read(ENGLISH))  # the parse found the blocks
