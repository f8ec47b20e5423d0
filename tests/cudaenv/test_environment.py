"""The pure decisions: toolkit choice, order of folders, variables, contradictions."""

from __future__ import annotations

import pytest

from poetry_cuda.cudaenv.decide import ProjectEnv
from poetry_cuda.cudaenv.decide import Tree
from poetry_cuda.cudaenv.decide import apply
from poetry_cuda.cudaenv.decide import changes
from poetry_cuda.cudaenv.decide import compose
from poetry_cuda.cudaenv.decide import contradictions
from poetry_cuda.errors import UnmetRequirementError
from poetry_cuda.host.profiles import Cudnn
from poetry_cuda.planning.plan import SystemRequirement
from poetry_cuda.versions import CudaVersion


def tree(version: str, root: str, *, nvcc: bool = True, origin: str = "system") -> Tree:
    return Tree(root, version, f"{root}/bin", (f"{root}/lib64",), nvcc, origin)


T118 = tree("11.8.89", "/usr/local/cuda-11.8")
T124 = tree("12.4.131", "/usr/local/cuda-12.4")
T126 = tree("12.6.77", "/usr/local/cuda-12.6", nvcc=False)
T130 = tree("13.0.88", "/usr/local/cuda-13.0")
WHEELS = tree("12.4.131", "/p/.venv/cuda", nvcc=False, origin="wheels")
SYSTEM = (T118, T124, T126, T130)


def need(kind: str, spec: str) -> SystemRequirement:
    return SystemRequirement("pkg", kind, spec, "pkg loads it", "install it")


def env_for(**kwargs: object) -> ProjectEnv:
    defaults: dict[str, object] = {
        "os_name": "linux",
        "cuda": None,
        "needs": (),
        "mode": "system",
        "system": SYSTEM,
        "wheels": None,
        "wheel_libraries": (),
        "venv_bin": "/p/.venv/bin",
    }
    return compose(**{**defaults, **kwargs})  # type: ignore[arg-type]


def test_a_runtime_requirement_picks_the_side_by_side_toolkit_not_the_newest() -> None:
    env = env_for(cuda=CudaVersion(11, 8), needs=(need("cuda-runtime", ">=11.8,<12"),))
    assert env.toolkit == T118
    assert env.path == ("/usr/local/cuda-11.8/bin", "/p/.venv/bin")


def test_an_nvcc_requirement_needs_a_toolkit_with_nvcc() -> None:
    env = env_for(cuda=CudaVersion(12, 6), needs=(need("nvcc", ">=12.1,<13"),))
    assert env.toolkit == T124  # 12.6 has no nvcc


def test_among_fitting_toolkits_the_projects_version_wins_then_the_newest() -> None:
    env = env_for(cuda=CudaVersion(12, 4), needs=(need("cuda-runtime", ">=12,<13"),))
    assert env.toolkit == T124
    env = env_for(cuda=CudaVersion(12, 1), needs=(need("cuda-runtime", ">=12,<13"),))
    assert env.toolkit == T126


def test_unmet_requirement_is_exit_1_naming_what_was_found() -> None:
    with pytest.raises(UnmetRequirementError) as caught:
        env_for(needs=(need("cuda-runtime", ">=11.2,<11.3"),))
    assert caught.value.exit_code == 1
    assert "11.8.89 at /usr/local/cuda-11.8" in caught.value.what
    assert "poetry cuda doctor" in caught.value.fix


def test_without_requirements_a_toolkit_of_the_same_major_or_none() -> None:
    assert env_for(cuda=CudaVersion(12, 4)).toolkit == T124
    assert env_for(cuda=CudaVersion(11, 7)).toolkit == T118
    assert env_for(cuda=CudaVersion(12, 4), system=(T130,)).toolkit is None
    assert env_for(cuda=None).toolkit is None


def test_wheels_mode_prefers_the_venv_tree_and_fails_without_one() -> None:
    env = env_for(cuda=CudaVersion(12, 4), mode="wheels", wheels=WHEELS)
    assert env.toolkit == WHEELS
    with pytest.raises(UnmetRequirementError, match="no CUDA toolkit wheels"):
        env_for(cuda=CudaVersion(12, 4), mode="wheels", wheels=None)
    # The wheels give no nvcc for CUDA 12: an nvcc requirement falls back to the system.
    env = env_for(
        cuda=CudaVersion(12, 4), mode="wheels", wheels=WHEELS, needs=(need("nvcc", "==12.4.*"),)
    )
    assert env.toolkit == T124


def test_redist_mode_prefers_the_assembled_tree_even_over_an_equal_system_one() -> None:
    own = tree("13.0.88", "/p/.venv/cuda", origin="redist")
    env = env_for(cuda=CudaVersion(13, 0), mode="redist", wheels=own)
    assert env.toolkit == own
    assert env.path[0] == "/p/.venv/cuda/bin"
    assert "/usr/local/cuda-13.0/bin" in env.foreign
    needs = (need("nvcc", ">=13.0,<14"),)
    assert env_for(cuda=CudaVersion(13, 0), mode="redist", wheels=own, needs=needs).toolkit == own
    with pytest.raises(UnmetRequirementError, match='toolkit = "redist", but no toolkit'):
        env_for(cuda=CudaVersion(13, 0), mode="redist", wheels=None)
    assert env_for(cuda=CudaVersion(13, 0), wheels=own).toolkit == T130  # "system" ignores it


