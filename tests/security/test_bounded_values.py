"""Every value read from a clone or the environment is bounded and parsed totally.

A mirror value (`[tool.poetry-cuda.mirrors]`, `POETRY_CUDA_MIRROR_<FAMILY>`, a known mirror's
name) is any text: malformed URLs (brackets, ports, controls, spaces, credentials, queries,
plain http, absurd lengths) are one exit-2 message that names the key or variable and quotes
the value redacted and cut short, never an exception. A string in cuda.lock or
`[tool.poetry-cuda]` longer than any real one is refused where it is read, naming its key,
instead of being carried into plans, files and messages.
"""

from __future__ import annotations

import dataclasses

from typing import TYPE_CHECKING
from typing import Any

import pytest
import tomlkit

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from poetry_cuda.errors import ConfigError
from poetry_cuda.errors import InputFileError
from poetry_cuda.files import parse_toml
from poetry_cuda.knowledge.packaged import known_mirrors
from poetry_cuda.knowledge.tables import MIRRORS_FILE
from poetry_cuda.knowledge.tables import validate_mirrors
from poetry_cuda.locking import lockfile
from poetry_cuda.locking.lockfile import CudaLock
from poetry_cuda.locking.lockfile import LockedExtra
from poetry_cuda.locking.lockfile import LockedPackage
from poetry_cuda.locking.lockfile import LockedToolkit
from poetry_cuda.locking.lockfile_toml import dumps
from poetry_cuda.planning.plan import SystemRequirement
from poetry_cuda.redist.manifest import Archive
from poetry_cuda.request.settings import NAME_LIMIT
from poetry_cuda.request.settings import CudaRequest
from poetry_cuda.request.settings import parse_settings
from poetry_cuda.request.user_mirrors import user_mirrors
from poetry_cuda.request.user_mirrors import with_user_redist
from poetry_cuda.urls import URL_LIMIT
from poetry_cuda.urls import check_index_url
from poetry_cuda.versions import CudaVersion
from tests.support.projects import THIS_MACHINE
from tests.support.projects import TORCH
from tests.support.projects import make_project


if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from poetry_cuda.knowledge.model import KnownMirror
    from tests.support.cli import Cli


SECRET = "s3cr3t"
HUGE = 60_000

# (value, what the message says): one of each way a mirror URL can be malformed.
MALFORMED = [
    ("https://[m.example/{variant}", "not a well-formed URL"),
    ("https://m.example]/{variant}", "not a well-formed URL"),
    ("https://[::1/{variant}", "not a well-formed URL"),
    ("https://[m.example]/{variant}", "not a well-formed URL"),
    ("https://m.example:99999/{variant}", "the port is not a number"),
    ("https://m.example:0/{variant}", "the port is not a number"),
    ("https://m.example:port/{variant}", "the port is not a number"),
    ("https://m.example:/{variant}", "not a well-formed URL"),
    ("https://m.example\\@evil.example/{variant}", "not a well-formed URL"),
    ("https:///{variant}", "it has no host"),
    ("https://m.exa mple/{variant}", "holds whitespace"),
    ("https://m.example/\n{variant}", "holds whitespace"),
    ("https://m.example/\x1b]52;c;x\x07{variant}", "holds a control character"),
    ("https://m.example/\u202e{variant}", "holds a control character"),
    (f"https://alice:{SECRET}@m.example/{{variant}}", "credentials"),
    (f"https://alice:{SECRET}@[m.example/{{variant}}", "not a well-formed URL"),
    (f"https://m.example/{{variant}}?token={SECRET}", "query string"),
    ("http://m.example/{variant}", "not an https URL"),
    ("ftp://m.example/{variant}", "not an https URL"),
    (f"ftp://alice:{SECRET}@m.example/{{variant}}", "not an https URL"),
    ("https://m.example/" + "a" * HUGE, "characters long"),
]
MALFORMED_IDS = [repr(value)[:40] for value, _ in MALFORMED]


