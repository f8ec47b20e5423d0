"""The GPU nodes of a Kubernetes cluster as host profiles, from `kubectl get nodes -o json`.

GPU Feature Discovery (GFD: NVIDIA's device plugin and GPU Operator run it) labels each
GPU node with the facts a plan depends on: the driver, the highest CUDA it supports and
the GPUs' compute capability. Its label names changed in device plugin v0.15.0:

* ``nvidia.com/cuda.driver-version.{full,major,minor,revision}`` and
  ``nvidia.com/cuda.runtime-version.{full,major,minor}`` since then;
* ``nvidia.com/cuda.driver.{major,minor,rev}`` and ``nvidia.com/cuda.runtime.{major,minor}``
  before, still written beside the new ones.

The newer name is read first. ``cuda.runtime-version`` is the driver's highest CUDA (what
nvidia-smi calls "CUDA Version"), not a toolkit. ``nvidia.com/gpu.compute.{major,minor}``
of a MIG-partitioned GPU stay its own (a MIG slice has no compute capability of its own),
while ``nvidia.com/gpu.product`` gains a ``-MIG-<profile>`` suffix (``-SHARED`` under
time-slicing), which is left out of the product's name here. The machine and the
operating system come from the ``kubernetes.io/arch`` and ``kubernetes.io/os`` labels,
else from ``status.nodeInfo``.

Nodes are grouped by what a plan depends on: operating system, machine, driver, its
highest CUDA and the compute capability; a group is named after its products and driver
branch (``k8s-a100-535``). A node with no GFD label is a CPU-only node, or a GPU node
without GFD labels when other labels or its capacity say it has an NVIDIA GPU: such a node
is listed, never guessed at. A label poetry-cuda reads that holds no valid value stops the
reading (exit 2) with the node and the label named.

Reading is bounded (`KUBERNETES_LIMIT`), parsing total (any JSON document gives a result
or one error naming where) and linear in the number of nodes. Memory is bounded by the
document's size: a parsed JSON value costs at most `VALUE_COST` bytes beyond its text, and
a document is refused before parsing where its values (counted by the characters that open
or separate them) would cost more than `PARSE_BUDGET` allows; while parsing, each node keeps
only the fields read here (`_kept`), so a real node list needs little more than its text.
Together: peak memory <= 10 x the document + 64 MiB (+ the interpreter).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import TypeVar

from poetry_cuda.display import quoted
from poetry_cuda.errors import InputFileError
from poetry_cuda.errors import UsageError
from poetry_cuda.errors import os_problem
from poetry_cuda.files import PROFILE_LIMIT
from poetry_cuda.files import MiB
from poetry_cuda.files import read_bounded
from poetry_cuda.files import refused
from poetry_cuda.files import replace_bytes
from poetry_cuda.host.profiles import MACHINE
from poetry_cuda.host.profiles import NODE_NAME
from poetry_cuda.host.profiles import NODE_NAME_LIMIT
from poetry_cuda.host.profiles import NODE_NAMES_RECORDED
from poetry_cuda.host.profiles import Driver
from poetry_cuda.host.profiles import Gpu
from poetry_cuda.host.profiles import HostProfile
from poetry_cuda.host.profiles import Nodes
from poetry_cuda.host.profiles import canonical_machine
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import message
from poetry_cuda.records import frozen
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Iterable
    from collections.abc import Mapping
    from collections.abc import Sequence
    from typing import BinaryIO

    from poetry_cuda.host.profiles import OperatingSystem
    from poetry_cuda.messages import Localized
    from poetry_cuda.messages import Message


T = TypeVar("T")

__all__ = [
    "KUBERNETES_LIMIT",
    "Cluster",
    "NodeGroup",
    "parse_selector",
    "read_cluster",
    "read_document",
    "write_profiles",
]

# `kubectl get nodes -o json` prints 5 to 40 KiB a node (most of it the images the node
# holds, and managedFields in older kubectl); 5,000 nodes, Kubernetes' largest supported
# cluster, stay under this.
KUBERNETES_LIMIT = 256 * MiB
# What parsing may cost beyond the text (read once, then decoded): the values' objects, at
# most `VALUE_COST` bytes each (measured: 74 for a two-character string with its slot in a
# list, 40 for an empty list per opening character), their text counted in the document's.
# kubectl's output has one `{`, `[`, `,` or `:` in 14 bytes (compact) to 40 (indented).
VALUE_COST = 80
PARSE_BUDGET = (8, 64 * MiB)  # x the document's bytes, + this
_VALUE_MARKS = (b"{", b"[", b",", b":")
SOURCE = "gpu-feature-discovery"
STDIN = "-"

DRIVER_FULL = "nvidia.com/cuda.driver-version.full"
DRIVER_PARTS = (
    ("nvidia.com/cuda.driver-version.major", "nvidia.com/cuda.driver-version.minor"),
    ("nvidia.com/cuda.driver.major", "nvidia.com/cuda.driver.minor"),
)
DRIVER_REVISIONS = ("nvidia.com/cuda.driver-version.revision", "nvidia.com/cuda.driver.rev")
CUDA_FULL = "nvidia.com/cuda.runtime-version.full"
CUDA_PARTS = (
    ("nvidia.com/cuda.runtime-version.major", "nvidia.com/cuda.runtime-version.minor"),
    ("nvidia.com/cuda.runtime.major", "nvidia.com/cuda.runtime.minor"),
)
COMPUTE = ("nvidia.com/gpu.compute.major", "nvidia.com/gpu.compute.minor")
PRODUCT = "nvidia.com/gpu.product"
COUNT = "nvidia.com/gpu.count"
ARCH = ("kubernetes.io/arch", "beta.kubernetes.io/arch")
OS = ("kubernetes.io/os", "beta.kubernetes.io/os")
# The labels whose presence makes a node one GFD labelled.
GFD_LABELS = (
    DRIVER_FULL,
    *(key for pair in DRIVER_PARTS for key in pair),
    CUDA_FULL,
    *(key for pair in CUDA_PARTS for key in pair),
    *COMPUTE,
)
# What says a node has an NVIDIA GPU when GFD has not labelled it: the GPU Operator's
# mark, Node Feature Discovery's PCI vendor 10de labels (their name depends on NFD's
# configuration), a product labelled by hand, and the accelerator labels of GKE and
# CoreWeave; or an `nvidia.com/...` extended resource in the node's capacity.
GPU_PRESENT = "nvidia.com/gpu.present"
GPU_ACCELERATOR_LABELS = ("cloud.google.com/gke-accelerator", "gpu.nvidia.com/model")
NFD_PCI = re.compile(r"feature\.node\.kubernetes\.io/pci-(?:[0-9a-f]{4}_)?10de\.present")
# GFD writes `unknown` for versions it cannot read (the Tegra CUDA library path).
UNKNOWN = "unknown"
# How much of a value an error quotes.
BRIEF = 80
# Kubernetes caps a label value at 63 characters.
LABEL_VALUE_LIMIT = 63
_DIGITS = re.compile(r"[0-9]{1,9}")
# A product name's vendor and brand words, and the words after the model that name a form
# factor or memory (SXM4, PCIe, 80GB, HBM3, NVL), which a group's name leaves out.
_VENDOR_WORDS = frozenset({"nvidia", "geforce", "tesla", "quadro"})
_SPEC_WORD = re.compile(r"(?:[0-9]+(?:gb|g|mb|tb)|sxm[0-9]*|pcie|hbm[0-9]*e?|nvl[0-9]*|generation)")
SLUG_LIMIT = 40
SLUG_WORDS = 3

STDIN_NAME = "standard input"  # the document's name in JSON (`source`)
WHY = message("k8s.why")
FIX = message("k8s.fix")
LABEL_WHY = message("k8s.label-why")
# What keeps only the fields poetry-cuda reads of a node list.
SLIMMED = (
    "kubectl get nodes -o json | jq '{items: [.items[] | {metadata: {name: .metadata.name, "
    "labels: .metadata.labels}, status: {nodeInfo: .status.nodeInfo, capacity: "
    ".status.capacity}}]}'"
)


@frozen
class NodeFacts:
    """What the GFD labels of a GPU node say (many nodes share them: one pool's)."""

    os: OperatingSystem
    machine: str
    driver: DriverVersion | None
    cuda: CudaVersion | None
    capability: ComputeCapability | None
    product: str  # without a MIG or sharing suffix
    partition: str  # that suffix ("MIG-1g.10gb", "SHARED"), or ""
    gpus: int | None  # `nvidia.com/gpu.count`

    @property
    def planned(self) -> tuple[object, ...]:
        """What a plan depends on, and so what makes two nodes one group."""
        return (self.os, self.machine, self.driver, self.cuda, self.capability)


Node = tuple[str, NodeFacts]  # a GPU node: its name and facts
# The labels and node info a node's facts are read from: nodes that have the same values
# have the same facts, read once.
FACT_LABELS = (*GFD_LABELS, *DRIVER_REVISIONS, PRODUCT, COUNT, *ARCH, *OS)


@frozen
class NodeGroup:
    """GPU nodes a plan cannot tell apart, and the name of their profile."""

    name: str
    os: OperatingSystem
    machine: str
    driver: DriverVersion | None
    cuda: CudaVersion | None
    capability: ComputeCapability | None
    products: tuple[str, ...]  # most nodes first
    partitions: tuple[str, ...]
    nodes: tuple[str, ...]  # sorted
    gpus: int | None  # in all, where every node gives its count

    def profile(self) -> HostProfile:
        """The host profile of the group, as `--write-targets` writes it."""
        driver = None
        if self.driver is not None or self.cuda is not None:
            driver = Driver(self.driver, self.cuda, SOURCE, cuda_source=SOURCE)
        capability = self.capability
        gpus = () if capability is None else self._gpus(capability)
        nodes = Nodes(len(self.nodes), self.nodes[:NODE_NAMES_RECORDED])
        return HostProfile(
            self.os, self.machine, driver, gpus, label=nodes.label(self.name), nodes=nodes
        )

    def _gpus(self, capability: ComputeCapability) -> tuple[Gpu, ...]:
        return tuple(
            Gpu(index, product, capability, SOURCE) for index, product in enumerate(self.products)
        )


@frozen
class Cluster:
    """What one `kubectl get nodes -o json` document says of the cluster's GPUs."""

    origin: str  # the file, or "standard input"
    read: int  # nodes in the document
    matched: int  # of those, the nodes the selector keeps (all without one)
    selector: tuple[tuple[str, str], ...]
    groups: tuple[NodeGroup, ...]  # by name
    cpu_only: tuple[str, ...]  # none with --gpu-only
    unlabelled: tuple[str, ...]  # GPU nodes without GFD labels

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": 1,
            "source": self.origin,
            "nodes": self.read,
            "matched": self.matched,
            "selector": [f"{key}={value}" for key, value in self.selector],
            "groups": [
                {
                    "name": group.name,
                    "products": list(group.products),
                    "partitions": list(group.partitions),
                    "gpus": group.gpus,
                    "profile": group.profile().to_json(),
                }
                for group in self.groups
            ],
            "cpu_only": list(self.cpu_only),
            "without_gpu_labels": list(self.unlabelled),
        }


