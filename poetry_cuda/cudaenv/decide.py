"""The project's CUDA environment: which toolkit, which libraries, in which order.

Pure decisions over what `poetry_cuda.cudaenv.project_env` found on disk: the CUDA version and the
hidden system requirements from cuda.lock, the toolkits installed side by side, the
cuDNN copies, and the CUDA trees of the project's virtual environment. The result, a
`ProjectEnv`, becomes variables with `changes` (what `env` prints) or `apply` (what
`run` executes with); `contradictions` says where a shell's own variables disagree.

The rules:

* Toolkit. With system requirements of kind ``cuda-runtime`` or ``nvcc``, the toolkit
  must satisfy all of them (nvcc: it must have one); among several, the one of the
  project's CUDA version, else the newest. Without such requirements, `toolkit =
  "wheels"` uses the toolkit assembled in the virtual environment, and `"system"` a
  system toolkit of the project's CUDA major, if there is one (`torch.utils.cpp_extension`
  refuses a major mismatch); `"redist"` the one assembled in the virtual environment from
  the archives cuda.lock records, as for wheels, and it must have nvcc, requirements or
  not: without it `env` and `run` fail rather than leave the system's nvcc on PATH. No
  toolkit: CUDA_HOME and CUDA_PATH are unset, so a shell's toolkit of another CUDA version
  cannot leak in.
* ROCm and XPU builds. A lock whose GPU builds are ROCm's or XPU's (and that needs no
  toolkit) has no CUDA toolkit to find, whatever `toolkit` says: their wheels bring the HIP
  and ROCm, or SYCL, libraries they load, so nothing is added; the notes say so, with the
  variable that picks the GPUs there (HIP_VISIBLE_DEVICES, ZE_AFFINITY_MASK).
* PATH: the toolkit's bin, then the virtual environment's bin, then the inherited PATH
  without the bin folders of the other toolkits found.
* Library path (LD_LIBRARY_PATH; PATH on Windows): the CUDA libraries of the virtual
  environment's nvidia-* wheels, then the toolkit's, then the cuDNN that satisfies a
  ``cudnn`` requirement (unless the linker searches its folder anyway), then the
  inherited entries without the library folders of the other toolkits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from packaging.specifiers import InvalidSpecifier
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion
from packaging.version import Version

from poetry_cuda.errors import UnmetRequirementError
from poetry_cuda.messages import message
from poetry_cuda.records import frozen
from poetry_cuda.versions import CudaVersion


if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Mapping
    from collections.abc import Sequence

    from poetry_cuda.accelerators import Accelerator
    from poetry_cuda.host.profiles import Cudnn
    from poetry_cuda.messages import Localized
    from poetry_cuda.planning.plan import SystemRequirement
    from poetry_cuda.request.settings import ToolkitMode


__all__ = [
    "Contradiction",
    "ProjectEnv",
    "Tree",
    "apply",
    "changes",
    "compose",
    "contradictions",
]

TOOLKIT_KINDS = ("cuda-runtime", "nvcc")
DOCTOR_HINT = "`poetry cuda doctor` checks the host, the lock and the environment together"


@frozen
class Tree:
    """A CUDA toolkit folder: a system install, or one assembled from wheels."""

    root: str
    version: str  # "12.4.131"
    bin: str | None  # its bin folder, where it has one
    libraries: tuple[str, ...]  # its library folders (lib64, lib, or bin on Windows)
    nvcc: bool
    origin: str  # "system" (with how it was found), "wheels" or "redist"

    @property
    def cuda(self) -> CudaVersion:
        return CudaVersion.parse(self.version)

    def describe(self) -> str:
        return f"{self.version} at {self.root}"


@frozen
class ProjectEnv:
    """The environment a project's commands run with."""

    os: str  # "linux" | "windows"
    cuda: str | None  # the project's CUDA version ("12.4"); None for CPU builds only
    toolkit: Tree | None  # CUDA_HOME / CUDA_PATH
    path: tuple[str, ...]  # first on PATH, in order
    libraries: tuple[str, ...]  # first on the library path, in order
    foreign: tuple[str, ...]  # other toolkits' bin and library folders: left out
    notes: tuple[Localized, ...]  # how each part was chosen, for people
    # The locked system requirements the system must meet (the nvcc on PATH is held to them).
    needs: tuple[SystemRequirement, ...] = ()

    @property
    def cuda_home(self) -> str | None:
        return self.toolkit.root if self.toolkit else None

    @property
    def library_variable(self) -> str:
        return "PATH" if self.os == "windows" else "LD_LIBRARY_PATH"

    @property
    def separator(self) -> str:
        return ";" if self.os == "windows" else ":"


