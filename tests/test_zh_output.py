"""Chinese output is Chinese: every command run under a zh locale shows no English text of
the catalogue, no Chinese label before an English sentence, and the agreed terms."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from poetry_cuda.messages import CATALOGUE
from poetry_cuda.messages import placeholders
from tests.support.cli import BIN
from tests.support.example import EXAMPLES
from tests.support.example import torch_example
from tests.support.isolation import hermetic_env
from tests.support.projects import TORCH
from tests.support.projects import make_project


if TYPE_CHECKING:
    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli
    from tests.support.fake_nvml import FakeNvml


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


# -- every command's error paths and rarer reports, under a zh locale --------------------

# Four English words in a row, outside what is quoted as written (`code`, 'values',
# "names", [sources], paths, URLs): a sentence left in English.
ENGLISH_SENTENCE = re.compile(r"\b[A-Za-z]{2,}(?: +[A-Za-z]+){3,}\b")
QUOTED = re.compile(r"`[^`]*`|'[^']*'|\"[^\"]*\"|\[[^\]]*\]|https?://\S+|\S*/\S*")
RX_7900 = {"index": 0, "name": "Radeon RX 7900 XTX", "vendor": "amd", "gfx": "gfx1100"}
ARC_B580 = {"index": 0, "name": "Intel Arc B580", "vendor": "intel", "device_ip": "20.1.0"}
AMD_DRIVER = {"kernel_driver": "6.12.12", "source": "kfd"}  # amdgpu 6.4: ROCm 6.1 to 7.0


def english_sentences(text: str) -> list[str]:
    """The lines of `text` that hold an English sentence of their own."""
    return [line for line in text.splitlines() if ENGLISH_SENTENCE.search(QUOTED.sub("", line))]


def write_profile(path: Path, **document: object) -> str:
    """A host profile of schema 2 for a Linux x86_64 machine; its path."""
    path.write_text(json.dumps({"schema": 2, "os": "linux", "machine": "x86_64", **document}))
    return path.name


def said(cli: Cli, project: Path, *args: str, **env: str) -> str:
    result = cli.run(*args, cwd=project, env={**env, **CHINESE})
    return result.stdout + result.stderr


def error_path_outputs(
    cli: Cli, project: Path, locked: Path, fake_nvml: FakeNvml, mirror: str
) -> dict[str, str]:
    """What each command's error paths and rarer reports print under a zh locale."""
    amd = write_profile(project / "amd.json", gpus=[RX_7900], rocm=AMD_DRIVER)
    intel = write_profile(project / "arc.json", gpus=[ARC_B580])
    bad_profile = write_profile(project / "bad.json", os="plan9")
    (project / "broken.json").write_text("{")
    gpu = fake_nvml.scenario()
    found = {
        "--cuda banana": said(cli, project, "plan", "--cuda", "banana", *TARGET),
        "lock --cuda >>1": said(cli, project, "lock", "--dry-run", "--cuda", ">>1", *TARGET),
        "missing target": said(cli, project, "plan", "--target", "missing.json"),
        "bad profile value": said(cli, project, "plan", "--target", bad_profile),
        "profile not JSON": said(cli, project, "detect", "--target", "broken.json"),
        "unknown command": said(cli, project, "lcok"),
        "unknown option": said(cli, project, "plan", "--bogus"),
        "option without value": said(cli, project, "plan", "--target"),
        "detect with probes": said(cli, project, "detect", **gpu),
        "detect without a GPU": said(cli, project, "detect"),
        "detect AMD and Intel": said(cli, project, "detect", "--target", amd, "--target", intel),
        "plan an Intel host": said(cli, project, "plan", "--target", intel),
        "doctor ok": said(cli, locked, "doctor", **gpu),
        "run a missing command": said(cli, locked, "run", "no-such-command"),
        "run no command": said(cli, locked, "run"),
        "env --shell tcsh": said(cli, locked, "env", "--shell", "tcsh"),
        "-C to a missing folder": said(cli, project, "-C", "missing", "plan"),
        "doctor outside a project": said(cli, project.parent, "doctor"),
    }
    for name, args in {
        "poetry cuda lcok": ("cuda", "lcok"),
        "poetry cuda plan --bogus": ("cuda", "plan", "--bogus"),
    }.items():
        result = cli.run(*args, cwd=project, env=CHINESE, program="poetry")
        found[name] = result.stdout + result.stderr
    user_mirror = {"POETRY_CUDA_MIRROR_PYTORCH": mirror, **CHINESE}
    shown = cli.run("show", cwd=locked, env=user_mirror, program="poetry")
    # What Poetry itself says of the packages is its own; the plugin's notes are ours.
    notes = [line for line in shown.stderr.splitlines() if line.startswith("poetry-cuda")]
    found["poetry show with a per-user mirror"] = "\n".join(notes)
    pyproject = project / "pyproject.toml"
    original = pyproject.read_text()
    pyproject.write_text(original.replace('targets = ["hosts/*.json"]', 'policy = "bogus"'))
    found["bad config value"] = said(cli, project, "plan", *TARGET)
    pyproject.write_text(original.replace('targets = ["hosts/*.json"]', "colour = 1"))
    found["unknown config key"] = said(cli, project, "plan", *TARGET)
    pyproject.write_text(original + '\n[tool.poetry-cuda.mirrors]\npytorch = "sjtu"\n')
    found["plan with a mirror"] = said(cli, project, "plan", *TARGET)
    unpinned = original.replace('    "torchvision==0.20.1",\n', "")
    pyproject.write_text(unpinned.replace('"torch==2.5.1"', '"torch"'))
    found["ROCm passed over"] = said(cli, project, "plan", "--target", amd)
    pyproject.write_text(unpinned.replace('"torch==2.5.1"', '"torch<2.1"'))
    found["ROCm refused"] = said(cli, project, "plan", "--target", amd)
    return found


