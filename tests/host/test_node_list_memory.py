"""Issue 40 item 5: reading a node list takes memory bounded by the document's size.

`detect --kubernetes` on a 28 MiB document of empty lists peaked at 765 MiB (26 x), and the
256 MiB cap admitted documents that would need about 6 GiB; a realistic 204 MiB list of
5,000 nodes peaked at 1.06 GB. Now a document whose values would cost more than the parse
budget is refused before parsing (`kubernetes.PARSE_BUDGET`), and each node keeps only
the fields read while the rest is parsed: peak memory <= 10 x the document + 64 MiB, above
what the command needs for a tiny document.

Each run is the real command in a child of its own, whose peak resident memory is read
with `getrusage` (Linux reports it in KiB); the documents are 24 to 32 MiB.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys

from typing import TYPE_CHECKING
from typing import Any

import pytest

from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from poetry_cuda.errors import InputFileError
from poetry_cuda.host.kubernetes import read_cluster
from poetry_cuda.host.kubernetes import read_document
from tests.support.cli import BIN
from tests.support.kubernetes_nodes import A100
from tests.support.kubernetes_nodes import IMAGE_DIGEST
from tests.support.kubernetes_nodes import cluster
from tests.support.kubernetes_nodes import gpu_node
from tests.support.kubernetes_nodes import node
from tests.support.kubernetes_nodes import node_list


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Cli


pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss in KiB: Linux")
MiB = 1024 * 1024
# Runs `argv` as its only child and prints that child's peak resident memory in bytes.
MEASURE = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], capture_output=True)\n"
    "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)\n"
    "sys.stderr.buffer.write(done.stdout + done.stderr)\n"
)


def peak(cli: Cli, document: Path) -> tuple[int, int, str]:
    """Exit code, peak memory in bytes and output of `detect --kubernetes DOCUMENT --json`."""
    command = [str(BIN / "poetry-cuda"), "detect", "--kubernetes", str(document), "--json"]
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, *command],
        cwd=document.parent,
        env=cli.env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    code, measured = (int(word) for word in done.stdout.split())
    assert "Traceback" not in done.stderr, done.stderr
    return code, measured, done.stderr


@pytest.fixture
def baseline(cli: Cli, tmp_path: Path) -> int:
    """What the command takes for a document of ten nodes."""
    small = tmp_path / "small.json"
    small.write_text(json.dumps(cluster(10)))
    code, measured, output = peak(cli, small)
    assert code == 0, output
    return measured


def test_a_document_of_empty_lists_is_refused_before_parsing(
    cli: Cli, tmp_path: Path, baseline: int
) -> None:
    path = tmp_path / "lists.json"
    count = 28 * MiB // 3
    path.write_text('{"items": [], "x": [' + "[]," * (count - 1) + "[]]}")
    code, measured, output = peak(cli, path)
    assert code == 2
    assert "JSON values in" in output
    assert "more than a node list holds for its size" in output
    # Read, counted, refused: the bytes once, nothing parsed (it was 26 x their size).
    assert measured <= baseline + 2 * path.stat().st_size


def test_the_costliest_document_admitted_stays_within_the_bound(
    cli: Cli, tmp_path: Path, baseline: int
) -> None:
    # Two-character strings cost the most memory per byte of JSON; spaced out to the
    # density the parse budget admits at this size.
    path = tmp_path / "strings.json"
    count = 24 * MiB // 8
    path.write_text('{"items": [], "x": [' + '"ab",   ' * (count - 1) + '"ab"]}')
    code, measured, output = peak(cli, path)
    assert code == 0, output
    assert measured <= baseline + 10 * path.stat().st_size + 64 * MiB


def realistic(count: int) -> dict[str, Any]:
    """`count` nodes as kubectl prints them, each holding 100 images (40 KiB a node)."""
    document = cluster(count)
    for item in document["items"]:
        item["status"]["images"] = [
            {
                "names": [
                    f"registry.example.com/team/image-{i}@sha256:{IMAGE_DIGEST}",
                    f"registry.example.com/team/image-{i}:v1.{i}.0",
                ],
                "sizeBytes": 187560257 + i,
            }
            for i in range(100)
        ]
    return document


def test_a_realistic_node_list_needs_little_more_than_its_text(
    cli: Cli, tmp_path: Path, baseline: int
) -> None:
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps(realistic(750), indent=4))
    assert 28 * MiB < path.stat().st_size < 34 * MiB
    code, measured, output = peak(cli, path)
    assert code == 0, output
    assert json.loads(output)["nodes"] == 750
    # The text, and the labels of each node: the images are dropped as they are parsed.
    assert measured <= baseline + 2.5 * path.stat().st_size


# --- keeping only the fields read changes nothing read ------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)
# Keys the reader reads, and keys it does not, at every level of a node.
KEYS = st.sampled_from(
    [
        "metadata",
        "status",
        "nodeInfo",
        "labels",
        "name",
        "capacity",
        "architecture",
        "operatingSystem",
        "kind",
        "images",
        "nvidia.com/gpu.present",
        "nvidia.com/cuda.driver-version.full",
        "kubernetes.io/arch",
        "other",
    ]
)


def _plant(document: Any, path: list[str], value: Any) -> None:
    """Put `value` at `path` below `document`, making objects on the way."""
    for key in path[:-1]:
        inner = document.get(key) if isinstance(document, dict) else None
        if not isinstance(inner, dict):
            return
        document = inner
    if isinstance(document, dict):
        document[path[-1]] = value


def outcome(document: object) -> object:
    try:
        return read_cluster(document, "nodes.json")
    except InputFileError as error:
        return error.what


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plants=st.lists(st.tuples(st.lists(KEYS, min_size=1, max_size=4), JSON), max_size=6))
def test_the_node_list_reader_reads_the_same_with_only_the_fields_it_reads(
    tmp_path_factory: pytest.TempPathFactory, plants: list[tuple[list[str], Any]]
) -> None:
    document = node_list([gpu_node("gpu-1", A100), node("cpu-1")])
    for path, value in plants:
        _plant(document["items"][0], path, copy.deepcopy(value))
        _plant(document, path, copy.deepcopy(value))
    file = tmp_path_factory.mktemp("nodes") / "nodes.json"
    file.write_text(json.dumps(document))
    read, _ = read_document(str(file), None)
    assert outcome(read) == outcome(json.loads(file.read_text()))
