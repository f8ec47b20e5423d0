"""The knowledge base decides plans, so it is read from the installed package only.

No file in a user's cache folder (a crafted knowledge cache, a link to another file) can
change a decision or be written through: `plan` opens nothing there and writes nothing at
all. Inside the package, the compiled form is read only when it is the compile of the TOML
files beside it; anything else gives way to the TOML.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zlib

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

import poetry_cuda

from poetry_cuda.knowledge.compiled import FILE
from poetry_cuda.knowledge.compiled import compile_data
from poetry_cuda.knowledge.loader import load_compiled
from poetry_cuda.knowledge.loader import read_data
from poetry_cuda.knowledge.packaged import DATA
from poetry_cuda.knowledge.tables import parse_data
from tests.support.isolation import hermetic_env
from tests.support.projects import APP
from tests.support.projects import write_project


if TYPE_CHECKING:
    from tests.support.cli import Cli


EVIL = "https://evil.example/whl/{variant}"
GOOD = "https://download.pytorch.org/whl/cu124"
HOST = {
    "schema": 1,
    "os": "linux",
    "machine": "x86_64",
    "driver": {"version": "550.54.14", "cuda": "12.4", "source": "nvml"},
    "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9"}],
}
# Runs a command as the console script does, recording every file the process opens.
RUNNER = """
import json, os, sys
opened = []
def hook(event, args):
    if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
        opened.append([os.fsdecode(args[0]), args[1] if isinstance(args[1], str) else "", args[2]])
sys.addaudithook(hook)
sys.argv = ["poetry-cuda", *sys.argv[2:]]
from poetry_cuda.cli.console import main
code = main()
found = list(opened)
with open(os.environ["OPENED_OUT"], "w") as file:
    json.dump({"code": code, "opened": found}, file)
"""
WRITING = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _project(folder: Path) -> Path:
    project = write_project(
        folder,
        dependencies=["torch==2.5.1"],
        tool={"poetry": APP, "poetry-cuda": {"targets": ["host.json"]}},
    )
    (project / "host.json").write_text(json.dumps(HOST))
    return project


def _documents(index: str) -> dict[str, dict[str, Any]]:
    documents = {name: parse_data(name, raw) for name, raw in read_data(DATA).items()}
    documents["torch.toml"]["family"]["index"] = index
    return documents


def _old_cache(documents: dict[str, dict[str, Any]]) -> bytes:
    """A knowledge cache as poetry-cuda wrote one in the user's cache folder, whole and with
    the key of the packaged data: what such a cache held was read as the knowledge base."""
    data = read_data(DATA)
    crc = zlib.crc32(f"poetry-cuda {poetry_cuda.__version__} 2\n".encode())
    for name in sorted(data):
        encoded = name.encode("utf-8")
        crc = zlib.crc32(b"%d:%s%d:" % (len(encoded), encoded, len(data[name])), crc)
        crc = zlib.crc32(data[name], crc)
    key = f"{crc:08x}-{sum(len(raw) for raw in data.values())}"
    payload = json.dumps(documents, ensure_ascii=False, separators=(",", ":")).encode()
    header = {"format": 2, "key": key, "crc32": f"{zlib.crc32(payload):08x}"}
    return json.dumps(header).encode("ascii") + b"\n" + payload


OLD_VARIABLE = "POETRY_CUDA_CACHE_DIR"  # where a per-user knowledge cache was kept, if set


def _cache_folders(cli: Cli, tmp_path: Path) -> list[Path]:
    """Where a per-user knowledge cache was looked for: the variable's folder, else the
    user's cache folder."""
    return [tmp_path / "knowledge-cache", Path(cli.env["XDG_CACHE_HOME"]) / "poetry-cuda"]


def _plan(cli: Cli, project: Path) -> str:
    env = {OLD_VARIABLE: str(project.parent / "knowledge-cache")}
    result = cli.run("plan", "--json", cwd=project, env=env)
    assert result.code == 0, result
    source: str = json.loads(result.stdout)["packages"][0]["source"]["url"]
    return source


def test_a_crafted_cache_in_the_users_folder_decides_nothing(cli: Cli, tmp_path: Path) -> None:
    project = _project(tmp_path / "app")
    crafted = _old_cache(_documents(EVIL))
    for folder in _cache_folders(cli, tmp_path):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "knowledge.json").write_bytes(crafted)
    assert _plan(cli, project) == GOOD
    for folder in _cache_folders(cli, tmp_path):
        assert (folder / "knowledge.json").read_bytes() == crafted  # not even rewritten


@pytest.mark.parametrize("kind", ["a link to a file", "a link to nowhere", "a folder", "a fifo"])
def test_a_cache_path_of_any_kind_is_left_alone(cli: Cli, tmp_path: Path, kind: str) -> None:
    project = _project(tmp_path / "app")
    precious = tmp_path / "precious"
    precious.write_text("the user's own file\n")
    for folder in _cache_folders(cli, tmp_path):
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "knowledge.json"
        if kind == "a link to a file":
            path.symlink_to(precious)
        elif kind == "a link to nowhere":
            path.symlink_to(tmp_path / "nowhere")
        elif kind == "a folder":
            path.mkdir()
        else:
            os.mkfifo(path)
    assert _plan(cli, project) == GOOD
    assert precious.read_text() == "the user's own file\n"
    assert not (tmp_path / "nowhere").exists()


def test_plan_reads_the_knowledge_base_from_the_package_and_writes_nothing(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path / "app")
    home = tmp_path / "home"
    out = tmp_path / "opened.json"
    env = hermetic_env(home, OPENED_OUT=str(out), PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, "-", "plan", "--json"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.is_file(), done.stderr
    result = json.loads(out.read_text())
    assert result["code"] == 0, done.stderr
    opened = [(os.path.realpath(path), mode, flags) for path, mode, flags in result["opened"]]
    written = [
        path
        for path, mode, flags in opened
        if any(c in mode for c in "wax+") or (not mode and flags & WRITING)
    ]
    assert written == []
    assert not [path for path, _, _ in opened if Path(path).is_relative_to(home.resolve())]
    data = {path for path, _, _ in opened if Path(path).parent == DATA.resolve()}
    shipped = {str(p.resolve()) for p in DATA.iterdir() if p.suffix in {".toml", ".json"}}
    assert data == shipped  # the TOML files (to key the compiled form) and the compiled form
    assert str(DATA.resolve() / FILE) in data
    assert not home.exists() or not any(home.rglob("*"))  # nothing made in the home folder


def test_a_compiled_file_of_other_data_is_not_read(tmp_path: Path) -> None:
    # A compiled file that is not the compile of the TOML beside it (here: of TOML whose
    # torch index is another) is passed over, whatever its own checksum says.
    data = Path(shutil.copytree(DATA, tmp_path / "data"))
    other = Path(shutil.copytree(DATA, tmp_path / "other"))
    torch = other / "torch.toml"
    original = torch.read_text(encoding="utf-8")
    index = next(line for line in original.splitlines() if line.startswith("index = "))
    torch.write_text(original.replace(index, f'index = "{EVIL}"', 1), encoding="utf-8")
    (data / FILE).write_bytes(compile_data(read_data(other)))
    assert EVIL in {family.index for family in load_compiled(other).families}
    assert EVIL not in {family.index for family in load_compiled(data).families}
