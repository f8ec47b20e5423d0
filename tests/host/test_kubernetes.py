"""Reading `kubectl get nodes -o json` and grouping the GPU nodes (`host.kubernetes`), on
real-shaped documents (tests/fixtures/kubernetes/) and hostile ones."""

from __future__ import annotations

import copy
import json
import os
import re

from pathlib import Path
from typing import Any

import pytest

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import UsageError
from poetry_cuda.host.kubernetes import Cluster
from poetry_cuda.host.kubernetes import parse_selector
from poetry_cuda.host.kubernetes import read_cluster
from poetry_cuda.host.kubernetes import read_document
from poetry_cuda.host.kubernetes import slug
from poetry_cuda.host.profiles import profile_from_json
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion
from tests.support.kubernetes_nodes import GH200
from tests.support.kubernetes_nodes import L4
from tests.support.kubernetes_nodes import cluster
from tests.support.kubernetes_nodes import gpu_node
from tests.support.kubernetes_nodes import node
from tests.support.kubernetes_nodes import node_list


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "kubernetes"
SAFE_NAME = re.compile(r"k8s-[a-z0-9][a-z0-9.-]{0,100}")


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def read(document: object, **options: Any) -> Cluster:
    return read_cluster(document, "nodes.json", **options)


def groups(document: object, **options: Any) -> dict[str, Any]:
    return {group.name: group for group in read(document, **options).groups}


def refused(document: object) -> str:
    with pytest.raises(InputFileError) as caught:
        read(document)
    assert caught.value.exit_code == 2
    return caught.value.what


# The real shapes


def test_a_mixed_cluster_of_three_products_and_two_driver_branches() -> None:
    found = read(fixture("mixed-x86_64.json"))
    assert [group.name for group in found.groups] == [
        "k8s-a100-535",
        "k8s-l4-570",
        "k8s-rtx5090-570",
    ]
    a100, l4, rtx5090 = found.groups
    assert a100.nodes == tuple(f"gpu-a100-{i}" for i in range(4))
    assert (a100.driver, a100.cuda) == (DriverVersion.parse("535.183.01"), CudaVersion(12, 2))
    assert a100.capability == ComputeCapability(8, 0)
    assert a100.products == ("NVIDIA-A100-SXM4-80GB",)
    assert a100.gpus == 32
    assert (l4.driver, l4.cuda, l4.capability) == (
        DriverVersion.parse("570.172.08"),
        CudaVersion(12, 8),
        ComputeCapability(8, 9),
    )
    assert rtx5090.capability == ComputeCapability(12, 0)
    assert len(rtx5090.nodes) == 4
    assert {(g.os, g.machine) for g in found.groups} == {("linux", "x86_64")}
    assert found.cpu_only == ("cp-0", "cpu-worker-0")
    assert found.unlabelled == ()
    assert (found.read, found.matched) == (13, 13)


def test_an_aarch64_gh200_pool_from_the_api_servers_node_list() -> None:
    document = fixture("gh200-aarch64.json")
    assert document["kind"] == "NodeList"
    assert all("kind" not in item for item in document["items"])  # as the API server lists them
    (group,) = read(document).groups
    assert group.name == "k8s-gh200-580"
    assert (group.os, group.machine) == ("linux", "aarch64")
    assert (group.cuda, group.capability) == (CudaVersion(13, 0), ComputeCapability(9, 0))
    profile = group.profile()
    assert profile.machine == "aarch64"
    assert [gpu.name for gpu in profile.gpus] == ["NVIDIA-GH200-480GB"]


def test_a_mig_node_keeps_its_gpus_compute_capability() -> None:
    document = fixture("mig-node.json")
    assert document["kind"] == "Node"  # `kubectl get node NAME -o json`
    labels = document["metadata"]["labels"]
    assert labels["nvidia.com/gpu.product"] == "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb"
    (group,) = read(document).groups
    assert group.name == "k8s-a100-535"
    assert group.capability == ComputeCapability(8, 0)
    assert group.products == ("NVIDIA-A100-SXM4-80GB",)
    assert group.partitions == ("MIG-1g.10gb",)
    assert group.gpus == 56  # MIG devices, as GFD counts them under the single strategy


