"""NVIDIA's CUDA container images (`nvidia/cuda`): one row per CUDA minor (`data/base_images.toml`).

A row says which Ubuntu releases carry the image and which also carry its cuDNN flavour, with
the cuDNN that flavour pins. `tag` spells an image the way Docker Hub names it; which image a
lock needs is decided in `planning.base_image`.
"""

from __future__ import annotations

import re

from typing import TYPE_CHECKING
from typing import Literal
from typing import get_args

from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from packaging.version import Version

    from poetry_cuda.knowledge.model import Confidence


REPOSITORY = "nvidia/cuda"
Flavour = Literal["base", "runtime", "devel"]
FLAVOURS: tuple[Flavour, ...] = get_args(Flavour)
CudnnTag = Literal["cudnn", "cudnn8", "cudnn9"]
CUDNN_TAGS: tuple[CudnnTag, ...] = get_args(CudnnTag)
# How `BaseImage.tag` spells an image: what cuda.lock's `base-image` must read.
TAG = re.compile(
    r"nvidia/cuda:(?P<cuda>[0-9]+\.[0-9]+\.[0-9]+)-(?:(?P<cudnn>cudnn[89]?)-)?"
    r"(?P<flavour>base|runtime|devel)-(?P<os>ubuntu[0-9]{2}\.[0-9]{2})"
)


@frozen
class BaseImage:
    """The images of one CUDA point release."""

    cuda: Version  # the full release the tags carry: 12.4.1
    os: tuple[str, ...]  # newest first: ("ubuntu22.04", "ubuntu20.04")
    cudnn_tag: CudnnTag | None  # the word in the cuDNN flavour's tags; None: no such flavour
    cudnn: Version | None  # the cuDNN that flavour pins
    cudnn_os: tuple[str, ...]  # the releases of `os` that have the cuDNN flavour
    source: str
    confidence: Confidence

    def tag(self, flavour: Flavour, os: str, *, cudnn: bool = False) -> str:
        """``nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04``."""
        middle = f"{self.cudnn_tag}-" if cudnn and self.cudnn_tag else ""
        return f"{REPOSITORY}:{self.cuda}-{middle}{flavour}-{os}"
