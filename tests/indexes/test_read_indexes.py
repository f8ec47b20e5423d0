"""tools/read_indexes.py against the test world's indexes, and the table it writes."""

from __future__ import annotations

import subprocess
import sys

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from poetry_cuda.errors import InputFileError
from poetry_cuda.indexes.availability import load
from tests.support.index import Fault


if TYPE_CHECKING:
    from tests.support.catalog import WorldServer


ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "read_indexes.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), *args], capture_output=True, text=True, check=False, cwd=ROOT
    )


@pytest.mark.slow
def test_the_tool_tables_what_the_local_indexes_serve(tmp_path: Path, server: WorldServer) -> None:
    out = tmp_path / "availability.toml"
    mirror = f"pytorch={server.pytorch_mirror}"
    done = run("--mirror", mirror, "--family", "torch", "--out", str(out), "--date", "2026-12-04")
    assert done.returncode == 0, done.stderr
    rows = {(r.package, r.version, r.variant, r.platform): r for r in load(out)}
    torch = rows["torch", "2.5.1+cu124", "cu124", "linux-x86_64"]
    assert torch.python == ("3.10", "3.11", "3.12", "3.13")
    assert torch.source == server.pytorch_url("cu124") + "/torch/"
    assert torch.read == "2026-12-04"
    assert ("torch", "2.5.1+cu124", "cu124", "windows-x86_64") in rows
    assert ("torchvision", "0.20.1+cu121", "cu121", "linux-x86_64") in rows
    # The world publishes no 2.5.1 cu126 build: nothing says it does.
    assert not any(key[:3] == ("torch", "2.5.1+cu126", "cu126") for key in rows)


@pytest.mark.slow
def test_an_unreadable_index_keeps_the_rows_and_says_so(
    tmp_path: Path, server: WorldServer
) -> None:
    out = tmp_path / "availability.toml"
    mirror = f"pytorch={server.pytorch_mirror}"
    assert run("--mirror", mirror, "--family", "torch", "--out", str(out)).returncode == 0
    before = load(out)
    server.inject("/whl/cu124/", Fault.error(503))
    again = run("--mirror", mirror, "--family", "torch", "--out", str(out))
    assert again.returncode == 1
    assert "/whl/cu124/torch/: HTTP 503" in again.stderr
    assert set(load(out)) == set(before)


GOOD = """schema = 1
[[availability]]
package = "torch"
version = "2.5.1+cu124"
variant = "cu124"
platform = "linux-x86_64"
python = ["3.11", "3.13t", "abi3>=3.9", "py3"]
requires_python = ">=3.8.0"
source = "https://download.pytorch.org/whl/cu124/torch/"
read = "2026-12-04"
"""


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (('platform = "linux-x86_64"', 'platform = "linux"'), "platform 'linux'"),
        (('variant = "cu124"', 'variant = "cu121"'), "on the cu121 index"),
        (('read = "2026-12-04"', 'read = "last week"'), "malformed"),
        (('python = ["3.11"', 'python = ["cp311"'), "python"),
        (('source = "https://', 'source = "file://'), "no URL"),
        (("schema = 1", "schema = 2"), "schema is not 1"),
    ],
)
def test_a_malformed_row_is_refused(tmp_path: Path, change: tuple[str, str], said: str) -> None:
    path = tmp_path / "availability.toml"
    path.write_text(GOOD.replace(*change))
    with pytest.raises(InputFileError, match="availability") as refused:
        load(path)
    assert said in refused.value.what


def test_a_repeated_row_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "availability.toml"
    path.write_text(GOOD + GOOD.removeprefix("schema = 1\n"))
    with pytest.raises(InputFileError, match=r"repeats torch 2\.5\.1"):
        load(path)
    path.write_text(GOOD)
    assert len(load(path)) == 1
