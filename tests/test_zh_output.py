"""Chinese output is Chinese: every command run under a zh locale shows no English text of
the catalogue, no Chinese label before an English sentence, and the agreed terms."""

from __future__ import annotations

import re
import shutil

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from poetry_cuda.messages import CATALOGUE
from poetry_cuda.messages import placeholders
from tests.support.example import EXAMPLES
from tests.support.projects import TORCH
from tests.support.projects import make_project


if TYPE_CHECKING:
    from tests.support.cli import Cli


ROOT = Path(__file__).resolve().parent.parent
CHINESE = {"LANG": "zh_CN.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}
TARGET = ("--target", "hosts/workstation-rtx4090.json")
# Words a Chinese developer does not use for these: 构建版本 clashes with 版本 (a version).
AVOIDED = ("构建版本", "受管理")
# A Chinese label followed by three English words: a sentence left in English.
MIXED = re.compile(r"(原因|解决办法|警告)：[A-Za-z]+ [a-z]+ [a-z]+ ")


def english_patterns() -> dict[str, re.Pattern[str]]:
    """Each catalogue entry's English text as a pattern, where its own words say enough
    to be recognised (at least three words besides the placeholders)."""
    found: dict[str, re.Pattern[str]] = {}
    for id, texts in CATALOGUE.items():
        pieces = re.split(r"\{[^{}]*\}", texts.en)
        if len(re.findall(r"[A-Za-z]{2,}", " ".join(pieces))) < 3:
            continue
        pattern = r".*?".join(re.escape(piece) for piece in pieces)
        found[id] = re.compile(pattern)
    return found


@pytest.fixture
def project(tmp_path: Path) -> Path:
    copied = tmp_path / "torch_project"
    shutil.copytree(EXAMPLES / "torch_project", copied)
    return copied


def zh_outputs(cli: Cli, project: Path) -> dict[str, str]:
    """What each command prints under a zh locale (stdout and stderr together)."""
    runs = {
        "detect": ("detect", *TARGET),
        "detect this machine": ("detect",),
        "plan": ("plan", *TARGET),
        "plan this machine": ("plan", "--target", "this"),
        "lock --dry-run": ("lock", "--dry-run", *TARGET),
        "doctor": ("doctor",),
        "lock --check": ("lock", "--check"),
        "plan --cuda cu999": ("plan", "--cuda", "cu999", *TARGET),
        "plan --target missing": ("plan", "--target", "missing.json"),
    }
    found = {}
    for name, args in runs.items():
        result = cli.run(*args, cwd=project, env=CHINESE)
        found[name] = result.stdout + result.stderr
    plugin = cli.run("cuda", "lock", "--check", cwd=project, env=CHINESE, program="poetry")
    found["poetry cuda lock --check"] = plugin.stdout + plugin.stderr
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"torch==2.5.1"', '"torch>=2.15"'))
    pyproject.write_text(pyproject.read_text().replace('    "torchvision==0.20.1",\n', ""))
    newer = cli.run("plan", "--cuda", "12.4", *TARGET, cwd=project, env=CHINESE)
    found["plan --cuda 12.4 (torch>=2.15)"] = newer.stdout + newer.stderr
    return found


def test_no_catalogue_text_is_left_in_english(cli: Cli, project: Path) -> None:
    outputs = zh_outputs(cli, project)
    patterns = english_patterns()
    assert len(patterns) > 40  # the check covers the catalogue, not a handful of entries
    for name, text in outputs.items():
        left = [id for id, pattern in patterns.items() if pattern.search(text)]
        assert left == [], (name, left, text)
        assert not [line for line in text.splitlines() if MIXED.search(line)], (name, text)
    # What each of them is told, in Chinese.
    assert "主机：" in outputs["detect"]
    assert "cuda.lock 已过期：" in outputs["lock --check"]
    assert "解决办法：运行 `poetry-cuda lock`" in outputs["lock --check"]
    assert "解决办法：运行 `poetry cuda lock`" in outputs["poetry cuda lock --check"]
    assert "没有这个 CUDA 版本的已知构建" in outputs["plan --cuda cu999"]
    assert (
        "项目允许的 torch 版本都没有这个 CUDA 版本的构建"
        in outputs["plan --cuda 12.4 (torch>=2.15)"]
    )
    assert "项正常" in outputs["doctor"]
    assert "计划（目标主机：hosts/workstation-rtx4090.json；策略：newest）" in outputs["plan"]
    assert "，来自 pytorch-cu124" in outputs["plan"]
    assert "计划（目标主机：" in outputs["lock --dry-run"]
    assert "包管理器：poetry（pyproject.toml 里有 [tool.poetry]）" in outputs["plan"]
    assert "容器基础镜像：nvidia/cuda:12.4.1-base-ubuntu22.04（wheel 自带" in outputs["plan"]
    assert "包管理器：poetry（pyproject.toml 里有 [tool.poetry]）" in outputs["doctor"]
    assert (
        "警告：没有一台目标主机装有 NVIDIA 驱动，所以这份计划不服务任何 GPU"
        in outputs["plan this machine"]
    )


def test_the_catalogue_and_the_chinese_readme_use_the_agreed_terms() -> None:
    readme = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")
    for text in [*(t.zh for t in CATALOGUE.values()), readme]:
        for avoided in AVOIDED:
            assert avoided not in text, (avoided, text[:200])


def test_inside_full_width_brackets_the_punctuation_is_full_width() -> None:
    readme = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")
    prose = re.sub(r"```.*?```", "", readme, flags=re.DOTALL)
    texts = [*(t.zh for t in CATALOGUE.values()), prose]
    for text in texts:
        for bracketed in re.findall(r"（[^（）\n]*）", text):
            words = re.sub(r"`[^`]*`|\{[^{}]*\}|https?://\S+", "", bracketed)
            assert not re.search(r"[,;:] ", words), bracketed


def test_every_catalogue_entry_renders_in_both_languages() -> None:
    for id, texts in CATALOGUE.items():
        values = {name: f"<{name}>" for name in placeholders(texts.en)}
        english = texts.en.format(**values)
        chinese = texts.zh.format(**values)
        assert english != chinese, id
        # Chinese words, or at least the full-width punctuation around the values; a
        # heading may be the term itself ("GPU").
        assert id == "detect.gpus" or re.search(
            r"[\u4e00-\u9fff\uff08\uff09\uff0c\uff1a\uff1b\u3002]", chinese
        ), id


def test_the_plugins_install_warning_is_chinese(cli: Cli, tmp_path: Path) -> None:
    project = make_project(tmp_path / "app", **TORCH)  # type: ignore[arg-type]
    # cuda.lock's hash fits no pyproject.toml here: the plugin warns before installing.
    result = cli.run("install", "--dry-run", cwd=project, program="poetry", env=CHINESE)
    said = result.stdout + result.stderr
    assert "poetry-cuda: cuda.lock 已过期：写入它之后" in said, said
    assert "请运行 `poetry cuda lock`" in said
    english = cli.run("install", "--dry-run", cwd=project, program="poetry")
    assert (
        "poetry-cuda: cuda.lock is stale: the CUDA-relevant parts"
        in english.stdout + english.stderr
    )
