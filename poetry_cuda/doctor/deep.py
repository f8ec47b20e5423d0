"""`doctor --deep`: a short check inside the project's environment, with a time limit.

The environment's own Python imports each locked CUDA package and reports what the
framework itself sees: ``torch.cuda.is_available()``, each device's capability and the
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
from poetry_cuda.host.run import run


if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence
    from pathlib import Path

    from poetry_cuda.doctor.findings import Finding
    from poetry_cuda.locking.lockfile import LockedPackage


TIMEOUT = 120.0
# Distribution -> the module it installs, where the names differ.
MODULES = {"paddlepaddle-gpu": "paddle", "paddlepaddle": "paddle", "onnxruntime-gpu": "onnxruntime"}

SCRIPT = r"""
import contextlib, importlib, io, json, sys
out = {}
for module in sys.argv[1:]:
    row = out.setdefault(module, {})
    try:
        imported = importlib.import_module(module)
    except BaseException as error:
        row["error"] = f"{type(error).__name__}: {error}"
        continue
    row["version"] = str(getattr(imported, "__version__", ""))
    try:
        if module == "torch":
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
        elif module == "paddle":
            row["compiled_with_cuda"] = bool(imported.device.is_compiled_with_cuda())
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
                imported.utils.run_check()
            row["run_check"] = buffer.getvalue().strip()[-500:]
    except BaseException as error:
        row["check_error"] = f"{type(error).__name__}: {error}"
print(json.dumps(out))
"""


def module_of(package: str) -> str:
    return MODULES.get(package, package.replace("-", "_"))


def modules(packages: Sequence[LockedPackage]) -> list[str]:
    return list(dict.fromkeys(module_of(p.name) for p in packages if p.cuda))


def probe(
    python: Path, names: Sequence[str], *, environ: Mapping[str, str], timeout: float = TIMEOUT
) -> dict[str, Any] | str:
    """The child's report, or why there is none."""
    try:
        completed = run([str(python), "-c", SCRIPT, *names], env=environ, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"the check did not finish within {timeout:g} s"
    except OSError as error:
        return f"{python}: {error.strerror or error}"
    lines = completed.stdout.strip().splitlines()
    try:
        data = json.loads(lines[-1]) if lines else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return f"{python} exited with {completed.returncode}: {completed.first_line()}"
    return data


def deep_findings(
    report: dict[str, Any] | str, packages: Sequence[LockedPackage], install: str
) -> list[Finding]:
    if isinstance(report, str):
        return [
            fail(
                "deep",
                "run",
                report,
                "run the check yourself: `poetry run python -c 'import torch'` shows the error",
            )
        ]
    found = []
    for package in packages:
        if not package.cuda:
            continue
        module = module_of(package.name)
        row = report.get(module)
        if not isinstance(row, dict):
            continue
        found.extend(_package(package, module, row, install))
    return found


def _package(
    package: LockedPackage, module: str, row: dict[str, Any], install: str
) -> list[Finding]:
    name = package.name
    if "error" in row:
        return [
            fail(
                "deep",
                "import",
                f"import {module} fails: {row['error']}",
                f"run `{install}`; a missing system library is named in the error",
                subject=name,
            )
        ]
    found = [ok("deep", "import", f"import {module} works ({row.get('version')})", subject=name)]
    if "check_error" in row:
        found.append(
            fail(
                "deep",
                "framework",
                f"{module}'s own check fails: {row['check_error']}",
                "install the system libraries listed under System requirements",
                subject=name,
            )
        )
    if module == "torch":
        found.extend(_torch(package, row, install))
    if module == "paddle" and "run_check" in row:
        found.append(ok("deep", "framework", f"paddle.utils.run_check(): {row['run_check']}"))
    return found


def _torch(package: LockedPackage, row: dict[str, Any], install: str) -> list[Finding]:
    if row.get("cuda") is None:
        return [
            fail(
                "deep",
                "cuda",
                f"torch {row.get('version')} is a CPU build (torch.version.cuda is None); "
                f"cuda.lock locks {package.variant}",
                f"run `{install}` to install the locked build",
                subject="torch",
            )
        ]
    if not row.get("available"):
        return [
            fail(
                "deep",
                "cuda",
                f"torch {row.get('version')} (CUDA {row['cuda']}): torch.cuda.is_available() is "
                "False",
                "check the driver (see Host above) and that the GPU is visible to this process",
                subject="torch",
            )
        ]
    # Whether each has kernels is judged against the build's own list, in `builds`.
    return [
        ok("deep", "device", f"torch sees GPU {index} (sm_{major}{minor})", subject="torch")
        for index, (major, minor) in enumerate(row.get("devices") or [])
    ]
