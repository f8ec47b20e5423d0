"""tools/check_knowledge.py against a fake PEP 503 index on 127.0.0.1."""

from __future__ import annotations

import importlib.util
import sys
import threading

from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import pytest

from tests.knowledge.test_loader import write_minimal


if TYPE_CHECKING:
    from collections.abc import Iterator


TOOL = Path(__file__).resolve().parents[2] / "tools" / "check_knowledge.py"


def _tool() -> Any:
    spec = importlib.util.spec_from_file_location("check_knowledge", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


check = _tool()


def page(*files: str) -> str:
    links = "".join(
        f'<a href="../../files/{f.replace("+", "%2B")}#sha256=0">{f}</a><br>' for f in files
    )
    return f"<!DOCTYPE html><html><body><h1>Links</h1>{links}</body></html>"


AGREEING = {
    "/cpu/torch/": page(
        "torch-2.5.1+cpu-cp312-cp312-linux_x86_64.whl",
        "torch-2.5.1-cp312-none-macosx_11_0_arm64.whl",
        "torch-1.13.1+cpu-cp310-cp310-linux_x86_64.whl",  # older than the data: ignored
    ),
    "/cpu/torchvision/": page("torchvision-0.20.1+cpu-cp312-cp312-linux_x86_64.whl"),
    "/cu124/torch/": page("torch-2.5.1+cu124-cp312-cp312-linux_x86_64.whl", "index.html"),
    "/cu124/torchvision/": page(
        "torchvision-0.20.1+cu124-cp312-cp312-win_amd64.whl",
        "torchvision-0.20.1-cp312-cp312-manylinux_2_28_aarch64.whl",  # no label: still counts
    ),
}


class Index:
    def __init__(self) -> None:
        self.pages: dict[str, str] = {}
        self.status = 200


@pytest.fixture
def index() -> Iterator[tuple[Index, str]]:
    state = Index()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = state.pages.get(self.path)
            code = state.status if body is not None or state.status != 200 else 404
            self.send_response(code)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write((body or "not found").encode())

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state, f"http://127.0.0.1:{server.server_address[1]}/{{variant}}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return write_minimal(tmp_path)


def run(data: Path, base: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    status = check.main(["--data", str(data), "--base", base])
    out = capsys.readouterr().out.splitlines()
    return status, out


def test_data_and_index_agree(
    index: tuple[Index, str], data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state, base = index
    state.pages = dict(AGREEING)
    status, out = run(data, base, capsys)
    assert status == 0, out
    assert out == ["0 difference(s) between the data and the indexes (torch)"]


def test_differences_both_ways_are_reported(
    index: tuple[Index, str], data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state, base = index
    state.pages = dict(AGREEING)
    state.pages["/cu124/torch/"] = page(
        "torch-2.6.0+cu124-cp312-cp312-linux_x86_64.whl",
        "torch-2.7.0.dev20250101+cu124-cp312-cp312-linux_x86_64.whl",  # pre-release: ignored
    )
    del state.pages["/cpu/torchvision/"]
    status, out = run(data, base, capsys)
    assert status == 1
    host = base.removesuffix("/{variant}")
    assert out == [
        f"torch cpu: {host}/cpu/torchvision/ is missing; the data lists 0.20.1+cpu",
        f"torch cu124: torch 2.5.1+cu124 is not on {host}/cu124/torch/",
        "torch cu124: torch 2.6.0+cu124 is not in the data",
        "3 difference(s) between the data and the indexes (torch)",
    ]


def test_an_unreadable_index_is_exit_2(
    index: tuple[Index, str], data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state, base = index
    state.status = 500
    assert check.main(["--data", str(data), "--base", base]) == 2
    assert "HTTP 500" in capsys.readouterr().err


def test_an_unknown_family_is_exit_2(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert check.main(["--data", str(data), "--family", "jax"]) == 2
    assert "no family" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("filename", "version"),
    [
        ("torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl", "2.5.1+cu124"),
        ("paddlepaddle_gpu-3.0.0-cp310-cp310-linux_x86_64.whl", "3.0.0"),
        ("torchvision-0.20.1.tar.gz", "0.20.1"),
        ("torchaudio-2.5.1-cp312-cp312-linux_x86_64.whl", None),  # another project
        ("README.txt", None),
    ],
)
def test_file_versions(filename: str, version: str | None) -> None:
    project = "paddlepaddle-gpu" if filename.startswith("paddle") else "torch"
    if filename.startswith("torchvision"):
        project = "torchvision"
    found = check.file_version(filename, project)
    assert (str(found) if found else None) == version


def test_post_builds_served_by_pypi_are_not_expected_on_the_index() -> None:
    from poetry_cuda.knowledge.packaged import load

    paddle = next(f for f in load().families if f.name == "paddle")
    wanted = check.expected(paddle)
    assert ("cu118", "paddlepaddle-gpu") in wanted  # the 3.x builds
    versions = {str(v) for v in wanted[("cu118", "paddlepaddle-gpu")]}
    assert "2.6.2" not in versions  # PyPI's own upload
    assert "3.0.0" in versions
    assert "2.6.2.post120" in {str(v) for v in wanted[("cu120", "paddlepaddle-gpu")]}
