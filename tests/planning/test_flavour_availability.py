"""Fixed flavours and paddle per version and platform: the plans issue 29 found wrong.

The kernels per onnxruntime-gpu version come from fatbin scans of its PyPI wheels, the
Windows limit of TensorFlow from tensorflow/docs pip.md, Paddle's Windows builds from
PaddlePaddle/docs Tables.md and its issues; each is a row of the knowledge base with that
source, and the expectations below follow from those facts.
"""

from __future__ import annotations

import pytest

from poetry_cuda.errors import NoVariantError
from tests.planning.test_release_availability import _host
from tests.planning.test_release_availability import plan


PASCAL_580 = _host("linux", "x86_64", "580.95.05", "6.1")
MAXWELL_535 = _host("linux", "x86_64", "535.230.02", "5.2")
B200_580 = _host("linux", "x86_64", "580.95.05", "10.0")
BLACKWELL_560 = _host("linux", "x86_64", "560.35.03", "12.0")
A100_WINDOWS_560 = _host("windows", "x86_64", "560.94", "8.0")
AMPERE_WINDOWS_560 = _host("windows", "x86_64", "560.94", "8.6")
RTX5090_WINDOWS_576 = _host("windows", "x86_64", "576.57", "12.0")
PASCAL_WINDOWS_576 = _host("windows", "x86_64", "576.57", "6.1")
GH200_550 = _host("linux", "aarch64", "550.127.08", "9.0")


def test_unpinned_onnxruntime_gpu_on_pascal_gets_the_last_cuda_12_build() -> None:
    # Was refused: 1.27+ are CUDA 13 builds from sm_75; 1.24-1.26 ship sm_60 SASS.
    result = plan(["onnxruntime-gpu"], PASCAL_580)
    ort = result.choice("onnxruntime-gpu")
    assert ort is not None and ort.bound == "<1.27"
    assert ort.availability is not None and ort.availability.fact.startswith(
        "onnxruntime-gpu >=1.24,<1.27 is a CUDA >=12.0,<13 build for linux-x86_64"
    )
    passed = [w for w in map(str, result.warnings) if "passed over" in w]
    assert [w.split(" passed over")[0] for w in passed] == [
        "onnxruntime-gpu >=1.29",
        "onnxruntime-gpu >=1.28,<1.29",
        "onnxruntime-gpu >=1.27,<1.28",
    ]


def test_a_gtx_980_runs_onnxruntime_gpu_1_19_and_1_20() -> None:
    # 1.19-1.20 ship sm_52 SASS and PTX; 1.21 on start at sm_60 (Linux).
    result = plan(["onnxruntime-gpu>=1.19"], MAXWELL_535)
    ort = result.choice("onnxruntime-gpu")
    assert ort is not None and ort.bound == "<1.21"
    assert "sm_52" in ort.arches


def test_a_b200_gets_1_28_the_last_with_sm_100() -> None:
    # 1.29+ on Linux x86_64 carry no sm_100 and no PTX; 1.27 and 1.28 carry sm_100a.
    ort = plan(["onnxruntime-gpu>=1.21"], B200_580).choice("onnxruntime-gpu")
    assert ort is not None and ort.bound == "<1.29"


def test_blackwell_on_a_12_6_driver_jits_the_cuda_12_2_ptx_only() -> None:
    # 1.24-1.26 are CUDA 12.8 builds: their compute_90 PTX needs a 12.8 driver. 1.21-1.23
    # are 12.2 builds, whose PTX a 12.6 driver compiles.
    ort = plan(["onnxruntime-gpu>=1.19"], BLACKWELL_560).choice("onnxruntime-gpu")
    assert ort is not None and ort.bound == "<1.24"


def test_windows_1_21_to_1_26_have_no_sm_80() -> None:
    # Windows 1.21-1.26: SASS 52, 61, 75, 86, 89 + compute_90; an A100 on a 12.6 driver
    # is served by 1.19-1.20 (SASS 80) only.
    ort = plan(["onnxruntime-gpu>=1.19"], A100_WINDOWS_560).choice("onnxruntime-gpu")
    assert ort is not None and ort.bound == "<1.21"


