"""The environment of every child process the tests start: nothing of the user's but the machine.

A test's outcome must not depend on who runs it. The child keeps only what describes the
machine (the program search path, locale, temporary folder, the dynamic linker's search path,
CA certificates and what Windows needs to start a process); its HOME, XDG, Poetry, uv and
poetry-cuda cache directories all lie in one per-test folder. Proxies, credentials, PIP_*,
PYTHON* and an active virtual environment or conda environment never reach it, and Python's
keyring is the null one, so no tool finds a stored password.
"""

from __future__ import annotations

import os
import sys

from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from pathlib import Path


_KEPT = frozenset(
    {
        "PATH",
        "LANG",
        "LANGUAGE",
        "TZ",
        "TMPDIR",
        "TEMP",
        "TMP",
        # Where a container's NVIDIA driver library lies; the real-GPU tests need it.
        "LD_LIBRARY_PATH",
        # Trust roots of the machine (a sandbox's own CA), for the tests marked network.
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE",
        # Windows cannot start a process, or find one, without these.
        "SYSTEMROOT",
        "SYSTEMDRIVE",
        "WINDIR",
        "COMSPEC",
        "PATHEXT",
        "PROGRAMFILES",
    }
)


# What keeps uv off the network for interpreters: the one running the tests, never a download.
UV_OFFLINE = {"UV_PYTHON": sys.executable, "UV_PYTHON_DOWNLOADS": "never"}


def hermetic_env(home: Path, **extra: str) -> dict[str, str]:
    """An environment for a child process whose every user directory is under `home`.

    `extra` is what the caller's tools need on top (offline switches, a test's own variables).
    """
    env = {
        key: value
        for key, value in os.environ.items()
        if key.upper() in _KEPT or key.upper().startswith("LC_")
    }
    env.update(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_CACHE_HOME": str(home / "cache"),
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_STATE_HOME": str(home / "state"),
            "NO_PROXY": "127.0.0.1,localhost",
            "NO_COLOR": "1",
            "POETRY_CONFIG_DIR": str(home / "poetry-config"),
            "POETRY_CACHE_DIR": str(home / "poetry-cache"),
            "POETRY_DATA_DIR": str(home / "poetry-data"),
            "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
            "UV_CACHE_DIR": str(home / "uv-cache"),
        }
    )
    if os.name == "nt":
        env.update(
            {
                "USERPROFILE": str(home),
                "APPDATA": str(home / "appdata"),
                "LOCALAPPDATA": str(home / "localappdata"),
            }
        )
    env.update(extra)
    return env
