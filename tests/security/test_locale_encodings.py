"""Every locale's encoding survives every command's output, in both front ends.

A project folder named in UTF-8 (Chinese, a check mark) under a GB18030 locale, or under a
narrow encoding (latin-1, ASCII, cp1252), and a folder whose name the file system encoding
cannot decode at all (held by Python as lone surrogates), reach stdout and stderr through
paths, reports, JSON and the shell code `env` prints. Nothing may die on "codec can't
encode": human text writes what the encoding lacks as backslash escapes; JSON is ASCII; the
shell lines `env` prints, which a shell reads back, are written exactly or refused (exit 2,
saying which character and how to fix it), since a character written in its place would set
a different PATH. Where the stream writes undecodable bytes back as they were (Python's
surrogateescape), `env` prints them so, and the shell gets the very path.

The commands run as users run them: the console script (a command, a short option,
--help, a usage error), and the Poetry plugin, in subprocesses whose
output is read as bytes and decoded with the encoding under test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

from tests.support.cli import BIN
from tests.support.isolation import hermetic_env
from tests.support.projects import TORCH
from tests.support.projects import make_project


if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path


UNICODE_NAME = "项目✓é"  # characters latin-1, ASCII and cp1252 lack; UTF-8 bytes GB18030 reads
UNDECODABLE = b"proj\xff\x93"  # no UTF-8 (nor GB18030) decoder reads these bytes
NARROW = ["latin-1", "ascii", "cp1252"]
REFUSED = "cannot carry this output"
REFUSED_ZH = "无法承载这段输出"


@dataclass(frozen=True)
class Run:
    code: int
    stdout: bytes
    stderr: bytes

    def text(self, encoding: str) -> str:
        return (self.stdout + self.stderr).decode(encoding, errors="surrogateescape")


def run(
    args: list[str], cwd: Path | bytes, home: Path, env: Mapping[str, str], program: str
) -> Run:
    completed = subprocess.run(
        [str(BIN / program), *args],
        cwd=cwd,
        env={**hermetic_env(home, POETRY_VIRTUALENVS_IN_PROJECT="true"), **env},
        capture_output=True,
        timeout=300,
        check=False,
    )
    result = Run(completed.returncode, completed.stdout, completed.stderr)
    assert b"Traceback" not in result.stdout + result.stderr, result
    assert b"codec can't encode" not in result.stdout + result.stderr, result
    return result


def _project(folder: Path) -> Path:
    project = make_project(folder, **TORCH)  # type: ignore[arg-type]
    (project / ".venv" / "bin").mkdir(parents=True)
    return project


@pytest.fixture
def unicode_project(tmp_path: Path) -> Path:
    return _project(tmp_path / UNICODE_NAME)


@pytest.fixture
def undecodable_project(tmp_path: Path) -> bytes:
    """A project whose folder name is bytes no decoder reads (made under a UTF-8 name)."""
    made = _project(tmp_path / "made")
    target = os.fsencode(tmp_path) + b"/" + UNDECODABLE
    made.rename(os.fsdecode(target))
    return target


@pytest.fixture(scope="session")
def gb18030_locale(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a real zh_CN.GB18030 locale, compiled with localedef (skips without)."""
    localedef = shutil.which("localedef")
    if localedef is None:
        pytest.skip("localedef is not installed")
    folder = tmp_path_factory.mktemp("locales")
    built = subprocess.run(
        [localedef, "-i", "zh_CN", "-f", "GB18030", str(folder / "zh_CN.GB18030")],
        capture_output=True,
        check=False,
    )
    if not (folder / "zh_CN.GB18030" / "LC_CTYPE").exists():
        pytest.skip(f"localedef cannot build zh_CN.GB18030: {built.stderr!r}")
    return {"LOCPATH": str(folder), "LANG": "zh_CN.GB18030", "LC_ALL": "zh_CN.GB18030"}


