"""Issue 40, item 1: a path the user names for a command's output (`-o FILE`) is written as a
shell's redirection would write it: a regular file is replaced whole, a named pipe or a
character device (a terminal, /dev/null) is written to as a stream, standard output redirected
to a file keeps what was printed before, `-o -` is standard output, and a device, folder or
socket is never replaced."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import threading

from pathlib import Path

import pytest

from tests.support.cli import BIN
from tests.support.cli import Cli
from tests.support.kubernetes_nodes import L4
from tests.support.kubernetes_nodes import gpu_node
from tests.support.kubernetes_nodes import node_list


def _target(folder: Path) -> Path:
    path = folder / "h100.json"
    document = {
        "os": "linux",
        "machine": "x86_64",
        "driver": {"version": "570.86.10"},
        "gpus": [{"compute_capability": "9.0"}],
    }
    path.write_text(json.dumps(document))
    return path


def _properties(cli: Cli, folder: Path, *output: str) -> tuple[int, str, str]:
    result = cli.run("variant-properties", "--target", str(_target(folder)), *output, cwd=folder)
    return result.code, result.stdout, result.stderr


def _is_properties(text: str) -> bool:
    return "[metadata]" in text and 'namespace = "nvidia"' in text


def test_item1_a_named_pipe_is_written_as_a_stream(cli: Cli, tmp_path: Path) -> None:
    pipe = tmp_path / "variant-lock.pipe"
    os.mkfifo(pipe)
    received: list[bytes] = []

    def read() -> None:
        with pipe.open("rb") as reader:
            received.append(reader.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    code, _, stderr = _properties(cli, tmp_path, "-o", str(pipe))
    reader.join(timeout=60)
    assert code == 0, stderr
    assert received, "the reader got nothing"
    assert _is_properties(received[0].decode())
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["h100.json", pipe.name]


def test_item1_a_character_device_is_written_to_not_replaced(cli: Cli, tmp_path: Path) -> None:
    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # the null device's numbers
    except PermissionError:
        pytest.skip("creating a device node needs root (CAP_MKNOD)")
    code, _, stderr = _properties(cli, tmp_path, "-o", str(device))
    assert code == 0, stderr
    assert stat.S_ISCHR(os.lstat(device).st_mode)
    assert os.lstat(device).st_rdev == os.makedev(1, 3)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["h100.json", "null"]


def test_item1_dev_null_stays_the_null_device(cli: Cli, tmp_path: Path) -> None:
    before = Path("/dev/null").stat()
    code, _, stderr = _properties(cli, tmp_path, "-o", "/dev/null")
    assert code == 0, stderr
    after = Path("/dev/null").stat()
    assert stat.S_ISCHR(after.st_mode)
    assert (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


def test_item1_dev_stdout_redirected_to_a_file_keeps_what_was_printed(
    cli: Cli, tmp_path: Path
) -> None:
    log = tmp_path / "build.log"
    log.write_text("earlier output\n")
    with log.open("a") as stdout:
        completed = subprocess.run(
            [str(BIN / "poetry-cuda"), "variant-properties", "--target",
             str(_target(tmp_path)), "-o", "/dev/stdout"],
            cwd=tmp_path, env=cli.env, stdout=stdout, stderr=subprocess.PIPE, text=True,
            timeout=300, check=False,
        )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    text = log.read_text()
    assert text.startswith("earlier output\n")
    assert _is_properties(text)


def test_item1_a_dash_is_standard_output(cli: Cli, tmp_path: Path) -> None:
    code, stdout, stderr = _properties(cli, tmp_path, "-o", "-")
    assert code == 0, stderr
    assert _is_properties(stdout)
    assert not (tmp_path / "-").exists()


def test_item1_a_socket_or_folder_is_never_replaced(cli: Cli, tmp_path: Path) -> None:
    # A short folder: a socket's path must fit in about 100 bytes.
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"pc-{os.getpid()}"
    folder.mkdir(exist_ok=True)
    listening = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listening.bind(str(folder / "s"))
        code, _, stderr = _properties(cli, tmp_path, "-o", str(folder / "s"))
        assert code == 2, stderr
        assert "not a regular file but a socket; nothing was written" in stderr
        assert stat.S_ISSOCK(os.lstat(folder / "s").st_mode)
    finally:
        listening.close()
        (folder / "s").unlink(missing_ok=True)
        folder.rmdir()
    (tmp_path / "out").mkdir()
    code, _, stderr = _properties(cli, tmp_path, "-o", str(tmp_path / "out"))
    assert code == 2, stderr
    assert "not a regular file but a folder; nothing was written" in stderr
    assert (tmp_path / "out").is_dir()
    assert not list((tmp_path / "out").iterdir())


def test_item1_a_link_to_a_regular_file_is_written_through(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "real.toml").write_text("old\n")
    (tmp_path / "link.toml").symlink_to("real.toml")
    code, _, stderr = _properties(cli, tmp_path, "-o", str(tmp_path / "link.toml"))
    assert code == 0, stderr
    assert (tmp_path / "link.toml").is_symlink()
    assert _is_properties((tmp_path / "real.toml").read_text())


def test_item1_write_targets_never_replaces_a_pipe_or_a_device(cli: Cli, tmp_path: Path) -> None:
    document = node_list([gpu_node("gpu-1", L4)])
    (tmp_path / "nodes.json").write_text(json.dumps(document))
    hosts = tmp_path / "hosts"
    hosts.mkdir()
    os.mkfifo(hosts / "k8s-l4-570.json")
    result = cli.run(
        "detect", "--kubernetes", "nodes.json", "--write-targets", "hosts", cwd=tmp_path
    )
    assert result.code == 2, result
    assert stat.S_ISFIFO(os.lstat(hosts / "k8s-l4-570.json").st_mode)
    before = Path("/dev/null").stat()
    result = cli.run(
        "detect", "--kubernetes", "nodes.json", "--write-targets", "/dev/null", cwd=tmp_path
    )
    assert result.code == 2, result
    after = Path("/dev/null").stat()
    assert stat.S_ISCHR(after.st_mode)
    assert (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
