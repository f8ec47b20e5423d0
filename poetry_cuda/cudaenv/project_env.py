"""From a project folder to its `ProjectEnv`: the I/O around `poetry_cuda.cudaenv.decide`.

Reads pyproject.toml and cuda.lock, finds the project's virtual environment the way
its package manager does, lists the CUDA libraries of its nvidia-* wheels (assembling
``<venv>/cuda`` with `toolkit = "wheels"`, or from the redist archives cuda.lock records,
fetched once per machine into the shared store, with `toolkit = "redist"`), and finds the system toolkits and, when a
requirement asks for it, cuDNN. ``POETRY_CUDA_TOOLKITS`` names more places to look for
toolkits (folders separated like PATH: each a toolkit, or a folder of ``cuda-*`` ones).
"""

from __future__ import annotations

import os
import platform
import sys

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.backends.choice import choose
from poetry_cuda.cudaenv.decide import ProjectEnv
from poetry_cuda.cudaenv.decide import Tree
from poetry_cuda.cudaenv.decide import changes
from poetry_cuda.cudaenv.decide import compose
from poetry_cuda.cudaenv.tree import FOLDER
from poetry_cuda.cudaenv.tree import assemble
from poetry_cuda.cudaenv.tree import library_folders
from poetry_cuda.cudaenv.tree import site_packages
from poetry_cuda.cudaenv.tree import tree_of
from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.errors import UnmetRequirementError
from poetry_cuda.errors import UsageError
from poetry_cuda.files import read_toml
from poetry_cuda.host.cudnn import find_cudnn
from poetry_cuda.host.paths import HostPaths
from poetry_cuda.host.profiles import Toolkit
from poetry_cuda.host.profiles import host_machine
from poetry_cuda.host.profiles import host_os
from poetry_cuda.host.toolkits import find_toolkits
from poetry_cuda.host.toolkits import looks_like_toolkit
from poetry_cuda.host.toolkits import toolkit_version
from poetry_cuda.knowledge.packaged import preferred
from poetry_cuda.knowledge.packaged import toolkit_wheels
from poetry_cuda.locking import lockfile
from poetry_cuda.messages import message
from poetry_cuda.planning.toolkit_wheels import for_major
from poetry_cuda.redist import assemble as redist
from poetry_cuda.redist import usage
from poetry_cuda.redist.manifest import platform_of
from poetry_cuda.redist.store import ENVIRONMENT as STORE_ENV
from poetry_cuda.redist.store import Store
from poetry_cuda.request.project import find_project
from poetry_cuda.request.settings import parse_settings
from poetry_cuda.request.user_mirrors import with_user_redist


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Mapping
    from collections.abc import MutableMapping
    from collections.abc import Sequence

    from poetry_cuda.backends.base import PackageManager
    from poetry_cuda.host.profiles import Cudnn
    from poetry_cuda.host.profiles import OperatingSystem
    from poetry_cuda.locking.lockfile import LockedToolkit
    from poetry_cuda.messages import Localized
    from poetry_cuda.redist.manifest import Archive
    from poetry_cuda.versions import CudaVersion


TOOLKITS_ENV = "POETRY_CUDA_TOOLKITS"
PROBE_TIMEOUT = 10.0


def _os_name() -> OperatingSystem:

    return host_os(sys.platform)


def system_toolkits(environ: Mapping[str, str], os_name: OperatingSystem) -> list[Toolkit]:

    found: list[Toolkit] = []
    nvcc_name = "nvcc.exe" if os_name == "windows" else "nvcc"
    for entry in (e for e in environ.get(TOOLKITS_ENV, "").split(os.pathsep) if e):
        folder = Path(entry)
        roots = [folder] if looks_like_toolkit(folder) else sorted(folder.glob("cuda-*"))
        for root in roots:
            nvcc = root / "bin" / nvcc_name
            version, _ = toolkit_version(
                root,
                nvcc=nvcc if nvcc.is_file() else None,
                environ=environ,
                timeout=PROBE_TIMEOUT,
            )
            if version:
                found.append(
                    Toolkit(version, str(root), str(nvcc) if nvcc.is_file() else None, TOOLKITS_ENV)
                )
    detected, _ = find_toolkits(
        environ,
        os_name=os_name,
        usr_local=Path("/usr/local"),
        opt=Path("/opt"),
        timeout=PROBE_TIMEOUT,
    )
    seen = {os.path.realpath(t.root) for t in found}
    return found + [t for t in detected if os.path.realpath(t.root) not in seen]


def as_tree(toolkit: Toolkit, os_name: str) -> Tree:
    root = Path(toolkit.root)
    if os_name == "windows":
        libraries = [root / "bin"]
    else:
        libraries = [root / "lib64"] if (root / "lib64").is_dir() else [root / "lib"]
    return Tree(
        root=toolkit.root,
        version=toolkit.version,
        bin=str(root / "bin") if (root / "bin").is_dir() else None,
        libraries=tuple(str(p) for p in libraries if p.is_dir()),
        nvcc=toolkit.nvcc is not None,
        origin=f"system, via {toolkit.source}",
    )


