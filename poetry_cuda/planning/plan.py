"""What was chosen: the plan, and its JSON form (`plan --json`).

Also the rule every later step reads from a choice: the project's CUDA version
(`project_cuda`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any
from typing import Literal

from poetry_cuda.accelerators import build_accelerator
from poetry_cuda.records import frozen
from poetry_cuda.versions import CudaVersion


if TYPE_CHECKING:
    from collections.abc import Collection
    from collections.abc import Iterable

    from poetry_cuda.accelerators import Accelerator
    from poetry_cuda.messages import Localized
    from poetry_cuda.request.settings import CudaRequest
    from poetry_cuda.request.settings import Policy


SCHEMA = 1
PYPI_URL = "https://pypi.org/simple"


@frozen
class Source:
    """Where a package comes from: PyPI, or an explicit index such as pytorch-cu124."""

    name: str
    url: str
    # The project's own index, used as the authors wrote it (see `planning.adoption`).
    adopted: bool = False

    @property
    def is_pypi(self) -> bool:
        return self.name == "pypi"


PYPI = Source("pypi", PYPI_URL)


@frozen
class Availability:
    """The knowledge-base fact that says the chosen build exists, and where it was read."""

    fact: str  # "torch 2.12.1+cu129 is published for linux-x86_64, linux-aarch64 (2.12.1 only)"
    source: str
    confidence: str  # verified, third-party or uncertain


@frozen
class Choice:
    """The variant and source chosen for one CUDA-flavoured package."""

    name: str
    family: str  # the family (torch, paddle) or the flavour's package for fixed flavours
    variant: str
    cuda: CudaVersion | None
    source: Source
    version: str | None  # the version expected in the lock, label included; None if unknown
    arches: tuple[str, ...]  # sm_XY with SASS, compute_XY with PTX
    reason: Localized  # English where stored (`str`), the reader's language where shown
    # The version form the lock should show: "+cu124", ".post120" or "" (nothing to check).
    label: str = ""
    # A PEP 440 specifier the managed pin carries ("<2.15.0") when newer releases the
    # project allows were passed over; "" when the newest allowed release was chosen.
    bound: str = ""
    # The project installs it only with an extra: its managed pin must not install it always.
    optional: bool = False
    # The chosen version's Requires-Python where the knowledge base holds it.
    requires_python: str | None = None
    availability: Availability | None = None

    @property
    def accelerator(self) -> Accelerator:
        """What the chosen build runs on (`accelerators.build_accelerator`)."""
        return build_accelerator(self.variant, has_cuda=self.cuda is not None)


@frozen
class SystemRequirement:
    package: str
    kind: str
    spec: str
    reason: str
    satisfy: str
    # Set after locking when the lock itself meets the need (its nvidia-* wheels, or only
    # prebuilt wheels where nvcc was for building): what meets it. Nothing to install then.
    satisfied_by: str = ""


@frozen
class Addition:
    """A PyPI package the plan adds to the managed group (toolkit = "wheels": nvcc)."""

    name: str
    spec: str  # a PEP 440 specifier such as "==12.4.*"
    reason: str


@frozen
class ExtraChoice:
    """One build of a multi-variant project, and the extra (or group) that installs it.

    A project that offers each CUDA build as its own extra (uv's `conflicts` with
    `cpu`/`cu128` extras, Poetry's exclusive extras) keeps that design: the plan judges
    every such extra against the targets and names the one that fits each target.
    """

    name: str  # the extra's (or group's) name: "cu128"; a platform fork's marker
    kind: Literal["extra", "group", "marker"]
    family: str  # the family it serves: "torch"
    variant: str  # "cu128", or "cpu"
    cuda: CudaVersion | None
    arches: tuple[str, ...]  # sm_XY with SASS, compute_XY with PTX
    serves: tuple[str, ...]  # the labels of the targets this extra is the best fit for
    reason: str  # why it fits those targets, or why it fits none
    marker: str = ""  # the environments the fork holds in ("" everywhere)
    version: str | None = None  # the lead's version the fork's requests admit, newest first


@frozen
class Plan:
    policy: Policy
    targets: tuple[str, ...]
    packages: tuple[Choice, ...]
    system_requirements: tuple[SystemRequirement, ...]
    warnings: tuple[Localized, ...]  # English where stored, the reader's language where shown
    additions: tuple[Addition, ...] = ()
    extras: tuple[ExtraChoice, ...] = ()  # multi-variant projects only

    def choice(self, name: str) -> Choice | None:
        return next((c for c in self.packages if c.name == name), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "policy": self.policy,
            "targets": list(self.targets),
            "packages": [
                {
                    "name": c.name,
                    "variant": c.variant,
                    "accelerator": c.accelerator,
                    "cuda": str(c.cuda) if c.cuda else None,
                    "source": {"name": c.source.name, "url": c.source.url},
                    "version": c.version,
                    "arches": list(c.arches),
                    "reason": str(c.reason),
                    "requires_python": c.requires_python,
                    "availability": None
                    if c.availability is None
                    else {
                        "fact": c.availability.fact,
                        "source": c.availability.source,
                        "confidence": c.availability.confidence,
                    },
                }
                for c in self.packages
            ],
            "system_requirements": [
                {
                    "package": r.package,
                    "kind": r.kind,
                    "spec": r.spec,
                    "reason": r.reason,
                    "satisfy": r.satisfy,
                }
                for r in self.system_requirements
            ],
            "additions": [
                {"name": a.name, "spec": a.spec, "reason": a.reason} for a in self.additions
            ],
            "extras": [
                {
                    "name": e.name,
                    "kind": e.kind,
                    "family": e.family,
                    "variant": e.variant,
                    "cuda": str(e.cuda) if e.cuda else None,
                    "arches": list(e.arches),
                    "serves": list(e.serves),
                    "reason": e.reason,
                    "marker": e.marker,
                    "version": e.version,
                }
                for e in self.extras
            ],
            "warnings": [str(warning) for warning in self.warnings],
        }


def project_cuda(
    cudas: Iterable[tuple[str, CudaVersion | None]],
    request: CudaRequest,
    preferred: Collection[str],
) -> CudaVersion | None:
    """The CUDA version of the project: what its own toolkit (`toolkit = "wheels"`) matches.

    A `preferred` package's when it has a CUDA build (the knowledge base's: torch, whose
    extensions built with `torch.utils.cpp_extension` must match it), else the newest
    chosen CUDA build's, else that of an exact `cuda` setting ("13.2", "cu132"). `cudas`
    are the chosen packages' names and CUDA versions: the plan's before locking, the
    lock's after.
    """
    versions = []
    for name, cuda in cudas:
        if cuda is None:
            continue
        if name in preferred:
            return cuda
        versions.append(cuda)
    if versions:
        return max(versions)
    if request.kind == "version" and request.specifier is not None:
        specs = list(request.specifier)
        if len(specs) == 1 and specs[0].operator == "==" and specs[0].version.endswith(".*"):
            try:
                return CudaVersion.parse(specs[0].version[:-2])
            except ValueError:
                return None
    return None
