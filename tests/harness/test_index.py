"""The index server speaks the simple API the way real indexes do, counts, and fails on demand."""

from __future__ import annotations

import hashlib
import http.client
import json
import threading
import time

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import pytest

from tests.support.catalog import WorldServer
from tests.support.client import anchors
from tests.support.client import fetch
from tests.support.index import JSON_TYPE
from tests.support.index import Fault
from tests.support.index import refused_url


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.catalog import World


UV_ACCEPT = f"{JSON_TYPE}, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01"
POETRY_ACCEPT = f"{JSON_TYPE}, */*;q=0.1"
WHEEL = "torch-2.5.1+cu124-cp311-cp311-linux_x86_64.whl"
WHEEL_PATH = f"/whl/cu124/torch/{WHEEL}"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_project_page_is_pep503_html(server: WorldServer, world: World) -> None:
    reply = fetch(server.url("/whl/cu124/torch/"))
    assert reply.status == 200
    assert reply.headers["content-type"] == "text/html; charset=utf-8"
    links = anchors(reply.body)
    filenames = [str(link["text"]) for link in links]
    assert filenames == sorted(filenames)
    assert WHEEL in filenames
    for link in links:
        filename = str(link["text"])
        local = world.root / "whl" / "cu124" / "torch" / filename
        href, _, fragment = str(link["href"]).partition("#")
        assert href == filename.replace("+", "%2B")
        assert fragment == f"sha256={sha256(local)}"
        metadata_hash = f"sha256={sha256(local.with_name(filename + '.metadata'))}"
        assert link["data-core-metadata"] == link["data-dist-info-metadata"] == metadata_hash
        expected_python = {"2.4.1": ">=3.8.0", "2.5.1": ">=3.8.0", "2.6.0": ">=3.9.0"}
        assert link["data-requires-python"] == expected_python[filename.split("-")[1][:5]]


def test_pages_are_pep691_json_when_asked(server: WorldServer) -> None:
    html_files = {link["text"] for link in anchors(fetch(server.url("/simple/torch/")).body)}
    for accept in (JSON_TYPE, UV_ACCEPT, POETRY_ACCEPT):
        reply = fetch(server.url("/simple/torch/"), headers={"Accept": accept})
        assert reply.headers["content-type"] == JSON_TYPE
        document = json.loads(reply.body)
        assert document["meta"] == {"api-version": "1.1"}
        assert document["name"] == "torch"
        assert document["versions"] == [
            "2.0.1",
            "2.1.1",
            "2.1.2",
            "2.4.1",
            "2.5.1",
            "2.6.0",
            "2.7.1",
            "2.8.0",
            "2.9.1",
        ]
        assert {entry["filename"] for entry in document["files"]} == html_files
        entry = next(
            item
            for item in document["files"]
            if item["filename"] == "torch-2.5.1-cp311-cp311-manylinux1_x86_64.whl"
        )
        assert entry["requires-python"] == ">=3.8.0"
        assert entry["core-metadata"] == entry["dist-info-metadata"]
        assert set(entry["core-metadata"]) == {"sha256"}
        assert entry["url"] == entry["filename"]
        served = fetch(server.url(f"/simple/torch/{entry['url']}"))
        assert hashlib.sha256(served.body).hexdigest() == entry["hashes"]["sha256"]
        assert len(served.body) == entry["size"]


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        (None, "text/html; charset=utf-8"),
        ("text/html", "text/html; charset=utf-8"),
        (
            "application/vnd.pypi.simple.v1+html",
            "application/vnd.pypi.simple.v1+html; charset=utf-8",
        ),
        (f"text/html, {JSON_TYPE};q=0.5", "text/html; charset=utf-8"),
        (f"text/html;q=0.5, {JSON_TYPE}", JSON_TYPE),
        ("image/png", "text/html; charset=utf-8"),
    ],
)
def test_content_negotiation(server: WorldServer, accept: str | None, expected: str) -> None:
    headers = {} if accept is None else {"Accept": accept}
    assert fetch(server.url("/simple/numpy/"), headers=headers).headers["content-type"] == expected


def test_json_can_be_switched_off(server: WorldServer) -> None:
    server.json_enabled = False
    reply = fetch(server.url("/simple/numpy/"), headers={"Accept": UV_ACCEPT})
    assert reply.headers["content-type"] == "application/vnd.pypi.simple.v1+html; charset=utf-8"
    reply = fetch(server.url("/simple/numpy/"), headers={"Accept": POETRY_ACCEPT})
    assert reply.headers["content-type"] == "text/html; charset=utf-8"


