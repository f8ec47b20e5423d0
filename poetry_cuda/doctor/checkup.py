"""The whole check-up over the gathered facts: the host, the locks, the installed
environment and the system libraries (`run_checks`), the installed files against their
RECORD (`record_checks`), and `--deep`'s imports inside the environment (`deep_checks`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.doctor.builds import check_builds
from poetry_cuda.doctor.builds import read_builds
from poetry_cuda.doctor.checks import check_host
from poetry_cuda.doctor.checks import check_locks
from poetry_cuda.doctor.checks import gpu_less
from poetry_cuda.doctor.container import check_image
from poetry_cuda.doctor.deep import deep_findings
from poetry_cuda.doctor.deep import modules
from poetry_cuda.doctor.deep import probe
from poetry_cuda.doctor.environment import check_environment
from poetry_cuda.doctor.environment import check_shell
from poetry_cuda.doctor.extras import check_extras
from poetry_cuda.doctor.extras import pick_extras
from poetry_cuda.doctor.extras import without_extras_families
from poetry_cuda.doctor.findings import warn
from poetry_cuda.doctor.records import check as check_records
from poetry_cuda.doctor.records import lock_findings
from poetry_cuda.doctor.system import check_system
from poetry_cuda.doctor.toolkit import check as check_toolkit
from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.files import read_toml
from poetry_cuda.host.profiles import canonical_machine
from poetry_cuda.knowledge import packaged
from poetry_cuda.messages import message
from poetry_cuda.planning.gpu_stacks import GpuStacks
from poetry_cuda.request.settings import parse_settings


if TYPE_CHECKING:
    from collections.abc import Mapping

    from poetry_cuda.doctor.facts import Facts
    from poetry_cuda.doctor.findings import Finding
    from poetry_cuda.knowledge.model import KnowledgeBase


def run_checks(facts: Facts, kb: KnowledgeBase, *, strict: bool = False) -> list[Finding]:
    """Every finding, in the order host, locks, installed environment, system; `strict`
    fails a machine without a GPU where GPU builds are locked (`checks.gpu_less`)."""
    cuda_lock = facts.locks.cuda_lock
    extras = cuda_lock.extras if cuda_lock else ()
    picks = pick_extras(
        extras,
        facts.target,
        kb.nvidia,
        GpuStacks(packaged.rocm(), packaged.xpu()),
        policy=cuda_lock.policy if cuda_lock else "newest",
        allow_cpu_fallback=facts.allow_cpu_fallback,
    )
    # A multi-variant project's builds are checked by extra, its other packages one by one.
    per_package = without_extras_families(cuda_lock, kb) if cuda_lock else None
    # The package manager the fixes name: a uv project locks with the script only.
    backend = facts.locks.backend or (facts.backend[0] if facts.backend else None)
    findings = check_host(facts.target, per_package, kb, backend=backend, strict=strict)
    if not facts.knowledge_compiled:
        findings.append(
            warn(
                "host",
                "knowledge-cache",
                message("doctor.knowledge-cache-damaged"),
                message("doctor.knowledge-cache-fix"),
            )
        )
    if facts.project is None:
        findings.append(
            warn(
                "locks",
                "project",
                message("doctor.no-project"),
                message("doctor.no-project-fix"),
            )
        )
        return findings
    findings += check_locks(facts.locks)
    findings += check_environment(
        facts.environment, per_package, facts.locks.locked, facts.target, facts.install_hint
    )
    findings += check_extras(picks, facts.environment, kb, facts.target, backend=backend)
    findings += check_shell(facts.shell, backend=backend)
    if facts.nvcc is not None:
        findings.append(warn("environment", "nvcc", facts.nvcc.said, facts.nvcc.fix))
    if facts.toolkit is not None:
        findings += check_toolkit(facts.toolkit)
    if cuda_lock is not None:
        findings += check_system(
            cuda_lock.system_requirements,
            facts.target,
            facts.libraries,
            facts.environment,
            gpu_less=gpu_less(facts.target, cuda_lock, strict=strict) is not None,
        )
        # Inside a container: does its image meet the base image the lock records?
        findings += check_image(facts.image, cuda_lock.base_image)
    return findings


def record_checks(facts: Facts, kb: KnowledgeBase, *, deep: bool) -> list[Finding]:
    """The package manager's lock installs no distribution twice on a target; the installed
    CUDA-bearing distributions against their RECORD, and the shared store's entries the
    environment links (one ``lstat`` per file; every byte read with `deep`)."""
    if facts.project is None:
        return []
    found: list[Finding] = []
    if facts.locks.lockfile is not None:
        recorded = facts.locks.cuda_lock.targets if facts.locks.cuda_lock else ()
        platforms = [(t.os, canonical_machine(t.machine)) for t in recorded]
        platforms.append((facts.target.os, canonical_machine(facts.target.profile.machine)))
        found += lock_findings(facts.project, facts.locks.lockfile, list(dict.fromkeys(platforms)))
    try:
        shared = parse_settings(read_toml(facts.project / "pyproject.toml")).install == "shared"
    except PoetryCudaError:
        shared = False  # the lock checks say what is wrong with pyproject.toml
    return found + list(
        check_records(facts.environment, kb, deep=deep, install=facts.install_hint, shared=shared)
    )


def deep_checks(facts: Facts, environ: Mapping[str, str], *, strict: bool = False) -> list[Finding]:
    """`--deep`: import the locked packages with the environment's Python, in a time limit,
    and judge each GPU against the architectures the installed builds carry (`strict` as
    for `run_checks`)."""
    cuda_lock = facts.locks.cuda_lock
    environment = facts.environment
    python = environment.python() if environment is not None else None
    if cuda_lock is None or environment is None or python is None:
        return []
    rows = facts.installed_rows
    names = modules(cuda_lock.packages, rows)
    report = probe(python, names, environ=environ) if names else {}
    install = facts.install_hint
    spared = gpu_less(facts.target, cuda_lock, strict=strict) is not None
    findings = deep_findings(report, cuda_lock.packages, install, rows, gpu_less=spared)
    cuda_packages = [p for p in cuda_lock.packages if p.cuda]
    read = report if isinstance(report, dict) else {}
    builds = read_builds(read, cuda_packages, environment, rows)
    return findings + check_builds(cuda_packages, builds, facts.target, install)
