"""A cross-check of whole plans against facts read from the publishers, not from our data.

Each case is a host (OS, machine, driver, GPUs), a project's constraints and the outcome the
primary sources imply under the selection rules of the specification (newest admitted release
with a build for every GPU, then the highest CUDA that is native or minor-compatible). Every
expectation names its source: a release matrix at a commit, a wheel's METADATA or fat-binary
scan, a vendor's table. The planner itself runs; nothing here re-implements it.

Drivers map to CUDA by NVIDIA's driver table (Table 3): 470.x 11.4, 525.60.13 12.0, 535.x 12.2,
550.x 12.4, 560.x 12.6, 570.x 12.8, 575.x 12.9, 580.x 13.0, 590.44.01 13.1, 595.45.04 13.2; on
Windows 528.24 12.0, 560.94 12.6, 576.57 12.9, 581.57 13.0. Minor-version-compatibility floors
are from docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html Table 1:
11.x 450.80.02 (Windows 452.39), 12.x 525.60.13 (Windows 528.33), 13.x 580.
"""

from __future__ import annotations

import fnmatch

from dataclasses import dataclass
from dataclasses import field
from typing import TYPE_CHECKING
from typing import Any

import pytest

from packaging.specifiers import SpecifierSet

from poetry_cuda.errors import NoVariantError
from poetry_cuda.host.profiles import profile_from_json
from poetry_cuda.planning.targets import settle
from poetry_cuda.request.settings import CudaRequest
from tests.support.plans import KB
from tests.support.plans import Planned
from tests.support.plans import plan_text


if TYPE_CHECKING:
    from poetry_cuda.planning.targets import Target


# Sources named by more than one case.
TI = "pytorch/test-infra tools/scripts/generate_binary_build_matrix.py"
BUILDER_118 = (
    "pytorch/builder@009ed170 manywheel/build_cuda.sh: CUDA 11.8 builds "
    "TORCH_CUDA_ARCH_LIST=3.7;5.0;6.0;7.0;7.5;8.0;8.6;9.0 (SASS 6.0 serves 6.1)"
)
BUILD_CUDA_28 = (
    "pytorch/pytorch@00c7a380 .ci/manywheel/build_cuda.sh: 12.6 '5.0;6.0;7.0;7.5;8.0;8.6;9.0', "
    "12.8 '7.0;7.5;8.0;8.6;9.0;10.0;12.0', 12.9 '7.0;7.5;8.0;8.6;9.0;10.0;12.0+PTX'"
)
RELEASE_MD = (
    "pytorch RELEASE.md CUDA support matrix as quoted in pytorch PRs #164471/#175253/#182849: "
    "12.6.3 x86 5.0-9.0, aarch64 8.0, 9.0; 12.8.1 in 2.11 7.5-12.0 (Volta dropped, RFC #172352); "
    "13.0/13.2 x86 7.5-12.0+PTX, aarch64 8.0, 9.0, 10.0, 11.0, 12.0+PTX"
)
PYPI_ARCH = (
    "PyPI torch wheels, CUDA_ARCH_FLAGS in torch/lib/libtorch_python.so: 2.11.0-2.15.0 "
    "manylinux x86_64 cu130/cu132 'sm_75 sm_80 sm_86 sm_90 sm_100 sm_120'; aarch64 "
    "'sm_80 sm_90 sm_100 sm_110 sm_120'; 2.15.0 is +cu132 (cuda-toolkit==13.2.2)"
)
TI_214 = (
    f"{TI} @c840391a1 (release/2.14): linux 12.6, 13.0, 13.2; windows 12.6, 13.0, 13.2; "
    "linux-aarch64 12.6, 13.0, 13.2; no 12.9"
)
ORT_SCAN = (
    "fat-binary scan of onnxruntime/capi/libonnxruntime_providers_cuda.so (.dll on Windows) in "
    "the PyPI onnxruntime-gpu cp312 wheels, CUDA version from capi/build_and_package_info.py: "
    "1.19-1.20 CUDA 12.2 SASS 52,60,61,70,75,80 + PTX 52-80; Linux 1.21-1.22, 1.23.2 CUDA 12.2 "
    "and 1.24-1.26 CUDA 12.8 SASS 60,70,75,80,86,90a + PTX compute_90; Windows 1.21-1.26 SASS "
    "52,61,75,86,89 + PTX compute_90; 1.27-1.28 CUDA 13.0 SASS 75,80,86,89,90a,100a,120a + PTX "
    "120; 1.29-1.31.1 Linux x86_64 SASS 75,80,86,89,90a,120a, no sm_100, no PTX; manylinux "
    "aarch64 wheels from 1.29.0 with sm_90a, sm_120a, sm_121a"
)
TF_PIP = (
    "tensorflow/docs@7c3650212 site/en/install/pip.md:45-46 'TensorFlow 2.10 was the last "
    "TensorFlow release that supported GPU on native-Windows'"
)
TF_ARCH = (
    "tensorflow/tensorflow .bazelrc @0071ad1d: HERMETIC_CUDA_COMPUTE_CAPABILITIES="
    "'sm_60,sm_70,sm_80,sm_89,compute_90' ('the same as the official TensorFlow builds'); "
    "tensorflow/docs@7c3650212 site/en/install/source.md: 2.18-2.21 CUDA 12.5, cuDNN 9.3"
)
JAX_BAZELRC = (
    "jax-ml/jax@cec06d116c .bazelrc l.198: CUDA 12 plugin 'sm_50,sm_60,sm_70,sm_80,sm_90,"
    "sm_100,sm_101,compute_120' with CUDA 12.9.1; l.204: CUDA 13 plugin starts at sm_75; "
    "PyPI jax-cuda12-plugin/jax-cuda13-plugin wheels are manylinux x86_64 and aarch64 only"
)
PADDLE_TABLES = (
    "PaddlePaddle/docs@00a087b2 docs/install/Tables.md: 3.2.0 win-cuda12.9-cudnn9.9 wheel at "
    "paddle-whl.bj.bcebos.com/stable/cu129/paddlepaddle-gpu/paddlepaddle_gpu-3.2.0-cp3X-win_amd64"
    "; Paddle#76037: RTX 50 on Windows needs the cu129 wheel"
)
PADDLE_26_SCAN = (
    "fat-binary scan of PyPI paddlepaddle-gpu 2.6.2 (cu118): paddle/libs/libphi.so and Windows "
    "paddle/base/libpaddle.pyd carry SASS 61,70,75,80,86 and no PTX; paddle/version/__init__.py "
    "cuda 11.8, cudnn 8.6.0 (system libraries, no nvidia-* requirements)"
)

