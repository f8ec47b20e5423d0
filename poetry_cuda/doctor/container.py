"""Inside a container: does the image meet the base image cuda.lock records?

NVIDIA's CUDA images say what they hold in their environment: `CUDA_VERSION` (12.4.1),
`NV_CUDNN_VERSION` in the cuDNN flavours (8.9.6.50, or 9.1.0.70-1 from 12.4.1 on), and
`NVIDIA_CUDA_END_OF_LIFE=1` once NVIDIA has marked the image for deletion. Whether doctor
runs in a container at all is read from the markers runtimes leave: `/.dockerenv` (Docker),
`/run/.containerenv` (Podman), `KUBERNETES_SERVICE_HOST` (a Kubernetes pod, whose runtime
may leave no file). Reading is `read_image`; judging it is pure (`check_image`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from packaging.version import InvalidVersion
from packaging.version import Version

from poetry_cuda.doctor.findings import ok
from poetry_cuda.doctor.findings import warn
from poetry_cuda.knowledge.base_images import TAG
from poetry_cuda.messages import message
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Mapping

    from poetry_cuda.doctor.findings import Finding


# What a runtime leaves behind, and how the finding names it.
_MARKERS = (("/.dockerenv", "Docker"), ("/run/.containerenv", "Podman"))


@frozen
class ContainerImage:
    """What the container doctor runs in says about itself."""

    runtime: str  # "Docker", "Podman", "Kubernetes"
    cuda: Version | None  # CUDA_VERSION; None: not an NVIDIA CUDA image
    cudnn: Version | None  # NV_CUDNN_VERSION; None: no cuDNN flavour
    end_of_life: bool


def _version(text: str | None) -> Version | None:
    if not text:
        return None
    # NV_CUDNN_VERSION carries the package revision from 12.4.1 on: 9.1.0.70-1.
    try:
        return Version(text.strip().split("-")[0])
    except InvalidVersion:
        return None


def read_image(environ: Mapping[str, str], root: Path = Path("/")) -> ContainerImage | None:
    """The container doctor runs in, or None when it runs on a host."""
    runtime = next(
        (name for marker, name in _MARKERS if (root / marker.lstrip("/")).exists()), None
    )
    if runtime is None and environ.get("KUBERNETES_SERVICE_HOST"):
        runtime = "Kubernetes"
    if runtime is None:
        return None
    return ContainerImage(
        runtime,
        _version(environ.get("CUDA_VERSION")),
        _version(environ.get("NV_CUDNN_VERSION")),
        environ.get("NVIDIA_CUDA_END_OF_LIFE") == "1",
    )


def _cudnn_major(word: str | None) -> int | None:
    """The cuDNN major a tag's word stands for: cudnn8, cudnn9, or cudnn (9, from 12.4.1)."""
    if not word:
        return None
    return int(word[-1]) if word[-1].isdigit() else 9


def check_image(image: ContainerImage | None, base_image: str | None) -> list[Finding]:
    """The container's CUDA and cuDNN against the image cuda.lock records."""
    if image is None or base_image is None:
        return []
    tag = TAG.fullmatch(base_image)
    if tag is None:
        return []
    wanted = Version(tag["cuda"])
    fix = message("doctor.image-fix", image=base_image)
    findings: list[Finding] = []
    if image.cuda is None:
        if tag["flavour"] != "base" or tag["cudnn"]:
            findings.append(
                warn(
                    "system",
                    "base-image",
                    message("doctor.image-not-cuda", runtime=image.runtime, image=base_image),
                    fix,
                )
            )
        return findings
    if image.cuda.release[:2] != wanted.release[:2]:
        findings.append(
            warn(
                "system",
                "base-image",
                message("doctor.image-cuda", found=image.cuda, image=base_image, wanted=wanted),
                fix,
            )
        )
    elif tag["cudnn"] and image.cudnn is None:
        findings.append(
            warn(
                "system",
                "base-image",
                message("doctor.image-no-cudnn", cuda=image.cuda, image=base_image),
                fix,
            )
        )
    elif image.cudnn is not None and _cudnn_major(tag["cudnn"]) not in (None, image.cudnn.major):
        findings.append(
            warn(
                "system",
                "base-image",
                message(
                    "doctor.image-cudnn",
                    found=image.cudnn,
                    major=_cudnn_major(tag["cudnn"]),
                    image=base_image,
                ),
                fix,
            )
        )
    else:
        findings.append(
            ok(
                "system",
                "base-image",
                message(
                    "doctor.image-meets", runtime=image.runtime, cuda=image.cuda, image=base_image
                )
                if image.cudnn is None
                else message(
                    "doctor.image-meets-cudnn",
                    runtime=image.runtime,
                    cuda=image.cuda,
                    cudnn=image.cudnn,
                    image=base_image,
                ),
            )
        )
    if image.end_of_life:
        findings.append(
            warn(
                "system",
                "base-image",
                message("doctor.image-end-of-life"),
                message("doctor.image-end-of-life-fix", image=base_image),
            )
        )
    return findings
