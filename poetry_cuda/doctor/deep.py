"""`doctor --deep`: a short check inside the project's environment, with a time limit.

The environment's own Python imports each locked CUDA package (by the module the
knowledge base's `Installed` row names) and runs the framework's own check where the row
names one (`probe`): ``torch.cuda.is_available()``, each device's capability and the
architectures the build carries, ``paddle.utils.run_check()``. The child prints one
JSON object; turning it into findings is a pure function (the architectures are
judged in `builds`).
"""

from __future__ import annotations

import json
import subprocess

from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.doctor.findings import fail
from poetry_cuda.doctor.findings import ok
from poetry_cuda.doctor.findings import warn
from poetry_cuda.host.run import run
from poetry_cuda.knowledge.model import installed_of
from poetry_cuda.messages import message


if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence
    from pathlib import Path

    from poetry_cuda.doctor.findings import Finding
    from poetry_cuda.knowledge.model import Installed
    from poetry_cuda.knowledge.model import Probe
    from poetry_cuda.locking.lockfile import LockedPackage
    from poetry_cuda.messages import Message


TIMEOUT = 120.0

SCRIPT = r"""
import contextlib, importlib, io, json, sys
out = {}
for argument in sys.argv[1:]:
    module, _, check = argument.partition("=")
    row = out.setdefault(module, {})
    try:
        imported = importlib.import_module(module)
    except BaseException as error:
        row["error"] = f"{type(error).__name__}: {error}"
        continue
    row["version"] = str(getattr(imported, "__version__", ""))
    try:
        if check == "torch":
            row["cuda"] = imported.version.cuda
            row["available"] = bool(imported.cuda.is_available())
            count = imported.cuda.device_count() if row["available"] else 0
            row["devices"] = [list(imported.cuda.get_device_capability(i)) for i in range(count)]
            if row["cuda"] is not None:
                arches = list(imported.cuda.get_arch_list())
                # get_arch_list() is empty without a usable GPU; the build's list is not
                if not arches and hasattr(getattr(imported, "_C", None), "_cuda_getArchFlags"):
                    arches = (imported._C._cuda_getArchFlags() or "").split()
                row["arches"] = arches
        elif check == "paddle":
            row["compiled_with_cuda"] = bool(imported.device.is_compiled_with_cuda())
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
                imported.utils.run_check()
            row["run_check"] = buffer.getvalue().strip()[-500:]
    except BaseException as error:
        row["check_error"] = f"{type(error).__name__}: {error}"
print(json.dumps(out))
"""


def module_of(package: str, rows: Sequence[Installed]) -> str:
    """The module the distribution `package` installs: its row's, else its own name."""
    row = installed_of(rows, package)
    return row.module if row is not None else package.replace("-", "_")


def probe_of(module: str, rows: Sequence[Installed]) -> Probe | None:
    """The framework's own check for `module`, if its row names one."""
    return next((row.probe for row in rows if row.module == module), None)


def modules(packages: Sequence[LockedPackage], rows: Sequence[Installed]) -> list[str]:
    """The child's arguments: each locked CUDA package's module with its framework's
    check (``torch=torch``; ``cupy=`` when there is none)."""
    names = dict.fromkeys(module_of(p.name, rows) for p in packages if p.cuda)
    return [f"{name}={probe_of(name, rows) or ''}" for name in names]


def probe(
    python: Path, names: Sequence[str], *, environ: Mapping[str, str], timeout: float = TIMEOUT
) -> dict[str, Any] | Message:
    """The child's report, or why there is none."""
    try:
        completed = run([str(python), "-c", SCRIPT, *names], env=environ, timeout=timeout)
    except subprocess.TimeoutExpired:
        return message("deep.timeout", seconds=f"{timeout:g}")
    except OSError as error:
        return message("deep.cannot-run", python=python, error=error.strerror or error)
    lines = completed.stdout.strip().splitlines()
    try:
        data = json.loads(lines[-1]) if lines else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return message(
            "deep.exited", python=python, code=completed.returncode, said=completed.first_line()
        )
    return data


def deep_findings(
    report: dict[str, Any] | Message,
    packages: Sequence[LockedPackage],
    install: str,
    rows: Sequence[Installed],
    *,
    gpu_less: bool = False,
) -> list[Finding]:
    """What the environment's Python said of each locked CUDA build; on a machine without a
    GPU that doctor spares (`checks.gpu_less`), a CUDA build that sees no GPU is a warning."""
    if not isinstance(report, dict):
        return [fail("deep", "run", report, message("deep.run-fix"))]
    found = []
    for package in packages:
        if not package.cuda:
            continue
        module = module_of(package.name, rows)
        row = report.get(module)
        if not isinstance(row, dict):
            continue
        check = probe_of(module, rows)
        found.extend(_package(package, module, row, install, check, gpu_less=gpu_less))
    return found


def _package(
    package: LockedPackage,
    module: str,
    row: dict[str, Any],
    install: str,
    check: Probe | None,
    *,
    gpu_less: bool,
) -> list[Finding]:
    name = package.name
    if "error" in row:
        return [
            fail(
                "deep",
                "import",
                message("deep.import-fails", module=module, error=row["error"]),
                message("deep.import-fails-fix", install=install),
                subject=name,
            )
        ]
    works = message("deep.import-works", module=module, version=row.get("version"))
    found = [ok("deep", "import", works, subject=name)]
    if "check_error" in row:  # a GPU build's own check needs the GPU
        found.append(
            (warn if gpu_less else fail)(
                "deep",
                "framework",
                message("deep.check-fails", module=module, error=row["check_error"]),
                message("deep.check-fails-fix"),
                subject=name,
            )
        )
    if check == "torch":
        found.extend(_torch(package, row, install, gpu_less=gpu_less))
    if check == "paddle" and "run_check" in row:
        found.append(ok("deep", "framework", f"paddle.utils.run_check(): {row['run_check']}"))
    return found


def _torch(
    package: LockedPackage, row: dict[str, Any], install: str, *, gpu_less: bool
) -> list[Finding]:
    if row.get("cuda") is None:
        return [
            fail(
                "deep",
                "cuda",
                message("deep.cpu-build", version=row.get("version"), variant=package.variant),
                message("deep.cpu-build-fix", install=install),
                subject="torch",
            )
        ]
    if not row.get("available"):
        return [
            (warn if gpu_less else fail)(
                "deep",
                "cuda",
                message("deep.unavailable", version=row.get("version"), cuda=row["cuda"]),
                message("deep.unavailable-fix"),
                subject="torch",
            )
        ]
    # Whether each has kernels is judged against the build's own list, in `builds`.
    return [
        ok(
            "deep",
            "device",
            message("deep.sees", index=index, sm=f"sm_{major}{minor}"),
            subject="torch",
        )
        for index, (major, minor) in enumerate(row.get("devices") or [])
    ]