@pytest.mark.parametrize(
    "needs", [(), (need("nvcc", ">=13.0,<14"),), (need("cuda-runtime", ">=13"),)]
)
def test_redist_mode_never_falls_back_to_a_system_nvcc(
    needs: tuple[SystemRequirement, ...],
) -> None:
    # Every system toolkit of SYSTEM would fit; none may stand in for the project's own.
    without_nvcc = tree("13.0.88", "/p/.venv/cuda", nvcc=False, origin="redist")
    for own, says in ((without_nvcc, "/p/.venv/cuda has no nvcc"), (None, "no toolkit")):
        with pytest.raises(UnmetRequirementError) as caught:
            env_for(cuda=CudaVersion(13, 0), mode="redist", wheels=own, needs=needs)
        assert caught.value.exit_code == 1
        assert says in caught.value.what
        assert "poetry cuda doctor" in caught.value.fix


def test_library_order_wheels_then_toolkit_then_cudnn() -> None:
    cudnn = Cudnn("8.9.7", "/opt/cudnn8/lib/libcudnn.so.8", "library-dir")
    env = env_for(
        cuda=CudaVersion(11, 8),
        needs=(need("cuda-runtime", ">=11.8,<12"), need("cudnn", ">=8.6,<9")),
        wheel_libraries=("/p/site/nvidia/cublas/lib",),
        cudnn=(cudnn, Cudnn("9.1.0", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "ldconfig")),
        cudnn_folders={cudnn.path: "/opt/cudnn8/lib"},
    )
    assert env.libraries == (
        "/p/site/nvidia/cublas/lib",
        "/usr/local/cuda-11.8/lib64",
        "/opt/cudnn8/lib",
    )
    with pytest.raises(UnmetRequirementError, match=r"cudnn >=9\.5"):
        env_for(needs=(need("cudnn", ">=9.5"),), cudnn=(cudnn,), cudnn_folders={})


def test_changes_drop_other_toolkits_and_keep_the_rest() -> None:
    env = env_for(cuda=CudaVersion(11, 8), needs=(need("cuda-runtime", ">=11.8,<12"),))
    shell = {
        "PATH": "/usr/local/cuda-13.0/bin:/usr/bin",
        "LD_LIBRARY_PATH": "/usr/local/cuda-12.4/lib64/:/opt/other/lib",
        "CUDA_HOME": "/usr/local/cuda-13.0",
    }
    values, unset = changes(env, shell)
    assert unset == ()
    assert values == {
        "CUDA_HOME": "/usr/local/cuda-11.8",
        "CUDA_PATH": "/usr/local/cuda-11.8",
        "PATH": "/usr/local/cuda-11.8/bin:/p/.venv/bin:/usr/bin",
        "LD_LIBRARY_PATH": "/usr/local/cuda-11.8/lib64:/opt/other/lib",
    }
    assert apply(env, {**shell, "HOME": "/root"})["HOME"] == "/root"


def test_no_toolkit_unsets_the_shells_cuda_home() -> None:
    env = env_for(cuda=CudaVersion(12, 4), system=(T130,))
    values, unset = changes(env, {"CUDA_HOME": "/usr/local/cuda-13.0", "PATH": "/bin"})
    assert unset == ("CUDA_HOME",)
    assert "CUDA_HOME" not in values


def test_windows_puts_libraries_on_path() -> None:
    t = Tree(
        "C:\\CUDA\\v12.4",
        "12.4.131",
        "C:\\CUDA\\v12.4\\bin",
        ("C:\\CUDA\\v12.4\\bin",),
        True,
        "system",
    )
    env = env_for(
        os_name="windows", cuda=CudaVersion(12, 4), system=(t,), venv_bin="C:\\p\\Scripts"
    )
    values, _ = changes(env, {"PATH": "C:\\Windows"})
    assert values["PATH"] == "C:\\CUDA\\v12.4\\bin;C:\\p\\Scripts;C:\\Windows"
    assert "LD_LIBRARY_PATH" not in values


def test_contradictions_of_a_shell_set_for_another_toolkit() -> None:
    env = env_for(cuda=CudaVersion(11, 8), needs=(need("cuda-runtime", ">=11.8,<12"),))
    found = contradictions(
        env,
        {
            "CUDA_HOME": "/usr/local/cuda-13.0",
            "LD_LIBRARY_PATH": "/usr/local/cuda-12.4/lib64:/usr/local/cuda-11.8/lib64",
            "PATH": "/usr/local/cuda-13.0/bin:/usr/bin",
        },
    )
    assert [c.variable for c in found] == ["CUDA_HOME", "LD_LIBRARY_PATH", "PATH"]
    assert found[0].expected == "/usr/local/cuda-11.8"
    assert "cuda-12.4/lib64" in found[1].detail


def test_no_contradictions_in_the_projects_own_environment() -> None:
    env = env_for(cuda=CudaVersion(11, 8), needs=(need("cuda-runtime", ">=11.8,<12"),))
    shell = {"PATH": "/usr/local/cuda-13.0/bin:/usr/bin", "LD_LIBRARY_PATH": "/x"}
    assert contradictions(env, apply(env, shell)) == []
    # Foreign folders after the project's own cannot shadow them.
    later = {"LD_LIBRARY_PATH": "/usr/local/cuda-11.8/lib64:/usr/local/cuda-12.4/lib64"}
    assert contradictions(env, later) == []


def test_contradiction_when_the_project_wants_no_toolkit() -> None:
    env = env_for(cuda=CudaVersion(12, 4), system=(T130,))
    (found,) = contradictions(env, {"CUDA_HOME": "/usr/local/cuda-13.0"})
    assert found.expected is None
    assert "uses no CUDA toolkit" in found.detail