KNOWN = "knowledge row fixed by issue 29: "
FINDING = "not in issue 29's list, found by this cross-check: "


def target(
    os: str, driver: str | None, *gpus: str, machine: str = "x86_64", label: str = "t"
) -> Target:
    profile: dict[str, Any] = {"os": os, "machine": machine}
    if driver is not None:
        profile["driver"] = {"version": driver}
        profile["gpus"] = [{"compute_capability": cc} for cc in gpus]
    return settle(profile_from_json(profile, label), KB.nvidia)[0]


def linux(driver: str, *gpus: str) -> Target:
    return target("linux", driver, *gpus)


def cuda_only(cuda: str, *gpus: str) -> Target:
    """A Linux target file that gives the driver's CUDA version and no driver version."""
    profile = {
        "os": "linux",
        "machine": "x86_64",
        "driver": {"cuda": cuda},
        "gpus": [{"compute_capability": cc} for cc in gpus],
    }
    return settle(profile_from_json(profile, "t"), KB.nvidia)[0]


def windows(driver: str, *gpus: str) -> Target:
    return target("windows", driver, *gpus)


def aarch64(driver: str, *gpus: str) -> Target:
    return target("linux", driver, *gpus, machine="aarch64")


@dataclass(frozen=True)
class Case:
    """One case: a host by a project's constraints. `versions` are fnmatch patterns on the planned version
    (label included, where the index gives one), or the exact release the plan's bound must
    admit where it names none; `refused` means exit 3."""

    id: str
    hosts: tuple[Target, ...]
    deps: tuple[str, ...]
    source: str
    versions: dict[str, str] = field(default_factory=dict)
    variants: dict[str, str] = field(default_factory=dict)
    # Newer releases the managed pin must keep out where the plan names no exact version
    # (flavoured packages are resolved by the package manager within the plan's bound).
    newer: dict[str, str] = field(default_factory=dict)
    # (package, kind, version): a system requirement the plan must state, admitting version.
    needs: tuple[tuple[str, str, str], ...] = ()
    refused: bool = False
    policy: str = "newest"
    cuda: str = ""  # the project's `cuda` setting, when it narrows the builds
    # The default admits one CPython every release expected below publishes wheels for.
    requires_python: str = ">=3.12,<3.13"
    xfail: str = ""


def case(
    id: str,
    hosts: Target | tuple[Target, ...],
    deps: str | tuple[str, ...],
    source: str,
    **rest: Any,
) -> Case:
    hosts = hosts if isinstance(hosts, tuple) else (hosts,)
    deps = deps if isinstance(deps, tuple) else (deps,)
    return Case(id, hosts, deps, source, **rest)


