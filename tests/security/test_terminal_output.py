"""Nothing read from a file reaches the terminal raw.

A committed cuda.lock (from a teammate, or an attacker) or a host profile may hold escape
sequences: an OSC 52 writes the clipboard, an erase-line with a carriage return hides a FAIL,
a right-to-left override reorders a line. Every message and report shows them escaped.
"""

from __future__ import annotations

import json

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.display import shown
from tests.support.projects import TORCH
from tests.support.projects import make_project


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Cli


OSC52 = "\x1b]52;c;ZWNobyBQV05FRA==\x07"  # sets the clipboard to "echo PWNED"
ERASE = "\r\x1b[2K"  # back to the start of the line and erase it
RLO = "\u202e"
HOSTILE = f"{OSC52}cudnn 9{ERASE}ok{RLO}\x9b31m"
RAW = ("\x1b", "\x07", "\r", "\x9b", RLO)
CREDENTIALS = " from https://alice:pw@mirror.example/whl"


def assert_clean(text: str) -> None:
    assert not any(char in text for char in RAW), repr(text)


def hostile_lock(folder: Path) -> Path:
    project = make_project(folder, **TORCH)  # type: ignore[arg-type]
    path = project / "cuda.lock"
    text = path.read_text()
    text += (
        "\n[[system-requirements]]\n"
        f"package = {json.dumps('torch' + OSC52)}\n"
        'kind = "cudnn"\nspec = ">=99"\n'
        f"reason = {json.dumps(HOSTILE)}\n"
        f"satisfy = {json.dumps(HOSTILE + CREDENTIALS)}\n"
    )
    path.write_text(text)
    return project


def test_doctor_report_shows_escape_sequences_escaped(cli: Cli, tmp_path: Path) -> None:
    project = hostile_lock(tmp_path / "app")
    result = cli.run("doctor", cwd=project)
    assert result.code == 1, result
    assert_clean(result.stdout + result.stderr)
    assert "\\x1b]52;c;ZWNobyBQV05FRA==\\x07cudnn 9\\x0d\\x1b[2Kok\\u202e\\x9b31m" in result.stdout
    assert "https://***@mirror.example/whl" in result.stdout


def test_doctor_json_escapes_them_and_redacts_credentials(cli: Cli, tmp_path: Path) -> None:
    project = hostile_lock(tmp_path / "app")
    result = cli.run("doctor", "--json", cwd=project)
    assert result.code == 1, result
    assert_clean(result.stdout)  # json.dumps escapes controls (ensure_ascii)
    assert "alice" not in result.stdout
    findings = json.loads(result.stdout)["findings"]
    assert HOSTILE + " from https://***@mirror.example/whl" in [f["fix"] for f in findings]


def test_an_error_message_shows_them_escaped(cli: Cli, tmp_path: Path) -> None:
    """`env` refuses an unmet requirement, quoting cuda.lock in its message."""
    project = hostile_lock(tmp_path / "app")
    result = cli.run("env", cwd=project, env={"POETRY_CUDA_TOOLKITS": str(tmp_path / "none")})
    assert result.code == 1, result
    assert_clean(result.stderr)
    assert "\\x1b]52" in result.stderr


def test_a_host_profile_with_them_is_refused_and_quotes_them_escaped(
    cli: Cli, tmp_path: Path
) -> None:
    """No field of a profile holds a control character (issue 40, item 6)."""
    profile = tmp_path / "host.json"
    profile.write_text(
        json.dumps(
            {
                "os": "linux",
                "driver": {"version": "550.54.14", "source": HOSTILE},
                "gpus": [{"name": HOSTILE, "compute_capability": "8.9", "source": HOSTILE}],
                "toolkits": [{"version": "12.4", "root": HOSTILE, "source": HOSTILE}],
            }
        )
    )
    result = cli.run("detect", "--target", str(profile), cwd=tmp_path)
    assert result.code == 2, result
    assert_clean(result.stdout + result.stderr)
    assert "holds a control character" in result.stderr
    assert "\\x1b]52" in result.stderr


def test_a_warning_shows_them_escaped(cli: Cli, tmp_path: Path) -> None:
    """A profile named with an escape sequence, whose driver the table does not know."""
    name = f"host{OSC52}.json"
    (tmp_path / name).write_text(json.dumps({"os": "linux", "driver": {"version": "100.1"}}))
    result = cli.run("detect", "--target", name, cwd=tmp_path)
    assert result.code == 0, result
    assert "Warning" in result.stderr
    assert_clean(result.stdout + result.stderr)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain\ttext\nnext line", "plain\ttext\nnext line"),  # layout is kept
        ("\x1b[31mred", "\\x1b[31mred"),
        ("\x00\x08\x0b\x0c\x0d\x7f", "\\x00\\x08\\x0b\\x0c\\x0d\\x7f"),
        ("\x85\x9b", "\\x85\\x9b"),  # C1 controls: NEL, CSI
        ("a\u202eb\u2066c\u200bd\ufeff", "a\\u202eb\\u2066c\\u200bd\\ufeff"),
        ("ünïcödé ✓ 中文", "ünïcödé ✓ 中文"),  # printable text is left alone
        ("\\x1b stays", "\\x1b stays"),  # escaping twice changes nothing
    ],
)
def test_shown_escapes_controls_only(text: str, expected: str) -> None:
    assert shown(text) == expected
    assert shown(shown(text)) == shown(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://u:p@host/whl", "https://***@host/whl"),
        ("see <https://tok@host/x>.", "see <https://***@host/x>."),
        ("`https://a:b@h/x?token=t&page=2#f`", "`https://***@h/x?token=***&page=***#f`"),
        ("https://h/x?abcdef", "https://h/x?***"),
        ("connect to alice:pw@127.0.0.1:9 failed", "connect to ***@127.0.0.1:9 failed"),
        ("https://host/whl/cu124", "https://host/whl/cu124"),
        ("mail alice@example.org", "mail alice@example.org"),
        ("torch 2.5.1+cu124 (a: b@c)", "torch 2.5.1+cu124 (a: b@c)"),
    ],
)
def test_shown_redacts_credentials(text: str, expected: str) -> None:
    assert shown(text) == expected
