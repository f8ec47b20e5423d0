"""`run CMD [ARGS...]`: run a command with the project's CUDA environment."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.cli.commands.base import Argument
from poetry_cuda.cli.commands.base import CudaCommand
from poetry_cuda.cli.markup import escape
from poetry_cuda.errors import CommandNotExecutableError
from poetry_cuda.errors import CommandNotFoundError
from poetry_cuda.errors import UsageError
from poetry_cuda.messages import message


if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence


HELP = """\
Runs CMD with the environment that `env` prints (CUDA_HOME, CUDA_PATH, PATH and the
library path of this project), e.g.

  poetry cuda run nvcc --version
  poetry-cuda run python train.py --epochs 3

Everything after CMD's name is CMD's, its options included; options for poetry-cuda (or
Poetry) go before CMD. `--` before CMD is accepted too, and needed where CMD's name starts
with `-`, or inside Poetry where CMD takes a -C or -P of its own, which Poetry reads as its
--directory or --project wherever they stand. On Linux and macOS poetry-cuda replaces
itself with CMD (exec): CMD's exit code is the exit code, a signal that ends CMD ends the
run the same way, and signals sent to the run reach CMD. On Windows CMD runs as a child
and its exit code is passed on.

Exit codes: CMD's own; 1 a locked system requirement is not satisfied by any installed
toolkit or cuDNN; 2 no command given, or bad configuration or cuda.lock; 126 CMD was
found but cannot be executed; 127 CMD was not found on the project's PATH.
"""


def find_program(name: str, path: str) -> str | None:
    """The absolute path `name` runs: a path as given, else the first on `path`."""
    if os.sep in name or (os.altsep and os.altsep in name):
        candidate = Path(name)
        return str(candidate.absolute()) if candidate.exists() else None
    return shutil.which(name, path=path)


def execute(program: str, argv: Sequence[str], env: Mapping[str, str]) -> int:
    """Run `program`: exec on POSIX (never returns), a child on Windows."""
    if sys.platform == "win32":
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # the child gets Ctrl-C itself
        try:
            return subprocess.call([program, *argv[1:]], env=dict(env))
        finally:
            signal.signal(signal.SIGINT, previous)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(program, list(argv), dict(env))
    raise AssertionError("unreachable")  # pragma: no cover


class RunCommand(CudaCommand):
    name = "run"
    description = "Run a command with the project's CUDA environment: run CMD [ARGS...]."
    help = HELP
    arguments = (
        Argument(
            "cmd",
            "The command to run and its arguments: all that follows its name is its own.",
            multiple=True,
            rest=True,
            value="CMD [ARGS...]",
        ),
    )

    def run_command(self) -> int:
        from poetry_cuda.cli.commands.env import nvcc_mismatch
        from poetry_cuda.cli.registry import package_manager
        from poetry_cuda.cudaenv import nvcc_notice
        from poetry_cuda.cudaenv.decide import apply
        from poetry_cuda.cudaenv.project_env import project_environment

        argv = list(self.argument("cmd") or [])
        if not argv:
            raise UsageError(
                message("run.no-command"),
                why=message("run.no-command-why"),
                fix=message("run.no-command-fix", example=f"{self.program} nvcc --version"),
            )
        project_env = project_environment(self.project_start(), load_manager=package_manager)
        env = apply(project_env, os.environ)
        mismatch = nvcc_mismatch(project_env, self.project_start())
        if mismatch is not None and nvcc_notice.should_show(None, mismatch.key, argv):
            for line in mismatch.lines:
                self.line_error(escape(line))
        program = find_program(argv[0], env.get("PATH", ""))
        if program is None:
            raise CommandNotFoundError(
                message("run.not-found", command=argv[0]),
                why=message("run.not-found-why"),
                fix=message("run.not-found-fix"),
            )
        try:
            return execute(program, argv, env)
        except OSError as error:
            raise CommandNotExecutableError(
                message("run.not-executable", program=program, problem=error.strerror or error),
                why=message("run.not-executable-why"),
                fix=message("run.not-executable-fix", example=f"{self.program} python script.py"),
            ) from None

    @property
    def program(self) -> str:
        """`run` as the user runs it: `poetry cuda run` or `poetry-cuda run`."""
        return (
            f"poetry {self.invoked_as}"
            if self.invoked_as.startswith("cuda ")
            else "poetry-cuda run"
        )
