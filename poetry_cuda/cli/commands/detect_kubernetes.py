"""`detect --kubernetes`: a cluster's GPU nodes in groups, shown or written as host profiles."""

from __future__ import annotations

import os
import shlex
import sys

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.cli.commands.base import labelled_line
from poetry_cuda.cli.commands.base import section
from poetry_cuda.cli.commands.base import user_language
from poetry_cuda.cli.markup import escape
from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import UsageError
from poetry_cuda.host.kubernetes import STDIN_NAME
from poetry_cuda.host.kubernetes import parse_selector
from poetry_cuda.host.kubernetes import read_cluster
from poetry_cuda.host.kubernetes import read_document
from poetry_cuda.host.kubernetes import write_profiles
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import localize
from poetry_cuda.messages import message


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry_cuda.cli.commands.base import CudaCommand
    from poetry_cuda.host.kubernetes import Cluster
    from poetry_cuda.host.kubernetes import NodeGroup
    from poetry_cuda.messages import Language
    from poetry_cuda.messages import Localized
    from poetry_cuda.messages import Message


NAMES_SHOWN = 5  # the first nodes of a list; the rest are counted


def detect_cluster(command: CudaCommand) -> int:
    """Run `detect --kubernetes FILE|-` with its options: the exit code."""
    source = command.option("kubernetes")
    if source is None:
        raise UsageError(message("k8s.options-need"), fix=message("k8s.options-need-fix"))
    if command.option("target"):
        raise UsageError(message("k8s.with-target"), fix=message("k8s.with-target-fix"))
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
                message(
                    "k8s.no-group-selected" if selector else "k8s.no-group",
                    origin=shown_name(origin),
                ),
                why=message("k8s.no-group-why"),
                fix=message("k8s.no-group-fix"),
            )
        written, stale = write_profiles(cluster.groups, Path(folder))
    if command.option("json"):
        report = cluster.to_json()
        if folder is not None:
            report["written"] = [str(path) for path in written]
        command.print_json(report)
    else:
        language = user_language()
        for line in render(cluster, language):
            command.line(line)
        if written:
            for group, path in zip(cluster.groups, written, strict=True):
                wrote = message("k8s.wrote", path=path, label=group.profile().label)
                command.line(escape(wrote.text(language)))
    for warning in warnings(cluster, stale):
        command.warn(warning)
    return 0


def render(cluster: Cluster, language: Language = "en") -> list[str]:
    """The readable report: the cluster, each group, the nodes in no group."""

    def said(text: Localized) -> str:
        return localize(text, language)

    gpu_nodes = sum(len(group.nodes) for group in cluster.groups)
    groups = len(cluster.groups)
    head = message(
        "k8s.cluster",
        origin=shown_name(cluster.origin),
        nodes=_nodes(cluster.read),
        gpu_nodes=gpu_nodes,
        groups=message("k8s.groups-one" if groups == 1 else "k8s.groups", count=groups),
    )
    lines = [labelled_line(said(head))]
    if cluster.selector:
        terms = ", ".join(f"{key}={value}" for key, value in cluster.selector)
        lines.append(escape(said(message("k8s.matched", count=cluster.matched, terms=terms))))
    for group in cluster.groups:
        lines += _group(group, language)
    if not cluster.groups:
        lines.append(labelled_line(said(message("k8s.no-groups")), "comment"))
    if cluster.cpu_only:
        title = said(message("k8s.cpu-only", count=len(cluster.cpu_only)))
        lines += section(title, [f"  {escape(said(_names(cluster.cpu_only)))}"])
    if cluster.unlabelled:
        title = said(message("k8s.unlabelled", count=len(cluster.unlabelled)))
        lines += section(title, [f"  {escape(said(_names(cluster.unlabelled)))}"])
    return lines


def _group(group: NodeGroup, language: Language) -> list[str]:
    cc = group.capability
    products: Localized = ", ".join(group.products)
    if group.partitions:
        products = message("k8s.as", products=products, partitions=", ".join(group.partitions))
    gpus: Localized = (
        message("k8s.capability", cc=cc, sm=cc.sm) if cc else message("k8s.no-capability")
    )
    if group.gpus is not None:
        total = message(
            "k8s.devices-in-all" if group.partitions else "k8s.gpus-in-all", count=group.gpus
        )
        gpus = Phrase((gpus, total), ", ")
    unknown = message("k8s.unknown")
    lines = [
        message(
            "k8s.group",
            name=group.name,
            nodes=_nodes(len(group.nodes)),
            where=f"{group.os} {group.machine}",
        ),
        message("k8s.group-gpus", products=products, gpus=gpus),
        message("k8s.group-driver", driver=group.driver or unknown, cuda=group.cuda or unknown),
        message("k8s.group-nodes", names=_names(group.nodes)),
    ]
    head, *rest = (line.text(language) for line in lines)
    return [labelled_line(head), *map(escape, rest)]


def _nodes(count: int) -> Message:
    return message("k8s.nodes-one" if count == 1 else "k8s.nodes", count=count)


def _names(names: Sequence[str]) -> Localized:
    """The first names of a list (as text, not markup), and how many more there are."""
    shown = ", ".join(names[:NAMES_SHOWN])
    rest = len(names) - NAMES_SHOWN
    return message("k8s.and-more", names=shown, count=rest) if rest > 0 else shown


def shown_name(origin: str) -> Localized:
    """The document as messages name it: its path, or standard input in the reader's words."""
    return message("k8s.stdin") if origin == STDIN_NAME else origin


def warnings(cluster: Cluster, stale: Sequence[Path]) -> list[Localized]:
    """What the user should act on: GPU nodes in no group, profiles no group wrote."""
    found: list[Localized] = []
    if cluster.unlabelled:
        count = len(cluster.unlabelled)
        found.append(
            message(
                "k8s.unlabelled-warning-one" if count == 1 else "k8s.unlabelled-warning",
                nodes=_nodes(count),
                names=_names(cluster.unlabelled),
            )
        )
    found += [message("k8s.stale-profile", path=path) for path in stale]
    return found
