"""Gathering doctor's facts: the only part of doctor that reads the machine.

Five separate facts: what was locked (`LockState`), what was detected (the host,
settled into a `Target`), what is installed (`Environment`, read from the venv's
files), which system libraries exist (`Library`) and, inside a container, what its
image holds (`ContainerImage`). Nothing is written and nothing is fetched; only
``ldconfig -p``, the NVML worker and, in a uv project, ``uv lock --check --offline`` run
as child processes.
"""

from __future__ import annotations

import dataclasses
import os

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.backends.choice import choose_with_reason
from poetry_cuda.cudaenv.decide import apply
from poetry_cuda.cudaenv.decide import contradictions
from poetry_cuda.cudaenv.path_nvcc import check as check_nvcc
from poetry_cuda.cudaenv.project_env import project_environment
from poetry_cuda.doctor.checks import LockState
from poetry_cuda.doctor.checks import lock_fix
from poetry_cuda.doctor.container import read_image
from poetry_cuda.doctor.installed import read_environment
from poetry_cuda.doctor.libraries import from_ldconfig
from poetry_cuda.doctor.libraries import library_path_folders
from poetry_cuda.doctor.libraries import scan_folders
from poetry_cuda.doctor.toolkit import ToolkitState
from poetry_cuda.doctor.toolkit import gather as gather_toolkit
from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.files import read_toml
from poetry_cuda.host.detect import DRIVER_ENV
from poetry_cuda.host.detect import HostPaths
from poetry_cuda.host.detect import detect_host
from poetry_cuda.knowledge import packaged
from poetry_cuda.knowledge.loader import compiled_sound
from poetry_cuda.locking import lockfile
from poetry_cuda.locking.state import gate
from poetry_cuda.messages import message
from poetry_cuda.planning.targets import settle
from poetry_cuda.records import frozen
from poetry_cuda.request.project import nearest_project
from poetry_cuda.request.settings import parse_settings


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping

    from poetry_cuda.backends.base import PackageManager
    from poetry_cuda.cudaenv.decide import Contradiction
    from poetry_cuda.cudaenv.decide import ProjectEnv
    from poetry_cuda.cudaenv.path_nvcc import Mismatch
    from poetry_cuda.doctor.container import ContainerImage
    from poetry_cuda.doctor.installed import Environment
    from poetry_cuda.doctor.libraries import Library
    from poetry_cuda.host.nvml import EarlyWorker
    from poetry_cuda.knowledge.model import Installed
    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.messages import Localized
    from poetry_cuda.planning.targets import Target


LIBRARY_KINDS = ("cuda-runtime", "nccl", "tensorrt")


@frozen
class Facts:
    project: Path | None
    target: Target
    locks: LockState
    environment: Environment | None
    libraries: tuple[Library, ...]
    # Where the shell's CUDA variables contradict the project's; None: not computed
    # (no cuda.lock, or a requirement no installed toolkit meets, reported on its own).
    shell: tuple[Contradiction, ...] | None = None
    # The project's package manager and why (`("uv", "uv.lock exists")`); None: no project.
    backend: tuple[str, Localized] | None = None
    # `allow-cpu-fallback`: whether a GPU machine that no CUDA extra fits takes the CPU one.
    allow_cpu_fallback: bool = False
    # `toolkit = "redist"`: the project's toolkit in the store and in `<venv>/cuda`.
    toolkit: ToolkitState | None = None
    # The knowledge base's rows of what installed builds show (module, the file recording
    # their CUDA, the kernel libraries, the framework's own check), read and checked with.
    installed_rows: tuple[Installed, ...] = ()
    # The install a fix names: the project's package manager's (else Poetry's).
    install_hint: str = "poetry install"
    # The nvcc the project's PATH finds, where it contradicts the lock (another CUDA major).
    nvcc: Mismatch | None = None
    # The container doctor runs in, as its runtime's markers and the image's environment
    # say; None: it runs on a host.
    image: ContainerImage | None = None
    # Whether the installed knowledge base is read from its compiled form (else every
    # command parses the TOML: the compiled file is damaged or stale).
    knowledge_compiled: bool = True


def with_library_path(paths: HostPaths, environ: Mapping[str, str]) -> HostPaths:
    """`paths` with LD_LIBRARY_PATH's folders first, as the dynamic loader searches them."""
    extra = tuple(p for p in library_path_folders(environ) if p not in paths.library_dirs)
    return dataclasses.replace(paths, library_dirs=(*extra, *paths.library_dirs))


def read_locks(project: Path | None, load_manager: Callable[[str], PackageManager]) -> LockState:
    if project is None:
        return LockState(None)
    path = project / lockfile.FILENAME
    if not path.exists():
        return LockState(None)
    try:
        cuda_lock = lockfile.read(path)
    except PoetryCudaError as error:
        return LockState(None, error=error, damaged=True)
    try:
        pyproject = read_toml(project / "pyproject.toml")
    except PoetryCudaError as error:
        return LockState(None, error=error)
    # The install gate, as `sync` and the install hook judge it.
    found = gate(project, cuda_lock, pyproject)
    fix = lock_fix(cuda_lock.backend)
    state = LockState(cuda_lock, fresh=found.fresh, backend=cuda_lock.backend, fix=fix, gate=found)
    try:
        backend = load_manager(cuda_lock.backend)
    except PoetryCudaError as error:
        return dataclasses.replace(state, backend_error=error.what)
    exists = (project / backend.lockfile).is_file()
    locked = {p.name: tuple(backend.locked(project, p.name)) for p in cuda_lock.packages}
    return dataclasses.replace(
        state,
        lockfile=backend.lockfile,
        lockfile_exists=exists,
        # The manager's own check, as `sync` makes it, where it is cheap and offline (uv).
        lockfile_stale=backend.outdated_offline(project) if exists else None,
        locked=locked,
    )


