"""`env`: print the project's CUDA environment for a shell, or as JSON."""

from __future__ import annotations

import os
import sys

from typing import TYPE_CHECKING
from typing import ClassVar

from poetry_cuda.cli.commands.base import CudaCommand
from poetry_cuda.cli.commands.base import Option
from poetry_cuda.cli.commands.base import user_language
from poetry_cuda.cli.markup import escape
from poetry_cuda.display import quoted
from poetry_cuda.errors import UsageError
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import did_you_mean
from poetry_cuda.messages import localize
from poetry_cuda.messages import message
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from pathlib import Path

    from poetry_cuda.cudaenv.decide import ProjectEnv


HELP = """\
Prints the variables that give this project its CUDA environment, computed from
cuda.lock and this machine: CUDA_HOME and CUDA_PATH (the toolkit the locked system
requirements need, the one assembled from nvidia-* wheels with toolkit = "wheels", or a
system toolkit of the project's CUDA major; unset when there is none), PATH (that
toolkit's bin and the virtual environment's bin first) and the library path
(LD_LIBRARY_PATH; PATH on Windows): the CUDA libraries of the virtual environment's
nvidia-* wheels, then the toolkit's and the required cuDNN's.

  eval "$(poetry cuda env)"                              # sh, bash, zsh
  poetry cuda env --shell fish | source
  poetry cuda env --shell powershell | Invoke-Expression

The lines are written exactly or not at all: where the locale's encoding cannot write a
path (a folder named in UTF-8 under a GB18030, latin-1 or ASCII locale), env exits 2 and
names the character, rather than print a path the shell would read as another one; run it
under a UTF-8 locale, or use --shell json, which writes ASCII.

Exit codes: 0 printed; 1 a locked system requirement is not satisfied by any installed
toolkit or cuDNN (run `poetry cuda doctor`); 2 bad usage, configuration or cuda.lock, or
an output encoding that cannot write the paths.
"""


class EnvCommand(CudaCommand):
    name = "env"
    description = "Print the project's CUDA environment (CUDA_HOME, PATH, LD_LIBRARY_PATH)."
    help = HELP
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            "shell",
            "sh (also bash, zsh), fish, powershell or json; default sh (powershell on Windows).",
            flag=False,
            value="SHELL",
        ),
    )

    def run_command(self) -> int:
        from poetry_cuda.cli.registry import package_manager
        from poetry_cuda.cudaenv import nvcc_notice
        from poetry_cuda.cudaenv.decide import changes
        from poetry_cuda.cudaenv.project_env import project_environment
        from poetry_cuda.cudaenv.shells import SHELLS
        from poetry_cuda.cudaenv.shells import render
        from poetry_cuda.cudaenv.shells import to_json

        shell = self.option("shell") or ("powershell" if sys.platform == "win32" else "sh")
        if shell not in SHELLS:
            what = message(
                "schema.at",
                where="--shell",
                problem=message(
                    "schema.not-one-of",
                    value=quoted(shell),
                    options="sh, bash, zsh, fish, powershell, json",
                ),
            )
            hint = did_you_mean(shell, SHELLS)
            raise UsageError(
                what if hint is None else Phrase((what, hint), ". "),
                fix=message("usage.pass-example", example="--shell fish"),
            )
        env = project_environment(self.project_start(), load_manager=package_manager)
        values, unset = changes(env, os.environ)
        mismatch = nvcc_mismatch(env, self.project_start())
        if mismatch is not None:  # the shell remembers it was told (`nvcc_notice`)
            values[nvcc_notice.VARIABLE] = mismatch.key
        if shell == "json":
            self.print_json(to_json(values, unset, env))
        else:
            self.raw(render(shell, values, unset, env))
        # After the variables: output refused for its encoding says only that.
        if mismatch is not None and nvcc_notice.should_show(
            os.environ.get(nvcc_notice.VARIABLE), mismatch.key, None
        ):
            for line in mismatch.lines:
                self.line_error(escape(line))
        if shell != "json" and self.port.is_verbose():
            for note in env.notes:
                self.line_error(f"poetry-cuda: {escape(localize(note, user_language()))}")
        return 0


@frozen
class NvccMismatch:
    """The nvcc on the project's PATH does not match the lock: the warning's lines, and the
    mismatch's key (`nvcc_notice.key`)."""

    key: str
    lines: tuple[str, ...]


def nvcc_mismatch(env: ProjectEnv, start: Path) -> NvccMismatch | None:
    """Where the nvcc the project's PATH finds does not match the lock (another CUDA major,
    or outside a locked nvcc requirement): what to say; None where it matches."""
    from poetry_cuda.cudaenv import nvcc_notice
    from poetry_cuda.cudaenv.decide import apply
    from poetry_cuda.cudaenv.path_nvcc import check
    from poetry_cuda.cudaenv.path_nvcc import warning_lines
    from poetry_cuda.request.project import find_project

    found = check(env, apply(env, os.environ).get("PATH", ""), os.environ)
    if found is None:
        return None
    key = nvcc_notice.key(find_project(start).resolve(), str(found.said))
    return NvccMismatch(key, tuple(warning_lines(found, user_language())))
