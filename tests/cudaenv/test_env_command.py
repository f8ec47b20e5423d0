"""`env` and `run` through the real executables, on fake toolkits side by side."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys

from typing import TYPE_CHECKING

import pytest

from tests.support.cli import BIN
from tests.support.cuda_trees import Probe
from tests.support.cuda_trees import add_wheel_library
from tests.support.cuda_trees import site_packages
from tests.support.projects import PADDLE
from tests.support.projects import TORCH
from tests.support.projects import make_project


if TYPE_CHECKING:
    from pathlib import Path

    from tests.support.cli import Cli
    from tests.support.cuda_trees import Machine


pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="fake trees are Linux ones")


def host_env(machine: Machine, **extra: str) -> dict[str, str]:
    """The shell of someone whose CUDA_HOME and LD_LIBRARY_PATH point at CUDA 12.4."""
    return {
        "POETRY_CUDA_TOOLKITS": str(machine.usr_local),
        "CUDA_HOME": str(machine.cuda124),
        "LD_LIBRARY_PATH": str(machine.cuda124 / "lib64"),
        **extra,
    }


@pytest.fixture
def projects(tmp_path: Path) -> tuple[Path, Path]:
    paddle = make_project(tmp_path / "paddle-app", **PADDLE)  # type: ignore[arg-type]
    (paddle / ".venv" / "bin").mkdir(parents=True)
    torch = make_project(tmp_path / "torch-app", **TORCH)  # type: ignore[arg-type]
    add_wheel_library(torch / ".venv", "cuda_runtime", "libcudart.so.12", 12)
    return paddle, torch


def env_json(cli: Cli, project: Path, env: dict[str, str]) -> dict[str, object]:
    result = cli.run("env", "--shell", "json", cwd=project, env=env)
    assert result.code == 0, result
    data: dict[str, object] = json.loads(result.stdout)
    return data


def test_two_projects_side_by_side_get_their_own_environments(
    cli: Cli, machine: Machine, projects: tuple[Path, Path]
) -> None:
    paddle, torch = projects
    env = host_env(machine)

    paddle_env = env_json(cli, paddle, env)
    assert paddle_env["cuda"] == "11.8"
    values = paddle_env["set"]
    assert isinstance(values, dict)
    assert values["CUDA_HOME"] == str(machine.cuda118)
    assert values["PATH"].startswith(f"{machine.cuda118 / 'bin'}:{paddle / '.venv' / 'bin'}:")
    library_path = values["LD_LIBRARY_PATH"].split(":")
    assert library_path[0] == str(machine.cuda118 / "lib64")
    assert str(machine.cuda124 / "lib64") not in library_path  # the other toolkit's

    torch_env = env_json(cli, torch, env)
    assert torch_env["cuda"] == "12.4"
    values = torch_env["set"]
    assert isinstance(values, dict)
    assert values["CUDA_HOME"] == str(machine.cuda124)  # a toolkit of torch's CUDA major
    wheels = site_packages(torch / ".venv") / "nvidia"
    assert values["LD_LIBRARY_PATH"].split(":")[:2] == [
        str(wheels / "cuda_runtime" / "lib"),
        str(machine.cuda124 / "lib64"),
    ]


def test_run_loads_the_libcudart_of_each_project(
    cli: Cli, machine: Machine, projects: tuple[Path, Path], probe: Probe
) -> None:
    paddle, torch = projects
    env = host_env(machine)
    names = ("libcudart.so", "libcudart.so.11.0", "libcudart.so.12")

    result = cli.run("run", "--", str(probe.program), *names, cwd=paddle, env=env)
    assert result.code == 0, result
    loaded = Probe.parse(result.stdout)
    assert loaded["libcudart.so"] == (11, str(machine.cuda118 / "lib64" / "libcudart.so"))
    assert loaded["libcudart.so.11.0"][0] == 11
    assert loaded["libcudart.so.12"][0] == 0  # the shell's CUDA 12.4 libraries are left out

    # Sonames in the order a torch program loads them (an already loaded soname is reused).
    torch_names = ("libcudart.so.12", "libcudart.so.11.0")
    result = cli.run("run", "--", str(probe.program), *torch_names, cwd=torch, env=env)
    assert result.code == 0, result
    loaded = Probe.parse(result.stdout)
    wheel = site_packages(torch / ".venv") / "nvidia" / "cuda_runtime"
    assert loaded["libcudart.so.12"] == (12, str(wheel / "lib" / "libcudart.so.12"))
    assert loaded["libcudart.so.11.0"][0] == 0


def test_without_run_the_shell_would_load_the_wrong_major(
    cli: Cli, machine: Machine, probe: Probe
) -> None:
    """The control: the same probe in the contradicting shell gets CUDA 12.4's library."""
    completed = subprocess.run(
        [str(probe.program), "libcudart.so"],
        env={**cli.env, **host_env(machine)},
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert Probe.parse(completed.stdout)["libcudart.so"][0] == 12


def test_env_sh_output_evaluates_to_the_json_values(
    cli: Cli, machine: Machine, projects: tuple[Path, Path]
) -> None:
    paddle, _ = projects
    env = host_env(machine, CUDA_PATH="/somewhere/else")
    expected = env_json(cli, paddle, env)["set"]
    assert isinstance(expected, dict)
    for shell in ("sh", "bash", "zsh"):
        result = cli.run("env", "--shell", shell, cwd=paddle, env=env)
        assert result.code == 0, result
        if shell == "sh" or shutil.which(shell):
            program = shutil.which(shell) or "/bin/sh"
            script = (
                result.stdout + '\nprintf "%s\\n%s\\n%s" "$CUDA_HOME" "$PATH" "$LD_LIBRARY_PATH"'
            )
            completed = subprocess.run(
                [program, "-c", script],
                capture_output=True,
                text=True,
                timeout=30,
                check=True,
                env={**cli.env, **env},
            )
            home, path, libraries = completed.stdout.split("\n")
            assert (home, path, libraries) == (
                expected["CUDA_HOME"],
                expected["PATH"],
                expected["LD_LIBRARY_PATH"],
            )


def test_fish_and_powershell_output(
    cli: Cli, machine: Machine, projects: tuple[Path, Path]
) -> None:
    paddle, _ = projects
    env = host_env(machine)
    fish = cli.run("env", "--shell", "fish", cwd=paddle, env=env)
    assert fish.code == 0, fish
    assert f"set -gx CUDA_HOME '{machine.cuda118}'" in fish.stdout
    assert f"set -gx LD_LIBRARY_PATH '{machine.cuda118 / 'lib64'}'" in fish.stdout
    ps = cli.run("env", "--shell", "powershell", cwd=paddle, env=env)
    assert ps.code == 0, ps
    assert f"$env:CUDA_HOME = '{machine.cuda118}'" in ps.stdout
    if shutil.which("fish"):
        script = fish.stdout + "\nprintf '%s' $CUDA_HOME"
        out = subprocess.run(
            [shutil.which("fish") or "fish", "-c", script],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        assert out.stdout == str(machine.cuda118)


def test_a_requirement_no_toolkit_satisfies_is_exit_1_with_the_doctor_hint(
    cli: Cli, tmp_path: Path, machine: Machine
) -> None:
    paddle = make_project(tmp_path / "paddle-app", **PADDLE)  # type: ignore[arg-type]
    only_124 = tmp_path / "only-12.4"
    only_124.mkdir()
    (only_124 / "cuda-12.4").symlink_to(machine.cuda124)
    env = {"POETRY_CUDA_TOOLKITS": str(only_124), "CUDA_HOME": ""}
    for args in (("env",), ("run", "--", "true")):
        result = cli.run(*args, cwd=paddle, env=env)
        assert result.code == 1, result
        assert "paddlepaddle-gpu needs cuda-runtime >=11.8,<12" in result.stderr
        assert "12.4.131" in result.stderr
        assert "poetry cuda doctor" in result.stderr


def test_torch_project_without_a_toolkit_of_its_major_unsets_cuda_home(
    cli: Cli, tmp_path: Path, machine: Machine, probe: Probe
) -> None:
    torch = make_project(tmp_path / "torch-app", **TORCH)  # type: ignore[arg-type]
    add_wheel_library(torch / ".venv", "cuda_runtime", "libcudart.so.12", 12)
    only_118 = tmp_path / "only-11.8"
    only_118.mkdir()
    (only_118 / "cuda-11.8").symlink_to(machine.cuda118)
    env = {"POETRY_CUDA_TOOLKITS": str(only_118), "CUDA_HOME": str(machine.cuda118)}
    data = env_json(cli, torch, env)
    assert data["toolkit"] is None
    assert data["unset"] == ["CUDA_HOME"]
    result = cli.run("run", "--", "sh", "-c", 'echo "[${CUDA_HOME-unset}]"', cwd=torch, env=env)
    assert result.code == 0, result
    assert result.stdout.strip() == "[unset]"


def test_run_passes_exit_codes_and_signals(cli: Cli, tmp_path: Path) -> None:
    project = make_project(tmp_path / "app", **TORCH)  # type: ignore[arg-type]
    assert cli.run("run", "--", "sh", "-c", "exit 7", cwd=project).code == 7
    assert cli.run("run", "--", "true", cwd=project).code == 0
    killed = cli.run("run", "--", "sh", "-c", "kill -TERM $$", cwd=project)
    assert killed.code == -signal.SIGTERM
    # The command's own options are its own.
    echoed = cli.run("run", "--", "sh", "-c", "echo $0 $1", "--version", "-q", cwd=project)
    assert echoed.stdout.strip() == "--version -q"


def test_run_forwards_a_signal_to_the_command(cli: Cli, tmp_path: Path) -> None:
    project = make_project(tmp_path / "app", **TORCH)  # type: ignore[arg-type]
    code = (
        "import signal, sys, time\n"
        "signal.signal(signal.SIGTERM, lambda *a: sys.exit(42))\n"
        "print('ready', flush=True)\n"
        "time.sleep(60)\n"
    )
    with subprocess.Popen(
        [str(BIN / "poetry-cuda"), "run", "--", sys.executable, "-c", code],
        cwd=project,
        env=cli.env,
        stdout=subprocess.PIPE,
        text=True,
    ) as process:
        try:
            assert process.stdout is not None
            assert process.stdout.readline().strip() == "ready"
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=30) == 42
        finally:
            process.kill()


def test_run_usage_errors(cli: Cli, tmp_path: Path) -> None:
    project = make_project(tmp_path / "app", **TORCH)  # type: ignore[arg-type]
    missing = cli.run("run", cwd=project)
    assert missing.code == 2
    assert "no command given" in missing.stderr
    assert "--" in missing.stderr

    unknown = cli.run("run", "--", "no-such-command-xyz", "a", cwd=project)
    assert unknown.code == 127
    assert "command not found: no-such-command-xyz" in unknown.stderr

    script = tmp_path / "not-executable.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o644)
    refused = cli.run("run", "--", str(script), cwd=project)
    assert refused.code == 126
    assert "cannot execute" in refused.stderr


def test_env_without_cuda_lock_and_with_a_bad_shell(cli: Cli, tmp_path: Path) -> None:
    project = make_project(tmp_path / "app", **TORCH)  # type: ignore[arg-type]
    bad = cli.run("env", "--shell", "tcsh", cwd=project)
    assert bad.code == 2
    assert "'tcsh' is not one of" in bad.stderr
    (project / "cuda.lock").unlink()
    none = cli.run("env", cwd=project)
    assert none.code == 2
    assert "has no cuda.lock" in none.stderr
    assert "poetry cuda lock" in none.stderr


def test_help_states_the_exit_codes(cli: Cli, tmp_path: Path) -> None:
    result = cli.run("run", "--help", cwd=tmp_path)
    assert result.code == 0
    assert "127" in result.stdout
    assert "126" in result.stdout
