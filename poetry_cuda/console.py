"""The standalone `poetry-cuda` console script, for uv projects, CI and scripts."""

from __future__ import annotations

from functools import partial

from cleo.application import Application
from cleo.loaders.factory_command_loader import FactoryCommandLoader

from poetry_cuda import __version__
from poetry_cuda.commands import COMMANDS
from poetry_cuda.commands import load_command


def create_application() -> Application:
    application = Application("poetry-cuda", __version__)
    application.set_command_loader(
        FactoryCommandLoader({name: partial(load_command, name) for name in COMMANDS})
    )
    return application


def main() -> int:
    return create_application().run()