CASES = [
    # ---- torch 2.5 - 2.8, x86_64 Linux ----
    case(
        "pascal-470-torch-2.5-2.7-family",
        linux("470.256.02", "6.1"),
        ("torch>=2.5,<2.8", "torchvision", "torchaudio"),
        f"{TI} @30ee1aaac (release/2.7): CUDA 11.8, 12.6, 12.8; driver 470 is CUDA 11.4, cu12x "
        f"need >=525.60.13, cu118 is minor-compatible (>=450.80.02); {BUILDER_118}; PyPI "
        "METADATA torchvision 0.22.1 'torch (==2.7.1)', torchaudio 2.7.1 'torch==2.7.1'",
        versions={
            "torch": "2.7.1+cu118",
            "torchvision": "0.22.1+cu118",
            "torchaudio": "2.7.1+cu118",
        },
    ),
    case(
        "pascal-470-torch-2.8-up-refused",
        linux("470.256.02", "6.1"),
        "torch>=2.8",
        f"{TI} test-infra 88bce55f7 'Remove CUDA 11.8 builds' (2.8 on: CUDA 12.6+ only); CUDA 12 "
        "needs driver >=525.60.13, CUDA 13 >=580 (NVIDIA MVC Table 1)",
        refused=True,
    ),
    case(
        "ampere-470-torch-2.7-cu118",
        linux("470.256.02", "8.6"),
        "torch==2.7.*",
        f"{TI} @30ee1aaac (release/2.7): cu118 is the only CUDA 11 build; {BUILDER_118}",
        versions={"torch": "2.7.1+cu118"},
    ),
    case(
        "pascal-535-torch-2.5-cu124-torchvision",
        linux("535.230.02", "6.1"),
        ("torch>=2.5,<2.6", "torchvision"),
        f"{TI} @29912dec4 (2.5.1): 11.8, 12.1, 12.4; PyPI torch 2.5.1 manylinux x86_64 is "
        "+cu124 with 'sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90'; cu124 is native on 535 (12.2 "
        "< 12.4 minor-compatible >=525.60.13); torchvision 0.20.1 'torch (==2.5.1)'",
        versions={"torch": "2.5.1+cu124", "torchvision": "0.20.1+cu124"},
    ),
    case(
        "ada-550-torch-2.5-2.6-newest",
        linux("550.144.03", "8.9"),
        "torch>=2.5,<2.7",
        f"{TI} @b1bdc3323 (2.6.0): 11.8, 12.4, 12.6; 12.6 is minor-compatible on 550 (12.4); "
        f"{RELEASE_MD}",
        versions={"torch": "2.6.0+cu126"},
    ),
    case(
        "ada-550-torch-2.5-2.6-native",
        linux("550.144.03", "8.9"),
        "torch>=2.5,<2.7",
        f"{TI} @b1bdc3323 (2.6.0): 11.8, 12.4, 12.6; the highest native CUDA on 550 is 12.4; "
        "PyPI torch 2.6.0 +cu124 'sm_50 … sm_86 sm_90' (SASS 8.6 serves 8.9)",
        versions={"torch": "2.6.0+cu124"},
        policy="native",
    ),
    case(
        "blackwell-550-torch-2.7-2.8-cu129",
        linux("550.144.03", "12.0"),
        "torch>=2.7,<2.9",
        f"{TI} @21480431a (release/2.8): linux 12.6, 12.8, 12.9; {BUILD_CUDA_28}; 12.9 is "
        "minor-compatible on 550",
        versions={"torch": "2.8.0+cu129"},
    ),
    case(
        "ada-575-torch-2.8-family-cu129",
        linux("575.57.08", "8.9"),
        ("torchvision==0.23.*", "torchaudio"),
        f"{TI} @21480431a (release/2.8): 12.6, 12.8, 12.9 for torch and the domains; 575 is "
        "CUDA 12.9 (native); PyPI METADATA torchvision 0.23.0 'torch (==2.8.0)', torchaudio "
        "2.8.0 'torch==2.8.0'",
        versions={
            "torch": "2.8.0+cu129",
            "torchvision": "0.23.0+cu129",
            "torchaudio": "2.8.0+cu129",
        },
    ),
    # ---- torch 2.9 - 2.15, x86_64 Linux ----
    case(
        "volta-570-torch-2.10-native-cu128",
        linux("570.124.06", "7.0"),
        "torch==2.10.*",
        f"{TI} @e8208cf27 (2.10.0): 12.6, 12.8, 13.0 (+12.9 Linux test channel); PyPI torch "
        "2.10.0 +cu128 'sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120'; native on 570 (12.8): "
        "12.8 is the highest",
        versions={"torch": "2.10.0+cu128"},
        policy="native",
    ),
    case(
        "volta-570-torch-2.11-native-cu126",
        linux("570.124.06", "7.0"),
        "torch==2.11.*",
        f"{TI} @0cd5e78a1 (release/2.11): 12.6, 12.8, 13.0 (+12.9 Linux); {RELEASE_MD}: 2.11's "
        "cu128 starts at 7.5 (pytorch RFC #172352, PR #175253), so Volta keeps only cu126 among "
        "the native builds",
        versions={"torch": "2.11.0+cu126"},
        policy="native",
    ),
    case(
        "pascal-580-torch-2.12-2.14-cu126",
        linux("580.95.05", "6.1"),
        "torch>=2.12,<2.15",
        f"{TI_214}; {PYPI_ARCH}: the CUDA 13 builds start at sm_75; cu126 '5.0;6.0;…;9.0' "
        f"({BUILD_CUDA_28}) is native on 580",
        versions={"torch": "2.14.1+cu126"},
    ),
    case(
        "pascal-580-torch-2.13-family",
        linux("580.95.05", "6.1"),
        ("torch==2.13.0", "torchvision", "torchaudio"),
        f"{TI} @80178294e (release/2.13): 12.6, 13.0, 13.2 (+12.9 Linux), cu126 serves sm_61; "
        "PyPI METADATA torchvision 0.28.0 'torch (==2.13.0)'; torchaudio 2.11.0 has no "
        "Requires-Dist and 2.11.1 'torch>=2.11' (pytorch/audio PR #4212, #4225): the only "
        "torchaudio a torch 2.13 can take is a 2.11.x",
        versions={"torch": "2.13.0+cu126", "torchvision": "0.28.0+cu126", "torchaudio": "2.11.*"},
        variants={"torchaudio": "cu126"},
    ),
    case(
        "ampere-575-torch-2.12-2.14-torchaudio",
        linux("575.57.08", "8.6"),
        ("torch>=2.12,<2.15", "torchaudio"),
        f"{TI_214}: on 575 (12.9) the CUDA 13 builds need >=580, cu126 is native; torchaudio "
        "2.11.0 has no Requires-Dist, 2.11.1 'torch>=2.11' (PyPI METADATA; pytorch/audio #4212)",
        versions={"torch": "2.14.1+cu126", "torchaudio": "2.11.*"},
    ),
    case(
        "pascal-580-torch-below-2.15-family",
        linux("580.95.05", "6.1"),
        ("torch<2.15", "torchvision", "torchaudio"),
        f"{TI_214}; cu126 is the newest build with sm_6x SASS; PyPI METADATA torchvision 0.29.1/"
        "0.29.2 'torch (>=2.14.0)' (0.29.0 pins ==2.14.0); torchaudio 2.11.0 no Requires-Dist, "
        "2.11.1 'torch>=2.11'",
        versions={
            "torch": "2.14.1+cu126",
            "torchvision": "0.29.[12]+cu126",
            "torchaudio": "2.11.*",
        },
    ),
    case(
        "hopper-560-torch-2.12-2.14-cu126",
        linux("560.35.03", "9.0"),
        "torch>=2.12,<2.15",
        f"{TI_214}; {RELEASE_MD}: cu126 has SASS 9.0 and is native on 560 (12.6); CUDA 13 needs "
        ">=580",
        versions={"torch": "2.14.1+cu126"},
    ),
    case(
        "blackwell-550-torch-2.12.0-refused",
        linux("550.144.03", "12.0"),
        "torch==2.12.0",
        f"{TI} 6186f4539 (main, 2026-04-02) 'Remove cuda 12.9 builds (#7917)' precedes the "
        "release/2.12 cut (de717a4fd, 2026-04-15): 2.12.0 has 12.6, 13.0, 13.2 only; cu126 lacks "
        "12.0 and CUDA 13 needs >=580",
        refused=True,
    ),
    case(
        "blackwell-550-torch-2.12-2.13-cu129",
        linux("550.144.03", "12.0"),
        "torch>=2.12,<2.14",
        f"{TI} 0f7335e1e (release/2.13) 'Add CUDA 12.9 builds for Linux (x86 + aarch64)'; "
        "googlecolab/colabtools#6053 'Release 2.13.0 you have an option to use cuda 12.9 builds'; "
        "12.9 is minor-compatible on 550, CUDA 13 needs >=580; 12.9 builds carry 12.0+PTX "
        f"({BUILD_CUDA_28})",
        versions={"torch": "2.13.0+cu129"},
    ),
    case(
        "blackwell-580-torch-2.12-2.14-newest",
        linux("580.95.05", "10.0"),
        "torch>=2.12,<2.15",
        f"{TI_214}; {RELEASE_MD}: 13.2 has 10.0 and is minor-compatible on 580",
        versions={"torch": "2.14.1+cu132"},
    ),
    case(
        "blackwell-580-torch-2.12-2.14-native",
        linux("580.95.05", "10.0"),
        "torch>=2.12,<2.15",
        f"{TI_214}; {PYPI_ARCH}: the highest native CUDA on 580.95.05 is 13.0",
        versions={"torch": "2.14.1+cu130"},
        policy="native",
    ),
    case(
        "ampere-590-torch-2.14-native-cu130",
        linux("590.44.01", "8.0"),
        "torch==2.14.*",
        f"{TI_214}; mesonbuild/meson@cd1a097e1 modules/cuda.py (copy of NVIDIA Table 3): 13.1.0 "
        "590.44.01, 13.2.0 595.45.04: 13.2 is not native on 590.44.01",
        versions={"torch": "2.14.1+cu130"},
        policy="native",
    ),
    case(
        "blackwell-595-torch-2.15-native-cu132",
        linux("595.45.04", "12.0"),
        "torch==2.15.0",
        f"{PYPI_ARCH}; mesonbuild/meson@cd1a097e1 modules/cuda.py: 13.2.0 needs 595.45.04, "
        "13.3.0 610.43.02: cu132 is the highest native build on 595.45.04",
        versions={"torch": "2.15.0+cu132"},
        policy="native",
    ),
    case(
        "turing-580-torch-2.14-up-python-3.10",
        linux("580.95.05", "7.5"),
        "torch>=2.14",
        f"PyPI torch 2.15.0 Requires-Python '>=3.11' (wheels cp311-cp315); 2.14.1 '>=3.10'; "
        f"{TI_214}: 13.2 serves 7.5 and is minor-compatible on 580",
        versions={"torch": "2.14.1+cu132"},
        requires_python=">=3.10,<3.14",
    ),
    case(
        "turing-580-torch-2.14-up-python-3.11",
        linux("580.95.05", "7.5"),
        "torch>=2.14",
        f"PyPI torch 2.15.0 Requires-Python '>=3.11', +cu132 build; {PYPI_ARCH}",
        versions={"torch": "2.15.0+cu13*"},
        requires_python=">=3.11,<3.14",
    ),
    case(
        "pascal-and-blackwell-torch-2.7-up-refused",
        (
            target("linux", "580.95.05", "6.1", label="a"),
            target("linux", "580.95.05", "12.0", label="b"),
        ),
        "torch>=2.7",
        f"{BUILDER_118}; {BUILD_CUDA_28}; {RELEASE_MD}: every build with sm_6x SASS ends at 9.0 "
        "without PTX, every build with 12.0 starts at 7.0 or later",
        refused=True,
    ),
    case(
        "hopper-610-torch-2.14-native-cu132",
        linux("610.43.02", "9.0"),
        "torch==2.14.*",
        f"{TI_214}; mesonbuild/meson@cd1a097e1 modules/cuda.py (copy of NVIDIA Table 3): 13.3.0 "
        f"and 13.3.1 need 610.43.02, so 13.2 is native; {RELEASE_MD}",
        versions={"torch": "2.14.1+cu132"},
        policy="native",
    ),
    case(
        "hopper-cuda-13.4-torch-2.14-native-cu132",
        cuda_only("13.4", "9.0"),
        "torch==2.14.*",
        f"{TI} c840391a1 (release/2.14) 'Remove CUDA 13.4 from the binary build matrix … not "
        "shipping in the 2.14 release'; CUDA 13.4 exists (docs.nvidia.com/cuda/archive/13.4.1 "
        "release notes; nvidia-cuda-runtime 13.4.49 on PyPI): a CUDA 13.4 driver runs 13.2 natively",
        versions={"torch": "2.14.1+cu132"},
        policy="native",
    ),
    case(
        "gh200-580-torch-2.15-torchvision",
        aarch64("580.95.05", "9.0"),
        ("torch==2.15.0", "torchvision"),
        f"{PYPI_ARCH}; PyPI torchvision 0.29.2 (uploaded with torch 2.15.0) 'torch (>=2.14.0)', "
        "py3-none-manylinux aarch64 wheels; no torchvision 0.30 exists",
        versions={"torch": "2.15.0+cu13*", "torchvision": "0.29.2*"},
    ),
    # ---- Windows ----
    case(
        "windows-ada-551-torch-2.5",
        windows("551.61", "8.9"),
        "torch==2.5.1",
        f"{TI} @29912dec4 (2.5.1): windows 11.8, 12.1, 12.4; 551.61 supports 12.4 natively",
        versions={"torch": "2.5.1+cu124"},
    ),
    case(
        "windows-ampere-528.24-torch-2.7-cu118",
        windows("528.24", "8.6"),
        "torch==2.7.*",
        f"{TI} @30ee1aaac (release/2.7): windows 11.8, 12.6, 12.8; 528.24 is below the Windows "
        f"12.x minor-compatibility floor 528.33 (NVIDIA MVC Table 1); {BUILDER_118}",
        versions={"torch": "2.7.1+cu118"},
    ),
    case(
        "windows-blackwell-576-torch-2.8-cu129",
        windows("576.57", "12.0"),
        "torch==2.8.*",
        f"{TI} release/2.8 049cd025d (Windows CUDA 12.9, cherry-pick of #6838); {BUILD_CUDA_28}; "
        "576.57 is CUDA 12.9",
        versions={"torch": "2.8.0+cu129"},
    ),
    case(
        "windows-blackwell-576-torch-2.9-cu128",
        windows("576.57", "12.0"),
        "torch==2.9.*",
        f"{TI} @06789010b (release/2.9 l.161-164): Windows 12.6, 12.8, 13.0, 12.9 only on Linux; "
        "cu128 has 12.0 (PyPI 2.9.1 +cu128 arch string), CUDA 13 needs >=580",
        versions={"torch": "2.9.1+cu128"},
    ),
    case(
        "windows-blackwell-560-torch-2.9-2.11-cu128",
        windows("560.94", "12.0"),
        "torch>=2.9,<2.12",
        f"{TI} @0cd5e78a1 (release/2.11): windows 12.6, 12.8, 13.0 (no 12.9); {RELEASE_MD}: 2.11 "
        "cu128 7.5-12.0; 12.8 is minor-compatible on 560.94 (>=528.33)",
        versions={"torch": "2.11.0+cu128"},
    ),
    case(
        "windows-blackwell-560-torch-2.12-up-refused",
        windows("560.94", "12.0"),
        "torch>=2.12",
        f"{TI_214}; {TI} 35c0ecab9 (release/2.12) 'Windows and macOS do not build 12.9': Windows "
        "2.12 on has 12.6 (no 12.0) and CUDA 13 (needs >=580)",
        refused=True,
    ),
    case(
        "windows-pascal-581-torch-2.12-2.14-cu126",
        windows("581.57", "6.1"),
        "torch>=2.12,<2.15",
        f"{TI_214}; cu126 keeps sm_60 ({RELEASE_MD}), CUDA 13 builds start at 7.5",
        versions={"torch": "2.14.1+cu126"},
    ),
    # ---- aarch64 (GH200 sm_90, GB10 sm_121, Thor sm_110) ----
    case(
        "gh200-550-torch-2.5-2.7-cu128",
        aarch64("550.127.08", "9.0"),
        "torch>=2.5,<2.8",
        f"{TI} release/2.7 CUDA_AARCH64_ARCHES = ['12.8-aarch64'] (12.6-aarch64 removed, "
        "bf7422488); pytorch#148169 (maintainer): aarch64 'sm_90, sm_100, sm_120 for 12.8'; 12.8 "
        "is minor-compatible on 550",
        versions={"torch": "2.7.1*"},
        variants={"torch": "cu128"},
    ),
    case(
        "gh200-550-torch-2.6-cu126",
        aarch64("550.127.08", "9.0"),
        "torch==2.6.*",
        f"{TI} release/2.6 CUDA_AARCH64: 'cu126'; pytorch#148169: aarch64 'only supporting sm_90 "
        "for 12.6'",
        versions={"torch": "2.6.0*"},
        variants={"torch": "cu126"},
    ),
    case(
        "gh200-570-torch-2.8-newest-cu129",
        aarch64("570.124.06", "9.0"),
        "torch==2.8.*",
        f"{TI} @21480431a (release/2.8) CUDA_AARCH64_ARCHES = ['12.9-aarch64']: the only 2.8 "
        "aarch64 CUDA build; 12.9 is minor-compatible on 570",
        versions={"torch": "2.8.0*"},
        variants={"torch": "cu129"},
    ),
    case(
        "gh200-570-torch-2.8-native-refused",
        aarch64("570.124.06", "9.0"),
        "torch==2.8.*",
        f"{TI} @21480431a (release/2.8) CUDA_AARCH64_ARCHES = ['12.9-aarch64']: no 2.8 aarch64 "
        "build is native on 570 (12.8)",
        refused=True,
        policy="native",
    ),
    case(
        "gh200-535-torch-2.11-2.14-cu126",
        aarch64("535.183.01", "9.0"),
        "torch>=2.11,<2.15",
        f"{TI_214}; {RELEASE_MD}: aarch64 cu126 8.0, 9.0; CUDA 13 needs >=580",
        versions={"torch": "2.14.1+cu126"},
    ),
    case(
        "gh200-580-torch-2.11-up-2.15",
        aarch64("580.95.05", "9.0"),
        "torch>=2.11",
        f"{PYPI_ARCH}: PyPI 2.15.0 aarch64 is +cu132 with sm_90",
        versions={"torch": "2.15.0+cu13*"},
    ),
    case(
        "gb10-580-torch-2.11-2.14-cu132",
        aarch64("580.95.05", "12.1"),
        "torch>=2.11,<2.15",
        f"{TI_214}; {RELEASE_MD}: aarch64 13.2 has 12.0 (serves 12.1); minor-compatible on 580",
        versions={"torch": "2.14.1+cu132"},
    ),
    case(
        "thor-580-torch-2.9-cu130",
        aarch64("580.95.05", "11.0"),
        "torch==2.9.*",
        f"{RELEASE_MD}: only aarch64 13.0 has 11.0; OpenRAL#167 'torch 2.9.1+cu128 arch_list: "
        "[sm_80, sm_90, sm_100, sm_120] … no kernel image' on Thor",
        versions={"torch": "2.9.1+cu130"},
    ),
    case(
        "thor-580-torch-2.15-cu132",
        aarch64("580.95.05", "11.0"),
        "torch==2.15.0",
        f"{PYPI_ARCH}: the PyPI manylinux aarch64 2.15.0 wheel is +cu132 with sm_110",
        versions={"torch": "2.15.0+cu13*"},
    ),
    # ---- onnxruntime-gpu ----
    case(
        "ort-pascal-535",
        linux("535.230.02", "6.1"),
        "onnxruntime-gpu>=1.19",
        f"{ORT_SCAN}: 1.27+ are CUDA 13 (need >=580) from sm_75; 1.26.0 (CUDA 12.8, "
        "minor-compatible on 535) has SASS 60",
        versions={"onnxruntime-gpu": "1.26.0"},
        newer={"onnxruntime-gpu": "1.27.0"},
    ),
    case(
        "ort-pascal-580",
        linux("580.95.05", "6.1"),
        "onnxruntime-gpu",
        f"{ORT_SCAN}: sm_75 floor from 1.27; 1.26.0 has SASS 60",
        versions={"onnxruntime-gpu": "1.26.0"},
        newer={"onnxruntime-gpu": "1.27.0"},
    ),
    case(
        "ort-volta-580",
        linux("580.95.05", "7.0"),
        "onnxruntime-gpu>=1.19",
        f"{ORT_SCAN}: Linux 1.21-1.26 SASS 70; 1.27+ start at 7.5",
        versions={"onnxruntime-gpu": "1.26.0"},
        newer={"onnxruntime-gpu": "1.27.0"},
    ),
    case(
        "ort-b200-580",
        linux("580.95.05", "10.0"),
        "onnxruntime-gpu>=1.21",
        f"{ORT_SCAN}: 1.29-1.31.1 Linux x86_64 have no sm_100 and no PTX; 1.28.0 has sm_100a",
        versions={"onnxruntime-gpu": "1.28.0"},
        newer={"onnxruntime-gpu": "1.29.0"},
    ),
    case(
        "ort-blackwell-580",
        linux("580.95.05", "12.0"),
        "onnxruntime-gpu>=1.19",
        f"{ORT_SCAN}: 1.31.1 has sm_120a SASS, CUDA 13.0 native on 580",
        versions={"onnxruntime-gpu": "1.31.1"},
    ),
    case(
        "ort-blackwell-570-ptx",
        linux("570.124.06", "12.0"),
        "onnxruntime-gpu>=1.19",
        f"{ORT_SCAN}: 1.26.0 is a CUDA 12.8 build (native on 570) with PTX compute_90; 1.27+ need "
        ">=580",
        versions={"onnxruntime-gpu": "1.26.0"},
        newer={"onnxruntime-gpu": "1.27.0"},
    ),
    case(
        "ort-blackwell-560-ptx-needs-native",
        linux("560.35.03", "12.0"),
        "onnxruntime-gpu>=1.19",
        f"{ORT_SCAN}: 1.24-1.26 (CUDA 12.8) are only minor-compatible on 560 (12.6), so their PTX "
        "cannot serve; 1.23.2 (CUDA 12.2, native) has PTX compute_90 (1.23.0 had compute_90a: "
        "microsoft/onnxruntime#26221, PR #26230)",
        versions={"onnxruntime-gpu": "1.23.2"},
        newer={"onnxruntime-gpu": "1.24.1"},
    ),
    case(
        "ort-windows-a100-560",
        windows("560.94", "8.0"),
        "onnxruntime-gpu>=1.19",
        f"{ORT_SCAN}: Windows 1.21-1.26 have no sm_80 SASS and only PTX compute_90; 1.27+ need "
        ">=580; 1.20.2 (CUDA 12.2, native) has SASS 80",
        versions={"onnxruntime-gpu": "1.20.2"},
        newer={"onnxruntime-gpu": "1.21.0"},
    ),
    case(
        "ort-windows-a100-581",
        windows("581.57", "8.0"),
        "onnxruntime-gpu>=1.19",
        f"{ORT_SCAN}: Windows 1.31.1 (CUDA 13.0) has SASS 80",
        versions={"onnxruntime-gpu": "1.31.1"},
    ),
    case(
        "ort-gh200-580",
        aarch64("580.95.05", "9.0"),
        "onnxruntime-gpu",
        f"{ORT_SCAN}: manylinux_2_34_aarch64 wheels from 1.29.0, latest 1.31.1, sm_90a",
        versions={"onnxruntime-gpu": "1.31.1"},
    ),
    case(
        "ort-maxwell-535",
        linux("535.230.02", "5.2"),
        "onnxruntime-gpu>=1.19",
        f"{ORT_SCAN}: 1.20.2 (CUDA 12.2, native on 535) has SASS 52; 1.21+ start at sm_60",
        versions={"onnxruntime-gpu": "1.20.2"},
        newer={"onnxruntime-gpu": "1.21.0"},
    ),
    case(
        "ort-gh200-550-refused",
        aarch64("550.127.08", "9.0"),
        "onnxruntime-gpu",
        f"{ORT_SCAN}: the only aarch64 GPU wheels are 1.29+ (CUDA 13.0), which need >=580",
        refused=True,
    ),
    # ---- TensorFlow ----
    case(
        "tf-windows-and-cuda-refused",
        windows("560.94", "8.6"),
        "tensorflow[and-cuda]>=2.11",
        f"{TF_PIP}; l.136 'Windows Native … (no GPU support after TF 2.10)'",
        refused=True,
    ),
    case(
        "tf-windows-2.10",
        windows("560.94", "8.6"),
        "tensorflow==2.10.*",
        f"{TF_PIP}; source_windows.md:388 tensorflow_gpu-2.10.0 cuDNN 8.1, CUDA 11.2; PyPI "
        "tensorflow 2.10.1 wheels cp37-cp310",
        versions={"tensorflow": "2.10.1"},
        needs=(("tensorflow", "cuda-runtime", "11.2"), ("tensorflow", "cudnn", "8.1")),
        requires_python=">=3.10,<3.11",
    ),
    case(
        "tf-ampere-550",
        linux("550.144.03", "8.6"),
        "tensorflow[and-cuda]>=2.16",
        f"{TF_ARCH}: SASS sm_80 serves 8.6; 12.5 minor-compatible on 550; PyPI tensorflow 2.21.0 "
        "is the newest",
        versions={"tensorflow": "2.21.0"},
    ),
    case(
        "tf-pascal-550",
        linux("550.144.03", "6.1"),
        "tensorflow[and-cuda]>=2.18",
        f"{TF_ARCH}: SASS sm_60 serves 6.1; 12.5 is minor-compatible on 550",
        versions={"tensorflow": "2.21.0"},
    ),
    case(
        "tf-blackwell-550-refused",
        linux("550.144.03", "12.0"),
        "tensorflow[and-cuda]>=2.18",
        f"{TF_ARCH}: only PTX compute_90 can serve 12.0, and a CUDA 12.5 build is not native on "
        "550 (12.4)",
        refused=True,
    ),
    case(
        "tf-blackwell-570-ptx",
        linux("570.124.06", "12.0"),
        "tensorflow[and-cuda]>=2.18",
        f"{TF_ARCH}: PTX compute_90 of a CUDA 12.5 build is native on 570 (12.8)",
        versions={"tensorflow": "2.21.0"},
    ),
    case(
        "tf-turing-470-cuda-11",
        linux("470.256.02", "7.5"),
        "tensorflow[and-cuda]>=2.12,<2.16",
        "tensorflow/docs@7c3650212 source.md: 2.15 CUDA 12.2, 2.14 CUDA 11.8; PyPI tensorflow "
        "2.14.1 METADATA 'nvidia-cuda-runtime-cu11 (==11.8.89) ; extra == \"and-cuda\"'; "
        "pip.md:117 architectures '3.5, 5.0, 6.0, 7.0, 7.5, 8.0 and higher'; 470 runs 11.8 by "
        "minor-version compatibility, not 12.2",
        versions={"tensorflow": "2.14.1"},
        newer={"tensorflow": "2.15.0"},
        requires_python=">=3.10,<3.11",
    ),
    # ---- jax ----
    case(
        "jax-pascal-580-cuda13-refused",
        linux("580.95.05", "6.1"),
        "jax[cuda13]",
        f"{JAX_BAZELRC}",
        refused=True,
    ),
    case(
        "jax-pascal-580-cuda12",
        linux("580.95.05", "6.1"),
        "jax[cuda12]",
        f"{JAX_BAZELRC}: sm_60 SASS serves 6.1; CUDA 12.9 runs on 580",
        variants={"jax": "cuda12"},
    ),
    case(
        "jax-windows-refused",
        windows("581.57", "8.6"),
        "jax[cuda12]",
        f"{JAX_BAZELRC}: no win_amd64 plugin wheel",
        refused=True,
    ),
    case(
        "jax-gh200-580-cuda13",
        aarch64("580.95.05", "9.0"),
        "jax[cuda13]",
        f"{JAX_BAZELRC}: manylinux aarch64 jax-cuda13-plugin wheels, sm_90 above the sm_75 floor",
        variants={"jax": "cuda13"},
    ),
    case(
        "jax-blackwell-570-cuda12",
        linux("570.124.06", "12.0"),
        "jax[cuda12]",
        f"{JAX_BAZELRC}; .bazelrc above l.198: 'compute means we emit both cubin and PTX', so "
        "compute_120 carries sm_120 SASS; CUDA 12.9.1 is minor-compatible on 570",
        variants={"jax": "cuda12"},
    ),
    case(
        "jax-maxwell-50-535-cuda12",
        linux("535.230.02", "5.0"),
        "jax[cuda12]",
        f"{JAX_BAZELRC}: sm_50 SASS serves a GTX 750 Ti (5.0); CUDA 12.9.1 is minor-compatible "
        "on 535",
        variants={"jax": "cuda12"},
        xfail=FINDING + "jax[cuda12] builds sm_50 (the data's floor is sm_52)",
    ),
    case(
        "jax-470-cuda12-refused",
        linux("470.256.02", "8.6"),
        "jax[cuda12]",
        f"{JAX_BAZELRC}; CUDA 12 needs driver >=525.60.13 (NVIDIA MVC Table 1)",
        refused=True,
    ),
    # ---- PaddlePaddle ----
    case(
        "paddle-blackwell-535-cu129",
        linux("535.230.02", "12.0"),
        "paddlepaddle-gpu>=3.0",
        "PaddlePaddle/Paddle discussion #79725 (Paddle 3.3.0): 'The prebuilt Python wheels cover "
        "Blackwell through the cu129/cu130 package indexes'; Paddle#76037: RTX 50 needs the cu129 "
        "wheel; cu130 needs >=580, cu129 is minor-compatible on 535 (12.2)",
        versions={"paddlepaddle-gpu": "3.3.*"},
        variants={"paddlepaddle-gpu": "cu129"},
    ),
    case(
        "paddle-blackwell-575-3.2-cu129",
        linux("575.57.08", "12.0"),
        "paddlepaddle-gpu>=3.2,<3.3",
        f"{PADDLE_TABLES}; the same cu129 index serves Linux (Tables.md linux cu129 rows)",
        versions={"paddlepaddle-gpu": "3.2.*"},
        variants={"paddlepaddle-gpu": "cu129"},
    ),
    case(
        "paddle-windows-blackwell-576-3.2-cu129",
        windows("576.57", "12.0"),
        "paddlepaddle-gpu>=3.1,<3.3",
        f"{PADDLE_TABLES}",
        versions={"paddlepaddle-gpu": "3.2.*"},
        variants={"paddlepaddle-gpu": "cu129"},
    ),
    case(
        "paddle-windows-blackwell-576-3.1-refused",
        windows("576.57", "12.0"),
        "paddlepaddle-gpu==3.1.*",
        "PaddlePaddle/Paddle#73687 and PaddleX#4285 logs of Windows 3.1.0: 'compiled for 75 80 86 "
        "89'; Windows 3.1 variants are cu118 and cu126 (PaddlePaddle/docs PR #7426)",
        refused=True,
    ),
    case(
        "paddle-turing-470-2.6",
        linux("470.256.02", "7.5"),
        "paddlepaddle-gpu==2.6.*",
        f"{PADDLE_26_SCAN}; PyPI paddlepaddle-gpu 2.6.2 is the newest 2.6",
        versions={"paddlepaddle-gpu": "2.6.2"},
        variants={"paddlepaddle-gpu": "cu118"},
        needs=(
            ("paddlepaddle-gpu", "cuda-runtime", "11.8"),
            ("paddlepaddle-gpu", "cudnn", "8.6"),
        ),
    ),
    case(
        "paddle-hopper-580-2.6-cu118-refused",
        linux("580.95.05", "9.0"),
        "paddlepaddle-gpu==2.6.*",
        f"{PADDLE_26_SCAN}: no sm_90 SASS and no PTX; nf-core/proteinfold#349 log 'compute "
        "capability … is 90, which is not supported by Paddle'",
        refused=True,
        cuda="cu118",  # the PyPI build; Paddle's own cu120 2.6.2 arch list is unknown
    ),
    case(
        "paddle-windows-ampere-522-2.6",
        windows("522.06", "8.6"),
        "paddlepaddle-gpu==2.6.*",
        f"{PADDLE_26_SCAN}; PyPI 2.6.2 has win_amd64 wheels; 522.06 (CUDA 11.8 on Windows) is "
        "below the 12.x floor 528.33, so only the CUDA 11 builds run",
        versions={"paddlepaddle-gpu": "2.6.2"},
        variants={"paddlepaddle-gpu": "cu118"},
    ),
]