def test_no_english_sentence_on_the_error_paths(
    cli: Cli, tmp_path: Path, fake_nvml: FakeNvml, server: WorldServer
) -> None:
    """Issue 39 item 8: each command's error paths and rarer reports, in Chinese."""
    project = tmp_path / "plain" / "torch_project"
    shutil.copytree(EXAMPLES / "torch_project", project)
    # The example locked through a per-user mirror (the lock records pytorch.org's index).
    locked = torch_example(tmp_path / "locked", server)
    pyproject = locked / "pyproject.toml"
    mirror = f'\n[tool.poetry-cuda.mirrors]\npytorch = "{server.pytorch_mirror}"\n'
    pyproject.write_text(pyproject.read_text().replace(mirror, "\n"))
    user_mirror = {"POETRY_CUDA_MIRROR_PYTORCH": server.pytorch_mirror}
    result = cli.run("lock", cwd=locked, env=user_mirror)
    assert result.code == 0, result.stderr
    outputs = error_path_outputs(cli, project, locked, fake_nvml, server.pytorch_mirror)
    patterns = english_patterns()
    for name, text in outputs.items():
        left = [id for id, pattern in patterns.items() if pattern.search(text)]
        assert left == [], (name, left, text)
        assert english_sentences(text) == [], (name, text)
    expected = {
        "--cuda banana": "--cuda：'banana' 不是有效的 CUDA 要求",
        "lock --cuda >>1": "原因：它只能是 'auto'、'cpu'",
        "missing target": "missing.json：找不到目标主机文件",
        "bad profile value": "bad.json：os：'plan9' 不是 linux, windows, macos 中的一个",
        "profile not JSON": "broken.json：不是有效的 JSON（第 1 行第 2 列",
        "unknown command": '命令 "lcok" 不存在。你是不是想输入 lock？',
        "poetry cuda lcok": '命令 "cuda lcok" 不存在。你是不是想输入 cuda lock？',
        "unknown option": '选项 "--bogus" 不存在。',
        "poetry cuda plan --bogus": '选项 "--bogus" 不存在。',
        "option without value": '选项 "--target" 需要一个值。',
        "detect with probes": "  procfs：已跳过：不需要：nvml 已给出驱动版本",
        "detect without a GPU": "  kfd：未发现：没有 KFD 拓扑：amdgpu 没有加载",
        "detect AMD and Intel": "ROCm：没有安装用户态组件，amdgpu 6.12.12 [kfd]",
        "plan an Intel host": "arc.json：没有找到 Intel 的 Level Zero GPU 驱动，而 +xpu 版需要它；",
        "doctor ok": "ok    cuda.lock 与 pyproject.toml 一致",
        "poetry show with a per-user mirror": "poetry-cuda: pytorch-cu124 改从 ",
        "bad config value": "[tool.poetry-cuda] policy：'bogus' 不是 newest, native 中的一个",
        "unknown config key": "[tool.poetry-cuda] colour：未知的键",
        "plan with a mirror": '镜像：[tool.poetry-cuda] mirrors.pytorch = "sjtu"',
        "run a missing command": "run：找不到命令：no-such-command",
        "run no command": "run：没有给出命令",
        "env --shell tcsh": "--shell：'tcsh' 不是 sh, bash, zsh, fish, powershell, json 中的一个",
        "-C to a missing folder": "--directory：无法进入 'missing'",
        "doctor outside a project": "这里和上级文件夹中都没有 pyproject.toml：只检查了主机",
        "ROCm passed over": "amd.json：跳过了更新的 torch：torch 2.13.0（rocm7.1, rocm7.2）需要的",
        "ROCm refused": "解决办法：torch 2.1 起才有 gfx1100 的构建",
    }
    for name, text in expected.items():
        assert text in outputs[name], (name, outputs[name])
    assert "0：NVIDIA GeForce RTX 4090，计算能力 8.9（sm_89）" in outputs["detect with probes"]
    assert "Intel XPU 驱动" not in outputs["detect AMD and Intel"]  # the Arc has no driver here
    assert "GPU 0：Intel Arc B580，Intel，设备 IP 20.1.0" in outputs["detect AMD and Intel"] or (
        "0：Intel Arc B580，Intel，设备 IP 20.1.0" in outputs["detect AMD and Intel"]
    )
    doctor = outputs["doctor ok"]
    assert "ok    cuda.lock 记录了 2 个包" in doctor
    assert "poetry.lock 锁定的是 torch 2.5.1+cu124，来自 pytorch-cu124" in doctor


