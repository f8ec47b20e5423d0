"""Host detection: the facts `poetry-cuda detect` reports and `plan` decides from.

The driver and the GPUs are probed in this order; each probe only has to supply
what the ones before it lacked, and every fact records the probe that produced it
(its ``source``):

1. ``override``: an explicit driver version (the CLI passes
   ``POETRY_CUDA_DRIVER_VERSION``). It replaces the detected driver version; its
   CUDA version is then left to the caller to derive from NVIDIA's table.
2. ``nvml``: the driver's NVML library through pynvml, in a child process with a
   time limit, so that a hanging or crashing driver cannot take the command down.
   Driver version, the driver's highest CUDA version, and every GPU with name, UUID,
   memory and compute capability.
3. ``procfs``: ``/sys/module/nvidia/version``, then ``/proc/driver/nvidia/version``
   (Linux). The kernel module's driver version only.
4. ``nvidia-smi``: driver version, GPUs with compute capability (drivers from
   about 510 on), and the CUDA version from its table header.

Then the system CUDA toolkits and cuDNN (see `toolkits` and `cudnn`), and on Linux the
AMD and Intel GPUs with the ROCm and XPU stacks (see `other_gpus`). On macOS,
which has no CUDA driver, the NVIDIA probes are skipped. Every probe appears in the
profile's ``probes``: found, absent, error, timeout or skipped, with a detail.
"""

from __future__ import annotations

import os
import platform
import sys

from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from typing import TYPE_CHECKING

from poetry_cuda.errors import UsageError
from poetry_cuda.host.cudnn import find_cudnn
from poetry_cuda.host.nvml import probe_nvml
from poetry_cuda.host.other_gpus import detect_other_gpus
from poetry_cuda.host.paths import HostPaths
from poetry_cuda.host.procfs import probe_procfs
from poetry_cuda.host.profiles import Driver
from poetry_cuda.host.profiles import Gpu
from poetry_cuda.host.profiles import HostProfile
from poetry_cuda.host.profiles import ProbeReport
from poetry_cuda.host.profiles import Problem
from poetry_cuda.host.profiles import host_machine
from poetry_cuda.host.profiles import host_os
from poetry_cuda.host.smi import probe_smi
from poetry_cuda.host.toolkits import find_toolkits
from poetry_cuda.messages import message
from poetry_cuda.versions import DriverVersion


if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Mapping

    from poetry_cuda.host.nvml import EarlyWorker
    from poetry_cuda.host.probe import GpuFacts
    from poetry_cuda.host.probe import ProbeResult
    from poetry_cuda.messages import Localized
    from poetry_cuda.versions import CudaVersion


__all__ = ["DRIVER_ENV", "HostPaths", "detect_host", "host_machine", "host_os"]

# Plan and check for this driver version instead of the detected one.
DRIVER_ENV = "POETRY_CUDA_DRIVER_VERSION"


