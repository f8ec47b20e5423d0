"""AMD and Intel GPUs in the host profile: the probes of `amd` and `intel`, run by `detect`.

Both read sysfs below the root they are given (Linux only), so they cost a few file reads on
a machine without such GPUs; ROCm's own tools run only when the PCI bus shows an AMD GPU the
kernel's KFD topology does not. A GPU no build is chosen for (an APU's GPU next to NVIDIA
GPUs, an Intel GPU older than Arc, an AMD GPU of unknown architecture) stays out of the
profile's GPUs and is reported among the probes with its reason, so that a plan never
serves it by accident and the report still says why it was left out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.host.amd import amd_pci_gpus
from poetry_cuda.host.amd import detect_amd
from poetry_cuda.host.amd import rocm_targets
from poetry_cuda.host.intel import detect_intel
from poetry_cuda.host.intel import xpu_targets
from poetry_cuda.host.pci import VENDOR_NVIDIA
from poetry_cuda.host.pci import read_pci_devices
from poetry_cuda.host.profiles import Gpu
from poetry_cuda.host.profiles import ProbeReport
from poetry_cuda.host.profiles import Rocm
from poetry_cuda.host.profiles import Xpu
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from poetry_cuda.host.profiles import OperatingSystem


@frozen
class OtherGpus:
    """The AMD and Intel GPUs a build can be chosen for, the host's ROCm and XPU stacks,
    and the reports of the probes (those of GPUs left out among them)."""

    gpus: tuple[Gpu, ...]
    rocm: Rocm | None
    xpu: Xpu | None
    reports: tuple[ProbeReport, ...]


def detect_other_gpus(
    *,
    root: Path,
    environ: Mapping[str, str],
    os_name: OperatingSystem,
    nvidia_gpus: int,
    timeout: float,
) -> OtherGpus:
    """Probe the AMD and Intel GPUs of the Linux file system at `root`.

    `nvidia_gpus` is how many NVIDIA GPUs the NVIDIA probes found; the PCI bus's count is
    taken when it is larger (a driver that lists none still has its GPUs on the bus).
    """
    if os_name != "linux":
        why = "AMD and Intel GPUs are detected on Linux only"
        return OtherGpus((), None, None, (ProbeReport("amd-intel", "skipped", why),))
    devices = read_pci_devices(root / "sys")
    on_bus = sum(1 for d in devices if d.vendor == VENDOR_NVIDIA and d.base_class == 0x03)
    nvidia = max(nvidia_gpus, on_bus)
    amd = detect_amd(
        root=root, environ=environ, timeout=timeout, programs=bool(amd_pci_gpus(devices))
    )
    reports = [_named(report, "amd") for report in amd.reports]
    gpus: list[Gpu] = []
    targets, ignored = rocm_targets(amd.gpus, nvidia_gpus=nvidia)
    for target in targets:
        gpus.append(
            Gpu(
                index=target.index,
                name=target.name or f"AMD GPU ({target.gfx})",
                compute_capability=None,
                source=target.source,
                vendor="amd",
                gfx=target.gfx,
            )
        )
    for left_out in ignored:
        name = left_out.gpu.name or "AMD GPU"
        reports.append(ProbeReport("amd-target", "skipped", f"{name}: {left_out.reason}"))
    rocm = None
    if amd.rocm is not None and targets:
        rocm = Rocm(amd.rocm.version, amd.rocm.kernel_driver, amd.rocm.source)

    intel = detect_intel(root=root)
    reports += [_named(report, "intel") for report in intel.reports]
    chosen, passed = xpu_targets(intel.gpus, nvidia_gpus=nvidia)
    for gpu in chosen:
        gpus.append(
            Gpu(
                index=gpu.index,
                name=gpu.name,
                compute_capability=None,
                source=gpu.source,
                vendor="intel",
                device_ip=gpu.device_ip,
            )
        )
    for left in passed:
        reports.append(ProbeReport("intel-target", "skipped", f"{left.gpu.name}: {left.reason}"))
    xpu = None
    if intel.xpu is not None and chosen:
        xpu = Xpu(intel.xpu.driver, intel.xpu.source)
    return OtherGpus(tuple(gpus), rocm, xpu, tuple(reports))


def _named(report: ProbeReport, vendor: str) -> ProbeReport:
    """`report` with the PCI probe named for its vendor (both vendors read the PCI bus)."""
    if report.probe != "pci":
        return report
    return ProbeReport(f"{vendor}-pci", report.result, report.detail, report.said)
