"""Nodes as `kubectl get nodes -o json` prints them, for `detect --kubernetes`.

`node(...)` builds one Node object in the shape kubectl prints (metadata with labels and
annotations, spec, status with addresses, capacity, conditions, images and nodeInfo), and
`gfd_labels(...)` the labels GPU Feature Discovery writes, in either generation of names
or both (as device plugin v0.15 and later write them). `cluster(count)` is a large mixed
cluster for the scale tests and the benchmark.
"""

from __future__ import annotations

import dataclasses
import itertools
import zlib

from dataclasses import dataclass
from typing import Any
from typing import Literal


Generation = Literal["new", "old", "both"]
ARCHES = {"x86_64": "amd64", "aarch64": "arm64"}
IMAGE_DIGEST = "7089559ce6153018806857f5049085bae15b3bf6f1c8bd19d8b12f707d087dea"


@dataclass(frozen=True)
class Pool:
    """A kind of GPU node: what GFD labels on it."""

    product: str
    driver: str  # as nvidia-smi prints it: 535.183.01
    cuda: str  # the driver's highest CUDA: 12.2
    compute: str  # 8.0
    family: str
    memory: int  # MiB
    count: int  # GPUs per node
    machine: str = "x86_64"
    mode: str = "compute"
    mig_capable: bool = False


A100 = Pool(
    "NVIDIA-A100-SXM4-80GB", "535.183.01", "12.2", "8.0", "ampere", 81920, 8, mig_capable=True
)
L4 = Pool("NVIDIA-L4", "570.172.08", "12.8", "8.9", "ada-lovelace", 23034, 4)
RTX5090 = Pool(
    "NVIDIA-GeForce-RTX-5090", "570.172.08", "12.8", "12.0", "blackwell", 32607, 1, mode="graphics"
)
H100 = Pool(
    "NVIDIA-H100-80GB-HBM3", "570.172.08", "12.8", "9.0", "hopper", 81559, 8, mig_capable=True
)
GH200 = Pool(
    "NVIDIA-GH200-480GB",
    "580.95.05",
    "13.0",
    "9.0",
    "hopper",
    97871,
    1,
    "aarch64",
    mig_capable=True,
)


def gfd_labels(pool: Pool, generation: Generation = "both") -> dict[str, str]:
    """The labels GFD writes on a node of `pool` (without the operator's and NFD's)."""
    driver = pool.driver.split(".")
    major, minor, revision = [*driver, "", ""][:3]
    cuda_major, cuda_minor = pool.cuda.split(".")
    compute_major, compute_minor = pool.compute.split(".")
    labels = {
        "nvidia.com/gfd.timestamp": "1777986932",
        "nvidia.com/gpu.compute.major": compute_major,
        "nvidia.com/gpu.compute.minor": compute_minor,
        "nvidia.com/gpu.count": str(pool.count),
        "nvidia.com/gpu.family": pool.family,
        "nvidia.com/gpu.machine": "PowerEdge-XE9680",
        "nvidia.com/gpu.memory": str(pool.memory),
        "nvidia.com/gpu.mode": pool.mode,
        "nvidia.com/gpu.product": pool.product,
        "nvidia.com/gpu.replicas": "1",
        "nvidia.com/gpu.sharing-strategy": "none",
        "nvidia.com/mig.capable": str(pool.mig_capable).lower(),
        "nvidia.com/mig.strategy": "single",
        "nvidia.com/mps.capable": "false",
        "nvidia.com/vgpu.present": "false",
    }
    if generation in ("new", "both"):
        labels |= {
            "nvidia.com/cuda.driver-version.full": pool.driver,
            "nvidia.com/cuda.driver-version.major": major,
            "nvidia.com/cuda.driver-version.minor": minor,
            "nvidia.com/cuda.driver-version.revision": revision,
            "nvidia.com/cuda.runtime-version.full": pool.cuda,
            "nvidia.com/cuda.runtime-version.major": cuda_major,
            "nvidia.com/cuda.runtime-version.minor": cuda_minor,
        }
    if generation in ("old", "both"):
        labels |= {
            "nvidia.com/cuda.driver.major": major,
            "nvidia.com/cuda.driver.minor": minor,
            "nvidia.com/cuda.driver.rev": revision,
            "nvidia.com/cuda.runtime.major": cuda_major,
            "nvidia.com/cuda.runtime.minor": cuda_minor,
        }
    if generation == "old":  # labels GFD v0.8 did not write yet
        for key in ("nvidia.com/gpu.sharing-strategy", "nvidia.com/mps.capable"):
            del labels[key]
    return dict(sorted(labels.items()))