def test_both_label_generations() -> None:
    found = groups(fixture("label-generations.json"))
    assert sorted(found) == ["k8s-a10g-550", "k8s-l40s-570", "k8s-t4-525"]
    t4 = found["k8s-t4-525"]  # GFD v0.8: the older names only
    assert (t4.driver, t4.cuda) == (DriverVersion.parse("525.105.17"), CudaVersion(12, 0))
    assert t4.capability == ComputeCapability(7, 5)
    a10g = found["k8s-a10g-550"]  # both names, and a driver version of two parts
    assert str(a10g.driver) == "550.120"
    assert a10g.cuda == CudaVersion(12, 4)
    l40s = found["k8s-l40s-570"]  # the newer names only
    assert (str(l40s.driver), l40s.cuda) == ("570.172.08", CudaVersion(12, 8))


def test_the_newer_label_names_win() -> None:
    item = gpu_node("gpu-0", L4)
    item["metadata"]["labels"] |= {
        "nvidia.com/cuda.driver.major": "535",
        "nvidia.com/cuda.runtime.major": "12",
        "nvidia.com/cuda.runtime.minor": "2",
    }
    (group,) = read(node_list([item])).groups
    assert (str(group.driver), group.cuda) == ("570.172.08", CudaVersion(12, 8))


def test_the_older_parts_when_the_full_versions_are_missing() -> None:
    item = gpu_node("gpu-0", L4, generation="old")
    labels = item["metadata"]["labels"]
    labels["nvidia.com/cuda.driver.rev"] = ""  # GFD writes it empty for 550.120
    (group,) = read(node_list([item])).groups
    assert str(group.driver) == "570.172"


def test_a_driver_gfd_could_not_read() -> None:
    item = gpu_node("orin-0", L4, labels={"nvidia.com/gpu.product": "Orin"})
    labels = item["metadata"]["labels"]
    labels["nvidia.com/cuda.driver-version.full"] = "unknown.unknown.unknown"
    for key in ("major", "minor", "revision"):
        labels[f"nvidia.com/cuda.driver-version.{key}"] = "unknown"
    for key in ("major", "minor", "rev"):
        labels[f"nvidia.com/cuda.driver.{key}"] = "unknown"
    (group,) = read(node_list([item])).groups
    assert group.driver is None
    assert group.cuda == CudaVersion(12, 8)
    assert group.name == "k8s-orin-cuda12.8"
    profile = group.profile()
    assert profile.driver is not None
    assert (profile.driver.version, profile.driver.cuda) == (None, CudaVersion(12, 8))


def test_arch_and_os_from_node_info_when_unlabelled() -> None:
    item = gpu_node("gh200-0", GH200)
    labels = item["metadata"]["labels"]
    for key in ("kubernetes.io/arch", "beta.kubernetes.io/arch", "kubernetes.io/os"):
        del labels[key]
    del labels["beta.kubernetes.io/os"]
    (group,) = read(node_list([item])).groups
    assert (group.os, group.machine) == ("linux", "aarch64")


# Which nodes count


def test_gpu_nodes_without_gfd_labels_are_listed_not_guessed() -> None:
    marks: list[dict[str, Any]] = [
        node("operator", {"nvidia.com/gpu.present": "true"}),
        node("nfd", {"feature.node.kubernetes.io/pci-0302_10de.present": "true"}),
        node("gke", {"cloud.google.com/gke-accelerator": "nvidia-l4"}),
        node("by-hand", {"nvidia.com/gpu.product": "NVIDIA-GH200-480GB"}),
        node("capacity", gpus=2, resource="nvidia.com/mig-1g.10gb"),
        node("cpu", {"feature.node.kubernetes.io/pci-15b3.present": "true"}),
    ]
    found = read(node_list(marks))
    assert found.groups == ()
    assert found.unlabelled == ("by-hand", "capacity", "gke", "nfd", "operator")
    assert found.cpu_only == ("cpu",)