# Reading the document


def read_document(source: str, stdin: BinaryIO | None) -> tuple[object, str]:
    """The parsed JSON of `source` (a file, or `-` for `stdin`) and how messages name it.

    At most `KUBERNETES_LIMIT` bytes are read; UTF-8, UTF-16 and UTF-32 are read (a
    PowerShell redirection writes UTF-16).
    """
    if source == STDIN:
        name = STDIN_NAME
        data = _read_stream(stdin, name)
    else:
        name = source
        with contextlib.suppress(OSError):  # read_bounded says what is wrong with the path
            if Path(source).stat().st_size > KUBERNETES_LIMIT:
                raise _too_large(name)
        data = read_bounded(Path(source), limit=KUBERNETES_LIMIT, name=name)
    _check_cost(data, name)
    try:
        text = data.decode(json.detect_encoding(data), "surrogatepass")
        del data  # the text alone is kept while parsing
        return json.loads(text, object_hook=_kept), name
    except json.JSONDecodeError as error:
        raise InputFileError(
            message(
                "k8s.not-json",
                name=_named(name),
                line=error.lineno,
                column=error.colno,
                error=error.msg,
            ),
            why=WHY,
            fix=message("k8s.not-json-fix"),
        ) from None
    except UnicodeDecodeError as error:
        raise InputFileError(
            message("k8s.not-text", name=_named(name), reason=error.reason, at=error.start),
            why=WHY,
            fix=FIX,
        ) from None
    except (ValueError, RecursionError) as error:
        unreadable = message("k8s.unreadable-document", name=_named(name))
        raise refused(InputFileError, unreadable, error, why=WHY, fix=FIX) from None