def operator_labels() -> dict[str, str]:
    """What the GPU Operator and Node Feature Discovery add on a GPU node."""
    return {
        "feature.node.kubernetes.io/pci-10de.present": "true",
        "nvidia.com/gpu-driver-upgrade-state": "upgrade-done",
        "nvidia.com/gpu.deploy.container-toolkit": "true",
        "nvidia.com/gpu.deploy.device-plugin": "true",
        "nvidia.com/gpu.deploy.driver": "pre-installed",
        "nvidia.com/gpu.deploy.gpu-feature-discovery": "true",
        "nvidia.com/gpu.present": "true",
    }


def node(
    name: str,
    labels: dict[str, str] | None = None,
    *,
    machine: str = "x86_64",
    gpus: int = 0,
    resource: str = "nvidia.com/gpu",
    kind: bool = True,
    os_image: str = "Ubuntu 22.04.5 LTS",
) -> dict[str, Any]:
    """One node as kubectl prints it; `labels` are added to the standard ones.

    `kind=False` leaves out `kind` and `apiVersion`, as the items of the API server's own
    NodeList are.
    """
    arch = ARCHES.get(machine, machine)
    standard = {
        "beta.kubernetes.io/arch": arch,
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": arch,
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
    }
    capacity = {"cpu": "96", "ephemeral-storage": "1843194716Ki", "memory": "1056610680Ki"}
    capacity |= {"pods": "110"} | ({resource: str(gpus)} if gpus else {})
    document: dict[str, Any] = {
        "metadata": {
            "annotations": {
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
            "creationTimestamp": "2026-03-19T20:40:47Z",
            "labels": dict(sorted((standard | (labels or {})).items())),
            "name": name,
            "resourceVersion": "37350",
            "uid": f"a585cb64-68e9-4ee3-804e-{zlib.crc32(name.encode()):012x}",
        },
        "spec": {"podCIDR": "10.42.0.0/24", "podCIDRs": ["10.42.0.0/24"]},
        "status": {
            "addresses": [
                {"address": "10.0.0.7", "type": "InternalIP"},
                {"address": name, "type": "Hostname"},
            ],
            "allocatable": capacity,
            "capacity": capacity,
            "conditions": [
                {
                    "lastHeartbeatTime": "2026-03-19T23:18:09Z",
                    "lastTransitionTime": "2026-03-19T20:41:10Z",
                    "message": "kubelet is posting ready status",
                    "reason": "KubeletReady",
                    "status": "True",
                    "type": "Ready",
                }
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "images": [
                {
                    "names": [
                        f"nvcr.io/nvidia/k8s-device-plugin@sha256:{IMAGE_DIGEST}",
                        "nvcr.io/nvidia/k8s-device-plugin:v0.17.0",
                    ],
                    "sizeBytes": 187560257,
                }
            ],
            "nodeInfo": {
                "architecture": arch,
                "bootID": "dc5a2572-50c4-4eca-abef-e351a27b5ea2",
                "containerRuntimeVersion": "containerd://2.0.2-k3s2",
                "kernelVersion": "5.15.0-134-generic",
                "kubeProxyVersion": "v1.31.6+rke2r1",
                "kubeletVersion": "v1.31.6+rke2r1",
                "machineID": "a0f3ff3098744fe795119b2019c06253",
                "operatingSystem": "linux",
                "osImage": os_image,
                "systemUUID": "4c191a84-2005-45b5-8f39-fc647c71a75f",
            },
        },
    }
    if kind:
        document = {"apiVersion": "v1", "kind": "Node"} | document
    return document


def gpu_node(
    name: str, pool: Pool, *, generation: Generation = "both", labels: dict[str, str] | None = None
) -> dict[str, Any]:
    """A GPU node of `pool`, labelled by GFD, the GPU Operator and NFD (and `labels`)."""
    every = operator_labels() | gfd_labels(pool, generation) | (labels or {})
    return node(name, every, machine=pool.machine, gpus=pool.count)


def node_list(items: list[dict[str, Any]], kind: str = "List") -> dict[str, Any]:
    """kubectl's `List` (what `kubectl get nodes -o json` prints) or the API's `NodeList`."""
    if kind == "NodeList":
        return {"kind": "NodeList", "apiVersion": "v1", "metadata": {}, "items": items}
    return {"apiVersion": "v1", "items": items, "kind": kind, "metadata": {"resourceVersion": ""}}


CLUSTER_POOLS = (A100, L4, RTX5090, H100, GH200)


def cluster(count: int) -> dict[str, Any]:
    """A List of `count` nodes: every tenth a CPU-only node, the rest GPU nodes of the
    five pools in turn, a few hundred of them on each of three driver patch releases."""
    items = []
    pools = itertools.cycle(CLUSTER_POOLS)
    for index in range(count):
        name = f"node-{index:05}"
        if index % 10 == 9:
            items.append(node(name))
            continue
        pool = next(pools)
        patch = index // 1000 % 3
        driver = ".".join([*pool.driver.split(".")[:2], f"{patch + 1:02}"])
        items.append(gpu_node(name, dataclasses.replace(pool, driver=driver)))
    return node_list(items)