def project_environment(
    start: Path,
    environ: Mapping[str, str] | None = None,
    *,
    build_tree: bool = True,
    load_manager: Callable[[str], PackageManager],
) -> ProjectEnv:
    """The environment of the project at or above `start` (see `poetry_cuda.cudaenv.decide`).

    With `toolkit = "wheels"` this builds ``<venv>/cuda`` unless `build_tree` is False.
    `load_manager` loads the project's package manager by name, which finds its venv.
    """
    environ = os.environ if environ is None else environ
    project = find_project(start)
    pyproject = read_toml(project / "pyproject.toml")
    settings = with_user_redist(parse_settings(pyproject), environ)
    lock_path = project / lockfile.FILENAME
    if not lock_path.exists():  # a pipe or a device is for lockfile.read to refuse
        raise UsageError(
            message("env.no-lock", project=project),
            why=message("env.no-lock-why"),
            fix=message("env.no-lock-fix"),
        )
    cuda_lock = lockfile.read(lock_path)
    os_name = _os_name()
    backend = load_manager(choose(settings.backend, project, pyproject))
    venv = backend.environment(project, environ)
    sites = [] if venv is None else site_packages(venv, os_name)
    wheel_libraries = [folder for site in sites for folder in library_folders(site, os_name)]
    cuda = cuda_lock.project_cuda(preferred())
    wheels = None
    if settings.toolkit == "wheels" and venv is not None and cuda is not None:
        wheels = _wheel_tree(venv, sites, cuda, os_name, build=build_tree)
    if settings.toolkit == "redist" and cuda_lock.toolkit is not None:
        wheels = _redist_tree(
            project, venv, cuda_lock.toolkit, settings.redist_url, os_name, build=build_tree
        )
    # What the lock itself meets (its nvidia-* wheels) needs nothing from the system.
    needs = tuple(r for r in cuda_lock.system_requirements if not r.satisfied_by)
    toolkits = [] if os_name == "macos" else system_toolkits(environ, os_name)
    inside = str(venv.resolve()) + os.sep if venv else None
    system = [
        as_tree(t, os_name)
        for t in toolkits
        if not (inside and os.path.realpath(t.root).startswith(inside))
    ]
    cudnn: tuple[Cudnn, ...] = ()
    folders: dict[str, str] = {}
    defaults: tuple[str, ...] = ()
    if any(need.kind == "cudnn" for need in needs):
        cudnn, folders, defaults = _cudnn(environ, os_name, [t.root for t in toolkits])
    return compose(
        os_name=os_name,
        cuda=cuda,
        needs=needs,
        mode=settings.toolkit,
        system=system,
        wheels=wheels,
        wheel_libraries=wheel_libraries,
        venv_bin=_venv_bin(venv, os_name),
        cudnn=cudnn,
        cudnn_folders=folders,
        linker_defaults=defaults,
        stacks=tuple(
            dict.fromkeys(
                (package.accelerator, package.variant)
                for package in cuda_lock.packages
                if package.accelerator in ("rocm", "xpu")
            )
        ),
    )


def _venv_bin(venv: Path | None, os_name: str) -> str | None:
    if venv is None:
        return None
    folder = venv / ("Scripts" if os_name == "windows" else "bin")
    return str(folder) if folder.is_dir() else None


def _wheel_tree(
    venv: Path, sites: list[Path], cuda: CudaVersion, os_name: str, *, build: bool
) -> Tree | None:

    row = for_major(toolkit_wheels(), cuda.major)
    if row is None or os_name == "windows":
        return None
    for site in sites:
        tree = assemble(venv, site, row, build=build)
        if tree is not None:
            return tree
    return None


def ensure_redist_toolkit(
    project: Path,
    environ: Mapping[str, str] | None = None,
    *,
    load_manager: Callable[[str], PackageManager],
) -> Tree | None:
    """With `toolkit = "redist"`, fetch and assemble the project's toolkit now (`sync`).

    None when the project uses another mode or cuda.lock records no archives for it.
    """
    environ = os.environ if environ is None else environ
    pyproject = read_toml(project / "pyproject.toml")
    settings = with_user_redist(parse_settings(pyproject), environ)
    cuda_lock = lockfile.read(project / lockfile.FILENAME)
    if settings.toolkit != "redist" or cuda_lock.toolkit is None:
        return None
    backend = load_manager(choose(settings.backend, project, pyproject))
    venv = backend.environment(project, environ)
    return _redist_tree(
        project, venv, cuda_lock.toolkit, settings.redist_url, _os_name(), build=True
    )