def test_onnxruntime_gpu_on_aarch64_needs_1_29_and_cuda_13() -> None:
    with pytest.raises(NoVariantError, match=r"CUDA 13\.x"):
        plan(["onnxruntime-gpu>=1.19"], GH200_550)
    with pytest.raises(NoVariantError, match="no GPU build for linux-aarch64"):
        plan(["onnxruntime-gpu>=1.19,<1.29"], _host("linux", "aarch64", "580.95.05", "9.0"))


def test_the_cuda_extra_resolves_from_1_28() -> None:
    result = plan(["onnxruntime-gpu[cuda]>=1.28"], B200_580)
    said = [r.satisfy for r in result.system_requirements if r.kind == "cuda-runtime"]
    assert said and not any("cannot resolve" in s for s in said)
    result = plan(["onnxruntime-gpu==1.27.0"], B200_580)
    said = [r.satisfy for r in result.system_requirements if r.kind == "cuda-runtime"]
    assert any("cannot resolve" in s for s in said)


def test_tensorflow_has_no_gpu_build_on_native_windows_after_2_10() -> None:
    with pytest.raises(NoVariantError, match="no GPU build for windows-x86_64"):
        plan(["tensorflow>=2.11"], AMPERE_WINDOWS_560)
    result = plan(["tensorflow"], AMPERE_WINDOWS_560)
    tf = result.choice("tensorflow")
    assert tf is not None and tf.bound == "<2.11"
    needs = {r.kind: r.spec for r in result.system_requirements}
    assert needs == {"cuda-runtime": ">=11.2,<12", "cudnn": ">=8.1,<9"}
    assert not any("apt install cuda-libraries-12" in r.satisfy for r in result.system_requirements)


def test_paddle_3_2_has_a_windows_cu129_build_for_rtx_50() -> None:
    result = plan(["paddlepaddle-gpu>=3.1,<3.3"], RTX5090_WINDOWS_576)
    paddle = result.choice("paddlepaddle-gpu")
    assert paddle is not None and paddle.variant == "cu129"
    assert paddle.version is not None and paddle.version.startswith("3.2.")


def test_paddle_3_1_on_windows_has_no_pascal_kernels() -> None:
    # Windows 3.1 wheels report "compiled for 75 80 86 89" (Paddle #73687, PaddleX #4285).
    with pytest.raises(NoVariantError):
        plan(["paddlepaddle-gpu==3.1.*"], PASCAL_WINDOWS_576)
    with pytest.raises(NoVariantError):
        plan(["paddlepaddle-gpu==3.1.*"], RTX5090_WINDOWS_576)


def test_a_project_admitting_3_10_gets_the_onnxruntime_gpu_its_pythons_install() -> None:
    # 1.24.4 on declare Requires-Python >=3.11 (1.24.1's wheels start at cp311); 1.21-1.23
    # declare >=3.10.
    ampere = _host("linux", "x86_64", "580.95.05", "8.6")
    assert plan(["onnxruntime-gpu"], ampere, python=">=3.11").choice("onnxruntime-gpu").bound == ""  # type: ignore[union-attr]
    result = plan(["onnxruntime-gpu"], ampere, python=">=3.10")
    ort = result.choice("onnxruntime-gpu")
    assert ort is not None and ort.bound == "<1.24"
    assert ort.requires_python == ">=3.10"
    assert any(
        w.startswith(
            "onnxruntime-gpu >=1.29 passed over: onnxruntime-gpu >=1.29 requires Python >=3.11"
        )
        for w in map(str, result.warnings)
    )
    with pytest.raises(NoVariantError, match="narrow the project's requires-python"):
        plan(["onnxruntime-gpu>=1.24"], ampere, python=">=3.10")


def test_tensorflow_2_18_serves_blackwell_only_through_ptx_on_a_native_driver() -> None:
    # .bazelrc: sm_60, sm_70, sm_80, sm_89 and compute_90, built with CUDA 12.5.
    with pytest.raises(NoVariantError, match=r"needs a driver for CUDA 12\.5"):
        plan(["tensorflow[and-cuda]>=2.18"], _host("linux", "x86_64", "550.144.03", "12.0"))
    result = plan(["tensorflow[and-cuda]>=2.18"], _host("linux", "x86_64", "570.124.06", "12.0"))
    assert result.choice("tensorflow") is not None


def test_jax_cuda_plugins_have_no_windows_wheels() -> None:
    with pytest.raises(NoVariantError, match="no GPU build for windows-x86_64"):
        plan(["jax[cuda12]"], _host("windows", "x86_64", "581.57", "8.6"))