def test_root_listings(server: WorldServer) -> None:
    simple = [link["text"] for link in anchors(fetch(server.url("/simple/")).body)]
    assert {"torch", "torchvision", "paddlepaddle-gpu", "typing-extensions"} <= set(simple)
    reply = fetch(server.url("/whl/cu124/"), headers={"Accept": JSON_TYPE})
    projects = {item["name"] for item in json.loads(reply.body)["projects"]}
    assert {"torch", "torchvision", "torchaudio", "nvidia-cuda-runtime-cu12"} <= projects
    variants = [link["href"] for link in anchors(fetch(server.url("/whl/")).body)]
    assert variants == [
        "cpu/",
        "cu117/",
        "cu118/",
        "cu121/",
        "cu124/",
        "cu126/",
        "cu128/",
        "cu129/",
        "cu130/",
    ]
    paddle = [link["text"] for link in anchors(fetch(server.url("/packages/stable/")).body)]
    assert paddle == ["cu117", "cu118", "cu120", "cu126"]


@pytest.mark.parametrize(
    ("path", "location"),
    [
        ("/simple/Torch/", "/simple/torch/"),
        ("/simple/typing_extensions/", "/simple/typing-extensions/"),
        ("/whl/cu124/Nvidia.CUDA_Runtime-cu12/", "/whl/cu124/nvidia-cuda-runtime-cu12/"),
        ("/simple/torch", "/simple/torch/"),
    ],
)
def test_names_are_normalized_by_redirect(server: WorldServer, path: str, location: str) -> None:
    reply = fetch(server.url(path))
    assert (reply.status, reply.headers["location"]) == (301, location)


@pytest.mark.parametrize("path", ["/simple/no-such-project/", "/../secret", "/.pool/", "/x.whl"])
def test_missing_and_hidden_paths_are_404(server: WorldServer, path: str) -> None:
    assert fetch(server.url(path)).status == 404


def test_range_requests(server: WorldServer, world: World) -> None:
    data = (world.root / WHEEL_PATH.lstrip("/")).read_bytes()
    size = len(data)
    cases = {
        "bytes=0-9": (206, f"bytes 0-9/{size}", data[:10]),
        "bytes=-100": (206, f"bytes {size - 100}-{size - 1}/{size}", data[-100:]),
        "bytes=-10000000": (206, f"bytes 0-{size - 1}/{size}", data),
        "bytes=10-": (206, f"bytes 10-{size - 1}/{size}", data[10:]),
        "bytes=5-99999999": (206, f"bytes 5-{size - 1}/{size}", data[5:]),
        f"bytes={size}-": (416, f"bytes */{size}", b""),
        "bytes=0-1,5-6": (200, None, data),
        "bytes=9-3": (200, None, data),
    }
    for header, (status, content_range, body) in cases.items():
        reply = fetch(server.url(WHEEL_PATH), headers={"Range": header})
        assert (reply.status, reply.headers.get("content-range"), reply.body) == (
            status,
            content_range,
            body,
        ), header
        assert reply.headers["accept-ranges"] == "bytes"


def test_head(server: WorldServer, world: World) -> None:
    reply = fetch(server.url(WHEEL_PATH), method="HEAD")
    size = (world.root / WHEEL_PATH.lstrip("/")).stat().st_size
    assert (reply.status, reply.body) == (200, b"")
    assert (reply.headers["content-length"], reply.headers["accept-ranges"]) == (str(size), "bytes")
    assert fetch(server.url("/simple/torch/"), method="HEAD").body == b""


def test_ranges_can_be_switched_off(server: WorldServer, world: World) -> None:
    server.ranges_enabled = False
    reply = fetch(server.url(WHEEL_PATH), headers={"Range": "bytes=-10"})
    assert reply.status == 200
    assert reply.body == (world.root / WHEEL_PATH.lstrip("/")).read_bytes()
    assert "accept-ranges" not in reply.headers
    assert "accept-ranges" not in fetch(server.url(WHEEL_PATH), method="HEAD").headers


def test_metadata_files_can_be_switched_off(server: WorldServer) -> None:
    assert fetch(server.url(WHEEL_PATH + ".metadata")).status == 200
    server.metadata_enabled = False
    assert fetch(server.url(WHEEL_PATH + ".metadata")).status == 404
    links = anchors(fetch(server.url("/whl/cu124/torch/")).body)
    assert all("data-core-metadata" not in link for link in links)
    assert all("data-dist-info-metadata" not in link for link in links)
    document = json.loads(
        fetch(server.url("/whl/cu124/torch/"), headers={"Accept": JSON_TYPE}).body
    )
    assert {entry["core-metadata"] for entry in document["files"]} == {False}