def _redist_tree(
    project: Path,
    venv: Path | None,
    toolkit: LockedToolkit,
    base_url: str,
    os_name: OperatingSystem,
    *,
    build: bool,
) -> Tree | None:
    """``<venv>/cuda`` of the archives cuda.lock records for this machine's platform.

    None when cuda.lock records no archives at all (or, with `build` False, before the tree
    was built); UnmetRequirementError when it records them for other platforms only, or
    when the tree has no nvcc.
    """
    machine = host_machine(platform.machine(), os_name)
    here = platform_of(os_name, machine)
    archives = toolkit.for_platform(here or "")
    if not archives:
        recorded = sorted({a.platform for a in toolkit.archives})
        if recorded:
            raise foreign_platform(recorded, here or f"{os_name} {machine}")
        return None
    if venv is None:
        raise UsageError(
            'toolkit = "redist": the project has no virtual environment to assemble its CUDA '
            "toolkit in",
            why=f"the toolkit is assembled in <venv>/{FOLDER} from the shared store",
            fix="run `poetry install` (or `uv sync`) first",
        )
    home = venv / FOLDER
    if build:
        store = Store.default()
        windows = os_name == "windows"
        unpacked = [_stored(store, archive, base_url) for archive in archives]
        if not redist.is_current(home, unpacked, windows=windows):
            # About to be linked: the stored files' sha256 are checked first.
            unpacked = [_stored(store, archive, base_url, contents=True) for archive in archives]
            redist.assemble(home, unpacked, windows=windows)
        usage.record(store.root, project, archives)  # what the store must keep for it
    elif not (home / redist.STAMP).is_file():
        return None
    nvcc = next((a for a in archives if a.component == "cuda_nvcc"), archives[0])
    tree = tree_of(home, nvcc.version, origin="redist")
    if build and not tree.nvcc:
        raise UnmetRequirementError(
            f'toolkit = "redist": the archives cuda.lock records for {here} hold no bin/nvcc',
            why=f"<venv>/{FOLDER} was assembled from them, and the project's nvcc is theirs; "
            "the nvcc of the system is never used in its place",
            fix="lock again (`poetry cuda lock --regenerate`) so that cuda.lock records "
            "NVIDIA's nvcc archives",
        )
    return tree


def foreign_platform(recorded: Sequence[str], here: str) -> UnmetRequirementError:
    """cuda.lock records toolkit archives only for `recorded` platforms, not this one."""
    return UnmetRequirementError(
        f'toolkit = "redist": cuda.lock records the toolkit archives for {", ".join(recorded)}, '
        f"and this machine is {here}",
        why="each platform has its own NVIDIA archives, and an archive of another platform "
        "cannot run here; the nvcc of the system is never used in their place",
        fix="lock again with this machine among the targets (`poetry cuda lock --target this`, "
        "or add its host profile to `targets`)",
    )


def _stored(store: Store, archive: Archive, base_url: str, *, contents: bool = False) -> Path:
    """The archive's tree in the store, fetched from `base_url` the first time."""
    try:
        return store.ensure(archive, base_url, contents=contents)
    except UnmetRequirementError as error:
        raise UnmetRequirementError(
            f'toolkit = "redist": {archive.component} {archive.version} ({archive.platform}) '
            f"is not in the store at {store.root} and cannot be fetched from {base_url}",
            why=error.what,
            fix="connect to the network and run again (each archive is fetched once per "
            "machine), or set [tool.poetry-cuda.mirrors] cuda-redist to a mirror you can "
            f"reach; {STORE_ENV} chooses the store's folder",
        ) from None


def _cudnn(
    environ: Mapping[str, str], os_name: OperatingSystem, roots: list[str]
) -> tuple[tuple[Cudnn, ...], dict[str, str], tuple[str, ...]]:

    paths = HostPaths()
    found, _ = find_cudnn(
        os_name=os_name,
        toolkit_roots=roots,
        include_dirs=paths.include_dirs,
        library_dirs=paths.library_dirs,
        ldconfig=paths.ldconfig,
        environ=environ,
        timeout=PROBE_TIMEOUT,
    )
    folders = {c.path: str(Path(c.path).parent) for c in found if c.source != "header"}
    cached = tuple(str(Path(c.path).parent) for c in found if c.source == "ldconfig")
    defaults = tuple(str(p) for p in paths.library_dirs) + cached
    return found, folders, defaults


def apply_for_poetry_run(
    project: Path,
    environ: MutableMapping[str, str],
    *,
    load_manager: Callable[[str], PackageManager],
) -> Localized | None:
    """Give `poetry run` the project's environment by changing `environ` in place.

    Returns a warning instead of raising: `poetry run` then goes on unchanged. Nothing
    changes when `poetry-run-environment = false` is set in [tool.poetry-cuda].
    """
    try:
        if not parse_settings(read_toml(project / "pyproject.toml")).run_environment:
            return None
        env = project_environment(project, environ, load_manager=load_manager)
        values, unset = changes(env, environ)
    except PoetryCudaError as error:
        return message("run.without-environment", problem=error.said)
    for name in unset:
        environ.pop(name, None)
    environ.update(values)
    return None
