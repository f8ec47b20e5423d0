"""A usage error's fix names a command line that runs, in the script and in the plugin."""

from __future__ import annotations

import re
import shlex

from typing import TYPE_CHECKING

import pytest


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Cli


@pytest.mark.parametrize(
    ("program", "args"),
    [
        ("poetry-cuda", ("plan", "--bogus")),
        ("poetry-cuda", ("plan", "extra")),
        ("poetry", ("cuda", "plan", "--bogus")),
        ("poetry", ("cuda", "plan", "extra")),
        ("poetry", ("cuda", "doctor", "--nope")),
    ],
)
def test_a_usage_errors_fix_names_a_command_that_runs(
    program: str, args: tuple[str, ...], cli: Cli, tmp_path: Path
) -> None:
    refused = cli.run(*args, cwd=tmp_path, program=program)
    assert refused.code == 2, refused
    fix = refused.stderr.strip().splitlines()[-1]
    named = re.fullmatch(r"Fix: `([^`]+)` shows its options", fix)
    assert named is not None, fix
    words = shlex.split(named.group(1))
    assert words[0] == program
    shown = cli.run(*words[1:], cwd=tmp_path, program=program)
    assert shown.code == 0, shown
    assert "Usage:" in shown.stdout
    assert f"{args[-2]} [options]" in shown.stdout
    assert "command [options] [arguments]" not in shown.stdout