def detect_host(
    *,
    driver_override: str | None = None,
    environ: Mapping[str, str] | None = None,
    timeout: float = 5.0,
    paths: HostPaths | None = None,
    platform_name: str | None = None,
    machine: str | None = None,
    early: EarlyWorker | None = None,
) -> HostProfile:
    """Probe this machine (see the module docstring for the order).

    `timeout` bounds each external program (the NVML worker, nvidia-smi, nvcc,
    ldconfig). `paths`, `platform_name` and `machine` stand in for this machine's
    file system and platform, to inspect a fake or mounted one. `early` is the NVML
    worker started ahead (`nvml.start_early`), collected instead of starting one.
    """
    env = os.environ if environ is None else environ
    os_name = host_os(sys.platform if platform_name is None else platform_name)
    arch = host_machine(platform.machine() if machine is None else machine, os_name)
    where = HostPaths.of(env) if paths is None else paths
    if os_name == "macos":
        skipped = tuple(
            ProbeReport.saying(probe, "skipped", message("probe.macos"))
            for probe in ("nvml", "procfs", "nvidia-smi", "toolkits", "cudnn")
        )
        return HostProfile(os=os_name, machine=arch, driver=None, probes=skipped)

    merged = _Merged()
    override = _parse_override(driver_override)
    if override is not None:
        merged.override(override)
    merged.add(
        probe_nvml(
            environ=env, os_name=os_name, wsl_lib=where.wsl_lib, timeout=timeout, early=early
        )
    )
    if merged.driver is not None:
        merged.skip("procfs", message("probe.gave-driver", probe=merged.driver_source))
    elif os_name != "linux":
        merged.skip("procfs", message("probe.linux-only"))
    else:
        merged.add(probe_procfs(sys_root=where.sys, proc_root=where.proc))
    if merged.needs_more():
        want_cuda = merged.cuda is None and override is None
        smi = probe_smi(
            environ=env,
            os_name=os_name,
            wsl_lib=where.wsl_lib,
            timeout=timeout,
            want_cuda=want_cuda,
        )
        merged.add(smi)
    else:
        merged.skip("nvidia-smi", message("probe.gave-every-fact"))

    toolkits, toolkit_report = find_toolkits(
        env, os_name=os_name, usr_local=where.usr_local, opt=where.opt, timeout=timeout
    )
    cudnn, cudnn_reports = find_cudnn(
        os_name=os_name,
        toolkit_roots=[toolkit.root for toolkit in toolkits],
        include_dirs=where.include_dirs,
        library_dirs=where.library_dirs,
        ldconfig=where.ldconfig,
        environ=env,
        timeout=timeout,
    )
    gpus, gpu_problems = merged.gpu_list()
    others = detect_other_gpus(
        root=where.root,
        environ=env,
        os_name=os_name,
        nvidia_gpus=len(merged.gpus or ()),
        timeout=timeout,
    )
    return HostProfile(
        os=os_name,
        machine=arch,
        driver=merged.driver_record(),
        gpus=(*gpus, *others.gpus),
        toolkits=toolkits,
        cudnn=cudnn,
        problems=(*merged.problems, *gpu_problems),
        probes=(*merged.probes, toolkit_report, *cudnn_reports, *others.reports),
        rocm=others.rocm,
        xpu=others.xpu,
    )


def _parse_override(text: str | None) -> DriverVersion | None:
    if text is None or not text.strip():
        return None
    try:
        return DriverVersion.parse(text)
    except ValueError:
        raise UsageError(
            f"the driver version override {text!r} is not a driver version",
            why="POETRY_CUDA_DRIVER_VERSION replaces the detected NVIDIA driver version",
            fix="set it to a version such as 550.54.14, or unset it to detect the driver",
        ) from None


@dataclass
class _MergedGpu:
    facts: GpuFacts
    sources: list[str]


class _Known:
    """The GPUs merged so far, by UUID and by index: a GPU a probe reports is matched in
    constant time, however many the probes list."""

    def __init__(self, gpus: Iterable[_MergedGpu]) -> None:
        self.by_uuid: dict[str, _MergedGpu] = {}
        self.by_index: dict[int, list[_MergedGpu]] = {}
        for merged in gpus:
            self.add(merged)

    def add(self, merged: _MergedGpu) -> None:
        if merged.facts.uuid:
            self.by_uuid.setdefault(merged.facts.uuid, merged)
        self.by_index.setdefault(merged.facts.index, []).append(merged)

    def match(self, gpu: GpuFacts) -> _MergedGpu | None:
        """The GPU another probe already reported: same UUID, else same index."""
        if gpu.uuid and gpu.uuid in self.by_uuid:
            return self.by_uuid[gpu.uuid]
        for known in self.by_index.get(gpu.index, ()):
            if not (gpu.uuid and known.facts.uuid and gpu.uuid != known.facts.uuid):
                return known
        return None