def _check_cost(data: bytes, name: str) -> None:
    """Refuse a document whose values would cost more memory to parse than `PARSE_BUDGET`.

    Each value but the first of a list or an object follows a `,`, each object's value a
    `:`, and each first one its `[` or `{`: counting those characters (inside strings too)
    bounds the number of values from above, at the speed of a byte count.
    """
    values = sum(data.count(mark) for mark in _VALUE_MARKS)
    factor, allowance = PARSE_BUDGET
    if values * VALUE_COST > factor * len(data) + allowance:
        raise InputFileError(
            message(
                "k8s.too-costly", name=_named(name), values=f"{values:,}", size=f"{len(data):,}"
            ),
            why=message("k8s.too-costly-why", memory=f"{values * VALUE_COST // MiB:,}"),
            fix=message("k8s.too-costly-fix", slimmed=SLIMMED),
        )


# The fields of a node read here, by the key that holds them: a node's `metadata`, its
# `status` and the status's `nodeInfo` keep only these while the document is parsed.
_READ_FIELDS = {
    "metadata": frozenset({"name", "labels"}),
    "status": frozenset({"nodeInfo", "capacity"}),
    "nodeInfo": frozenset({"architecture", "operatingSystem"}),
}


def _kept(value: dict[str, Any]) -> dict[str, Any]:
    """An object of the document, once parsed: an object under `metadata`, `status` or
    `nodeInfo` keeps only the fields read from a node's (its images, managed fields and
    conditions, most of kubectl's output, are dropped as soon as they are parsed).

    Nothing read changes: the reader takes those keys of a node only, and elsewhere only
    tells an object from a string.
    """
    for key, fields in _READ_FIELDS.items():
        inner = value.get(key)
        if isinstance(inner, dict) and not inner.keys() <= fields:
            value[key] = {name: inner[name] for name in fields if name in inner}
    return value


