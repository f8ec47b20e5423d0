"""The one lazy seam of the interface: each command, this machine's detection, and each
package manager, by name.

A command's module brings in what the command needs (planning, the knowledge base, a
package manager's backend), which costs more than the script's own start-up; the probes
of detection (NVML, nvidia-smi, /proc, the toolkits, cuDNN) cost about a tenth of a plan.
So nothing is imported to register a command or to hand detection to planning: `COMMANDS`
maps each command's name to a function that imports its class when called, and
`detect_this_machine` imports the probes on its first call. A plan for the targets a
project names or cuda.lock records then never loads them.

`package_manager` is the one place that loads a backend's manager (the backends are listed
once, in `backends.registry`): a command loads only the manager its project uses (a Poetry
project never loads uv's), and the code below the
interface receives it, or this loader, as an argument (`lock.lock`, `doctor.gather`,
`project_environment`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping

    from poetry_cuda.backends.base import PackageManager
    from poetry_cuda.cli.commands.base import CudaCommand
    from poetry_cuda.host.nvml import EarlyWorker
    from poetry_cuda.host.profiles import HostProfile


def _detect() -> type[CudaCommand]:
    from poetry_cuda.cli.commands.detect import DetectCommand

    return DetectCommand


def _plan() -> type[CudaCommand]:
    from poetry_cuda.cli.commands.plan import PlanCommand

    return PlanCommand


def _lock() -> type[CudaCommand]:
    from poetry_cuda.cli.commands.lock import LockCommand

    return LockCommand


def _env() -> type[CudaCommand]:
    from poetry_cuda.cli.commands.env import EnvCommand

    return EnvCommand


def _run() -> type[CudaCommand]:
    from poetry_cuda.cli.commands.run import RunCommand

    return RunCommand


def _doctor() -> type[CudaCommand]:
    from poetry_cuda.cli.commands.doctor import DoctorCommand

    return DoctorCommand


def _sync() -> type[CudaCommand]:
    from poetry_cuda.cli.commands.sync import SyncCommand

    return SyncCommand


def _store() -> type[CudaCommand]:
    from poetry_cuda.cli.commands.store import StoreCommand

    return StoreCommand


def _variant_properties() -> type[CudaCommand]:
    from poetry_cuda.cli.commands.variant_properties import VariantPropertiesCommand

    return VariantPropertiesCommand


# Each command's name, and the function that imports its class.
COMMANDS: dict[str, Callable[[], type[CudaCommand]]] = {
    "detect": _detect,
    "plan": _plan,
    "lock": _lock,
    "env": _env,
    "run": _run,
    "doctor": _doctor,
    "sync": _sync,
    "store": _store,
    "variant-properties": _variant_properties,
}


def command(name: str) -> type[CudaCommand]:
    """The class of command `name` (one of `COMMANDS`), its module imported now."""
    return COMMANDS[name]()


def detect_this_machine(
    environ: Mapping[str, str], *, early: EarlyWorker | None = None
) -> HostProfile:
    """`host.detect.detect_this_machine`, its probes imported on the first call."""
    from poetry_cuda.host.detect import detect_this_machine as detect

    return detect(environ, early=early)


def package_manager(name: str) -> PackageManager:
    """The package manager `name`, its module imported now (only the one asked for: a
    Poetry project never loads uv's); UsageError for a backend this release does not have
    (a cuda.lock may name one)."""
    from poetry_cuda.backends.registry import loaded
    from poetry_cuda.backends.registry import registered

    manager: PackageManager = loaded(registered(name).manager)()
    return manager
