"""How many bytes locking costs when torch is a 200 MiB wheel, counted by the server.

With PEP 658 metadata files, or with range requests (lazy wheel), both tools lock torch without
downloading it. With neither, both fall back to downloading the whole wheel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.support.catalog import MIB
from tests.support.catalog import PADDED_VARIANT
from tests.support.catalog import add_padded_torch
from tests.support.projects import locked_packages
from tests.support.projects import write_poetry_project
from tests.support.projects import write_uv_project


if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.support.catalog import World
    from tests.support.catalog import WorldServer
    from tests.support.tools import Tools


pytestmark = pytest.mark.slow

PADDED_PREFIX = "/padded/"


@pytest.fixture(scope="module")
def padded_wheel(world: World) -> Path:
    return add_padded_torch(world, 200 * MIB)


@pytest.mark.parametrize("mode", ["metadata", "ranges", "neither"])
@pytest.mark.parametrize("tool", ["uv", "poetry"])
def test_lock_transfer(
    server: WorldServer,
    tools: Tools,
    tmp_path: Path,
    padded_wheel: Path,
    record_property: Callable[[str, object], None],
    tool: str,
    mode: str,
) -> None:
    server.metadata_enabled = mode == "metadata"
    server.ranges_enabled = mode != "neither"
    index = server.padded_pytorch_mirror.format(variant=PADDED_VARIANT)
    project = tmp_path / "project"
    if tool == "uv":
        write_uv_project(
            project, pypi=server.pypi_url, cuda_index=index, requires_python="==3.11.*"
        )
        tools.uv("lock", cwd=project)
        lock = project / "uv.lock"
    else:
        write_poetry_project(project, pypi=server.pypi_url, cuda_index=index, python="==3.11.*")
        tools.poetry("lock", cwd=project)
        lock = project / "poetry.lock"
    versions = {entry["version"] for entry in locked_packages(lock, "torch")}
    assert "2.5.1+cu124" in versions

    sent = server.bytes_sent(PADDED_PREFIX)
    wheel_requests = [
        (record.method, record.status, record.range)
        for record in server.requests
        if record.path.endswith(padded_wheel.name)
    ]
    record_property("padded_bytes_sent", sent)
    record_property("wheel_requests", wheel_requests)
    print(
        f"{tool} lock, {mode}: {sent} bytes under {PADDED_PREFIX}; wheel requests {wheel_requests}"
    )
    if mode == "metadata":
        assert sent < 1 * MIB
        assert wheel_requests == []
    elif mode == "ranges":
        assert sent < 1 * MIB
        assert all(status == 206 or method == "HEAD" for method, status, _ in wheel_requests)
    else:
        assert sent >= padded_wheel.stat().st_size
