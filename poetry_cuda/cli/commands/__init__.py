"""The commands, served by both the Poetry plugin and the `poetry-cuda` script.

Command modules are imported lazily: `COMMANDS` maps each command's short name to the
module and class that implement it, so registering them costs nothing. The commands
themselves import no cleo (`base`); `cleo_command` serves them to cleo.
"""

from __future__ import annotations

import importlib

from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from poetry_cuda.cli.commands.base import CudaCommand
    from poetry_cuda.cli.commands.cleo_command import CleoCommand


COMMANDS: dict[str, tuple[str, str]] = {
    "detect": ("poetry_cuda.cli.commands.detect", "DetectCommand"),
    "plan": ("poetry_cuda.cli.commands.plan", "PlanCommand"),
    "lock": ("poetry_cuda.cli.commands.lock", "LockCommand"),
    "env": ("poetry_cuda.cli.commands.env", "EnvCommand"),
    "run": ("poetry_cuda.cli.commands.run", "RunCommand"),
    "doctor": ("poetry_cuda.cli.commands.doctor", "DoctorCommand"),
    "sync": ("poetry_cuda.cli.commands.sync", "SyncCommand"),
    "store": ("poetry_cuda.cli.commands.store", "StoreCommand"),
}


def command_class(name: str) -> type[CudaCommand]:
    """The class of command `name`, its module imported now."""
    module, attribute = COMMANDS[name]
    found: type[CudaCommand] = getattr(importlib.import_module(module), attribute)
    return found


def load_command(name: str, *, prefix: str = "") -> CleoCommand:
    """Command `name` for cleo, registered under `prefix + name` (e.g. "cuda plan")."""
    from poetry_cuda.cli.commands.cleo_command import cleo_command

    return cleo_command(command_class(name), prefix + name)
