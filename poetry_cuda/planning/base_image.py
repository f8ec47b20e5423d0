"""Which NVIDIA CUDA container image meets a lock: `nvidia/cuda:<cuda>-[cudnn-]<flavour>-<os>`.

The flavour follows from the system requirements the lock leaves to the system (those its own
wheels do not meet): nvcc needs `devel`; the system's CUDA libraries or NCCL need `runtime`;
a system cuDNN needs the cuDNN flavour; when the wheels bring every library, `base` (the CUDA
runtime and the driver's forward compatibility) is enough. The CUDA release is the newest one
every CUDA requirement admits, or, with none, the lock's own CUDA; an image never asks for a
newer CUDA than the lowest driver among the targets supports (the container runtime refuses
to start it there). Pure: the caller passes the lock's requirements, its CUDA and the targets'.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from packaging.specifiers import InvalidSpecifier
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from poetry_cuda.knowledge.base_images import REPOSITORY
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import message
from poetry_cuda.records import frozen
from poetry_cuda.versions import CudaVersion


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.knowledge.base_images import BaseImage
    from poetry_cuda.knowledge.base_images import Flavour
    from poetry_cuda.messages import Localized
    from poetry_cuda.planning.plan import Plan
    from poetry_cuda.planning.plan import SystemRequirement
    from poetry_cuda.planning.targets import Target


# Requirement kinds an image can meet; "driver" is the host's, never the image's.
_CUDA_KINDS = ("cuda-runtime", "nvcc")


@frozen
class BaseImageChoice:
    """The image tag (None when no listed image serves) and why."""

    image: str | None
    reason: Localized


def _minor(image: BaseImage) -> CudaVersion:
    return CudaVersion(image.cuda.major, image.cuda.minor)


def _admits(spec: str, version: Version) -> bool:
    try:
        return SpecifierSet(spec).contains(version, prereleases=True)
    except InvalidSpecifier:
        return False


def _flavour(kinds: set[str]) -> Flavour:
    if "nvcc" in kinds:
        return "devel"
    if kinds & {"cuda-runtime", "nccl", "cudnn"}:
        return "runtime"
    return "base"


def _needs_text(open_needs: Sequence[SystemRequirement]) -> Phrase:
    needs = {(r.package, r.kind, r.spec) for r in open_needs}
    return Phrase(
        tuple(
            message("image.needs", package=package, kind=kind, spec=spec)
            for package, kind, spec in sorted(needs)
        ),
        separator="; ",
    )


def _closest(images: Sequence[BaseImage], cuda: CudaVersion) -> BaseImage | None:
    """The image of the lock's CUDA minor, else the nearest newer one of its major, else
    the newest older one of its major (`images` newest first)."""
    same_major = [i for i in images if i.cuda.major == cuda.major]
    exact = [i for i in same_major if _minor(i) == cuda]
    newer = [i for i in same_major if _minor(i) > cuda]
    older = [i for i in same_major if _minor(i) < cuda]
    found = exact or newer[-1:] or older[:1]
    return found[0] if found else None


def choose_base_image(
    requirements: Sequence[SystemRequirement],
    lock_cuda: CudaVersion | None,
    driver_cuda: CudaVersion | None,
    images: Sequence[BaseImage],
) -> BaseImageChoice:
    """The image for a lock whose system requirements are `requirements`, whose CUDA builds
    are for `lock_cuda` (the highest; None: it installs no CUDA build) and whose Linux
    targets' lowest driver supports `driver_cuda` (None: no target says)."""
    open_needs = [r for r in requirements if not r.satisfied_by and r.kind != "driver"]
    kinds = {r.kind for r in open_needs}
    if lock_cuda is None and not open_needs:
        return BaseImageChoice(None, message("image.no-cuda-build"))
    flavour = _flavour(kinds)
    wants_cudnn = "cudnn" in kinds
    fits = [
        image
        for image in images
        if (driver_cuda is None or _minor(image) <= driver_cuda)
        and all(
            _admits(r.spec, Version(str(_minor(image))))
            for r in open_needs
            if r.kind in _CUDA_KINDS
        )
        and (
            not wants_cudnn
            or (
                image.cudnn is not None
                and all(_admits(r.spec, image.cudnn) for r in open_needs if r.kind == "cudnn")
            )
        )
    ]
    cuda_specs = kinds & set(_CUDA_KINDS)
    if cuda_specs or lock_cuda is None:
        chosen = fits[0] if fits else None  # the newest CUDA every requirement admits
    else:
        chosen = _closest(fits, lock_cuda)
    if chosen is None:
        needs: Localized = (
            _needs_text(open_needs) if open_needs else message("image.builds-for", cuda=lock_cuda)
        )
        if driver_cuda is not None:
            needs = Phrase((needs, message("image.driver-cap", cuda=driver_cuda)))
        return BaseImageChoice(
            None, message("image.none-meets", repository=REPOSITORY, needs=needs)
        )
    os = chosen.cudnn_os[0] if wants_cudnn else chosen.os[0]
    tag = chosen.tag(flavour, os, cudnn=wants_cudnn)
    reason = _reason(chosen, flavour, open_needs, lock_cuda)
    if (
        driver_cuda is not None
        and lock_cuda is not None
        and driver_cuda < lock_cuda
        and _minor(chosen) < lock_cuda
    ):
        # The image is older than the lock's builds because a target's driver is.
        bound = message("image.driver-bound", cuda=driver_cuda, image=chosen.cuda)
        reason = Phrase((reason, bound), "; ")
    return BaseImageChoice(tag, reason)


def _reason(
    image: BaseImage,
    flavour: Flavour,
    open_needs: Sequence[SystemRequirement],
    lock_cuda: CudaVersion | None,
) -> Localized:
    parts: list[Localized] = []
    if not open_needs:
        parts.append(message("image.wheels-bring", cuda=lock_cuda))
    else:
        needs = _needs_text(open_needs)
        if flavour == "devel":
            parts.append(message("image.devel", needs=needs))
        elif flavour == "runtime":
            parts.append(message("image.runtime", needs=needs))
        else:
            parts.append(needs)
        if image.cudnn is not None and any(r.kind == "cudnn" for r in open_needs):
            parts.append(message("image.cudnn-pin", cudnn=image.cudnn))
    if any(r.kind == "tensorrt" for r in open_needs):
        parts.append(message("image.no-tensorrt"))
    if image.confidence != "verified":
        parts.append(message("image.unconfirmed", cuda=image.cuda))
    return Phrase(tuple(parts), separator="; ")


def base_image_for(
    plan: Plan,
    targets: Sequence[Target],
    requirements: Sequence[SystemRequirement],
    images: Sequence[BaseImage],
) -> BaseImageChoice | None:
    """The image for a plan's Linux targets (None: the plan has none; images are Linux):
    its highest CUDA build against the lowest driver among them."""
    linux = [t for t in targets if t.os == "linux"]
    if not linux:
        return None
    cudas = [c.cuda for c in plan.packages if c.cuda] + [e.cuda for e in plan.extras if e.cuda]
    drivers = [t.cuda for t in linux if t.cuda is not None]
    return choose_base_image(
        requirements, max(cudas, default=None), min(drivers, default=None), images
    )