# (arguments, program): every command that prints something about the project, through the
# script (a command, a short option, --help, a usage error) and the plugin.
HUMAN = [
    (["doctor"], "poetry-cuda"),
    (["doctor", "-v"], "poetry-cuda"),
    (["plan", "--target", "this"], "poetry-cuda"),
    (["detect"], "poetry-cuda"),
    (["lock", "--check"], "poetry-cuda"),
    (["env", "--shell", "bogus"], "poetry-cuda"),
    (["env", "--no-such-option"], "poetry-cuda"),
    (["env", "--help"], "poetry-cuda"),
    (["cuda", "doctor"], "poetry"),
    (["cuda", "env", "--shell", "bogus"], "poetry"),
]
JSON = [
    (["doctor", "--json"], "poetry-cuda"),
    (["env", "--shell", "json"], "poetry-cuda"),
    (["env", "--shell", "json", "-v"], "poetry-cuda"),
    (["cuda", "env", "--shell", "json"], "poetry"),
]
SHELLS = [
    (["env"], "poetry-cuda"),
    (["env", "--shell", "fish"], "poetry-cuda"),
    (["env", "--shell", "powershell"], "poetry-cuda"),
    (["env", "-v"], "poetry-cuda"),
    (["cuda", "env"], "poetry"),
]


def _ids(case: tuple[list[str], str]) -> str:
    return " ".join([case[1], *case[0]])


@pytest.mark.parametrize("encoding", ["gb18030", *NARROW])
@pytest.mark.parametrize("case", HUMAN + JSON, ids=_ids)
def test_reports_and_json_survive(
    unicode_project: Path, tmp_path: Path, encoding: str, case: tuple[list[str], str]
) -> None:
    args, program = case
    result = run(args, unicode_project, tmp_path / "home", {"PYTHONIOENCODING": encoding}, program)
    text = result.text(encoding)
    if case in JSON:
        assert result.code in (0, 1), text  # doctor: its findings
        assert result.stdout.isascii()
        document = json.loads(result.stdout)
        assert UNICODE_NAME in json.dumps(document, ensure_ascii=False)
    elif encoding == "gb18030" and args[0] in ("doctor", "cuda"):
        assert UNICODE_NAME in text or "bogus" in text  # written as it is


@pytest.mark.parametrize("encoding", NARROW)
def test_a_report_writes_what_the_encoding_lacks_as_escapes(
    unicode_project: Path, tmp_path: Path, encoding: str
) -> None:
    result = run(
        ["doctor"],
        unicode_project,
        tmp_path / "home",
        {"PYTHONIOENCODING": encoding},
        "poetry-cuda",
    )
    assert result.code == 1
    assert "\\u9879\\u76ee\\u2713" in result.text(encoding)  # 项目✓


@pytest.mark.parametrize("case", SHELLS, ids=_ids)
def test_shell_lines_are_exact_where_the_encoding_has_the_path(
    unicode_project: Path, tmp_path: Path, case: tuple[list[str], str]
) -> None:
    args, program = case
    result = run(args, unicode_project, tmp_path / "home", {"PYTHONIOENCODING": "gb18030"}, program)
    assert result.code == 0, result
    assert f"{unicode_project}/.venv/bin" in result.stdout.decode("gb18030")


@pytest.mark.parametrize("encoding", NARROW)
@pytest.mark.parametrize("case", SHELLS, ids=_ids)
def test_shell_lines_the_encoding_cannot_write_are_refused(
    unicode_project: Path, tmp_path: Path, encoding: str, case: tuple[list[str], str]
) -> None:
    args, program = case
    result = run(args, unicode_project, tmp_path / "home", {"PYTHONIOENCODING": encoding}, program)
    assert result.code == 2, result
    assert result.stdout == b""  # nothing half printed for a shell to evaluate
    message = result.stderr.decode(encoding)
    assert message.startswith(f"standard output {REFUSED}: its encoding, "), message
    assert "'\\u9879'" in message and "PATH" in message
    assert "UTF-8 locale" in message


