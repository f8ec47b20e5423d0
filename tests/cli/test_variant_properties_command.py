"""`variant-properties`, run as a user runs it; and uv's wheel-variants preview on the test world.

uv 0.13 (the newest release) selects variant wheels in preview but reads no
``UV_VARIANT_LOCK`` file (only uv's prototype branch does), so the written file is checked
against the prototype's format (`[metadata]` version 0.1, `[[provider]]` with namespace,
plugin-api, resolved and properties), and the label choice against what released uv
installs from a loopback variant index with the NVIDIA provider's facts forced.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

from typing import TYPE_CHECKING
from typing import Any

import pytest

from poetry_cuda.errors import InputFileError
from poetry_cuda.files import parse_toml
from poetry_cuda.knowledge.variant_indexes import load
from poetry_cuda.knowledge.variant_indexes import parse
from poetry_cuda.planning.variant_label import choose_label
from poetry_cuda.planning.variant_metadata import parse_variants_json
from tests.support.cli import BIN
from tests.support.cli import Cli
from tests.support.plans import KB
from tests.support.plans import linux_host
from tests.support.variant_world import TORCH_28
from tests.support.variant_world import TORCH_29
from tests.support.variant_world import TORCH_29_PEP850
from tests.support.variant_world import TORCH_210
from tests.support.variant_world import build_world
from tests.support.variant_world import serve_index


if TYPE_CHECKING:
    from pathlib import Path


def _profile(folder: Path, name: str, driver: str | None, *gpus: str) -> Path:
    document: dict[str, object] = {"os": "linux", "machine": "x86_64"}
    if driver is not None:
        document["driver"] = {"version": driver}
        document["gpus"] = [{"compute_capability": cc} for cc in gpus]
    path = folder / f"{name}.json"
    path.write_text(json.dumps(document))
    return path


def test_the_mixed_host_file(cli: Cli, tmp_path: Path) -> None:
    metadata = build_world(tmp_path / "world", TORCH_29)
    target = _profile(tmp_path, "mixed", "580.65.06", "8.9", "6.1")
    out = tmp_path / "out" / "variant-lock.toml"
    out.parent.mkdir()
    result = cli.run(
        "variant-properties", "--target", str(target), "--variants", str(metadata), "-o",
        str(out), cwd=tmp_path,
    )  # fmt: skip
    assert result.code == 0, result
    assert "Variant: cuda12.6" in result.stderr
    assert "installer picks cuda13.0" in result.stderr
    lock = parse_toml(out.read_text())
    assert lock["metadata"] == {"created-by": lock["metadata"]["created-by"], "version": "0.1"}
    assert [p["namespace"] for p in lock["provider"]] == ["nvidia", "intel", "amd", "priority"]
    nvidia = lock["provider"][0]
    assert set(nvidia) == {"namespace", "plugin-api", "resolved", "properties"}
    assert nvidia["resolved"] == ["nvidia-variant-provider==0.0.2"]
    assert nvidia["properties"]["sm_arch"] == ["60_real", "80_real", "86_real"]
    assert lock["provider"][1]["properties"] == {}
    assert [p.name for p in out.parent.iterdir()] == ["variant-lock.toml"]  # no leftovers


def test_stdout_without_output(cli: Cli, tmp_path: Path) -> None:
    metadata = build_world(tmp_path / "world", TORCH_29)
    target = _profile(tmp_path, "cpu", None)
    result = cli.run(
        "variant-properties", "--target", str(target), "--variants", str(metadata), cwd=tmp_path
    )
    assert result.code == 0, result
    lock = parse_toml(result.stdout)
    assert lock["provider"][0]["properties"] == {}  # null: nothing of NVIDIA's supported


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("--policy", "oldest"), 2, "--policy"),
        (("--variants", "missing.json"), 2, "missing.json: file not found"),
        (("--variants", "bad.json"), 2, r"bad.json: \$schema: missing"),
        (("--variants", "torch-2.9.0-variants.json", "--target", "k80.json"), 3, "no variant"),
    ],
)
def test_errors_carry_their_exit_codes(
    cli: Cli, tmp_path: Path, args: tuple[str, ...], code: int, message: str
) -> None:
    build_world(tmp_path, TORCH_29)
    (tmp_path / "bad.json").write_text("{}")
    _profile(tmp_path, "k80", "570.86.10", "3.7")
    result = cli.run("variant-properties", *args, cwd=tmp_path)
    assert result.code == code, result
    assert re.search(message, result.stderr), result.stderr


def test_the_spec_form_outside_a_project_uses_the_newest_release(cli: Cli, tmp_path: Path) -> None:
    target = _profile(tmp_path, "h100", "570.86.10", "9.0")
    out = tmp_path / "variant-lock.toml"
    result = cli.run("variant-properties", "--target", str(target), "-o", str(out), cwd=tmp_path)
    assert result.code == 0, result
    assert "Variant metadata: torch 2.10.0's, as published (the newest known" in result.stderr
    assert "configs/torch-2.10/torch-2.10.0-variants.json" in result.stderr
    assert "Variant: cuda12.8" in result.stderr
    lock = parse_toml(out.read_text())
    assert [p["namespace"] for p in lock["provider"]] == ["nvidia", "intel", "amd"]
    assert lock["provider"][0]["properties"]["sm_arch"] == ["90_real"]


@pytest.mark.parametrize(
    ("dependency", "version", "warned"),
    [
        ("torch>=2.8,<2.10", "2.9.0", False),
        ("torch==2.8.0", "2.8.0", False),
        ("torch==2.5.1", "2.10.0", True),
        ("numpy", "2.10.0", False),
    ],
)
def test_the_spec_form_in_a_project_honours_its_torch_constraint(
    cli: Cli, tmp_path: Path, dependency: str, version: str, warned: bool
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        f'[project]\nname = "demo"\nversion = "0.1.0"\ndependencies = ["{dependency}"]\n'
    )
    target = _profile(tmp_path, "mixed", "580.65.06", "8.9", "6.1")
    result = cli.run("variant-properties", "--target", str(target), cwd=tmp_path)
    assert result.code == 0, result
    assert f"Variant metadata: torch {version}'s, as published" in result.stderr
    assert ("admits no torch release with published wheel variants" in result.stderr) == warned
    label = "cu126" if version == "2.8.0" else "cuda12.6"  # the one that serves sm_61 too
    assert f"Variant: {label}" in result.stderr
    assert parse_toml(result.stdout)["provider"][0]["namespace"] == "nvidia"


def test_variants_file_overrides_the_published_metadata(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0.1.0"\ndependencies = ["torch==2.8.0"]\n'
    )
    metadata = build_world(tmp_path / "world", TORCH_29)
    target = _profile(tmp_path, "h100", "570.86.10", "9.0")
    result = cli.run(
        "variant-properties", "--target", str(target), "--variants", str(metadata), cwd=tmp_path
    )
    assert result.code == 0, result
    assert "Variant metadata" not in result.stderr
    assert "Variant: cuda12.8" in result.stderr
    help_text = cli.run("variant-properties", "--help", cwd=tmp_path).stdout
    assert "--variants" in help_text


def test_the_variant_index_rows() -> None:
    (torch,) = load()
    assert torch.family == "torch"
    assert torch.url == "https://download.pytorch.org/whl/variant/"
    assert KB.family_of(torch.family) is not None
    with pytest.raises(InputFileError, match=r"index\[torch\]\.url"):
        parse(
            'schema = 1\n[[index]]\nfamily = "torch"\nurl = "http://x/"\nlayout = "simple"\n'
            'series = []\nsource = "s"\nconfidence = "verified"\n'
        )


UV = BIN / "uv"
# (forced driver CUDA, forced highest sm, a driver of that CUDA, capability)
HOSTS = [
    ("12.8", "9.0", "570.86.10", "9.0"),
    ("13.0", "8.6", "580.65.06", "8.6"),
    ("12.6", "12.0", "560.35.03", "12.0"),
    ("12.8", "6.1", "570.86.10", "6.1"),
]


@pytest.mark.skipif(not UV.exists(), reason="uv is not installed beside the tests")
def test_released_uv_installs_the_label_poetry_cuda_chooses(cli: Cli, tmp_path: Path) -> None:
    version = subprocess.run([str(UV), "--version"], capture_output=True, text=True, check=True)
    metadata_path = build_world(tmp_path / "world", TORCH_29_PEP850)
    metadata = parse_variants_json(metadata_path.read_bytes(), metadata_path.name)
    family = KB.family_of("torch")
    assert family is not None
    release = next(r for r in family.releases if r.series == "2.9")
    env = {k: v for k, v in cli.env.items() if not k.startswith("NV_VARIANT_PROVIDER")}
    venv = tmp_path / "venv"
    subprocess.run(
        [str(UV), "venv", "-q", str(venv), "-p", sys.executable, "--offline"],
        env=env, check=True, capture_output=True,
    )  # fmt: skip
    with serve_index(tmp_path / "world", tmp_path / "index") as url:
        for cuda, sm, driver, cc in HOSTS:
            expected = choose_label(
                metadata, linux_host("host", driver, cc), KB.nvidia, release=release
            ).label
            installed = subprocess.run(
                [str(UV), "pip", "install", "--python", str(venv), "--preview-features",
                 "wheel-variants", "--index-url", url, "torch", "--reinstall", "--no-cache"],
                env={**env, "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION": cuda,
                     "NV_VARIANT_PROVIDER_FORCE_SM_ARCH": sm},
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            assert installed.returncode == 0, (version.stdout, installed.stderr)
            label = subprocess.run(
                [str(venv / "bin" / "python"), "-c", "import torch; print(torch.LABEL)"],
                capture_output=True, text=True, check=True,
            ).stdout.strip()  # fmt: skip
            assert label == expected, (cuda, sm, installed.stderr)


MI300X = {"index": 0, "name": "AMD Instinct MI300X", "vendor": "amd", "gfx": "gfx942"}
ARC_B580 = {"index": 0, "name": "Intel Arc B580", "vendor": "intel", "device_ip": "20.1.0"}


def _stack_profile(folder: Path, name: str, gpu: dict[str, Any]) -> Path:
    """A schema-2 profile of a Linux host whose one GPU is AMD's or Intel's."""
    document: dict[str, object] = {"schema": 2, "os": "linux", "machine": "x86_64", "gpus": [gpu]}
    if gpu["vendor"] == "amd":
        document["rocm"] = {"kernel_driver": "6.16.13", "source": "kfd"}
    else:
        document["xpu"] = {"driver": "1.6.32224", "source": "level-zero"}
    path = folder / f"{name}.json"
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize(
    ("gpu", "label", "properties"),
    [
        (MI300X, "rocm7.1", {"amd": {"gfx_arch": ["gfx942"], "rocm_version": ["7.1"]}}),
        (ARC_B580, "xpu", {"intel": {"device_ip": ["20.1.0"]}}),
    ],
    ids=["mi300x", "arc-b580"],
)
def test_amd_and_intel_hosts_get_the_label_of_the_build_plan_chooses(
    cli: Cli, tmp_path: Path, gpu: dict[str, Any], label: str, properties: dict[str, Any]
) -> None:
    """Issue 39 item 5: the label is the ROCm or XPU build `plan` gives the same profile
    for the metadata's release (torch 2.10.0), not the CPU label."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n'
        'dependencies = ["torch==2.10.0"]\n'
    )
    target = _stack_profile(tmp_path, "host", gpu)
    plan = cli.run("plan", "--target", str(target), "--json", cwd=tmp_path)
    assert plan.code == 0, plan.stderr
    [torch] = [p for p in json.loads(plan.stdout)["packages"] if p["name"] == "torch"]
    assert torch["variant"] == label

    result = cli.run("variant-properties", "--target", str(target), cwd=tmp_path)
    assert result.code == 0, result.stderr
    assert f"Variant: {label} " in result.stderr
    lock = parse_toml(result.stdout)
    answered = {p["namespace"]: p["properties"] for p in lock["provider"] if p["properties"]}
    assert answered == properties  # the GPU's own values of the label, nothing of NVIDIA's


