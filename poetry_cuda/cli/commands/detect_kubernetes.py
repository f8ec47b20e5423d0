"""`detect --kubernetes`: a cluster's GPU nodes in groups, shown or written as host profiles."""

from __future__ import annotations

import os
import shlex
import sys

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.cli.commands.base import section
from poetry_cuda.cli.markup import escape
from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import UsageError
from poetry_cuda.host.kubernetes import parse_selector
from poetry_cuda.host.kubernetes import read_cluster
from poetry_cuda.host.kubernetes import read_document
from poetry_cuda.host.kubernetes import write_profiles
from poetry_cuda.messages import message


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.cli.commands.base import CudaCommand
    from poetry_cuda.host.kubernetes import Cluster
    from poetry_cuda.host.kubernetes import NodeGroup


NAMES_SHOWN = 5  # the first nodes of a list; the rest are counted
KUBECTL = "the output of `kubectl get nodes -o json`"


def detect_cluster(command: CudaCommand) -> int:
    """Run `detect --kubernetes FILE|-` with its options: the exit code."""
    source = command.option("kubernetes")
    if source is None:
        raise UsageError(
            "--write-targets, --selector and --gpu-only are options of --kubernetes",
            fix=f"add --kubernetes FILE (or --kubernetes=- for standard input) with {KUBECTL}",
        )
    if command.option("target"):
        raise UsageError(
            "--target and --kubernetes cannot be combined",
            fix="validate profiles with `detect --target FILE`, or group a cluster's nodes "
            "with `detect --kubernetes FILE`",
        )
    selector = parse_selector(command.option("selector"))
    if source != "-" and not os.path.lexists(source):  # a broken link: read_document says so
        detect = (
            f"poetry {command.invoked_as}"
            if command.invoked_as.startswith("cuda ")
            else "poetry-cuda detect"
        )
        raise InputFileError(
            message("detect.kubernetes-missing", file=source),
            why=message("detect.kubernetes-missing-why"),
            fix=message("detect.kubernetes-missing-fix", file=shlex.quote(source), detect=detect),
        )
    document, origin = read_document(source, getattr(sys.stdin, "buffer", None))
    cluster = read_cluster(document, origin, selector=selector, gpu_only=command.option("gpu-only"))
    folder = command.option("write-targets")
    written: list[Path] = []
    stale: list[Path] = []
    if folder is not None:
        if not cluster.groups:
            raise InputFileError(
                f"{origin}: no node with GPU Feature Discovery labels"
                + (" matches the selector" if selector else "")
                + "; no profile was written",
                why="a profile is written for each group of GPU nodes that GPU Feature "
                "Discovery labelled with their driver and compute capability",
                fix="check the selector, and that GPU Feature Discovery (NVIDIA's device "
                "plugin or GPU Operator) runs on the GPU nodes",
            )
        written, stale = write_profiles(cluster.groups, Path(folder))
    if command.option("json"):
        report = cluster.to_json()
        if folder is not None:
            report["written"] = [str(path) for path in written]
        command.print_json(report)
    else:
        for line in render(cluster):
            command.line(line)
        if written:
            for group, path in zip(cluster.groups, written, strict=True):
                label = escape(group.profile().label)
                command.line(f"<info>Wrote</info> {escape(str(path))} ({label})")
    for warning in warnings(cluster, stale):
        command.warn(warning)
    return 0


def render(cluster: Cluster) -> list[str]:
    """The readable report: the cluster, each group, the nodes in no group."""
    gpu_nodes = sum(len(group.nodes) for group in cluster.groups)
    groups = len(cluster.groups)
    head = f"<info>Cluster</info>: {escape(cluster.origin)}, {_nodes(cluster.read)}"
    lines = [f"{head}; {gpu_nodes} with GPU labels in {groups} group{'s' * (groups != 1)}"]
    if cluster.selector:
        terms = ", ".join(f"{key}={value}" for key, value in cluster.selector)
        lines.append(f"  {cluster.matched} of them match --selector {escape(terms)}")
    for group in cluster.groups:
        lines += _group(group)
    if not cluster.groups:
        lines.append("<comment>GPU node groups</comment>: none")
    if cluster.cpu_only:
        lines += section(
            f"CPU-only nodes ({len(cluster.cpu_only)})", [f"  {escape(_names(cluster.cpu_only))}"]
        )
    if cluster.unlabelled:
        title = f"GPU nodes without GPU Feature Discovery labels ({len(cluster.unlabelled)})"
        lines += section(title, [f"  {escape(_names(cluster.unlabelled))}"])
    return lines


def _group(group: NodeGroup) -> list[str]:
    cc = group.capability
    products = ", ".join(escape(product) for product in group.products)
    if group.partitions:
        products += f" (as {', '.join(escape(p) for p in group.partitions)})"
    gpus = f"compute capability {cc} ({cc.sm})" if cc else "no compute capability labelled"
    if group.gpus is not None:
        gpus += f", {group.gpus} {'devices' if group.partitions else 'GPUs'} in all"
    driver = str(group.driver) if group.driver else "unknown"
    cuda = str(group.cuda) if group.cuda else "unknown"
    where = f"{group.os} {group.machine}"
    return [
        f"<info>{escape(group.name)}</info>: {_nodes(len(group.nodes))}, {where}",
        f"  GPUs: {products}, {gpus}",
        f"  NVIDIA driver: {driver}, highest CUDA {cuda}",
        f"  Nodes: {escape(_names(group.nodes))}",
    ]


def _nodes(count: int) -> str:
    return f"{count} node{'s' * (count != 1)}"


def _names(names: Sequence[str]) -> str:
    """The first names of a list (as text, not markup), and how many more there are."""
    shown = ", ".join(names[:NAMES_SHOWN])
    rest = len(names) - NAMES_SHOWN
    return shown + (f" and {rest} more" if rest > 0 else "")


def warnings(cluster: Cluster, stale: Sequence[Path]) -> list[str]:
    """What the user should act on: GPU nodes in no group, profiles no group wrote."""
    found = []
    if cluster.unlabelled:
        count = len(cluster.unlabelled)
        found.append(
            f"{_nodes(count)} with an NVIDIA GPU but without GPU Feature Discovery labels "
            f"({_names(cluster.unlabelled)}) {'are' if count != 1 else 'is'} in no group: "
            "nothing tells their driver and compute capability; run GPU Feature Discovery "
            "(NVIDIA's device plugin or GPU Operator) on them"
        )
    found += [
        f"{path}: a profile written from Kubernetes that this run did not write again; "
        "if its nodes are gone, remove it (plans serve them while it is there)"
        for path in stale
    ]
    return found
