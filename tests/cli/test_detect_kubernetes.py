"""`detect --kubernetes` through the real console script and plugin, and a lock for the profiles
it writes: `targets = ["hosts/k8s-*.json"]` planned and locked like any targets, with the real uv
against the test world's indexes."""

from __future__ import annotations

import json
import shutil
import subprocess

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from poetry_cuda.files import read_toml
from tests.support.cli import BIN
from tests.support.cli import Result
from tests.support.isolation import UV_OFFLINE
from tests.support.kubernetes_nodes import L4
from tests.support.kubernetes_nodes import cluster
from tests.support.kubernetes_nodes import gpu_node
from tests.support.kubernetes_nodes import node
from tests.support.kubernetes_nodes import node_list
from tests.support.projects import write_project


if TYPE_CHECKING:
    from tests.support.catalog import WorldServer
    from tests.support.cli import Cli


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "kubernetes"
MIXED = FIXTURES / "mixed-x86_64.json"
GROUPS = ["k8s-a100-535", "k8s-l4-570", "k8s-rtx5090-570"]


def piped(cli: Cli, data: bytes, *args: str, cwd: Path) -> Result:
    """`poetry-cuda detect --kubernetes=- ...` with `data` on standard input."""
    done = subprocess.run(
        [str(BIN / "poetry-cuda"), "detect", "--kubernetes=-", *args],
        cwd=cwd,
        env=cli.env,
        input=data,
        capture_output=True,
        timeout=120,
        check=False,
    )
    result = Result(done.returncode, done.stdout.decode(), done.stderr.decode())
    assert "Traceback" not in result.stdout + result.stderr, result
    return result


def test_the_groups_of_a_mixed_cluster(cli: Cli, tmp_path: Path) -> None:
    result = cli.run("detect", "--kubernetes", str(MIXED), cwd=tmp_path)
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"Cluster: {MIXED}, 13 nodes; 11 with GPU labels in 3 groups"
    assert lines[1:5] == [
        "k8s-a100-535: 4 nodes, linux x86_64",
        "  GPUs: NVIDIA-A100-SXM4-80GB, compute capability 8.0 (sm_80), 32 GPUs in all",
        "  NVIDIA driver: 535.183.01, highest CUDA 12.2",
        "  Nodes: gpu-a100-0, gpu-a100-1, gpu-a100-2, gpu-a100-3",
    ]
    assert "k8s-rtx5090-570: 4 nodes, linux x86_64" in lines
    assert (
        "  GPUs: NVIDIA-GeForce-RTX-5090, compute capability 12.0 (sm_120), 4 GPUs in all" in lines
    )
    assert lines[-2:] == ["CPU-only nodes (2):", "  cp-0, cpu-worker-0"]
    assert result.stderr == ""
    assert list(tmp_path.iterdir()) == []  # without --write-targets nothing is written


def test_json_and_the_plugin_agree(cli: Cli, tmp_path: Path) -> None:
    script = cli.run("detect", "--kubernetes", str(MIXED), "--json", cwd=tmp_path)
    assert script.code == 0, script.stderr
    report = json.loads(script.stdout)
    assert [group["name"] for group in report["groups"]] == GROUPS
    assert report["cpu_only"] == ["cp-0", "cpu-worker-0"]
    assert report["groups"][2]["profile"]["nodes"] == {
        "count": 4,
        "names": [f"gpu-rtx5090-{i}" for i in range(4)],
    }
    plugin = cli.run(
        "cuda", "detect", "--kubernetes", str(MIXED), "--json", cwd=tmp_path, program="poetry"
    )
    assert plugin.code == 0, plugin.stderr
    assert json.loads(plugin.stdout) == report