@frozen
class Contradiction:
    """A variable of the current shell that disagrees with the project's environment."""

    variable: str
    current: str
    expected: str | None  # None: the project wants it unset
    detail: str


def satisfies(version: str, spec: str) -> bool:
    """Whether a toolkit or cuDNN `version` ("11.8.89") is inside `spec` (">=11.8,<12")."""
    try:
        return SpecifierSet(spec).contains(Version(version), prereleases=True)
    except (InvalidSpecifier, InvalidVersion):
        return False


def _fits(tree: Tree, need: SystemRequirement) -> bool:
    if need.kind == "nvcc" and not tree.nvcc:
        return False
    return satisfies(tree.version, need.spec)


def _unmet(need: SystemRequirement, found: Sequence[str], what: str) -> UnmetRequirementError:
    seen = "; ".join(found) if found else "none"
    spec = f" {need.spec}" if need.spec else ""
    return UnmetRequirementError(
        f"{need.package} needs {need.kind}{spec}, and no installed {what} satisfies it "
        f"(found: {seen})",
        why=need.reason,
        fix=f"{need.satisfy}; {DOCTOR_HINT}",
    )


def choose_toolkit(
    needs: Sequence[SystemRequirement],
    cuda: CudaVersion | None,
    mode: ToolkitMode,
    system: Sequence[Tree],
    wheels: Tree | None,
) -> tuple[Tree | None, str]:
    """The project's toolkit and why; raises UnmetRequirementError (exit 1).

    `wheels` is the project's own tree in the virtual environment (from the toolkit wheels
    or the redist archives), used unless `mode` is "system".
    """
    wanted = [n for n in needs if n.kind in TOOLKIT_KINDS]
    own = wheels if mode != "system" else None
    if mode == "redist":
        _check_redist(own)  # the project's own nvcc, or none: never the system's instead
    pool = [*([own] if own else []), *system]
    if wanted:
        fitting = [tree for tree in pool if all(_fits(tree, need) for need in wanted)]
        if not fitting:
            need = next(n for n in wanted if not any(_fits(t, n) for t in pool)) if pool else None
            raise _unmet(need or wanted[0], [t.describe() for t in pool], "CUDA toolkit")
        best = _preferred(fitting, cuda, own)
        needed = ", ".join(f"{n.kind} {n.spec}".strip() for n in wanted)
        return best, f"toolkit {best.describe()} ({best.origin}): satisfies {needed}"
    if mode == "wheels":
        if wheels is None:
            raise UnmetRequirementError(
                'toolkit = "wheels", but the virtual environment has no CUDA toolkit wheels',
                why="the per-project toolkit comes from the nvidia-* wheels that `lock` adds to "
                "the managed group",
                fix="run `poetry cuda lock`, then `poetry install` (or `uv sync`); " + DOCTOR_HINT,
            )
        return wheels, f"toolkit {wheels.describe()} (wheels in the virtual environment)"
    if mode == "redist" and own is not None:
        return own, f"toolkit {own.describe()} (NVIDIA's redist archives, from the store)"
    if cuda is None:
        return None, "no toolkit: the project has no CUDA build and no toolkit requirement"
    same_major = [t for t in system if (v := _cuda(t)) is not None and v.major == cuda.major]
    if not same_major:
        others = ", ".join(t.describe() for t in system) or "none installed"
        return None, (
            f"no toolkit: none of CUDA {cuda.major}.x is installed ({others}); "
            "CUDA_HOME and CUDA_PATH are unset"
        )
    best = _preferred(same_major, cuda, None)
    return best, f"toolkit {best.describe()} ({best.origin}): the project's CUDA {cuda}"