def test_no_english_sentence_in_the_rarer_commands(cli: Cli, tmp_path: Path) -> None:
    """Issue 39 item 8: store (and --verify), variant-properties, detect --kubernetes and
    its refusals, a damaged cuda.lock, bad options and a mistyped config key, in Chinese."""
    project = tmp_path / "torch_project"
    shutil.copytree(EXAMPLES / "torch_project", project)
    nodes = Path(__file__).parent / "fixtures" / "kubernetes" / "mixed-x86_64.json"
    h100 = write_profile(
        project / "h100.json", driver={"version": "570.86.10"}, gpus=[{"compute_capability": "9.0"}]
    )
    (project / "broken-nodes.json").write_text("kind: List\n")
    (project / "costly-nodes.json").write_text("," * 1_000_000)  # counted before parsing
    outputs = {
        "store": said(cli, project, "store"),
        "store --verify": said(cli, project, "store", "--verify"),
        # The file it writes is for uv, in English; what it says is Chinese.
        "variant-properties": said(
            cli, project, "variant-properties", "--target", h100, "-o", "variant-lock.toml"
        ),
        "variant-properties --policy oldest": said(
            cli, project, "variant-properties", "--policy", "oldest", "--target", h100
        ),
        "detect --kubernetes": said(cli, project, "detect", "--kubernetes", str(nodes)),
        "detect --kubernetes not JSON": said(
            cli, project, "detect", "--kubernetes", "broken-nodes.json"
        ),
        "detect --kubernetes too costly": said(
            cli, project, "detect", "--kubernetes", "costly-nodes.json"
        ),
        "detect --selector alone": said(cli, project, "detect", "--selector", "a=b"),
        "plan --policy nativ": said(cli, project, "plan", "--policy", "nativ", *TARGET),
        "plan --tagret": said(cli, project, "plan", "--tagret", "x.json"),
    }
    (project / "cuda.lock").write_text('version = "one"\n')
    outputs["damaged cuda.lock"] = said(cli, project, "lock", "--check")
    closed = subprocess.run(
        ["sh", "-c", 'exec "$@" >&-', "sh", str(BIN / "poetry-cuda"), "plan"],
        cwd=project,
        env={**hermetic_env(tmp_path / "home"), **CHINESE},
        capture_output=False,
        stderr=subprocess.PIPE,
        check=False,
    )
    outputs["stdout closed"] = closed.stderr.decode()
    for name, text in outputs.items():
        assert english_sentences(text) == [], (name, text)
    expected = {
        "store": "wheel 存储 ",
        "store --verify": "已校验 0 个条目：每个文件都与解压时一致",
        "variant-properties": "变体：cuda12.8（",
        "variant-properties --policy oldest": "--policy：'oldest' 不是 newest, native 中的一个",
        "detect --kubernetes": "集群：",
        "detect --kubernetes not JSON": "broken-nodes.json：不是有效的 JSON（第 1 行第 1 列",
        "detect --kubernetes too costly": "超过了同样大小的节点列表所能有的数量",
        "detect --selector alone": "--write-targets、--selector 和 --gpu-only 是 --kubernetes 的选项",
        "plan --policy nativ": "你是不是想输入 native？",
        "plan --tagret": '选项 "--tagret" 不存在。你是不是想输入 --target？',
        "damaged cuda.lock": "version：应为整数，实际是 'one'",
        "stdout closed": "标准输出已关闭",
    }
    for name, text in expected.items():
        assert text in outputs[name], (name, outputs[name])
    assert (
        "  GPU：NVIDIA-A100-SXM4-80GB，计算能力 8.0（sm_80），共 32 个 GPU"
        in outputs["detect --kubernetes"]
    )