def test_standard_input_a_selector_and_gpu_only(cli: Cli, tmp_path: Path) -> None:
    data = MIXED.read_bytes()
    result = piped(cli, data, "--selector", "example.com/pool=l4", "--json", cwd=tmp_path)
    assert result.code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["source"] == "standard input"
    assert [group["name"] for group in report["groups"]] == ["k8s-l4-570"]
    assert (report["nodes"], report["matched"], report["cpu_only"]) == (13, 3, [])
    gpu_only = piped(cli, data, "--gpu-only", cwd=tmp_path)
    assert gpu_only.code == 0, gpu_only.stderr
    assert "CPU-only" not in gpu_only.stdout
    assert "3 groups" in gpu_only.stdout


def test_a_mig_node_an_arm_pool_and_both_label_generations(cli: Cli, tmp_path: Path) -> None:
    mig = cli.run("detect", "--kubernetes", str(FIXTURES / "mig-node.json"), cwd=tmp_path)
    assert mig.code == 0, mig.stderr
    assert (
        "  GPUs: NVIDIA-A100-SXM4-80GB (as MIG-1g.10gb), compute capability 8.0 (sm_80), "
        "56 devices in all"
    ) in mig.stdout.splitlines()
    arm = cli.run("detect", "--kubernetes", str(FIXTURES / "gh200-aarch64.json"), cwd=tmp_path)
    assert "k8s-gh200-580: 2 nodes, linux aarch64" in arm.stdout
    generations = cli.run(
        "detect", "--kubernetes", str(FIXTURES / "label-generations.json"), cwd=tmp_path
    )
    assert "  NVIDIA driver: 525.105.17, highest CUDA 12.0" in generations.stdout
    assert "  NVIDIA driver: 550.120, highest CUDA 12.4" in generations.stdout


def test_gpu_nodes_without_labels_are_named_in_a_warning(cli: Cli, tmp_path: Path) -> None:
    document = node_list(
        [gpu_node("gpu-0", L4), node("gke-0", {"cloud.google.com/gke-accelerator": "nvidia-l4"})]
    )
    result = piped(cli, json.dumps(document).encode(), cwd=tmp_path)
    assert result.code == 0, result.stderr
    assert "GPU nodes without GPU Feature Discovery labels (1):" in result.stdout
    assert "1 node with an NVIDIA GPU but without GPU Feature Discovery labels (gke-0)" in (
        " ".join(result.stderr.split())
    )


def test_write_targets_then_read_them_back(cli: Cli, tmp_path: Path) -> None:
    result = cli.run("detect", "--kubernetes", str(MIXED), "--write-targets", "hosts", cwd=tmp_path)
    assert result.code == 0, result.stderr
    assert result.stdout.splitlines()[-3:] == [
        "Wrote hosts/k8s-a100-535.json (the 4 nodes of k8s-a100-535)",
        "Wrote hosts/k8s-l4-570.json (the 3 nodes of k8s-l4-570)",
        "Wrote hosts/k8s-rtx5090-570.json (the 4 nodes of k8s-rtx5090-570)",
    ]
    assert sorted(p.name for p in (tmp_path / "hosts").iterdir()) == [f"{g}.json" for g in GROUPS]
    shown = cli.run("detect", "--target", "hosts/k8s-l4-570.json", "--json", cwd=tmp_path)
    assert shown.code == 0, shown.stderr
    profile = json.loads(shown.stdout)
    assert profile["nodes"] == {"count": 3, "names": ["gpu-l4-0", "gpu-l4-1", "gpu-l4-2"]}
    assert profile["gpus"][0]["compute_capability"] == "8.9"
    again = cli.run(
        "detect", "--kubernetes", str(MIXED), "--write-targets", "hosts", "--json", cwd=tmp_path
    )
    assert again.code == 0, again.stderr
    assert json.loads(again.stdout)["written"] == [f"hosts/{g}.json" for g in GROUPS]
    assert again.stderr == ""
    one_pool = cli.run(
        "detect",
        "--kubernetes",
        str(MIXED),
        "--selector",
        "example.com/pool=l4",
        "--write-targets",
        "hosts",
        cwd=tmp_path,
    )
    assert one_pool.code == 0, one_pool.stderr
    warned = " ".join(one_pool.stderr.split())
    for stale in ("k8s-a100-535", "k8s-rtx5090-570"):
        assert f"hosts/{stale}.json: a profile written from Kubernetes that this run" in warned
        assert (tmp_path / "hosts" / f"{stale}.json").exists()