def test_gpu_only_leaves_the_cpu_nodes_out() -> None:
    found = read(fixture("mixed-x86_64.json"), gpu_only=True)
    assert found.cpu_only == ()
    assert len(found.groups) == 3


def test_a_selector_keeps_the_nodes_a_node_selector_would() -> None:
    document = fixture("mixed-x86_64.json")
    found = read(document, selector=parse_selector(["example.com/pool=l4"]))
    assert [g.name for g in found.groups] == ["k8s-l4-570"]
    assert (found.read, found.matched, found.cpu_only) == (13, 3, ())
    both = parse_selector(["example.com/pool=l4,node.kubernetes.io/instance-type=g6.12xlarge"])
    assert [g.name for g in read(document, selector=both).groups] == ["k8s-l4-570"]
    assert read(document, selector=(*both, ("example.com/pool", "a100"))).matched == 0
    empty = read(document, selector=parse_selector(["example.com/pool=tpu"]))
    assert (empty.groups, empty.matched) == ((), 0)


@pytest.mark.parametrize(
    "text",
    ["pool", "=l4", "pool!=l4", "pool==l4", "pool in (a,b)", "a b=c", "pool=" + "x" * 64, ""],
)
def test_a_selector_is_key_equals_value(text: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_selector([text])
    assert "--selector" in caught.value.what
    assert caught.value.exit_code == 2


def test_selector_values_may_be_empty_and_repeat() -> None:
    assert parse_selector(["a=", "b=c,a="]) == (("a", ""), ("b", "c"))


# Names


@pytest.mark.parametrize(
    ("product", "expected"),
    [
        ("NVIDIA-A100-SXM4-80GB", "a100"),
        ("A100-SXM4-40GB", "a100"),  # older drivers left out the vendor
        ("NVIDIA-H100-80GB-HBM3", "h100"),
        ("NVIDIA-H100-PCIe", "h100"),
        ("NVIDIA-GH200-480GB", "gh200"),
        ("NVIDIA-GH200-144G-HBM3e", "gh200"),
        ("NVIDIA-GeForce-RTX-5090", "rtx5090"),
        ("NVIDIA-RTX-A6000", "rtxa6000"),
        ("NVIDIA-RTX-6000-Ada-Generation", "rtx6000-ada"),
        ("NVIDIA-L4", "l4"),
        ("Tesla-T4", "t4"),
        ("NVIDIA-A16-4Q", "a16-4q"),  # a vGPU profile
        ("NVIDIA-TITAN-X-Pascal", "titan-x-pascal"),
        ("NVIDIA", "gpu"),
        ("../../etc/passwd", "etc-passwd"),
        ("", "gpu"),
    ],
)
def test_product_slugs(product: str, expected: str) -> None:
    assert slug(product) == expected


@given(st.text(max_size=80))
def test_any_product_gives_a_safe_slug(product: str) -> None:
    found = slug(product)
    assert re.fullmatch(r"[a-z0-9][a-z0-9-]{0,39}", found), found


def test_groups_of_one_name_are_told_apart_by_their_driver_version() -> None:
    items = [
        gpu_node("a", L4),
        gpu_node("b", L4, labels={"nvidia.com/cuda.driver-version.full": "570.124.06"}),
    ]
    assert sorted(groups(node_list(items))) == ["k8s-l4-570.124.06", "k8s-l4-570.172.08"]


def test_then_by_compute_capability_and_machine() -> None:
    arm = gpu_node("arm", L4)
    arm["metadata"]["labels"]["kubernetes.io/arch"] = "arm64"
    other = gpu_node("sm86", L4, labels={"nvidia.com/gpu.compute.minor": "6"})
    names = sorted(groups(node_list([gpu_node("x86", L4), arm, other])))
    assert names == ["k8s-l4-570-sm86", "k8s-l4-570-sm89-aarch64", "k8s-l4-570-sm89-x86_64"]


def test_a_group_of_several_products_is_named_after_them() -> None:
    items = [gpu_node(f"l4-{i}", L4) for i in range(3)]
    items.append(gpu_node("l40s", L4, labels={"nvidia.com/gpu.product": "NVIDIA-L40S"}))
    (group,) = read(node_list(items)).groups
    assert group.name == "k8s-l4-l40s-570"
    assert group.products == ("NVIDIA-L4", "NVIDIA-L40S")  # most nodes first


# The profile of a group


def test_a_groups_profile_reads_back_as_a_target() -> None:
    (group, *_) = read(fixture("mixed-x86_64.json")).groups
    document = group.profile().to_json()
    assert document["nodes"] == {"count": 4, "names": [f"gpu-a100-{i}" for i in range(4)]}
    back = profile_from_json(json.loads(json.dumps(document)), "hosts/k8s-a100-535.json")
    assert back.label == "the 4 nodes of k8s-a100-535"
    assert back.nodes == group.profile().nodes
    assert back.capabilities == (ComputeCapability(8, 0),)
    assert back.driver is not None
    assert str(back.driver.version) == "535.183.01"
    assert back.to_json() == document


@pytest.mark.parametrize(
    ("nodes", "problem"),
    [
        ({"count": 0, "names": []}, "nodes.count: 0 is not a number of nodes"),
        ({"count": True, "names": []}, "nodes.count: expected an integer"),
        ({"count": 10**7, "names": []}, "is not a number of nodes"),
        ({"count": 1, "names": ["a", "b"]}, "nodes.names: 2 names for 1 nodes"),
        ({"count": 2, "names": ["a", ""]}, "nodes.names[1]: not a node name"),
        ({"count": 1, "names": ["n" * 254]}, "nodes.names[0]: not a node name"),
        ({"count": 1, "names": [1]}, "nodes.names[0]: expected a string"),
        ({"names": []}, "nodes.count: missing"),
        ([], "nodes: expected an object"),
    ],
)
def test_a_profiles_nodes_are_checked(nodes: object, problem: str) -> None:
    document = {"os": "linux", "driver": {"cuda": "12.4"}, "nodes": nodes}
    with pytest.raises(InputFileError) as caught:
        profile_from_json(document, "hosts/k8s-x.json")
    assert problem in caught.value.what


def test_the_names_a_profile_records_are_bounded() -> None:
    items = [gpu_node(f"n{i:05}", L4) for i in range(10_003)]
    (group,) = read(node_list(items)).groups
    nodes = group.profile().nodes
    assert nodes is not None
    assert nodes.count == 10_003
    assert len(nodes.names) == 10_000
    back = profile_from_json(group.profile().to_json(), "k8s-l4-570.json")
    assert back.label == "the 10003 nodes of k8s-l4-570"


# Hostile input: every document gives a cluster or one error naming where


def test_garbage_labels_are_named_with_their_node() -> None:
    what = refused(fixture("garbage-labels.json"))
    assert what == (
        "nodes.json: node gpu-bad-1: label nvidia.com/gpu.compute.major='eight': not a number"
    )


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("nvidia.com/gpu.compute.minor", "-1", "not a number"),
        ("nvidia.com/gpu.compute.major", "٨", "not a number"),  # an Arabic-Indic eight
        ("nvidia.com/gpu.compute.major", 8, "expected a string"),
        ("nvidia.com/gpu.compute.major", ["8"], "expected a string"),
        ("nvidia.com/gpu.compute.major", "9" * 5000, "longer than a label value"),
        ("nvidia.com/cuda.driver-version.full", "5x5.1", "not a driver version"),
        ("nvidia.com/cuda.driver-version.full", "", "not a driver version"),
        ("nvidia.com/cuda.runtime-version.full", "twelve", "not a CUDA version"),
        ("nvidia.com/cuda.runtime-version.full", "12.8.1", "not a CUDA version"),
        ("nvidia.com/gpu.count", "many", "not a number"),
        ("nvidia.com/gpu.product", {"a": 1}, "expected a string"),
        ("kubernetes.io/arch", "x86 64", "not a machine architecture"),
        ("kubernetes.io/os", "plan9", "not an operating system"),
    ],
)
def test_a_bad_label_value(key: str, value: object, problem: str) -> None:
    item = gpu_node("gpu-7", L4)
    item["metadata"]["labels"][key] = value
    what = refused(node_list([gpu_node("gpu-0", L4), item]))
    assert what.startswith(f"nodes.json: node gpu-7: label {key}=")
    assert problem in what
    assert len(what) < 300  # a value is quoted short, never whole