@dataclass
class _Merged:
    """The facts gathered so far, and which probe gave each."""

    driver: DriverVersion | None = None
    driver_source: str | None = None
    cuda: CudaVersion | None = None
    cuda_source: str | None = None
    is_override: bool = False
    gpus: list[_MergedGpu] | None = None
    probes: list[ProbeReport] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def override(self, version: DriverVersion) -> None:
        self.driver, self.driver_source, self.is_override = version, "override", True
        given = message("probe.given-explicitly", version=version)
        self.probes.append(ProbeReport.saying("override", "found", given))

    def skip(self, probe: str, why: Localized) -> None:
        why = message("probe.not-needed-because", why=why)
        self.probes.append(ProbeReport.saying(probe, "skipped", why))

    def add(self, findings: ProbeResult) -> None:
        source = findings.report.probe
        self.probes.append(findings.report)
        self.problems.extend(findings.problems)
        if self.driver is None and findings.driver is not None:
            self.driver, self.driver_source = findings.driver, source
        # An overridden driver's CUDA version must not come from the real driver.
        if self.cuda is None and findings.cuda is not None and not self.is_override:
            self.cuda, self.cuda_source = findings.cuda, source
        if findings.gpus is not None:
            self._add_gpus(findings.gpus, source)

    def _add_gpus(self, gpus: tuple[GpuFacts, ...], source: str) -> None:
        if self.gpus is None:
            self.gpus = [_MergedGpu(gpu, [source]) for gpu in gpus]
            return
        merged = _Known(self.gpus)
        for gpu in gpus:
            known = merged.match(gpu)
            if known is None:
                self.gpus.append(_MergedGpu(gpu, [source]))
                merged.add(self.gpus[-1])
                continue
            filled = {
                name: getattr(gpu, name)
                for name in ("name", "uuid", "memory_mib", "compute_capability")
                if getattr(known.facts, name) is None and getattr(gpu, name) is not None
            }
            if filled:
                known.facts = replace(known.facts, **filled)
                known.sources.append(source)
                if "uuid" in filled:
                    merged.by_uuid.setdefault(known.facts.uuid or "", known)

    def needs_more(self) -> bool:
        return (
            self.driver is None
            or (self.cuda is None and not self.is_override)
            or self.gpus is None
            or any(gpu.facts.compute_capability is None for gpu in self.gpus)
        )

    def driver_record(self) -> Driver | None:
        if self.driver is None and self.cuda is None:
            return None
        source = self.driver_source or self.cuda_source or ""
        return Driver(
            version=self.driver,
            cuda=self.cuda,
            source=source,
            cuda_source=self.cuda_source if self.cuda_source != source else None,
        )

    def gpu_list(self) -> tuple[tuple[Gpu, ...], tuple[Problem, ...]]:
        gpus = []
        problems = []
        for merged in sorted(self.gpus or [], key=lambda known: known.facts.index):
            facts = merged.facts
            name = facts.name or "NVIDIA GPU"
            if facts.compute_capability is None:
                problems.append(
                    Problem(
                        probe="+".join(merged.sources),
                        message=f"GPU {facts.index} ({name}): compute capability unknown",
                        fix="upgrade the NVIDIA driver, or describe this machine in a "
                        "--target profile with its compute_capability",
                    )
                )
                continue
            gpus.append(
                Gpu(
                    index=facts.index,
                    name=name,
                    compute_capability=facts.compute_capability,
                    source="+".join(merged.sources),
                    uuid=facts.uuid,
                    memory_mib=facts.memory_mib,
                )
            )
        return tuple(gpus), tuple(problems)


def detect_this_machine(
    environ: Mapping[str, str], *, early: EarlyWorker | None = None
) -> HostProfile:
    """This machine, with the driver version POETRY_CUDA_DRIVER_VERSION may impose; `early`
    is the NVML worker started ahead, if one was."""
    return detect_host(
        driver_override=environ.get(DRIVER_ENV) or None, environ=environ, early=early
    )