def test_undecodable_bytes_are_refused_by_a_strict_stream(
    undecodable_project: bytes, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    env = {"PYTHONIOENCODING": "gb18030"}
    refused = run(["env"], undecodable_project, home, env, "poetry-cuda")
    assert refused.code == 2
    assert "'\\udcff'" in refused.stderr.decode("gb18030")
    assert "could not decode" in refused.stderr.decode("gb18030")
    doctor = run(["doctor"], undecodable_project, home, env, "poetry-cuda")
    assert doctor.code == 1
    assert "proj\\udcff\\udc93" in doctor.stdout.decode("gb18030")
    as_json = run(["env", "--shell", "json"], undecodable_project, home, env, "poetry-cuda")
    assert as_json.code == 0
    assert "\\udcff\\udc93" in as_json.stdout.decode("ascii")


def test_undecodable_bytes_reach_the_shell_as_they_were(
    undecodable_project: bytes, tmp_path: Path
) -> None:
    """A stream that writes such bytes back (surrogateescape) gets the file system's own
    bytes, and `eval` in sh sets the very path."""
    env = {"PYTHONIOENCODING": "utf-8:surrogateescape"}
    result = run(["env"], undecodable_project, tmp_path / "home", env, "poetry-cuda")
    assert result.code == 0, result
    assert undecodable_project + b"/.venv/bin" in result.stdout
    shell = subprocess.run(
        ["sh", "-c", 'eval "$1"; printf %s "$PATH"', "sh", result.stdout],
        capture_output=True,
        check=True,
    )
    assert shell.stdout.split(b":")[0] == undecodable_project + b"/.venv/bin"


@pytest.mark.parametrize("case", [*HUMAN, *JSON, *SHELLS], ids=_ids)
def test_a_utf8_folder_under_a_gb18030_locale(
    gb18030_locale: dict[str, str], tmp_path: Path, case: tuple[list[str], str]
) -> None:
    """The reviewer's case: a real GB18030 locale, whose file system encoding reads the
    folder's UTF-8 bytes with some left over (lone surrogates)."""
    project = _project(tmp_path / "项目✓")
    args, program = case
    result = run(args, project, tmp_path / "home", gb18030_locale, program)
    if case in SHELLS:
        assert result.code == 2, result
        assert REFUSED_ZH in result.stderr.decode("gb18030")  # the locale's language
    elif case in JSON:
        assert result.code in (0, 1), result
        assert result.stdout.isascii()


@pytest.mark.parametrize("program", ["poetry-cuda", "poetry"])
def test_a_gb18030_locale_python_lacks_gets_gb18030(
    unicode_project: Path, tmp_path: Path, program: str
) -> None:
    """Issue 40 item 8: LANG=zh_CN.GB18030 where that locale is not installed, so Python
    writes UTF-8 while the terminal reads GB18030: the messages are written in GB18030."""
    prefix = ["cuda"] if program == "poetry" else []
    locale = {"LANG": "zh_CN.GB18030", "LC_ALL": "", "LC_MESSAGES": ""}
    home = tmp_path / "home"
    missing = run(
        [*prefix, "plan", "--target", "missing.json"], unicode_project, home, locale, program
    )
    assert missing.code == 2, missing
    assert "missing.json：找不到目标主机文件" in missing.stderr.decode("gb18030")
    # The shell code env prints stays exact in the locale's codeset.
    shell = run([*prefix, "env"], unicode_project, home, locale, program)
    assert shell.code == 0, shell
    assert f"{unicode_project}/.venv/bin" in shell.stdout.decode("gb18030")
    # The user's own PYTHONIOENCODING is kept.
    chosen = {**locale, "PYTHONIOENCODING": "utf-8"}
    utf8 = run(
        [*prefix, "plan", "--target", "missing.json"], unicode_project, home, chosen, program
    )
    assert "找不到目标主机文件" in utf8.stderr.decode("utf-8")