def choose_backend(project: Path | None, recorded: str | None) -> tuple[str, Localized] | None:
    """The project's package manager and why: cuda.lock's, else what `backend` picks."""
    if project is None:
        return None
    if recorded:
        return recorded, message("backend.recorded")
    try:
        pyproject = read_toml(project / "pyproject.toml")
    except PoetryCudaError:
        return None
    try:
        setting = parse_settings(pyproject).backend
    except PoetryCudaError:  # doctor reports, it does not refuse: the files still tell
        setting = "auto"
    return choose_with_reason(setting, project, pyproject)


def cpu_fallback(project: Path | None) -> bool:
    """The project's `allow-cpu-fallback`; False where pyproject.toml cannot say."""
    if project is None:
        return False
    try:
        return parse_settings(read_toml(project / "pyproject.toml")).allow_cpu_fallback
    except PoetryCudaError:  # reported by the checks that read it
        return False


def find_environment(
    project: Path | None,
    backend: tuple[str, Localized] | None,
    environ: Mapping[str, str],
    rows: tuple[Installed, ...],
    load_manager: Callable[[str], PackageManager],
) -> Environment | None:
    if project is None or backend is None:
        return None
    try:
        root = load_manager(backend[0]).environment(project, environ)
    except PoetryCudaError:
        return None
    return read_environment(root, rows) if root is not None else None


def gather(
    start: Path,
    kb: KnowledgeBase,
    *,
    environ: Mapping[str, str] | None = None,
    paths: HostPaths | None = None,
    timeout: float = 5.0,
    early: EarlyWorker | None = None,
    load_manager: Callable[[str], PackageManager],
) -> Facts:
    """Every fact doctor checks, for the project at or above `start` and this machine
    (`early`: the NVML worker started ahead, if one was).

    `load_manager` loads a package manager by its name (the project's, cuda.lock's).
    """
    env = os.environ if environ is None else environ
    where = with_library_path(HostPaths.of(env) if paths is None else paths, env)
    profile = detect_host(
        driver_override=env.get(DRIVER_ENV) or None,
        environ=env,
        timeout=timeout,
        paths=where,
        early=early,
    )
    target, _ = settle(profile, kb.nvidia)
    project = nearest_project(start)
    locks = read_locks(project, load_manager)
    backend = choose_backend(project, locks.backend)
    if locks.cuda_lock is None and backend is not None:  # the fixes name the project's lock
        locks = dataclasses.replace(locks, fix=lock_fix(backend[0]))
    environment = find_environment(project, backend, env, kb.installed, load_manager)
    recorded = locks.cuda_lock.system_requirements if locks.cuda_lock else ()
    requirements = [r for r in recorded if not r.satisfied_by]
    kinds = sorted({r.kind for r in requirements} & set(LIBRARY_KINDS))
    libraries: list[Library] = []
    if kinds and target.os != "macos":
        folders = [(p, "LD_LIBRARY_PATH") for p in library_path_folders(env)]
        folders += [(p, "library folder") for p in where.library_dirs]
        for toolkit in profile.toolkits:
            folders += [(Path(toolkit.root) / sub, "CUDA toolkit") for sub in ("lib64", "lib")]
        seen: set[str] = set()
        unique = []
        for folder, source in folders:
            if os.path.realpath(folder) not in seen:
                seen.add(os.path.realpath(folder))
                unique.append((folder, source))
        libraries = scan_folders(unique, kinds)
        known = {os.path.realpath(lib.path) for lib in libraries}
        cached = from_ldconfig(where.ldconfig, kinds, environ=env, timeout=timeout)
        libraries += [lib for lib in cached if os.path.realpath(lib.path) not in known]
    wanted = project_env(project, env, load_manager)
    return Facts(
        project,
        target,
        locks,
        environment,
        tuple(libraries),
        None if wanted is None else tuple(contradictions(wanted, env)),
        backend,
        cpu_fallback(project),
        gather_toolkit(
            locks.cuda_lock, environment.root if environment else None, target.os, kb.preferred
        )
        if locks.cuda_lock
        else None,
        kb.installed,
        install_hint(backend[0] if backend else None, load_manager),
        # The nvcc `run` would find, where it contradicts the lock (see `cudaenv.path_nvcc`).
        None if wanted is None else check_nvcc(wanted, apply(wanted, env).get("PATH", ""), env),
        read_image(env, where.root),
        compiled_sound(packaged.DATA),
    )


def install_hint(backend: str | None, load_manager: Callable[[str], PackageManager]) -> str:
    """The install a fix names: that of the project's package manager (cuda.lock's, else
    the one `backend` picks), else Poetry's."""
    try:
        return load_manager(backend or "poetry").install_hint
    except PoetryCudaError:  # a backend this release does not have
        return load_manager("poetry").install_hint


def project_env(
    project: Path | None,
    environ: Mapping[str, str],
    load_manager: Callable[[str], PackageManager],
) -> ProjectEnv | None:
    """The environment `run` gives the project; None without cuda.lock, or where it cannot
    be made (a requirement no installed toolkit meets, reported on its own)."""
    if project is None or not (project / lockfile.FILENAME).is_file():
        return None
    try:
        return project_environment(project, environ, build_tree=False, load_manager=load_manager)
    except PoetryCudaError:
        return None
