"""The installed CUDA-bearing distributions against their RECORD, and the shared store's
entries an environment links against what they were when unpacked.

A CUDA library half overwritten (two versions of one distribution installed at once, a
disk error, an edit) fails at import, or worse, later. doctor checks every installed
distribution the knowledge base names (the families' members and companions, the fixed
flavours, what doctor reads of installed builds) and every nvidia-*, cuda-* and triton
wheel, file by file against its RECORD (`wheelstore.verify`: size and modification time by
default, every sha256 with ``--deep``), and names the damaged files. An environment
installed from the shared store (install = "shared") links the store's files: a store
entry changed after it was linked is named too (the changed file, in place, is the
environment's as well).

`gather` is the I/O; `findings` judges what it gathered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.doctor.findings import fail
from poetry_cuda.doctor.findings import ok
from poetry_cuda.errors import InputFileError
from poetry_cuda.locking.duplicates import read_and_find
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import message
from poetry_cuda.records import frozen
from poetry_cuda.wheelstore import usage
from poetry_cuda.wheelstore.store import Store
from poetry_cuda.wheelstore.store import read_marker
from poetry_cuda.wheelstore.verify import EnvironmentCheck
from poetry_cuda.wheelstore.verify import check_installed


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Sequence
    from pathlib import Path

    from poetry_cuda.doctor.findings import Finding
    from poetry_cuda.doctor.installed import Environment
    from poetry_cuda.host.profiles import OperatingSystem
    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.messages import Localized


CHECK = "record"
TWICE_CHECK = "one-version"
STORE_CHECK = "store-entry"
PREFIXES = ("nvidia-", "cuda-", "triton", "pytorch-triton")
SHOWN = 5  # damaged files named per distribution


@frozen
class StoreEntryProblem:
    """A store entry the environment links, no longer as unpacked."""

    filename: str
    folder: Path
    problems: tuple[Localized, ...]


@frozen
class RecordFacts:
    checks: tuple[EnvironmentCheck, ...]  # one per site-packages folder
    store: tuple[StoreEntryProblem, ...]
    deep: bool
    sync: str  # what installs a distribution again; "{name}" stands for its name


def cuda_bearing(kb: KnowledgeBase) -> Callable[[str], bool]:
    """Whether a canonical distribution name is one whose files doctor checks."""
    named = {name for family in kb.families for name in (*family.members, *family.companions)}
    named |= {name for row in kb.installed for name in row.packages}
    named |= {flavour.package for flavour in kb.fixed}
    return lambda name: name in named or name.startswith(PREFIXES)


def gather(
    environment: Environment,
    kb: KnowledgeBase,
    *,
    deep: bool,
    sync: str,
    store: Store | None = None,
) -> RecordFacts:
    """Check the environment's CUDA-bearing distributions, and the store entries its last
    shared install linked (`store`: the user's by default)."""
    wanted = cuda_bearing(kb)
    checks = tuple(
        check_installed(folder, root=environment.root, wanted=wanted, deep=deep)
        for folder in environment.site_packages
    )
    store = store or Store.default()
    problems = []
    use = usage.previous(store.root, environment.root)
    for sha256 in sorted(use.wheels) if use is not None else ():
        folder = store.root / sha256
        if not folder.is_dir():
            continue  # pruned, or replaced by a later install: the RECORD check covers it
        try:
            entry = read_marker(folder)
        except InputFileError as error:
            problems.append(StoreEntryProblem(sha256, folder, (error.said,)))
            continue
        found = store.check(entry, deep=deep)
        if found:
            problems.append(StoreEntryProblem(entry.filename, folder, tuple(found)))
    return RecordFacts(checks, tuple(problems), deep, sync)


def findings(facts: RecordFacts) -> list[Finding]:
    """A failure per damaged distribution, per name installed twice and per store entry
    changed after linking; one ok line when all is sound."""
    found: list[Finding] = []
    checked = [c for check in facts.checks for c in check.checked]
    for distribution in (c for check in facts.checks for c in check.damaged):
        more = len(distribution.damage) - SHOWN
        listed = Phrase(
            (
                *(d.describe() for d in distribution.damage[:SHOWN]),
                *([message("records.more", count=more)] if more > 0 else []),
            ),
            "; ",
        )
        found.append(
            fail(
                "environment",
                CHECK,
                message(
                    "records.damaged",
                    name=distribution.name,
                    version=distribution.version,
                    count=len(distribution.damage),
                    listed=listed,
                ),
                message("records.damaged-fix", sync=facts.sync.format(name=distribution.name)),
                subject=distribution.name,
            )
        )
    for check in facts.checks:
        for name, folders in check.twice:
            found.append(
                fail(
                    "environment",
                    CHECK,
                    message("records.twice", name=name, folders=", ".join(f.name for f in folders)),
                    message("records.twice-fix", sync=facts.sync.format(name=name)),
                    subject=name,
                )
            )
    for problem in facts.store:
        listed = Phrase(problem.problems[:SHOWN], "; ")
        found.append(
            fail(
                "environment",
                STORE_CHECK,
                message(
                    "records.store-modified",
                    filename=problem.filename,
                    folder=problem.folder,
                    listed=listed,
                ),
                message("records.store-modified-fix"),
                subject=problem.filename,
            )
        )
    if not found and checked:
        how = message("records.how-deep" if facts.deep else "records.how-quick")
        files = sum(c.files for c in checked)
        found.append(
            ok(
                "environment",
                CHECK,
                message("records.sound", count=len(checked), files=files, how=how),
            )
        )
    return found


def sync_command(install: str, shared: bool) -> str:
    """What puts a damaged distribution right ("{name}" its name): `sync` links it anew from
    the store (install = "shared"); Poetry's and uv's installers keep an installed version,
    so with them it is installed again by name."""
    if shared:
        return "poetry cuda sync"
    if install.startswith("uv"):
        return "uv sync --locked --reinstall-package {name}"
    return "poetry run pip uninstall -y {name}` and `poetry cuda sync"


def check(
    environment: Environment | None,
    kb: KnowledgeBase,
    *,
    deep: bool,
    install: str,
    shared: bool,
    store: Store | None = None,
) -> Sequence[Finding]:
    """`gather` and `findings` together (nothing without an environment)."""
    if environment is None:
        return []
    sync = sync_command(install, shared)
    return findings(gather(environment, kb, deep=deep, sync=sync, store=store))


def lock_findings(
    project: Path, lockfile: str, platforms: Sequence[tuple[OperatingSystem, str]]
) -> list[Finding]:
    """A failure per distribution the package manager's lock installs twice on a platform
    (the targets cuda.lock records, and this machine), with the pin that fixes it."""
    return [
        fail(
            "locks",
            TWICE_CHECK,
            found.describe(lockfile),
            message("records.lock-twice-fix", pin=found.pin(os)),
            subject=found.duplicate.name,
        )
        for os, found in read_and_find(project, lockfile, platforms)
    ]