def test_a_bad_part_of_the_older_driver_labels() -> None:
    item = gpu_node("gpu-7", L4, generation="old")
    item["metadata"]["labels"]["nvidia.com/cuda.driver.rev"] = "0x8"
    assert "label nvidia.com/cuda.driver.rev='0x8': not a part" in refused(node_list([item]))


def test_half_a_pair_of_labels() -> None:
    item = gpu_node("gpu-7", L4)
    del item["metadata"]["labels"]["nvidia.com/gpu.compute.minor"]
    what = refused(node_list([item]))
    assert (
        "label nvidia.com/gpu.compute.major='8': given without nvidia.com/gpu.compute.minor" in what
    )


def test_gpu_labels_without_a_driver() -> None:
    item = node("gpu-7", {"nvidia.com/gpu.compute.major": "8", "nvidia.com/gpu.compute.minor": "0"})
    assert "node gpu-7: GPU labels without a driver" in refused(node_list([item]))


def test_a_gpu_node_without_an_architecture() -> None:
    item = gpu_node("gpu-7", L4)
    for key in ("kubernetes.io/arch", "beta.kubernetes.io/arch"):
        del item["metadata"]["labels"][key]
    del item["status"]["nodeInfo"]
    assert "node gpu-7: no kubernetes.io/arch label" in refused(node_list([item]))


