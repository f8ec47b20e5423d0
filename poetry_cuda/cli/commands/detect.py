"""`detect`: report the host (or validate target profiles, or group a cluster's GPU nodes)."""

from __future__ import annotations

import os

from typing import TYPE_CHECKING
from typing import ClassVar

from poetry_cuda.cli.commands.base import JSON_OPTION
from poetry_cuda.cli.commands.base import CudaCommand
from poetry_cuda.cli.commands.base import Option
from poetry_cuda.cli.commands.base import section
from poetry_cuda.cli.commands.base import user_language
from poetry_cuda.cli.markup import escape
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import localize
from poetry_cuda.messages import message


if TYPE_CHECKING:
    from poetry_cuda.host.profiles import Gpu
    from poetry_cuda.host.profiles import HostProfile
    from poetry_cuda.messages import Language
    from poetry_cuda.messages import Localized


KUBERNETES_OPTIONS = (
    Option(
        "kubernetes",
        "Group the GPU nodes of `kubectl get nodes -o json` in FILE (- reads stdin; "
        "inside Poetry write --kubernetes=-).",
        flag=False,
    ),
    Option(
        "write-targets",
        "With --kubernetes: write one host profile per node group into this folder.",
        flag=False,
    ),
    Option(
        "selector",
        "With --kubernetes: only the nodes with label KEY=VALUE (repeatable).",
        flag=False,
        multiple=True,
    ),
    Option("gpu-only", "With --kubernetes: leave out the nodes without GPUs."),
)


class DetectCommand(CudaCommand):
    name = "detect"
    description = "Report the NVIDIA driver, its highest CUDA, GPUs, CUDA toolkits and cuDNN."
    options: ClassVar[tuple[Option, ...]] = (
        JSON_OPTION,
        Option(
            "target",
            "Validate and show this host profile instead of detecting (repeatable).",
            flag=False,
            multiple=True,
        ),
        *KUBERNETES_OPTIONS,
    )

    def run_command(self) -> int:
        if any(self.option(option.name) for option in KUBERNETES_OPTIONS):
            from poetry_cuda.cli.commands.detect_kubernetes import detect_cluster

            return detect_cluster(self)
        from poetry_cuda.knowledge.packaged import nvidia as packaged_nvidia
        from poetry_cuda.planning.targets import load_targets
        from poetry_cuda.request.settings import Settings

        options = self.option("target")
        nvidia = packaged_nvidia()
        targets, warnings, _ = load_targets(
            None,
            Settings(),
            options,
            os.environ,
            nvidia,
            detect=self.detect_this_machine,
            collapse=False,
        )
        profiles = [target.profile for target in targets]
        if self.option("json"):
            documents = [profile.to_json() for profile in profiles]
            self.print_json(documents[0] if len(documents) == 1 else documents)
            return 0
        for warning in warnings:
            self.warn(warning)
        for index, profile in enumerate(profiles):
            if index:
                self.line("")
            for line in render(profile, user_language()):
                self.line(line)
        return 0