def pyproject(item: Case) -> str:
    dependencies = "".join(f"    {dep!r},\n" for dep in item.deps).replace("'", '"')
    return (
        "[project]\n"
        'name = "crosscheck"\n'
        'version = "0.1.0"\n'
        f'requires-python = "{item.requires_python}"\n'
        f"dependencies = [\n{dependencies}]\n"
    )


def params() -> list[Any]:
    marked = []
    for item in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=item.xfail)] if item.xfail else []
        marked.append(pytest.param(item, id=item.id, marks=marks))
    return marked


def test_every_case_names_a_source_and_the_spread_is_wide() -> None:
    assert len(CASES) >= 30
    assert len({item.id for item in CASES}) == len(CASES)
    assert all(len(item.source) > 40 for item in CASES)
    assert all(item.refused or item.versions or item.variants for item in CASES)
    hosts = [h for item in CASES for h in item.hosts]
    assert {h.profile.os for h in hosts} == {"linux", "windows"}
    assert {h.profile.machine for h in hosts} == {"x86_64", "aarch64"}


def planned(item: Case) -> Planned:
    settings: dict[str, Any] = {"policy": item.policy}
    if item.cuda:
        settings["cuda"] = CudaRequest.parse(item.cuda)
    return plan_text(pyproject(item), item.hosts, **settings)


