"""Every `--option` a message of poetry-cuda names exists: an option of one of its commands
or of the script, or one of the tool the message tells the user to run (Poetry, uv, pip,
nvidia-smi, kubectl, docker), listed here with that tool."""

from __future__ import annotations

import ast
import re

from pathlib import Path

from poetry_cuda.cli.registry import COMMANDS
from poetry_cuda.cli.registry import command
from poetry_cuda.cli.script import GLOBALS


PACKAGE = Path(__file__).resolve().parents[2] / "poetry_cuda"
# Options of the other programs poetry-cuda's messages and commands name, by program.
OTHERS = {
    "poetry": {
        "--extras",
        "--with",
        "--no-interaction",
        "--lock",
        "--all",
        "--directory",
        "--project",
        "--version",
        "--help",
        "--only",
        "--only-root",
        "--all-groups",
        "--without",
        "--dry-run",
    },
    "uv": {
        "--extra",
        "--group",
        "--locked",
        "--offline",
        "--python",
        "--upgrade",
        "--color",
        "--find-links",
        "--reinstall-package",
        "--bare",
    },
    "pip": {"--force-reinstall", "--no-deps"},
    "nvidia-smi": {"--query-gpu", "--format"},
    "kubectl": {"--overwrite"},
    "docker": {"--gpus", "--device"},
    "nvcc": {"--version"},
    "the run example (python train.py --epochs 3)": {"--epochs"},
    "a target profile's name field": {"--name"},
}


def own_options() -> set[str]:
    found = {f"--{spec.name}" for spec in GLOBALS}
    for name in COMMANDS:
        found |= {f"--{option.name}" for option in command(name).options}
    return found | {"--help", "--version", "--ansi", "--no-ansi"}


def named_options() -> dict[str, str]:
    """Every `--option` in a string of the package, and a file that names it."""
    found: dict[str, str] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for option in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", node.value):
                    found.setdefault(option, str(path.relative_to(PACKAGE)))
    return found


def test_every_option_a_message_names_exists() -> None:
    known = own_options().union(*OTHERS.values())
    unknown = {option: path for option, path in named_options().items() if option not in known}
    assert unknown == {}


def test_the_own_options_are_what_the_commands_take() -> None:
    options = own_options()
    assert {"--target", "--cuda", "--adopt", "--check-index", "--directory", "--project"} <= options
    assert "--frobnicate" not in options
