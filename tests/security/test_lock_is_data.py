"""cuda.lock is parsed as TOML data and validated, never evaluated: code, pickle and YAML payloads
in its values stay strings, and TOML tricks are refused with an error naming the key."""

from __future__ import annotations

import shutil

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import InputFileError
from poetry_cuda.locking import lockfile
from poetry_cuda.locking.lockfile_toml import dumps
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion
from tests.support.example import EXAMPLES


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Cli


MARKER = "PWNED"
HEAD = "version = 1\ncontent-hash = 'x'\nbackend = 'poetry'\npolicy = 'newest'\ncuda = 'auto'\n"
PAYLOADS = [
    f"__import__('pathlib').Path('{MARKER}').touch()",
    f"exec(\"open('{MARKER}', 'w')\")",
    f"cos\nsystem\n(S'touch {MARKER}'\ntR.",  # pickle protocol 0
    f"!!python/object/apply:os.system ['touch {MARKER}']",  # YAML's tag
    f"$(touch {MARKER})",
    f"`touch {MARKER}`",
    "{{ config.__class__ }}",
]


def _lock(payload: str, cuda: str = "auto") -> str:
    text = dumps(
        lockfile.CudaLock(
            content_hash=payload,
            backend="poetry",
            policy="newest",
            cuda=cuda,
            targets=(
                lockfile.TargetFacts(
                    payload,
                    "linux",
                    "x86_64",
                    DriverVersion.parse("550.54.14"),
                    CudaVersion(12, 4),
                    (ComputeCapability(8, 9),),
                ),
            ),
            packages=(
                lockfile.LockedPackage(
                    name="torch",
                    variant="cu124",
                    cuda=CudaVersion(12, 4),
                    source=payload,
                    url=payload,
                    version=payload,
                    arches=(payload,),
                    reason=payload,
                ),
            ),
            system_requirements=(),
            managed_sources=(payload,),
        )
    )
    return text


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payloads_are_read_back_as_strings(
    tmp_path: Path, payload: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "cuda.lock"
    path.write_text(_lock(payload), encoding="utf-8")
    lock = lockfile.read(path)
    assert lock.content_hash == payload
    [package] = lock.packages
    assert (package.source, package.url, package.version, package.reason) == (payload,) * 4
    assert lock.managed_sources == (payload,)
    assert not (tmp_path / MARKER).exists()


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payloads_where_a_cuda_request_belongs_are_refused(
    tmp_path: Path, payload: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "cuda.lock"
    path.write_text(_lock(payload, cuda=payload), encoding="utf-8")
    with pytest.raises(InputFileError, match=r"cuda\.lock: cuda: .* is not a CUDA request"):
        lockfile.read(path)
    assert not (tmp_path / MARKER).exists()


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('version = "1"\n', "version"),  # a string where a number belongs
        ("version = 1.0\n", "version"),
        ("version = true\n", "version"),
        ("version = 1\nbackend = {python = 'exec'}\n", "content-hash"),
        ("version = 1\ncontent-hash = 1979-05-27T07:32:00Z\n", "content-hash"),
        (
            HEAD + "packages = 'torch'\n",
            "packages",
        ),
        (
            HEAD + "packages = [1]\n",
            "packages[0]",
        ),
        (
            HEAD + "managed-sources = [1, 'x']\n",
            "managed-sources",
        ),
    ],
)
def test_wrong_types_name_the_key(tmp_path: Path, text: str, key: str) -> None:
    path = tmp_path / "cuda.lock"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputFileError, match=key.replace("[", r"\[").replace("]", r"\]")):
        lockfile.read(path)


@pytest.mark.parametrize(
    "text",
    [
        "version = 1\nversion = 1\n",  # a duplicate key
        "version = 1\n[packages]\nname = 'x'\n[[packages]]\n",  # a table redefined as an array
        "version = 1\na.b = 1\na = 2\n",
        'version = 1\nx = "\\u0000\n',  # an unterminated string
        "\ufeffversion = 1\x00\n",
        'version = 1\n"""\n',
    ],
)
def test_toml_tricks_are_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "cuda.lock"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputFileError, match=r"cuda\.lock"):
        lockfile.read(path)


@pytest.mark.slow
@pytest.mark.parametrize("command", [("lock", "--check"), ("env", "--shell", "json"), ("doctor",)])
def test_commands_reading_a_hostile_cuda_lock_run_nothing(
    cli: Cli, tmp_path: Path, command: tuple[str, ...]
) -> None:
    project = tmp_path / "torch_project"
    shutil.copytree(EXAMPLES / "torch_project", project)
    (project / "cuda.lock").write_text(
        "".join(f"# {p}\n" for p in PAYLOADS) + _lock(PAYLOADS[0]), encoding="utf-8"
    )
    result = cli.run(*command, cwd=project)  # Cli asserts there is no traceback
    assert result.code in (0, 1, 2), result
    assert not (project / MARKER).exists()
    assert not (tmp_path / MARKER).exists()