def test_a_profile_of_the_users_is_never_replaced(cli: Cli, tmp_path: Path) -> None:
    hosts = tmp_path / "hosts"
    hosts.mkdir()
    mine = '{"os": "linux", "driver": {"version": "570.172.08"}}'
    (hosts / "k8s-l4-570.json").write_text(mine)
    result = cli.run("detect", "--kubernetes", str(MIXED), "--write-targets", "hosts", cwd=tmp_path)
    assert result.code == 2
    assert "hosts/k8s-l4-570.json: not a profile written from Kubernetes" in result.stderr
    assert [p.name for p in hosts.iterdir()] == ["k8s-l4-570.json"]
    assert (hosts / "k8s-l4-570.json").read_text() == mine


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--kubernetes", "garbage-labels.json"), "node gpu-bad-1: label nvidia.com/gpu.compute"),
        (("--kubernetes", "missing.json"), "missing.json: file not found"),
        (("--kubernetes", "mixed-x86_64.json", "--selector", "pool"), "is not KEY=VALUE"),
        (("--write-targets", "hosts"), "are options of --kubernetes"),
        (("--kubernetes", "mig-node.json", "--target", "x.json"), "cannot be combined"),
        (
            ("--kubernetes", "mixed-x86_64.json", "--selector", "a=b", "--write-targets", "h"),
            "no node with GPU Feature Discovery labels matches the selector",
        ),
    ],
)
def test_bad_input_is_one_message_and_exit_2(
    cli: Cli, tmp_path: Path, args: tuple[str, ...], expected: str
) -> None:
    for name in ("garbage-labels.json", "mixed-x86_64.json", "mig-node.json"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    result = cli.run("detect", *args, cwd=tmp_path)
    assert result.code == 2, result
    assert expected in result.stderr
    assert result.stdout == ""
    assert not (tmp_path / "h").exists()


def test_garbage_on_standard_input(cli: Cli, tmp_path: Path) -> None:
    for data, expected in [
        (b"[" * 200_000, "standard input: not a readable document"),
        (b"kind: List\n", "standard input: not valid JSON"),
        (b'{"kind": "List", "items": [{"metadata": {"name": 7}}]}', "items[0].metadata.name"),
    ]:
        result = piped(cli, data, cwd=tmp_path)
        assert result.code == 2, result
        assert expected in result.stderr


def test_five_thousand_nodes(cli: Cli, tmp_path: Path) -> None:
    """The scale test: grouped right (the benchmark times it; nothing here is timed)."""
    result = piped(cli, json.dumps(cluster(5000)).encode(), "--json", cwd=tmp_path)
    assert result.code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["nodes"] == 5000
    assert len(report["cpu_only"]) == 500
    assert len(report["groups"]) == 15
    assert sum(group["profile"]["nodes"]["count"] for group in report["groups"]) == 4500


# Lock for the cluster


def cluster_project(tmp_path: Path, server: WorldServer, torch: str) -> Path:
    """A uv project with `torch` for the node groups of the mixed cluster."""
    project = write_project(
        tmp_path / "app",
        name="app",
        requires_python=">=3.11,<3.12",
        dependencies=[torch],
        tool={
            "uv": {
                "package": False,
                "index": [{"name": "local-pypi", "url": server.pypi_url, "default": True}],
            },
            "poetry-cuda": {
                "targets": ["hosts/k8s-*.json"],
                "mirrors": {"pytorch": server.pytorch_mirror},
            },
        },
    )
    index = read_toml(project / "pyproject.toml")["tool"]["uv"]["index"][0]
    assert index["name"] == "local-pypi"
    return project


def write_targets(cli: Cli, project: Path, source: Path, *args: str) -> None:
    result = cli.run(
        "detect", "--kubernetes", str(source), "--write-targets", "hosts", *args, cwd=project
    )
    assert result.code == 0, result.stderr


@pytest.mark.slow
def test_lock_for_every_node_group(cli: Cli, tmp_path: Path, server: WorldServer) -> None:
    # torch 2.7.1's cu128 build has kernels for the A100 (sm_80), the L4 (sm_89, through sm_86's
    # SASS) and the RTX 5090 (sm_120), and runs on driver 535 by minor-version compatibility.
    project = cluster_project(tmp_path, server, "torch==2.7.1")
    write_targets(cli, project, MIXED)
    result = cli.run("lock", cwd=project, env={**UV_OFFLINE, "UV_HTTP_RETRIES": "0"})
    assert result.code == 0, result.stderr
    assert any(p["name"] == "torch" for p in read_toml(project / "uv.lock")["package"])
    lock = read_toml(project / "cuda.lock")
    (torch,) = [p for p in lock["packages"] if p["name"] == "torch"]
    assert torch["variant"] == "cu128"
    assert sorted(target["label"] for target in lock["targets"]) == [
        "the 3 nodes of k8s-l4-570",
        "the 4 nodes of k8s-a100-535",
        "the 4 nodes of k8s-rtx5090-570",
    ]
    plan = cli.run("plan", "--json", cwd=project)
    assert json.loads(plan.stdout)["targets"] == [
        "the 4 nodes of k8s-a100-535",
        "the 3 nodes of k8s-l4-570",
        "the 4 nodes of k8s-rtx5090-570",
    ]


def test_the_plan_names_the_group_that_ruled_a_build_out(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    project = cluster_project(tmp_path, server, "torch==2.5.1")
    write_targets(cli, project, MIXED)
    result = cli.run("lock", cwd=project)
    assert result.code == 3, result
    lines = result.stderr.splitlines()
    assert lines[0] == "No variant of torch satisfies every target (torch ==2.5.1):"
    assert (
        lines[1]
        == "  no build of torch 2.5.1 has kernels for sm_120 on the 4 nodes of k8s-rtx5090-570"
    )
    assert lines[2].startswith(
        "  cu124 (torch 2.5.1) on the 4 nodes of k8s-rtx5090-570: cu124 has no SASS for sm_120 "
    )
    assert not (project / "cuda.lock").exists()
    chinese = cli.run(
        "plan", cwd=project, env={"LANG": "zh_CN.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}
    )
    assert chinese.code == 3, chinese
    assert (
        "  torch 2.5.1 没有任何构建包含 sm_120 的内核（kernel），无法用于 the 4 nodes of k8s-rtx5090-570"
        in chinese.stderr.splitlines()
    )
    # The pool a deployment's nodeSelector picks locks on its own.
    shutil.rmtree(project / "hosts")
    write_targets(cli, project, MIXED, "--selector", "example.com/pool=a100")
    planned = cli.run("plan", "--json", cwd=project)
    assert planned.code == 0, planned.stderr
    (torch,) = json.loads(planned.stdout)["packages"]
    assert torch["variant"] == "cu124"
    assert torch["reason"].startswith("driver 535.183.01 supports CUDA <= 12.2")


@pytest.mark.slow
def test_the_gh200_pool_locks_for_aarch64(cli: Cli, tmp_path: Path, server: WorldServer) -> None:
    project = cluster_project(tmp_path, server, "torch==2.6.0")
    write_targets(cli, project, FIXTURES / "gh200-aarch64.json")
    result = cli.run("lock", cwd=project, env={**UV_OFFLINE, "UV_HTTP_RETRIES": "0"})
    assert result.code == 0, result.stderr
    assert result.stdout.startswith("Plan for the 2 nodes of k8s-gh200-580 (policy newest)")
    lock = read_toml(project / "cuda.lock")
    (target,) = lock["targets"]
    assert target == {
        "label": "the 2 nodes of k8s-gh200-580",
        "os": "linux",
        "machine": "aarch64",
        "driver": "580.95.05",
        "cuda": "13.0",
        "compute-capabilities": ["9.0"],
    }
    (torch,) = lock["packages"]
    assert torch["variant"] == "cu126"  # torch 2.6's only CUDA build for Linux aarch64
    assert "sm_90 has SASS in cu126" in torch["reason"]


@pytest.mark.slow
def test_a_mig_node_and_both_label_generations_lock(
    cli: Cli, tmp_path: Path, server: WorldServer
) -> None:
    project = cluster_project(tmp_path, server, "torch==2.5.1")
    write_targets(cli, project, FIXTURES / "mig-node.json")
    write_targets(cli, project, FIXTURES / "label-generations.json")
    result = cli.run("lock", cwd=project, env={**UV_OFFLINE, "UV_HTTP_RETRIES": "0"})
    assert result.code == 0, result.stderr
    lock = read_toml(project / "cuda.lock")
    facts = {
        t["label"]: (t["driver"], t["cuda"], t["compute-capabilities"]) for t in lock["targets"]
    }
    assert facts == {
        "the 1 node of k8s-a100-535": ("535.183.01", "12.2", ["8.0"]),  # MIG: the A100's own
        "the 1 node of k8s-t4-525": ("525.105.17", "12.0", ["7.5"]),  # the older labels
        "the 1 node of k8s-a10g-550": ("550.120", "12.4", ["8.6"]),
        "the 1 node of k8s-l40s-570": ("570.172.08", "12.8", ["8.9"]),
    }
    (torch,) = lock["packages"]
    assert torch["variant"] == "cu124"


@pytest.mark.slow
def test_five_thousand_nodes_lock(cli: Cli, tmp_path: Path, server: WorldServer) -> None:
    project = cluster_project(tmp_path, server, "torch==2.7.1")
    written = piped(
        cli, json.dumps(cluster(5000)).encode(), "--write-targets", "hosts", cwd=project
    )
    assert written.code == 0, written.stderr
    result = cli.run("lock", cwd=project, env={**UV_OFFLINE, "UV_HTTP_RETRIES": "0"})
    assert result.code == 0, result.stderr
    lock = read_toml(project / "cuda.lock")
    assert len(lock["targets"]) == 15
    assert sum(int(t["label"].split()[1]) for t in lock["targets"]) == 4500
    assert {t["machine"] for t in lock["targets"]} == {"x86_64", "aarch64"}
    assert [p["variant"] for p in lock["packages"]] == ["cu128"]


def test_the_readme_shows_what_it_prints(cli: Cli, tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## A cluster\n", 1)[1]
    block = section.split("```console\n", 1)[1].split("```", 1)[0].splitlines()
    assert block[:2] == [
        "$ kubectl get nodes -o json > nodes.json",
        "$ poetry-cuda detect --kubernetes nodes.json --write-targets hosts",
    ]
    shutil.copy(MIXED, tmp_path / "nodes.json")
    result = cli.run(
        "detect", "--kubernetes", "nodes.json", "--write-targets", "hosts", cwd=tmp_path
    )
    assert result.code == 0, result.stderr
    printed = result.stdout.splitlines()
    shown = [line for line in block[2:] if line != "..."]
    assert all(line in printed for line in shown), (shown, printed)
    assert printed[: printed.index("k8s-l4-570: 3 nodes, linux x86_64")] == block[2:7]


@pytest.mark.parametrize("program", ["poetry-cuda", "poetry"])
def test_kubernetes_missing_file_gives_a_fix(cli: Cli, tmp_path: Path, program: str) -> None:
    prefix = ("cuda",) if program == "poetry" else ()
    result = cli.run(
        *prefix, "detect", "--kubernetes", "missing.json", cwd=tmp_path, program=program
    )
    assert result.code == 2, result
    lines = result.stderr.splitlines()
    assert lines[0] == "missing.json: file not found"
    detect = "poetry cuda detect" if program == "poetry" else "poetry-cuda detect"
    assert lines[-1] == (
        "Fix: write it first with `kubectl get nodes -o json > missing.json`, or pipe it in: "
        f"`kubectl get nodes -o json | {detect} --kubernetes -`"
    )