@pytest.mark.parametrize("item", params())
def test_crosscheck(item: Case) -> None:
    if item.refused:
        with pytest.raises(NoVariantError) as caught:
            planned(item)
        assert caught.value.exit_code == 3
        return
    plan = planned(item).plan
    chosen = {c.name: c for c in plan.packages}
    for name, pattern in item.versions.items():
        assert name in chosen, f"{name} is not in the plan: {sorted(chosen)}"
        choice = chosen[name]
        if choice.version is not None:
            assert fnmatch.fnmatchcase(choice.version, pattern), f"{name}: {choice.version}"
        else:
            bound = SpecifierSet(choice.bound)
            assert bound.contains(pattern, prereleases=False), f"{name}: bound {choice.bound!r}"
            if name in item.newer:
                assert not bound.contains(item.newer[name]), f"{name}: bound {choice.bound!r}"
    for name, variant in item.variants.items():
        assert name in chosen, f"{name} is not in the plan: {sorted(chosen)}"
        assert chosen[name].variant == variant, f"{name}: {chosen[name].variant}"
    for package, kind, version in item.needs:
        specs = [r.spec for r in plan.system_requirements if (r.package, r.kind) == (package, kind)]
        assert specs, f"no {kind} requirement for {package}"
        assert all(SpecifierSet(spec).contains(version) for spec in specs), specs