def test_counters(server: WorldServer) -> None:
    page = fetch(server.url("/simple/torch/"))
    wheel = fetch(server.url(WHEEL_PATH))
    part = fetch(server.url(WHEEL_PATH), headers={"Range": "bytes=0-99"})
    fetch(server.url(WHEEL_PATH), method="HEAD")
    assert server.request_count() == 4
    assert server.request_count(WHEEL_PATH) == 3
    assert server.bytes_sent("/simple/") == len(page.body)
    assert server.bytes_sent(WHEEL_PATH) == len(wheel.body) + len(part.body)
    assert server.bytes_sent() == len(page.body) + len(wheel.body) + 100
    records = server.requests
    assert [(record.method, record.status, record.bytes_sent) for record in records] == [
        ("GET", 200, len(page.body)),
        ("GET", 200, len(wheel.body)),
        ("GET", 206, 100),
        ("HEAD", 200, 0),
    ]
    assert records[2].range == "bytes=0-99"
    assert records[0].content_type == "text/html; charset=utf-8"
    server.reset_counters()
    assert (server.request_count(), server.bytes_sent(), server.requests) == (0, 0, ())


def test_counters_are_thread_safe(server: WorldServer) -> None:
    with ThreadPoolExecutor(max_workers=32) as pool:
        replies = list(pool.map(lambda _: fetch(server.url(WHEEL_PATH)), range(200)))
    assert {reply.status for reply in replies} == {200}
    assert server.request_count(WHEEL_PATH) == 200
    assert server.bytes_sent(WHEEL_PATH) == sum(len(reply.body) for reply in replies)


def test_error_fault_fires_as_often_as_armed(server: WorldServer) -> None:
    server.inject("/whl/cu124/", Fault.error(503, times=2))
    statuses = [fetch(server.url("/whl/cu124/torch/")).status for _ in range(3)]
    assert statuses == [503, 503, 200]
    assert fetch(server.url("/simple/torch/")).status == 200
    server.inject("/simple/", Fault.error())
    assert fetch(server.url("/simple/torch/")).status == 500
    server.clear_faults()
    assert fetch(server.url("/simple/torch/")).status == 200


def test_stall_fault_delays_the_answer(server: WorldServer) -> None:
    # Long enough that an unstalled answer on a loaded machine never takes as long.
    server.inject("/simple/torch/", Fault.stall(3.0, times=1))
    started = time.monotonic()
    assert fetch(server.url("/simple/torch/")).status == 200
    assert time.monotonic() - started >= 3.0
    started = time.monotonic()
    fetch(server.url("/simple/torch/"))
    assert time.monotonic() - started < 3.0


def test_stalls_are_bounded() -> None:
    with pytest.raises(ValueError, match="stall"):
        Fault.stall(3600)


def test_stall_is_cut_short_when_the_server_stops(world: World) -> None:
    outcome: list[object] = []

    def client(url: str) -> None:
        try:
            outcome.append(fetch(url, timeout=30).status)
        except (ConnectionError, http.client.HTTPException) as error:
            outcome.append(error)

    with WorldServer(world) as running:
        running.inject("/", Fault.stall(30))
        thread = threading.Thread(target=client, args=(running.url("/simple/"),))
        thread.start()
        while running.request_count() == 0:
            time.sleep(0.01)
        started = time.monotonic()
    thread.join(timeout=10)
    assert time.monotonic() - started < 5
    assert not thread.is_alive()
    assert len(outcome) == 1


def test_drop_fault_closes_the_connection_mid_body(server: WorldServer, world: World) -> None:
    size = (world.root / WHEEL_PATH.lstrip("/")).stat().st_size
    server.inject(WHEEL_PATH, Fault.drop(times=1))
    with pytest.raises(http.client.IncompleteRead) as failure:
        fetch(server.url(WHEEL_PATH))
    assert len(failure.value.partial) == size // 2
    assert server.bytes_sent(WHEEL_PATH) == size // 2
    assert len(fetch(server.url(WHEEL_PATH)).body) == size


def test_refused_url_refuses() -> None:
    with refused_url() as url, pytest.raises(ConnectionRefusedError):
        fetch(url + "/simple/")


def test_stopping_closes_idle_keep_alive_connections(world: World) -> None:
    with WorldServer(world) as running:
        connection = http.client.HTTPConnection("127.0.0.1", running.port, timeout=30)
        connection.request("GET", "/simple/")
        response = connection.getresponse()
        response.read()
        assert response.getheader("Connection") is None
        started = time.monotonic()
    connection.close()
    assert time.monotonic() - started < 5


def test_connections_are_bounded(world: World) -> None:
    replies: list[int] = []
    with WorldServer(world, max_connections=2) as running:
        held = [http.client.HTTPConnection("127.0.0.1", running.port, timeout=30) for _ in "ab"]
        for connection in held:
            connection.request("GET", "/simple/")
            connection.getresponse().read()
        waiting = threading.Thread(
            target=lambda: replies.append(fetch(running.url("/simple/")).status)
        )
        waiting.start()
        time.sleep(0.3)
        assert replies == []
        held[0].close()
        waiting.join(timeout=10)
        held[1].close()
    assert replies == [200]