def _with(path: tuple[str | int, ...], value: object) -> dict[str, Any]:
    document = node_list([gpu_node("gpu-0", L4), gpu_node("gpu-1", L4)])
    target: Any = document
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return document


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        ([], "(top level): expected an object, got a list"),
        ("nodes", "(top level): expected an object, got 'nodes'"),
        (None, "(top level): expected an object, got None"),
        ({"kind": "PodList", "items": []}, "kind: 'PodList': expected a List or NodeList"),
        ({"kind": "List"}, "items: expected a list of nodes, got None"),
        ({"kind": "List", "items": {}}, "items: expected a list of nodes, got an object"),
        (_with(("items", 1), "gpu-1"), "items[1]: expected a node, got 'gpu-1'"),
        (_with(("items", 1, "kind"), "Pod"), "items[1].kind: 'Pod': not a Node"),
        (_with(("items", 1, "metadata"), []), "items[1].metadata: expected an object"),
        (_with(("items", 1, "metadata", "name"), 7), "items[1].metadata.name: expected a node"),
        (_with(("items", 1, "metadata", "name"), ""), "items[1].metadata.name: expected a node"),
        (_with(("items", 1, "metadata", "name"), "n" * 254), "items[1].metadata.name"),
        (_with(("items", 1, "metadata", "name"), "gpu-0"), "items[1]: node gpu-0 is listed twice"),
        (_with(("items", 1, "metadata", "labels"), ["a=b"]), "node gpu-1: metadata.labels"),
        (_with(("items", 1, "status"), "Ready"), "node gpu-1: status: expected an object"),
        (_with(("items", 1, "status", "nodeInfo"), 1), "node gpu-1: status.nodeInfo"),
    ],
)
def test_a_document_of_the_wrong_shape(document: object, problem: str) -> None:
    what = refused(document)
    assert what.startswith("nodes.json: ")
    assert problem in what


def test_node_info_of_the_wrong_type() -> None:
    item = gpu_node("gpu-1", L4)
    del item["metadata"]["labels"]["kubernetes.io/arch"]
    del item["metadata"]["labels"]["beta.kubernetes.io/arch"]
    item["status"]["nodeInfo"]["architecture"] = ["amd64"]
    assert "node gpu-1: status.nodeInfo.architecture: expected a string" in refused(
        node_list([item])
    )


def test_null_labels_and_status_are_absent() -> None:
    found = read(node_list([{"metadata": {"name": "a", "labels": None}, "status": None}]))
    assert found.cpu_only == ("a",)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
