"""Every command a user runs on a locked project, with the exit codes SPEC allows for it on
a machine without a GPU, for the tests that run them all from one install."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from collections.abc import Callable


KUBERNETES = Path(__file__).resolve().parents[1] / "fixtures" / "kubernetes"
# The example's two host profiles are its targets: a GPU workstation and a laptop.
EVERY_COMMAND: tuple[tuple[tuple[str, ...], tuple[int, ...]], ...] = (
    (("detect",), (0,)),
    (("detect", "--json"), (0,)),
    (("plan",), (0,)),
    (("plan", "--json"), (0,)),
    (("lock", "--dry-run"), (0,)),
    (("lock",), (0,)),
    (("lock", "--check"), (0,)),
    (("sync", "--dry-run"), (0,)),
    (("sync",), (0,)),  # what doctor then finds installed as locked
    # A machine without a GPU outside the lock's targets is a warning, not a failure.
    (("doctor",), (0,)),
    (("doctor", "--json"), (0,)),
    (("doctor", "--strict"), (1,)),
    (("env",), (0,)),
    (("env", "--shell", "json"), (0,)),
    (("run", "--", "python", "-c", "print('ran')"), (0,)),
    (("store",), (0,)),
    (("store", "--json"), (0,)),
    (("variant-properties", "--target", "hosts/workstation-rtx4090.json"), (0,)),
    (("detect", "--kubernetes", str(KUBERNETES / "mixed-x86_64.json")), (0,)),
)
# What a crash says, wherever it is caught.
CRASHES = ("Traceback", "bug in poetry-cuda", "ModuleNotFoundError")


def run_every_command(run: Callable[..., tuple[int, str]], project: Path) -> None:
    """Run each command with `run(*args, cwd=project)` (its exit code and everything it
    said) on the locked `project`: each ends with an exit code SPEC gives it, none crashes."""
    for args, codes in EVERY_COMMAND:
        code, said = run(*args, cwd=project)
        assert code in codes, (args, code, said)
        crashed = [crash for crash in CRASHES if crash in said]
        assert not crashed, (args, said)
