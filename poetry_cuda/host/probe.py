"""What one probe found, before the probes' findings are merged into a `HostProfile`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from poetry_cuda.host.profiles import ProbeReport
    from poetry_cuda.host.profiles import Problem
    from poetry_cuda.versions import ComputeCapability
    from poetry_cuda.versions import CudaVersion
    from poetry_cuda.versions import DriverVersion


@frozen
class GpuFacts:
    """One GPU as a probe saw it; a probe may lack some of the facts."""

    index: int
    name: str | None = None
    uuid: str | None = None
    memory_mib: int | None = None
    compute_capability: ComputeCapability | None = None


@frozen
class ProbeResult:
    """The result of one driver probe.

    `gpus` is None when the probe could not list GPUs at all, and ``()`` when it
    listed none.
    """

    report: ProbeReport
    driver: DriverVersion | None = None
    cuda: CudaVersion | None = None
    gpus: tuple[GpuFacts, ...] | None = None
    problems: tuple[Problem, ...] = ()