def render(profile: HostProfile, language: Language = "en") -> list[str]:
    """The readable report of one profile, one fact a line, each with its probe.

    Labels follow the reader's language; what a probe says (its problems and details) is
    quoted as it said it, on lines of its own.
    """
    from poetry_cuda.planning.targets import DETECTED

    esc = escape

    def say(said: Localized) -> str:
        return esc(localize(said, language))

    colon = "：" if language == "zh" else ": "
    comma = "，" if language == "zh" else ", "
    where = say(message("detect.where", os=profile.os, machine=profile.machine))
    label = say(message("detect.this-machine")) if profile.label == DETECTED else esc(profile.label)
    lines = [f"<info>{say(message('detect.host'))}</info>{colon}{label}{where}"]
    driver = profile.driver
    driver_label = say(message("detect.driver"))
    if driver is None:
        none = say(
            message("detect.none-macos") if profile.os == "macos" else message("detect.none-found")
        )
        lines.append(f"<comment>{driver_label}</comment>{colon}{none}")
    else:
        version = str(driver.version) if driver.version else say(message("detect.unknown"))
        lines.append(f"<info>{driver_label}</info>{colon}{version} [{driver.source}]")
        cuda = str(driver.cuda) if driver.cuda else say(message("detect.unknown"))
        lines.append(
            f"<info>{say(message('detect.highest-cuda'))}</info>{colon}{cuda} "
            f"[{driver.cuda_source or driver.source}]"
        )
    gpus = [
        "  "
        + (
            say(
                message(
                    "detect.gpu",
                    index=gpu.index,
                    name=gpu.name,
                    capability=gpu.compute_capability,
                    sm=gpu.compute_capability.sm,
                    memory=message("detect.memory", mib=gpu.memory_mib) if gpu.memory_mib else "",
                )
            )
            if gpu.compute_capability is not None
            else f"{gpu.index}{colon}{esc(gpu.name)}{comma}{say(_identity(gpu))}"
            + (say(message("detect.memory", mib=gpu.memory_mib)) if gpu.memory_mib else "")
        )
        + f" [{gpu.source}]"
        for gpu in profile.gpus
    ]
    found_none = say(message("detect.none-found"))
    if gpus or driver is not None:
        lines += section(
            say(message("detect.gpus")), gpus, say(message("detect.none-reported")), colon=colon
        )
    toolkits = [
        "  "
        + say(
            message(
                "detect.toolkit",
                version=toolkit.version,
                root=toolkit.root,
                nvcc=message("detect.nvcc", path=toolkit.nvcc)
                if toolkit.nvcc
                else message("detect.no-nvcc"),
            )
        )
        + f" [{esc(toolkit.source)}]"
        for toolkit in profile.toolkits
    ]
    lines += section(say(message("detect.toolkits")), toolkits, found_none, colon=colon)
    cudnn = [
        "  " + say(message("detect.at", version=c.version, path=c.path)) + f" [{esc(c.source)}]"
        for c in profile.cudnn
    ]
    lines += section("cuDNN", cudnn, found_none, colon=colon)
    if profile.rocm is not None:
        rocm = profile.rocm
        kernel = (
            f"{comma}amdgpu {esc(rocm.kernel_driver)}"
            if rocm.kernel_driver
            else say(message("detect.amdgpu-in-tree"))
        )
        version = esc(rocm.version) if rocm.version else say(message("detect.rocm-no-user-space"))
        lines.append(f"<info>ROCm</info>{colon}{version}{kernel} [{esc(rocm.source)}]")
    if profile.xpu is not None:
        driver_label = say(message("detect.xpu-driver"))
        lines.append(
            f"<info>{driver_label}</info>{colon}{esc(profile.xpu.driver)} "
            f"[{esc(profile.xpu.source)}]"
        )
    not_a_target = say(message("detect.not-a-target"))
    for report in profile.probes:
        if report.probe in ("amd-target", "intel-target"):
            lines.append(f"<comment>{not_a_target}</comment>{colon}{say(report.shown)}")
    for problem in profile.problems:  # a probe's own words: in English, labels included
        lines.append(f"<error>Problem</error> [{problem.probe}]: {esc(problem.message)}")
        lines.append(f"  Fix: {esc(problem.fix)}")
    probes = [
        f"  {p.probe}{colon}{say(probe_result(p.result))}"
        + (f"{colon}{say(p.shown)}" if p.detail else "")
        for p in profile.probes
    ]
    return lines + section(say(message("detect.probes")), probes, colon=colon)


def _identity(gpu: Gpu) -> Localized:
    """What tells builds apart for a GPU: compute capability, gfx target or device IP."""
    cc = gpu.compute_capability
    if cc is not None:
        return message("detect.capability", capability=cc, sm=cc.sm)
    if gpu.gfx is not None:
        return f"AMD {gpu.gfx}"
    if gpu.device_ip:
        return Phrase(("Intel", message("detect.device-ip", ip=gpu.device_ip)))
    return "Intel"


def probe_result(result: str) -> Localized:
    """A probe's result word (found, absent, error, timeout, skipped) in the reader's language."""
    words: dict[str, Localized] = {
        "found": message("probe.found"),
        "absent": message("probe.absent"),
        "skipped": message("probe.skipped"),
        "error": message("probe.error"),
        "timeout": message("probe.timeout"),
    }
    return words.get(result, result)
