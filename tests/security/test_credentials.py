"""Credentials never enter the committed files and never reach the terminal.

A mirror URL with `user:token@` (or a token in a query) in [tool.poetry-cuda.mirrors] would
be copied into cuda.lock and the managed sources of pyproject.toml: it is refused, with a fix
naming the package managers' own ways to give credentials. Whatever poetry-cuda prints,
the package manager's messages included, shows `***` in place of a user name and password.
"""

from __future__ import annotations

import socket

from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import read_toml
from tests.support.example import torch_example
from tests.support.hostile_projects import lock


if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli


SECRET = "s3cret-t0ken"
USER = "alice-the-user"


def set_mirror(project: Path, family: str, url: str) -> None:
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text()
    lines = [line for line in text.splitlines() if not line.startswith(f"{family} = ")]
    header = "[tool.poetry-cuda.mirrors]"
    if header not in lines:
        lines += ["", header]
    lines.insert(lines.index(header) + 1, f'{family} = "{url}"')
    pyproject.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize(
    "url",
    [
        f"https://{USER}:{SECRET}@mirror.example/whl/{{variant}}",
        f"https://{SECRET}@mirror.example/whl",  # a token as the user name
        f"https://{USER}:{SECRET}@mirror.example:8443/whl",
        f"http://{USER}:{SECRET}@127.0.0.1:8080/whl",
    ],
)
@pytest.mark.parametrize("family", ["pytorch", "paddle"])
@pytest.mark.parametrize("command", ["plan", "lock"])
def test_credentials_in_a_mirror_are_refused(
    cli: Cli, server: WorldServer, tmp_path: Path, url: str, family: str, command: str
) -> None:
    project = torch_example(tmp_path, server, "poetry")
    set_mirror(project, family, url)
    before = (project / "pyproject.toml").read_bytes()
    result = cli.run(command, cwd=project)
    assert result.code == 2, result
    output = result.stdout + result.stderr
    assert SECRET not in output and USER not in output
    assert f"mirrors.{family}: the URL holds credentials" in result.stderr
    assert "poetry config http-basic.<source-name> <user> <token>" in result.stderr
    assert "UV_INDEX_<NAME>_USERNAME and UV_INDEX_<NAME>_PASSWORD" in result.stderr
    assert (project / "pyproject.toml").read_bytes() == before
    assert not (project / "cuda.lock").exists()


@pytest.mark.parametrize(
    "url",
    [
        f"https://mirror.example/whl?token={SECRET}",
        f"https://mirror.example/whl/{{variant}}?token={SECRET}",
        "https://mirror.example/whl#{variant}",
        "https://mirror.example/whl?",
    ],
)
def test_a_query_or_fragment_in_a_mirror_is_refused(
    cli: Cli, server: WorldServer, tmp_path: Path, url: str
) -> None:
    """`.../whl?token=abc` became `.../whl?token=abc/cu124`: the variant in the query."""
    project = torch_example(tmp_path, server, "poetry")
    set_mirror(project, "pytorch", url)
    result = cli.run("plan", cwd=project)
    assert result.code == 2, result
    assert SECRET not in result.stdout + result.stderr
    assert "mirrors.pytorch: the URL has a query string or a fragment" in result.stderr


@pytest.fixture
def refused_port() -> Iterator[int]:
    """A loopback port that refuses connections: bound, never listening, held for the test."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


@pytest.mark.slow
def test_poetrys_message_is_redacted(
    cli: Cli, server: WorldServer, tmp_path: Path, refused_port: int
) -> None:
    """The user's own source with credentials, unreachable: Poetry names `user:password@host`."""
    project = torch_example(tmp_path, server, "poetry")
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text()
    assert server.pypi_url in text
    secret_url = f"http://{USER}:{SECRET}@127.0.0.1:{refused_port}/simple/"
    pyproject.write_text(text.replace(server.pypi_url, secret_url))
    result = lock(cli, project)
    assert result.code == 4, result
    output = result.stdout + result.stderr
    assert "Poetry's resolution failed" in result.stderr
    assert SECRET not in output and USER not in output, output
    assert f"***@127.0.0.1:{refused_port}" in output


@pytest.mark.slow
def test_a_locked_mirror_records_no_credentials(
    cli: Cli, server: WorldServer, tmp_path: Path
) -> None:
    """The control: an accepted mirror is written as given, and cuda.lock holds no '@'."""
    project = torch_example(tmp_path, server, "poetry")
    result = lock(cli, project)
    assert result.code == 0, result
    recorded = read_toml(project / "cuda.lock")
    assert all("@" not in package["url"] for package in recorded["packages"])