LABEL_KEYS = st.sampled_from(
    [
        "nvidia.com/cuda.driver-version.full",
        "nvidia.com/cuda.driver-version.major",
        "nvidia.com/cuda.driver.rev",
        "nvidia.com/cuda.runtime-version.full",
        "nvidia.com/cuda.runtime.minor",
        "nvidia.com/gpu.compute.major",
        "nvidia.com/gpu.product",
        "nvidia.com/gpu.count",
        "kubernetes.io/arch",
        "kubernetes.io/os",
        "nvidia.com/gpu.present",
    ]
)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_any_json_value_is_a_cluster_or_one_error(document: object) -> None:
    try:
        read(document)
    except InputFileError as error:
        assert error.what.startswith("nodes.json: ")


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(LABEL_KEYS, json_values, max_size=5), json_values)
def test_any_labels_and_status_give_a_cluster_or_one_error(
    labels: dict[str, Any], status: object
) -> None:
    item = gpu_node("gpu-7", L4)
    item["metadata"]["labels"] |= labels
    item["status"] = status
    try:
        found = read(node_list([item]))
    except InputFileError as error:
        assert "gpu-7" in error.what
    else:
        assert found.matched == 1
        for group in found.groups:
            assert SAFE_NAME.fullmatch(group.name)
            profile_from_json(group.profile().to_json(), f"{group.name}.json")


# Reading the bytes


def test_documents_in_utf16_and_with_a_bom(tmp_path: Path) -> None:
    document = fixture("mig-node.json")
    for encoding in ("utf-16", "utf-8-sig", "utf-32"):
        path = tmp_path / f"{encoding}.json"
        path.write_text(json.dumps(document), encoding=encoding)
        assert read(read_document(str(path), None)[0]) == read(document)


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"apiVersion: v1\nitems: []\n", "not valid JSON (line 1, column 1"),
        (b"[" * 100_000 + b"]" * 100_000, "not a readable document"),
        (b'{"items": [' + b"9" * 5000 + b"]}", "not a readable document"),
        (b'{"kind": "\x80"}', "not UTF-8 or UTF-16 text"),
        (b"", "not valid JSON"),
    ],
)
def test_unreadable_documents(tmp_path: Path, data: bytes, problem: str) -> None:
    path = tmp_path / "nodes.json"
    path.write_bytes(data)
    with pytest.raises(InputFileError) as caught:
        read_document(str(path), None)
    assert caught.value.what.startswith(f"{path}: ")
    assert problem in caught.value.what


def test_the_document_is_read_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("poetry_cuda.host.kubernetes.KUBERNETES_LIMIT", 1000)
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps(fixture("mig-node.json")))
    with pytest.raises(InputFileError, match="larger than"):
        read_document(str(path), None)
    with path.open("rb") as stream, pytest.raises(InputFileError, match="larger than"):
        read_document("-", stream)


def test_standard_input(tmp_path: Path) -> None:
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps(fixture("mig-node.json")))
    with path.open("rb") as stream:
        document, origin = read_document("-", stream)
    assert origin == "standard input"
    assert read(document) == read(fixture("mig-node.json"))
    with pytest.raises(UsageError, match="standard input is closed"):
        read_document("-", None)


def test_a_fifo_is_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "nodes.json"
    os.mkfifo(fifo)
    with pytest.raises(InputFileError, match="not a regular file but a named pipe"):
        read_document(str(fifo), None)


# Scale


def test_five_thousand_nodes() -> None:
    document = cluster(5000)
    found = read(copy.deepcopy(document))
    assert found.read == 5000
    assert len(found.cpu_only) == 500
    assert sum(len(group.nodes) for group in found.groups) == 4500
    # Five pools on three patch releases of their driver each.
    assert len(found.groups) == 15
    assert len({group.name for group in found.groups}) == 15
    assert all(SAFE_NAME.fullmatch(group.name) for group in found.groups)
    assert "k8s-gh200-580.95.02" in {group.name for group in found.groups}
    assert found == read(document)  # the same names and groups every time
