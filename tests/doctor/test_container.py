"""doctor in a container: the image's CUDA and cuDNN against cuda.lock's base image."""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.doctor.container import check_image
from poetry_cuda.doctor.container import read_image


if TYPE_CHECKING:
    from pathlib import Path


# The environment of nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04 and of
# 12.4.1-cudnn-runtime-ubuntu22.04 as their Dockerfiles set it (NV_CUDNN_VERSION's form
# changed at 12.4.1: a package revision follows).
CUDA_118_CUDNN8 = {"CUDA_VERSION": "11.8.0", "NV_CUDNN_VERSION": "8.9.6.50"}
CUDA_124_CUDNN9 = {"CUDA_VERSION": "12.4.1", "NV_CUDNN_VERSION": "9.1.0.70-1"}


def docker_root(tmp_path: Path) -> Path:
    (tmp_path / ".dockerenv").write_text("")
    return tmp_path


def test_a_host_is_no_container(tmp_path: Path) -> None:
    assert read_image(CUDA_118_CUDNN8, tmp_path) is None
    assert check_image(None, "nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04") == []


def test_each_runtime_is_recognised(tmp_path: Path) -> None:
    image = read_image(CUDA_124_CUDNN9, docker_root(tmp_path))
    assert image is not None and image.runtime == "Docker"
    assert str(image.cudnn) == "9.1.0.70"
    podman = tmp_path / "podman"
    (podman / "run").mkdir(parents=True)
    (podman / "run" / ".containerenv").write_text("engine=podman\n")
    found = read_image({}, podman)
    assert found is not None and found.runtime == "Podman" and found.cuda is None
    pod = read_image({"KUBERNETES_SERVICE_HOST": "10.0.0.1"}, tmp_path / "none")
    assert pod is not None and pod.runtime == "Kubernetes"


def test_the_image_the_lock_names_is_ok(tmp_path: Path) -> None:
    image = read_image(CUDA_118_CUDNN8, docker_root(tmp_path))
    findings = check_image(image, "nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04")
    assert [f.status for f in findings] == ["ok"]
    assert "cuDNN 8.9.6.50" in findings[0].message


def test_another_cuda_minor_is_a_warning_naming_the_image(tmp_path: Path) -> None:
    image = read_image(CUDA_124_CUDNN9, docker_root(tmp_path))
    findings = check_image(image, "nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04")
    assert [f.status for f in findings] == ["warn"]
    assert "CUDA 12.4.1" in findings[0].message and "11.8.0" in findings[0].message
    assert "FROM nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04" in findings[0].fix


def test_a_missing_or_other_cudnn_is_a_warning(tmp_path: Path) -> None:
    bare = read_image({"CUDA_VERSION": "12.4.1"}, docker_root(tmp_path))
    assert (
        "no cuDNN" in check_image(bare, "nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04")[0].message
    )
    eight = read_image({"CUDA_VERSION": "12.4.1", "NV_CUDNN_VERSION": "8.9.7.29"}, tmp_path)
    findings = check_image(eight, "nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04")
    assert findings[0].status == "warn" and "cuDNN 9" in findings[0].message


def test_a_plain_image_serves_a_lock_whose_wheels_bring_everything(tmp_path: Path) -> None:
    plain = read_image({}, docker_root(tmp_path))
    assert check_image(plain, "nvidia/cuda:12.4.1-base-ubuntu22.04") == []
    needs = check_image(plain, "nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04")
    assert [f.status for f in needs] == ["warn"]
    assert "not built from an NVIDIA CUDA image" in needs[0].message


def test_an_end_of_life_image_is_said(tmp_path: Path) -> None:
    environ = {**CUDA_118_CUDNN8, "NVIDIA_CUDA_END_OF_LIFE": "1"}
    image = read_image(environ, docker_root(tmp_path))
    findings = check_image(image, "nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04")
    assert [f.status for f in findings] == ["ok", "warn"]
    assert "end-of-life" in findings[1].message


def test_garbage_in_the_environment_reads_as_unknown(tmp_path: Path) -> None:
    image = read_image({"CUDA_VERSION": "lots", "NV_CUDNN_VERSION": "\x00"}, docker_root(tmp_path))
    assert image is not None and image.cuda is None and image.cudnn is None