def _check_redist(own: Tree | None) -> None:
    """`toolkit = "redist"` runs the nvcc of the archives cuda.lock records, or fails: an nvcc
    found on PATH would compile against another CUDA than the lock's, silently."""
    if own is None:
        raise UnmetRequirementError(
            'toolkit = "redist", but no toolkit of the redist archives is assembled for '
            "this machine",
            why="`env`, `run` and `sync` assemble it in the virtual environment from the "
            "NVIDIA archives that `lock` records in cuda.lock for each target's platform",
            fix="run `poetry cuda env` once; if cuda.lock has no archives for this "
            "machine's platform, lock with a target of it; " + DOCTOR_HINT,
        )
    if not own.nvcc:
        raise UnmetRequirementError(
            f'toolkit = "redist", but the toolkit assembled at {own.root} has no nvcc',
            why="the project's nvcc is the one of the archives cuda.lock records; the nvcc of "
            "the system is never used in its place",
            fix="run `poetry cuda env` to assemble it again from the shared store; " + DOCTOR_HINT,
        )


def _cuda(tree: Tree) -> CudaVersion | None:
    try:
        return tree.cuda
    except ValueError:
        return None


def _key(version: str) -> tuple[int, ...]:
    try:
        return Version(version).release
    except InvalidVersion:
        return ()


def _preferred(trees: Sequence[Tree], cuda: CudaVersion | None, own: Tree | None) -> Tree:
    def rank(tree: Tree) -> tuple[bool, bool, tuple[int, ...]]:
        return (tree is own, _cuda(tree) == cuda, _key(tree.version))

    return max(trees, key=rank)


