"""The Poetry application plugin: `poetry cuda <command>`.

Activation only registers command factories; no command module, detection code or
knowledge base is imported until a `cuda` command actually runs, so the plugin adds
nothing measurable to unrelated Poetry commands.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from poetry.plugins.application_plugin import ApplicationPlugin

from poetry_cuda.commands import COMMANDS
from poetry_cuda.commands import load_command


if TYPE_CHECKING:
    from poetry.console.application import Application


class CudaApplicationPlugin(ApplicationPlugin):
    def activate(self, application: Application) -> None:
        for name in COMMANDS:
            application.command_loader.register_factory(
                f"cuda {name}", partial(load_command, name, prefix="cuda ")
            )
