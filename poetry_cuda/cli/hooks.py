"""What the plugin adds to ordinary Poetry commands in a project that has a cuda.lock.

* `install` / `sync`: warn, before anything is downloaded, when cuda.lock is stale or its
  variants cannot run on this machine.
* `add`: before Poetry resolves, pin a requested family member (torchaudio next to a
  cu124 torch) to its family's locked source, so it is resolved and installed from there;
  after Poetry added it, re-plan and re-lock so cuda.lock records it.
* `remove`: after Poetry removed a package, re-lock as after `add`.

Nothing above runs in a project without a cuda.lock. Per-user mirrors
(`POETRY_CUDA_MIRROR_<FAMILY>`) apply wherever poetry-cuda's own sources are, the first
lock included, and only while such a variable is set.
"""

from __future__ import annotations

import os
import re

from typing import TYPE_CHECKING

from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.files import read_toml
from poetry_cuda.locking import lockfile
from poetry_cuda.locking import transaction
from poetry_cuda.messages import message


if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Mapping
    from pathlib import Path

    from poetry.poetry import Poetry

    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.messages import Localized
    from poetry_cuda.planning.managed import Pin
    from poetry_cuda.request.user_mirrors import Redirect


def is_managed(project: Path) -> bool:
    return (project / lockfile.FILENAME).is_file()


# The distribution name at the start of a `poetry add` argument: "torchaudio",
# "torchaudio==2.5.1", "torchaudio@^2.5", "torchaudio[extra]>=2"; URLs and paths do not match.
REQUESTED_NAME = re.compile(r"([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)(?=$|[\[@=<>!~ (;])")


def requested_pins(project: Path, requested: Iterable[str], kb: KnowledgeBase) -> list[Pin]:
    """Pins that put each requested member of a locked family on that family's source."""
    from poetry_cuda.names import canonical_name
    from poetry_cuda.planning.managed import Pin

    cuda_lock = lockfile.read(project / lockfile.FILENAME)
    sources = {}
    for package in cuda_lock.packages:
        family = kb.family_of(package.name)
        if family is not None and package.source in cuda_lock.managed_sources:
            sources[family.name] = package.source
    pins = []
    for argument in requested:
        match = REQUESTED_NAME.match(argument.strip())
        if match is None:
            continue
        name = canonical_name(match.group(1))
        family = kb.family_of(name)
        if family is not None and family.name in sources and cuda_lock.package(name) is None:
            pins.append(Pin(name, sources[family.name]))
    return pins


def install_warnings(project: Path, kb: KnowledgeBase) -> list[Localized]:
    """Why installing the lock on this machine may not give working CUDA builds: what the
    install gate finds (`locking.state`), and builds that leave this machine's GPU unused."""
    from poetry_cuda.host.detect import detect_this_machine
    from poetry_cuda.locking import state
    from poetry_cuda.locking.recorded import unserved
    from poetry_cuda.planning.targets import settle

    try:
        cuda_lock = lockfile.read(project / lockfile.FILENAME)
        pyproject = read_toml(project / "pyproject.toml")
    except PoetryCudaError as error:
        return [error.said]
    gate = state.gate(project, cuda_lock, pyproject)
    # The gate's obstacles, each in the user's language (the plugin's lock is `poetry cuda lock`).
    warnings: list[Localized] = []
    if gate.run == "live":
        warnings.append(message("install.run-live", journal=transaction.JOURNAL))
    elif gate.run == "dead":
        warnings.append(message("install.run-dead", journal=transaction.JOURNAL))
    if not gate.fresh:
        warnings.append(message("install.stale"))
    target, _ = settle(detect_this_machine(os.environ), kb.nvidia)
    lock = "`poetry cuda lock`"
    return warnings + unserved(cuda_lock.packages, cuda_lock.cuda, target, kb, lock=lock)


def use_user_mirrors(
    poetry: Poetry, mirrors: Mapping[str, str], kb: KnowledgeBase
) -> list[Redirect]:
    """Fetch poetry-cuda's sources in `poetry`'s pool from this user's `mirrors`
    (`request.user_mirrors.user_mirrors`: each family key's URL template), if any."""
    from poetry_cuda.backends.poetry.mirror import redirect_pool
    from poetry_cuda.request.user_mirrors import redirects

    if not mirrors:
        return []
    sources = [
        (source.get("name"), source.get("url"))
        for source in poetry.local_config.get("source") or ()
        if isinstance(source, dict)
    ]
    named = [(n, u) for n, u in sources if isinstance(n, str) and isinstance(u, str)]
    return redirect_pool(poetry, redirects(named, kb.families, mirrors))