def _read_stream(stream: BinaryIO | None, name: str) -> bytes:
    if stream is None or stream.closed:
        raise UsageError(message("k8s.closed", name=_named(name)), fix=message("k8s.closed-fix"))
    if stream.isatty():
        raise UsageError(
            message("k8s.terminal", name=_named(name)), fix=message("k8s.terminal-fix")
        )
    try:
        data = stream.read(KUBERNETES_LIMIT + 1)
    except OSError as error:
        raise InputFileError(
            message("k8s.cannot-read", name=_named(name), error=error.strerror or error)
        ) from None
    if len(data) > KUBERNETES_LIMIT:
        raise _too_large(name)
    return data


def _too_large(name: str) -> InputFileError:
    return InputFileError(
        message("k8s.too-large", name=_named(name), limit=KUBERNETES_LIMIT // MiB),
        why=message("k8s.too-large-why"),
        fix=message("k8s.too-large-fix", slimmed=SLIMMED),
    )


def parse_selector(texts: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """`--selector` values as (key, value) pairs, all of which a node must have.

    Each value is ``KEY=VALUE`` or several joined by commas (as `kubectl -l` takes them):
    what a pod's nodeSelector matches, exact equality.
    """
    pairs = []
    for text in texts:
        for term in text.split(","):
            key, equals, value = term.strip().partition("=")
            if not equals or not _LABEL_KEY.fullmatch(key) or not _LABEL_VALUE.fullmatch(value):
                raise UsageError(
                    message("k8s.selector", text=repr(text), term=repr(term.strip())),
                    why=message("k8s.selector-why"),
                    fix=message("k8s.selector-fix"),
                )
            pairs.append((key, value))
    return tuple(dict.fromkeys(pairs))


# Kubernetes label syntax: an optional DNS prefix and a name of at most 63 characters.
_LABEL_KEY = re.compile(
    r"(?:[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?/)?[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?"
)
_LABEL_VALUE = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?)?")


# Parsing the document


class _Reader:
    """Reads the items of one document; its errors name the document and where in it."""

    def __init__(self, origin: str) -> None:
        self.origin = origin

    def fail(
        self, where: Localized, problem: Localized, *, why: Localized = WHY, fix: Localized = FIX
    ) -> InputFileError:
        at = Phrase((_named(self.origin), where), ": ")
        what = message("schema.at", where=at, problem=problem)
        return InputFileError(what, why=why, fix=fix)

    def items(self, document: object) -> list[Any]:
        """The node objects of a List, a NodeList or a single Node."""
        if not isinstance(document, dict):
            raise self.fail(message("k8s.top-level"), _expected(message("k8s.an-object"), document))
        kind = document.get("kind")
        if kind == "Node":
            return [document]
        if kind not in ("List", "NodeList", None):
            raise self.fail("kind", message("k8s.not-a-list", kind=_brief(kind)))
        items = document.get("items")
        if not isinstance(items, list):
            raise self.fail("items", _expected(message("k8s.a-list"), items))
        return items

    def mapping(self, parent: Mapping[str, Any], key: str, where: Localized) -> Mapping[str, Any]:
        """`parent[key]`, an object (absent or null: empty)."""
        value = parent.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.fail(where, _expected(message("k8s.an-object"), value))
        return value

    def name(self, item: object, index: int) -> str:
        where = f"items[{index}]"
        if not isinstance(item, dict):
            raise self.fail(where, _expected(message("k8s.a-node"), item))
        kind = item.get("kind")
        if kind is not None and kind != "Node":
            raise self.fail(f"{where}.kind", message("k8s.not-a-node", kind=_brief(kind)))
        name = self.mapping(item, "metadata", f"{where}.metadata").get("name")
        if not (
            isinstance(name, str) and len(name) <= NODE_NAME_LIMIT and NODE_NAME.fullmatch(name)
        ):
            raise self.fail(
                f"{where}.metadata.name",
                message("k8s.bad-node-name", limit=NODE_NAME_LIMIT, got=_brief(name)),
            )
        return name


class _Labels:
    """One node's labels, each read as a string no longer than a label value may be."""

    def __init__(self, reader: _Reader, node: str, labels: Mapping[str, Any]) -> None:
        self.reader = reader
        self.node = node
        self.labels = labels

    def fail(self, key: str, value: object, problem: Localized) -> InputFileError:
        return self.reader.fail(
            message("k8s.node", node=self.node),
            message("k8s.label", label=f"{key}={_brief(value)}", problem=problem),
            why=LABEL_WHY,
            fix=message("k8s.label-fix", node=self.node, key=key),
        )

    def get(self, key: str) -> str | None:
        value = self.labels.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise self.fail(key, value, message("k8s.expected-a-string"))
        if len(value) > LABEL_VALUE_LIMIT:
            raise self.fail(key, value, message("k8s.label-too-long", limit=LABEL_VALUE_LIMIT))
        return value

    def text(self, key: str) -> str | None:
        """A label shown as it is (the product), which Kubernetes' label syntax keeps to
        one line of letters, digits, '-', '_' and '.'."""
        value = self.get(key)
        if value is not None and not _LABEL_VALUE.fullmatch(value):
            raise self.fail(key, value, message("k8s.not-label-value"))
        return value

    def first(self, keys: Sequence[str]) -> tuple[str, str] | None:
        """The first of `keys` the node has, and its value."""
        for key in keys:
            value = self.get(key)
            if value is not None:
                return key, value
        return None

    def number(self, key: str) -> int | None:
        value = self.get(key)
        if value is None:
            return None
        if not _DIGITS.fullmatch(value):
            raise self.fail(key, value, message("k8s.not-a-number"))
        return int(value)

    def parsed(self, key: str, text: str, parser: Callable[[str], T], what: Message) -> T:
        try:
            return parser(text)
        except ValueError:
            raise self.fail(key, text, message("k8s.not-a", what=what)) from None

    def driver(self) -> DriverVersion | None:
        full = self.get(DRIVER_FULL)
        if full is not None:
            if full.startswith(UNKNOWN):
                return None
            return self.parsed(
                DRIVER_FULL, full, DriverVersion.parse, message("k8s.driver-version")
            )
        for (major_key, minor_key), revision_key in zip(
            DRIVER_PARTS, DRIVER_REVISIONS, strict=True
        ):
            major = self.get(major_key)
            if major is None:
                continue
            if major == UNKNOWN:
                return None
            parts = [self._part(major_key, major)]
            for key in (minor_key, revision_key):
                part = self.get(key)
                if part:  # GFD writes an empty revision for a two-part version (550.120)
                    parts.append(self._part(key, part))
            return DriverVersion.parse(".".join(parts))
        return None

    def cuda(self) -> CudaVersion | None:
        full = self.get(CUDA_FULL)
        if full is not None:
            if full.startswith(UNKNOWN):
                return None
            return self.parsed(CUDA_FULL, full, _cuda, message("k8s.cuda-version"))
        for major_key, minor_key in CUDA_PARTS:
            pair = self._pair(major_key, minor_key)
            if pair is not None:
                return CudaVersion(*pair)
        return None

    def capability(self) -> ComputeCapability | None:
        pair = self._pair(*COMPUTE)
        return None if pair is None else ComputeCapability(*pair)

    def _pair(self, major_key: str, minor_key: str) -> tuple[int, int] | None:
        major, minor = self.number(major_key), self.number(minor_key)
        if major is None and minor is None:
            return None
        if major is None or minor is None:
            missing, present = (major_key, minor_key) if major is None else (minor_key, major_key)
            raise self.fail(present, self.get(present), message("k8s.without", missing=missing))
        return major, minor

    def _part(self, key: str, text: str) -> str:
        if not _DIGITS.fullmatch(text):
            raise self.fail(key, text, message("k8s.not-driver-part"))
        return text

    def system(self, key: str, keys: Sequence[str], info: Mapping[str, Any]) -> str | None:
        """A label of `keys`, else the node's `status.nodeInfo[key]`."""
        found = self.first(keys)
        if found is not None:
            return found[1]
        value = info.get(key)
        if value is not None and not isinstance(value, str):
            raise self.reader.fail(
                Phrase((message("k8s.node", node=self.node), f"status.nodeInfo.{key}"), ": "),
                _expected(message("k8s.a-string"), value),
            )
        return value


def _named(name: str) -> Localized:
    """How messages name the document: its path, or standard input in the reader's words."""
    return message("k8s.stdin") if name == STDIN_NAME else name


def _expected(what: Message, got: object) -> Message:
    """The problem of a value of another kind than `what`: "expected WHAT, got VALUE"."""
    return message("schema.expected", what=what, got=_brief(got))


def _cuda(text: str) -> CudaVersion:
    if not re.fullmatch(r"[0-9]{1,4}\.[0-9]{1,4}", text):
        raise ValueError(text)
    return CudaVersion.parse(text)


def _machine(labels: _Labels, info: Mapping[str, Any]) -> str:
    found = labels.system("architecture", ARCH, info)
    if found is None:
        raise labels.reader.fail(
            message("k8s.node", node=labels.node),
            message("k8s.no-arch"),
            why=message("k8s.no-arch-why"),
            fix=message("k8s.no-arch-fix"),
        )
    machine = canonical_machine(found)
    if not MACHINE.fullmatch(machine):
        raise labels.fail(ARCH[0], found, message("k8s.not-machine"))
    return machine


def _os(labels: _Labels, info: Mapping[str, Any]) -> OperatingSystem:
    found = labels.system("operatingSystem", OS, info)
    if found is None or found == "linux":  # GFD runs on Linux nodes only
        return "linux"
    if found == "windows":
        return "windows"
    raise labels.fail(OS[0], found, message("k8s.not-os"))


def _product(text: str | None) -> tuple[str, str]:
    """The GPU's name without GFD's MIG and sharing suffixes, and those suffixes."""
    if not text:
        return "NVIDIA GPU", ""
    product, shared, _ = text.partition("-SHARED")
    product, mig, profile = product.partition("-MIG-")
    partition = "-".join(
        p for p in (f"MIG-{profile}" if mig else "", "SHARED" if shared else "") if p
    )
    return product or "NVIDIA GPU", partition


def _has_gpu(labels: Mapping[str, Any], status: Mapping[str, Any]) -> bool:
    """Whether a node without GFD labels still says it has an NVIDIA GPU."""
    if labels.get(GPU_PRESENT) == "true" or isinstance(labels.get(PRODUCT), str):
        return True
    if any(isinstance(labels.get(key), str) for key in GPU_ACCELERATOR_LABELS):
        return True
    if any(NFD_PCI.fullmatch(key) and value == "true" for key, value in labels.items()):
        return True
    capacity = status.get("capacity")
    if isinstance(capacity, dict):
        return any(
            key.startswith("nvidia.com/") and value not in ("0", 0, None)
            for key, value in capacity.items()
        )
    return False


def read_cluster(
    document: object,
    origin: str,
    *,
    selector: Sequence[tuple[str, str]] = (),
    gpu_only: bool = False,
) -> Cluster:
    """The nodes of `document` that match `selector`, GPU nodes grouped.

    `origin` names the document in errors; CPU-only nodes are left out with `gpu_only`.
    """
    reader = _Reader(origin)
    items = reader.items(document)
    seen: set[str] = set()
    matched = 0
    gpu_nodes: list[Node] = []
    read: dict[tuple[object, ...], NodeFacts] = {}
    cpu_only: list[str] = []
    unlabelled: list[str] = []
    for index, item in enumerate(items):
        name = reader.name(item, index)
        if name in seen:
            raise reader.fail(f"items[{index}]", message("k8s.twice", node=name))
        seen.add(name)
        raw_labels = reader.mapping(
            item["metadata"],
            "labels",
            Phrase((message("k8s.node", node=name), "metadata.labels"), ": "),
        )
        if any(raw_labels.get(key) != value for key, value in selector):
            continue
        matched += 1
        status = reader.mapping(
            item, "status", Phrase((message("k8s.node", node=name), "status"), ": ")
        )
        if any(raw_labels.get(key) is not None for key in GFD_LABELS):
            info = reader.mapping(
                status,
                "nodeInfo",
                Phrase((message("k8s.node", node=name), "status.nodeInfo"), ": "),
            )
            gpu_nodes.append((name, _facts(_Labels(reader, name, raw_labels), info, read)))
        elif _has_gpu(raw_labels, status):
            unlabelled.append(name)
        elif not gpu_only:
            cpu_only.append(name)
    return Cluster(
        origin=origin,
        read=len(items),
        matched=matched,
        selector=tuple(selector),
        groups=group_nodes(gpu_nodes),
        cpu_only=tuple(sorted(cpu_only)),
        unlabelled=tuple(sorted(unlabelled)),
    )


def _facts(
    labels: _Labels, info: Mapping[str, Any], read: dict[tuple[object, ...], NodeFacts]
) -> NodeFacts:
    """The node's facts: read from its labels, or as read for a node with the same values."""
    key = (
        *(labels.labels.get(name) for name in FACT_LABELS),
        info.get("architecture"),
        info.get("operatingSystem"),
    )
    try:
        return read[key]
    except KeyError:
        facts = read[key] = _read_facts(labels, info)
    except TypeError:  # a value no label holds (a list, an object): the reading names it
        facts = _read_facts(labels, info)
    return facts


def _read_facts(labels: _Labels, info: Mapping[str, Any]) -> NodeFacts:
    driver, cuda, capability = labels.driver(), labels.cuda(), labels.capability()
    if driver is None and cuda is None:
        raise labels.reader.fail(
            message("k8s.node", node=labels.node),
            message("k8s.no-driver"),
            why=LABEL_WHY,
            fix=message("k8s.restart-gfd"),
        )
    product, partition = _product(labels.text(PRODUCT))
    return NodeFacts(
        os=_os(labels, info),
        machine=_machine(labels, info),
        driver=driver,
        cuda=cuda,
        capability=capability,
        product=product,
        partition=partition,
        gpus=labels.number(COUNT),
    )


# Grouping


def group_nodes(nodes: Iterable[Node]) -> tuple[NodeGroup, ...]:
    """The nodes grouped by their facts, each group named, sorted by name."""
    members: dict[tuple[object, ...], list[Node]] = {}
    for node in nodes:
        members.setdefault(node[1].planned, []).append(node)
    ordered = sorted(members.values(), key=lambda group: _order(group[0][1]))
    names = _names(ordered)
    groups = [_group(name, group) for name, group in zip(names, ordered, strict=True)]
    return tuple(sorted(groups, key=lambda group: group.name))


def _order(facts: NodeFacts) -> tuple[object, ...]:
    """A total order of the facts (None first), so that names are given the same way."""
    return (
        facts.os,
        facts.machine,
        (facts.driver is not None, facts.driver.parts if facts.driver else ()),
        (facts.cuda is not None, facts.cuda or CudaVersion(0, 0)),
        (facts.capability is not None, facts.capability or ComputeCapability(0, 0)),
    )


def _group(name: str, nodes: list[Node]) -> NodeGroup:
    first = nodes[0][1]
    counts = Counter(facts.product for _, facts in nodes)
    products = sorted(counts, key=lambda product: (-counts[product], product))
    counted = [facts.gpus for _, facts in nodes]
    return NodeGroup(
        name=name,
        os=first.os,
        machine=first.machine,
        driver=first.driver,
        cuda=first.cuda,
        capability=first.capability,
        products=tuple(products),
        partitions=tuple(sorted({facts.partition for _, facts in nodes} - {""})),
        nodes=tuple(sorted(node_name for node_name, _ in nodes)),
        gpus=None if None in counted else sum(n for n in counted if n is not None),
    )


def _names(groups: Sequence[list[Node]]) -> list[str]:
    """``k8s-<products>-<driver branch>`` for each group; where groups would share a name,
    the rest of the driver version, then the compute capability, then the machine (each
    where it differs among them) and finally a number tell them apart."""
    names = [f"k8s-{_products_slug(group)}-{_branch(group[0][1])}" for group in groups]
    distinctions = [_distinction(group[0][1]) for group in groups]
    for step in range(3):
        sharing: dict[str, list[int]] = {}
        for index, name in enumerate(names):
            sharing.setdefault(name, []).append(index)
        for members in sharing.values():
            # A fact is added where it tells the groups of a name apart, and only there.
            if len({distinctions[index][step] for index in members}) > 1:
                for index in members:
                    names[index] += distinctions[index][step]
    taken: set[str] = set()
    unique = []
    for name in names:
        candidate, number = name, 1
        while candidate in taken:
            number += 1
            candidate = f"{name}-{number}"
        taken.add(candidate)
        unique.append(candidate)
    return unique


def _distinction(facts: NodeFacts) -> tuple[str, str, str]:
    """What tells apart groups of one name, most telling first: ``.183.01`` (the driver
    version after its branch), ``-sm80``, ``-aarch64``."""
    version = facts.driver.text if facts.driver else ""
    capability = facts.capability
    return (
        version[version.find(".") :] if "." in version else "",
        f"-sm{capability.major}{capability.minor}" if capability else "",
        f"-{facts.machine}",
    )


def _branch(facts: NodeFacts) -> str:
    """The driver branch (``535``), or the highest CUDA where the version is unknown."""
    if facts.driver is not None:
        return str(facts.driver.parts[0])
    cuda = facts.cuda
    return f"cuda{cuda.major}.{cuda.minor}" if cuda else "driver"


def _products_slug(nodes: Sequence[Node]) -> str:
    counts: Counter[str] = Counter()
    for product, count in Counter(facts.product for _, facts in nodes).items():
        counts[slug(product)] += count
    slugs = sorted(counts, key=lambda name: (-counts[name], name))
    joined = slugs[0]
    for more in slugs[1:]:
        if len(joined) + 1 + len(more) > SLUG_LIMIT:
            break
        joined += f"-{more}"
    return joined


def slug(product: str) -> str:
    """A GPU's model in a file name: ``a100`` for NVIDIA-A100-SXM4-80GB, ``rtx5090`` for
    NVIDIA-GeForce-RTX-5090, ``gpu`` where nothing of the name is left."""
    words = [word for word in re.split(r"[^a-z0-9]+", product.lower()) if word]
    model: list[str] = []
    for word in words:
        if word in _VENDOR_WORDS and not model:
            continue
        if _SPEC_WORD.fullmatch(word) and model:
            break
        if model and model[-1] in ("rtx", "gtx"):  # RTX-5090 is the rtx5090
            model[-1] += word
        else:
            model.append(word)
    return "-".join(model[:SLUG_WORDS])[:SLUG_LIMIT].strip("-") or "gpu"


# Writing the profiles


def write_profiles(groups: Sequence[NodeGroup], folder: Path) -> tuple[list[Path], list[Path]]:
    """Write each group's profile to `folder`/`<name>`.json; the files written, and the
    profiles written from Kubernetes before that this run did not write again.

    The folder is created where missing. A file in the way is replaced only when it is a
    profile written from Kubernetes (a regular file whose JSON object has `nodes`):
    anything else, a link included, stops the run before any file is written. Each file
    is replaced atomically, and a link put in its place meanwhile is replaced, never
    followed.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputFileError(
            message("k8s.no-folder", folder=folder, error=os_problem(error)),
            fix=message("k8s.no-folder-fix"),
        ) from None
    paths = [folder / f"{group.name}.json" for group in groups]
    for path in paths:
        _check_replaceable(path)
    for group, path in zip(groups, paths, strict=True):
        document = json.dumps(group.profile().to_json(), indent=2) + "\n"
        replace_bytes(path, document.encode("ascii"), follow_links=False)
    written = set(paths)
    stale = [path for path in sorted(folder.glob("k8s-*.json")) if path not in written]
    return paths, [path for path in stale if _written_from_kubernetes(path)]


def _check_replaceable(path: Path) -> None:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as error:
        raise InputFileError(
            message("k8s.cannot-read", name=path, error=os_problem(error))
        ) from None
    if stat.S_ISLNK(info.st_mode) or not _written_from_kubernetes(path):
        raise InputFileError(
            message("k8s.in-the-way-link", path=path)
            if stat.S_ISLNK(info.st_mode)
            else message("k8s.in-the-way", path=path),
            why=message("k8s.in-the-way-why"),
            fix=message("k8s.in-the-way-fix"),
        )


def _written_from_kubernetes(path: Path) -> bool:
    """Whether `path` is a regular file (not a link) holding a profile with `nodes`."""
    try:
        data = read_bounded(path, limit=PROFILE_LIMIT, follow_links=False)
        document = json.loads(data)
    except (InputFileError, ValueError, RecursionError):
        return False
    return isinstance(document, dict) and isinstance(document.get("nodes"), dict)


def _brief(value: object) -> str:
    """A value as a message shows it: short, and never the repr of a whole document."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return quoted(value, BRIEF)