def _said(error: ConfigError, key: str, said: str) -> None:
    text = error.render()
    assert error.what.startswith(f"{key}: "), error.what
    assert said in error.what, error.what
    assert SECRET not in text
    assert len(text) < 2_000, "the value is quoted cut short"
    assert error.exit_code == 2


@pytest.mark.parametrize(("value", "said"), MALFORMED, ids=MALFORMED_IDS)
def test_a_per_user_mirror_variable(value: str, said: str) -> None:
    with pytest.raises(ConfigError) as caught:
        user_mirrors({"POETRY_CUDA_MIRROR_PYTORCH": value})
    _said(caught.value, "POETRY_CUDA_MIRROR_PYTORCH", said)


@pytest.mark.parametrize(("value", "said"), MALFORMED, ids=MALFORMED_IDS)
def test_the_per_user_redist_variable(value: str, said: str) -> None:
    settings = parse_settings({})
    with pytest.raises(ConfigError) as caught:
        with_user_redist(settings, {"POETRY_CUDA_MIRROR_CUDA_REDIST": value})
    _said(caught.value, "POETRY_CUDA_MIRROR_CUDA_REDIST", said)


def _mirrors(table: dict[str, Any]) -> dict[str, Any]:
    return {"tool": {"poetry-cuda": {"mirrors": table}}}


