"""What `lock` records for `toolkit = "redist"`: the release and the archives nvcc needs.

The I/O edge of `manifest`: it reads the redist directory's listing, picks the newest
patch release of the project's CUDA version, downloads that ``redistrib_<release>.json``
and takes the archives nvcc needs on each platform, in the components table's order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.redist.fetch import TIMEOUT
from poetry_cuda.redist.fetch import check_url
from poetry_cuda.redist.fetch import fetch
from poetry_cuda.redist.fetch import join
from poetry_cuda.redist.manifest import LISTING_LIMIT
from poetry_cuda.redist.manifest import MANIFEST_LIMIT
from poetry_cuda.redist.manifest import load_manifest
from poetry_cuda.redist.manifest import nvcc_archives
from poetry_cuda.redist.manifest import release_for
from poetry_cuda.redist.manifest import releases


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.redist.manifest import Archive
    from poetry_cuda.versions import CudaVersion


def resolve(
    base_url: str, cuda: CudaVersion, platforms: Sequence[str], *, timeout: float = TIMEOUT
) -> tuple[str, tuple[Archive, ...]]:
    """The release ("13.0.2") of `cuda` at `base_url` and nvcc's archives for `platforms`."""
    listing = fetch(join(check_url(base_url), ""), limit=LISTING_LIMIT, timeout=timeout)
    name = release_for(cuda, releases(listing.decode("utf-8", errors="replace")))
    release = load_manifest(
        fetch(join(base_url, name), limit=MANIFEST_LIMIT, timeout=timeout), name
    )
    archives = tuple(a for platform in platforms for a in nvcc_archives(release, platform))
    return release.version, archives
