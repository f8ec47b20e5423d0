from __future__ import annotations

import pytest

from poetry_cuda.backends.readers import READERS
from poetry_cuda.errors import ConfigError
from poetry_cuda.request.dependencies import read_dependencies


def test_reads_every_place_a_dependency_can_be_declared() -> None:
    deps = read_dependencies(
        {
            "project": {
                "dependencies": ["torch>=2.4", "numpy"],
                "optional-dependencies": {"gpu": ["cupy-cuda12x[ctk]"]},
            },
            "tool": {
                "poetry": {
                    "dependencies": {"python": "^3.11", "TorchVision": "^0.20"},
                    "group": {
                        "dev": {"dependencies": {"jax": {"version": "*", "extras": ["cuda12"]}}},
                        "poetry-cuda": {"dependencies": {"torch": {"source": "pytorch-cu124"}}},
                    },
                }
            },
            "dependency-groups": {
                "test": ["torchaudio==2.5.1", {"include-group": "dev"}],
                "poetry-cuda": ["torch"],
            },
        },
        READERS,
    )
    found = [(d.name, d.constraint, sorted(d.extras)) for d in deps]
    assert found == [
        ("torch", ">=2.4", []),
        ("numpy", "*", []),
        ("cupy-cuda12x", "*", ["ctk"]),
        ("torchvision", "^0.20", []),
        ("jax", "*", ["cuda12"]),
        ("torchaudio", "==2.5.1", []),
    ]
    assert deps[3].origin == "[tool.poetry.dependencies]"
    assert deps[4].origin == "[tool.poetry.group.dev.dependencies]"


def test_local_label_of_a_pin() -> None:
    (dep,) = read_dependencies({"project": {"dependencies": ["torch==2.5.1+cpu"]}}, READERS)
    assert dep.local_label == "cpu"
    (dep,) = read_dependencies({"tool": {"poetry": {"dependencies": {"torch": "2.5.1"}}}}, READERS)
    assert dep.local_label is None


def test_multiple_constraint_entries() -> None:
    deps = read_dependencies(
        {
            "tool": {
                "poetry": {
                    "dependencies": {
                        "torch": [
                            {"version": "2.5.1", "markers": "sys_platform == 'linux'"},
                            {"version": "2.4.1", "markers": "sys_platform != 'linux'"},
                        ]
                    }
                }
            }
        },
        READERS,
    )
    assert [d.constraint for d in deps] == ["2.5.1", "2.4.1"]


@pytest.mark.parametrize(
    "pyproject",
    [
        {"project": {"dependencies": ["torch >= = 2"]}},
        {"project": {"dependencies": [3]}},
        {"tool": {"poetry": {"dependencies": {"torch": 2}}}},
        {"tool": {"poetry": {"dependencies": {"torch": {"version": 2}}}}},
    ],
)
def test_bad_dependencies_are_config_errors(pyproject: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        read_dependencies(pyproject, READERS)


def test_a_package_managers_own_tables_are_read_by_its_reader() -> None:
    pyproject = {
        "project": {"dependencies": ["numpy"]},
        "tool": {"poetry": {"dependencies": {"torch": "2.5.1"}}},
        "dependency-groups": {"dev": ["pytest"]},
    }
    assert [d.name for d in read_dependencies(pyproject, ())] == ["numpy", "pytest"]
    assert [d.name for d in read_dependencies(pyproject, READERS)] == ["numpy", "torch", "pytest"]