@pytest.mark.parametrize(
    ("shape", "key"),
    [
        (lambda url: _mirrors({"pytorch": url}), "[tool.poetry-cuda] mirrors.pytorch"),
        (lambda url: _mirrors({"paddle": {"url": url}}), "[tool.poetry-cuda] mirrors.paddle.url"),
        (lambda url: _mirrors({"cuda-redist": url}), "[tool.poetry-cuda] mirrors.cuda-redist"),
    ],
    ids=["template", "table", "redist"],
)
@pytest.mark.parametrize(("value", "said"), MALFORMED, ids=MALFORMED_IDS)
def test_a_mirror_in_pyproject(
    shape: Callable[[str], dict[str, Any]], key: str, value: str, said: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_settings(shape(value))
    if len(value) > URL_LIMIT:  # refused before it is read as a URL at all
        assert caught.value.what.startswith("[tool.poetry-cuda] mirrors.")
        assert "characters" in caught.value.what
        return
    _said(caught.value, key, said)


@pytest.mark.parametrize(
    "name", ["tuna", "SJTU\x1b[2K", "sjtu\u202e", "n" * HUGE, f"alice:{SECRET}@sjtu"]
)
def test_a_known_mirror_name_that_is_none(name: str) -> None:
    with pytest.raises(ConfigError) as caught:
        user_mirrors({"POETRY_CUDA_MIRROR_PYTORCH": name})
    assert caught.value.what.startswith("POETRY_CUDA_MIRROR_PYTORCH: ")
    assert "neither a URL nor a known mirror" in caught.value.what
    assert len(caught.value.render()) < 2_000


TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=80)
PIECES = st.lists(
    st.sampled_from(
        [
            "https://",
            "http://",
            "[",
            "]",
            ":",
            "@",
            "/",
            "?",
            "#",
            "\\",
            "%",
            " ",
            "\x00",
            "{variant}",
            "127.0.0.1",
            "::1",
            "m.example",
            "99999",
            "0",
            "a",
            "sjtu",
        ]
    ),
    max_size=12,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(value=st.one_of(TEXT, PIECES))
def test_any_mirror_value_is_a_mirror_or_one_config_error(value: str) -> None:
    """No text makes reading a mirror value raise anything but the error that names it."""
    for read in (
        lambda: user_mirrors({"POETRY_CUDA_MIRROR_PYTORCH": value}),
        lambda: with_user_redist(parse_settings({}), {"POETRY_CUDA_MIRROR_CUDA_REDIST": value}),
        lambda: parse_settings(_mirrors({"pytorch": value})),
        lambda: parse_settings(_mirrors({"pytorch": {"url": value, "layout": "flat"}})),
    ):
        try:
            read()
        except ConfigError as error:
            assert error.what.startswith(("POETRY_CUDA_MIRROR_", "[tool.poetry-cuda] mirrors"))


def parse_mirrors(text: str) -> tuple[KnownMirror, ...]:
    return validate_mirrors({MIRRORS_FILE: parse_toml(text)})


def test_every_known_mirror_passes_the_index_url_rule() -> None:
    for row in known_mirrors():
        assert check_index_url(row.url, row.name) == row.url


@pytest.mark.parametrize(
    "url",
    [
        "https://[m.example/{variant}/",
        "https://m.example:0/{variant}/",
        "https://u:p@m.example/{variant}/",
        "https://m.example/{variant}/?x=1",
        "https://m.example/{variant}/ ",
        "https://m.example/no-variant/",
        "http://m.example/{variant}/",
    ],
)
def test_the_known_mirrors_table_refuses_a_malformed_template(url: str) -> None:
    text = (
        'schema = 1\n[[mirror]]\nfamily = "pytorch"\nname = "m"\n'
        f"url = {tomlkit.string(url).as_string()}\n"
        'layout = "simple"\nsource = "https://m.example/help"\nconfidence = "verified"\n'
    )
    with pytest.raises(InputFileError, match=r"mirror\[pytorch\.m\]\.url"):
        parse_mirrors(text)


@pytest.mark.parametrize("name", ["SJTU", "a b", "x" * 100, "n\x1b"])
def test_the_known_mirrors_table_refuses_a_name_users_cannot_write(name: str) -> None:
    text = (
        f'schema = 1\n[[mirror]]\nfamily = "pytorch"\nname = {tomlkit.string(name).as_string()}'
        '\nurl = "https://m.example/{variant}/"\nlayout = "simple"\n'
        'source = "https://m.example/help"\nconfidence = "verified"\n'
    )
    with pytest.raises(InputFileError, match=r"\.name"):
        parse_mirrors(text)


# cuda.lock and [tool.poetry-cuda]: a value longer than any real one names its key.


def _full_lock() -> CudaLock:
    """A cuda.lock with every table and key poetry-cuda writes."""
    cuda = CudaVersion(12, 4)
    return CudaLock(
        content_hash="sha256:" + "0" * 64,
        backend="poetry",
        policy="newest",
        cuda="auto",
        targets=(dataclasses.replace(THIS_MACHINE, label="hosts/gpu.json"),),
        packages=(
            LockedPackage(
                "torch",
                "cu124",
                cuda,
                "pytorch-cu124",
                "https://download.pytorch.org/whl/cu124",
                "2.5.1+cu124",
                ("sm_89",),
                "driver 550.54.14 supports CUDA <= 12.4",
            ),
        ),
        system_requirements=(
            SystemRequirement("torch", "cudnn", ">=9", "torch loads it", "install cuDNN 9", "x"),
        ),
        managed_sources=("pytorch-cu124",),
        extras=(
            LockedExtra(
                "cu124", "extra", "torch", "cu124", cuda, ("sm_89",), ("hosts/gpu.json",), "fits"
            ),
        ),
        toolkit=LockedToolkit(
            "12.4.1",
            (
                Archive(
                    "cuda_nvcc",
                    "12.4.131",
                    "linux-x86_64",
                    "cuda_nvcc/linux-x86_64/cuda_nvcc-linux-x86_64-12.4.131-archive.tar.xz",
                    "0" * 64,
                    1,
                ),
            ),
        ),
    )


def _string_paths(value: object, path: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    if isinstance(value, str):
        return [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _string_paths(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _string_paths(v, (*path, i))]
    return []


def _dotted(path: tuple[str | int, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


FULL = tomlkit.parse(dumps(_full_lock())).unwrap()
LOCK_PATHS = _string_paths(FULL)


def test_the_full_lock_reads_back() -> None:
    assert len(LOCK_PATHS) > 30
    assert "toolkit" in FULL and "extras" in FULL


@pytest.mark.parametrize("path", LOCK_PATHS, ids=_dotted)
def test_every_string_of_cuda_lock_is_bounded(tmp_path: Path, path: tuple[str | int, ...]) -> None:
    document = tomlkit.parse(dumps(_full_lock()))
    parent: Any = document
    for part in path[:-1]:
        parent = parent[part]
    parent[path[-1]] = "a:b@" * HUGE
    (tmp_path / "cuda.lock").write_text(tomlkit.dumps(document))
    with pytest.raises(InputFileError) as caught:
        lockfile.read(tmp_path / "cuda.lock")
    assert caught.value.what.startswith(f"{tmp_path / 'cuda.lock'}: {_dotted(path)}: ")
    assert "characters" in caught.value.what
    assert caught.value.exit_code == 2


def test_a_key_of_cuda_lock_is_bounded(tmp_path: Path) -> None:
    (tmp_path / "cuda.lock").write_text(dumps(_full_lock()) + f"\n[{'k' * HUGE}]\nx = 1\n")
    with pytest.raises(InputFileError, match="a key in"):
        lockfile.read(tmp_path / "cuda.lock")


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ({"cuda": "cu" + "1" * HUGE}, "cuda"),
        ({"targets": ["h" * HUGE]}, "targets[0]"),
        ({"packages": {"p" * HUGE: {"needs": []}}}, "a key in packages"),
        ({"packages": {"ext": {"needs": ["nvcc>=" + "1" * HUGE]}}}, "packages.ext.needs[0]"),
        ({"policy": "n" * HUGE}, "policy"),
        (
            {"mirrors": {"pytorch": {"url": "https://m.example/" + "x" * HUGE}}},
            "mirrors.pytorch.url",
        ),
    ],
)
def test_every_setting_is_bounded(table: dict[str, Any], key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_settings({"tool": {"poetry-cuda": table}})
    assert key in caught.value.what
    assert "characters" in caught.value.what
    assert len(caught.value.render()) < 2_000


def test_a_cuda_request_is_bounded() -> None:
    assert CudaRequest.parse(">=12.1,<12.7").kind == "version"
    with pytest.raises(ConfigError, match=r"--cuda: .* characters long"):
        CudaRequest.parse("1" * (NAME_LIMIT + 1), key="--cuda")


# The same, through the real executable: one message, exit 2, no traceback.


@pytest.mark.parametrize(("value", "said"), MALFORMED[::3], ids=MALFORMED_IDS[::3])
def test_the_cli_names_a_malformed_variable(
    cli: Cli, tmp_path: Path, value: str, said: str
) -> None:
    project = make_project(tmp_path / "app", **TORCH)  # type: ignore[arg-type]
    result = cli.run("lock", "--dry-run", cwd=project, env={"POETRY_CUDA_MIRROR_PYTORCH": value})
    assert result.code == 2, result
    assert result.stderr.startswith("POETRY_CUDA_MIRROR_PYTORCH: "), result.stderr
    assert said in result.stderr
    assert SECRET not in result.stdout + result.stderr


def test_the_cli_refuses_a_huge_variant_in_cuda_lock(cli: Cli, tmp_path: Path) -> None:
    project = make_project(tmp_path / "app", **TORCH)  # type: ignore[arg-type]
    lock = project / "cuda.lock"
    lock.write_text(lock.read_text().replace('"cu124"', f'"cu{"a1:" * 20_000}"', 1))
    check = cli.run("lock", "--check", cwd=project)
    assert check.code == 2, check
    assert "packages[0].variant: a value of 60002 characters" in check.stderr
    doctor = cli.run("doctor", cwd=project)
    assert doctor.code == 1
    assert "packages[0].variant: a value of 60002 characters" in doctor.stdout
    assert "a1:a1:a1:a1:a1" not in doctor.stdout + check.stderr