def choose_cudnn(
    needs: Sequence[SystemRequirement], found: Sequence[Cudnn], folder_of: Mapping[str, str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The library folders of the cuDNN copies that satisfy each ``cudnn`` requirement.

    `folder_of` maps a cuDNN's path to its library folder (a header's copy has none).
    """
    folders: list[str] = []
    notes = []
    for need in (n for n in needs if n.kind == "cudnn"):
        fitting = [c for c in found if satisfies(c.version, need.spec) and c.path in folder_of]
        if not fitting:
            raise _unmet(need, [f"{c.version} at {c.path}" for c in found], "cuDNN")
        best = max(fitting, key=lambda c: _key(c.version))
        folders.append(folder_of[best.path])
        notes.append(f"cuDNN {best.version} at {best.path}: satisfies cudnn {need.spec}")
    return tuple(dict.fromkeys(folders)), tuple(notes)


def compose(
    *,
    os_name: str,
    cuda: CudaVersion | None,
    needs: Sequence[SystemRequirement],
    mode: ToolkitMode,
    system: Sequence[Tree],
    wheels: Tree | None,
    wheel_libraries: Sequence[str],
    venv_bin: str | None,
    cudnn: Sequence[Cudnn] = (),
    cudnn_folders: Mapping[str, str] | None = None,
    linker_defaults: Iterable[str] = (),
    stacks: Sequence[tuple[Accelerator, str]] = (),
) -> ProjectEnv:
    """The project's environment (see the module docstring for the rules); `stacks` are
    the lock's ROCm and XPU builds, as (accelerator, variant)."""
    toolkit: Tree | None
    toolkit_notes: list[Localized]
    if cuda is None and stacks and not any(n.kind in TOOLKIT_KINDS for n in needs):
        toolkit, toolkit_notes = None, [_stack_note(kind, variant) for kind, variant in stacks]
    else:
        toolkit, toolkit_note = choose_toolkit(needs, cuda, mode, system, wheels)
        toolkit_notes = [toolkit_note]
    cudnn_dirs, cudnn_notes = choose_cudnn(needs, cudnn, cudnn_folders or {})
    defaults = set(linker_defaults)
    path = [d for d in (toolkit.bin if toolkit else None, venv_bin) if d]
    libraries = [*wheel_libraries]
    if toolkit is not None:
        libraries += toolkit.libraries
    libraries += [d for d in cudnn_dirs if d not in defaults]
    others = [t for t in (*system, *([wheels] if wheels else [])) if t != toolkit]
    foreign = [d for t in others for d in (t.bin, *t.libraries) if d]
    keep = set(path) | set(libraries)
    notes = [*toolkit_notes, *cudnn_notes]
    if wheel_libraries:
        notes.append(f"{len(wheel_libraries)} library folders of nvidia-* wheels first")
    return ProjectEnv(
        os=os_name,
        cuda=str(cuda) if cuda else None,
        toolkit=toolkit,
        path=tuple(dict.fromkeys(path)),
        libraries=tuple(dict.fromkeys(libraries)),
        foreign=tuple(dict.fromkeys(d for d in foreign if d not in keep)),
        notes=tuple(notes),
        needs=tuple(needs),
    )


def _stack_note(accelerator: Accelerator, variant: str) -> Localized:
    """What applies to a ROCm or XPU build instead of a CUDA toolkit."""
    if accelerator == "rocm":
        return message("env.rocm-build", variant=variant)
    return message("env.xpu-build", variant=variant)


def _split(value: str | None, separator: str) -> list[str]:
    return [entry for entry in (value or "").split(separator) if entry]


def _joined(first: Sequence[str], inherited: str | None, env: ProjectEnv) -> str:
    left_out = set(env.foreign) | set(first)
    rest = [e for e in _split(inherited, env.separator) if e.rstrip("/\\") not in left_out]
    return env.separator.join(dict.fromkeys([*first, *rest]))


def changes(env: ProjectEnv, environ: Mapping[str, str]) -> tuple[dict[str, str], tuple[str, ...]]:
    """The variables to set (in order) and to unset, given the current `environ`."""
    values: dict[str, str] = {}
    unset: tuple[str, ...] = ()
    if env.toolkit is not None:
        values["CUDA_HOME"] = env.toolkit.root
        values["CUDA_PATH"] = env.toolkit.root
    else:
        unset = tuple(name for name in ("CUDA_HOME", "CUDA_PATH") if name in environ)
    if env.os == "windows":
        values["PATH"] = _joined([*env.path, *env.libraries], environ.get("PATH"), env)
    else:
        values["PATH"] = _joined(env.path, environ.get("PATH"), env)
        library_path = _joined(env.libraries, environ.get("LD_LIBRARY_PATH"), env)
        if library_path:
            values["LD_LIBRARY_PATH"] = library_path
        elif "LD_LIBRARY_PATH" in environ:
            unset = (*unset, "LD_LIBRARY_PATH")
    return values, unset


def apply(env: ProjectEnv, environ: Mapping[str, str]) -> dict[str, str]:
    """`environ` with the project's environment applied: what `run` executes with."""
    values, unset = changes(env, environ)
    result = {k: v for k, v in environ.items() if k not in unset}
    result.update(values)
    return result


def contradictions(env: ProjectEnv, environ: Mapping[str, str]) -> list[Contradiction]:
    """Where the current shell's CUDA_HOME, CUDA_PATH, PATH or library path disagree.

    Pure: `environ` is the shell's environment (doctor passes `os.environ`); paths are
    compared as text, trailing separators ignored.
    """
    found = []
    expected = env.cuda_home
    for name in ("CUDA_HOME", "CUDA_PATH"):
        current = environ.get(name)
        if not current or _same(current, expected):
            continue
        if env.toolkit is None:
            detail = (
                f"{name}={current}, but the project uses no CUDA toolkit of its CUDA "
                f"{env.cuda or 'version'}; tools that read {name} (torch.utils.cpp_extension, "
                "CMake) would build against it"
            )
        else:
            detail = f"{name}={current}, but the project's toolkit is {env.toolkit.describe()}"
        found.append(Contradiction(name, current, expected, detail))
    separator = env.separator
    library_variable = env.library_variable
    foreign = {f.rstrip("/\\") for f in env.foreign}
    ours = {d.rstrip("/\\") for d in env.libraries}
    current_libraries = environ.get(library_variable, "")
    for entry in _split(current_libraries, separator):
        folder = entry.rstrip("/\\")
        if folder in ours:
            break  # the project's folders come first: what follows cannot shadow them
        if folder in foreign:
            found.append(
                Contradiction(
                    library_variable,
                    current_libraries,
                    None,
                    f"{library_variable} holds {entry}, the libraries of another CUDA toolkit, "
                    "ahead of the project's; programs would load its libcudart and friends",
                )
            )
            break
    bin_dir = env.toolkit.bin if env.toolkit else None
    for entry in _split(environ.get("PATH"), separator):
        folder = entry.rstrip("/\\")
        if bin_dir and folder == bin_dir.rstrip("/\\"):
            break
        if folder in foreign:
            found.append(
                Contradiction(
                    "PATH",
                    environ.get("PATH", ""),
                    None,
                    f"PATH finds another CUDA toolkit's tools first ({entry})"
                    + (f", not {bin_dir}" if bin_dir else ""),
                )
            )
            break
    return found


def _same(a: str, b: str | None) -> bool:
    return b is not None and a.rstrip("/\\") == b.rstrip("/\\")
