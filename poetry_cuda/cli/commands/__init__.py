"""The cleo commands, served by both the Poetry plugin and the `poetry-cuda` script.

This package is the only place, with `poetry_cuda.cli.plugin`, that imports cleo. Command
modules are imported lazily: `COMMANDS` maps each command's short name to the module
and class that implement it, so registering them costs nothing.
"""

from __future__ import annotations

import importlib

from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from poetry_cuda.cli.commands.base import CudaCommand


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


def load_command(name: str, *, prefix: str = "") -> CudaCommand:
    """Instantiate command `name`, registered under `prefix + name` (e.g. "cuda plan")."""
    module, attribute = COMMANDS[name]
    command_class: type[CudaCommand] = getattr(importlib.import_module(module), attribute)
    if prefix:
        command_class = type(command_class.__name__, (command_class,), {"name": prefix + name})
    return command_class()