def test_amd_and_intel_hosts_say_when_the_metadata_has_no_label_for_the_planned_build(
    cli: Cli, tmp_path: Path
) -> None:
    """Issue 39 item 5: torch 2.8.0's metadata lists no xpu label; that is said (exit 3),
    not answered with the CPU label."""
    target = _stack_profile(tmp_path, "b580", ARC_B580)
    metadata = tmp_path / "torch-2.8.0-variants.json"
    metadata.write_text(json.dumps(TORCH_28))
    result = cli.run(
        "variant-properties", "--target", target.name, "--variants", metadata.name, cwd=tmp_path
    )
    assert result.code == 3, result
    assert "no variant label for xpu, the build the plan gives b580.json" in result.stderr
    assert "Variant:" not in result.stderr


@pytest.mark.parametrize("fallback", [True, False])
def test_variant_properties_honours_allow_cpu_fallback(
    cli: Cli, tmp_path: Path, fallback: bool
) -> None:
    """Issue 39 item 5: a K80 (sm_37), which no label serves, gets the CPU label where the
    project sets allow-cpu-fallback = true, as `plan` gives it the CPU build."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0.1.0"\ndependencies = ["torch>=2.9,<2.10"]\n\n'
        f"[tool.poetry-cuda]\nallow-cpu-fallback = {str(fallback).lower()}\n"
    )
    target = _profile(tmp_path, "k80", "570.86.10", "3.7")
    result = cli.run("variant-properties", "--target", target.name, cwd=tmp_path)
    if not fallback:
        assert result.code == 3, result
        assert "no variant label serves k80.json" in result.stderr
        return
    assert result.code == 0, result.stderr
    assert "Variant: null (k80.json: null: no CUDA label runs on k80.json" in result.stderr
    assert "allow-cpu-fallback = true" in result.stderr
    assert all(not p["properties"] for p in parse_toml(result.stdout)["provider"])


def test_amd_and_intel_hosts_with_an_unnamed_variants_file_are_told_not_given_cpu(
    cli: Cli, tmp_path: Path
) -> None:
    """Issue 39 item 5: the release the ROCm build is planned for comes from the file's
    name; a file named otherwise is refused (exit 2), not answered with the CPU label."""
    target = _stack_profile(tmp_path, "mi300x", MI300X)
    (tmp_path / "metadata.json").write_text(json.dumps(TORCH_210))
    result = cli.run(
        "variant-properties", "--target", target.name, "--variants", "metadata.json", cwd=tmp_path
    )
    assert result.code == 2, result
    assert "the file name does not say the torch release" in result.stderr
    assert "torch-2.10.0-variants.json" in result.stderr
