"""What was detected: the host profile, and its JSON form.

`detect --json` prints a `HostProfile`; `--target FILE` reads one. A target file may
omit everything but ``os``; `driver.cuda` may then be derived from `driver.version`
with NVIDIA's table (see `poetry_cuda.knowledge`), which is the caller's job.
"""

from __future__ import annotations

import json

from dataclasses import dataclass
from dataclasses import field
from typing import TYPE_CHECKING
from typing import Any
from typing import Literal

from poetry_cuda.errors import InputFileError
from poetry_cuda.files import PROFILE_LIMIT
from poetry_cuda.files import read_bounded
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion


if TYPE_CHECKING:
    from pathlib import Path


SCHEMA = 1
OperatingSystem = Literal["linux", "windows", "macos"]
OPERATING_SYSTEMS: tuple[OperatingSystem, ...] = ("linux", "windows", "macos")
# Other spellings of the machines: Windows' AMD64, x64 in target files, arm64 on Linux.
MACHINE_ALIASES = {"amd64": "x86_64", "x64": "x86_64", "arm64": "aarch64"}


def canonical_machine(machine: str) -> str:
    """`x86_64` or `aarch64` (or the name as given, lowercased, when it is neither)."""
    machine = machine.lower()
    return MACHINE_ALIASES.get(machine, machine)


@dataclass(frozen=True)
class Driver:
    """The NVIDIA driver and the highest CUDA version it supports."""

    version: DriverVersion | None
    cuda: CudaVersion | None
    source: str
    # Where `cuda` came from when another probe than `source` gave it ("nvidia-smi",
    # or "driver table" when derived from the version with NVIDIA's table).
    cuda_source: str | None = None

    def describe(self) -> str:
        version = str(self.version) if self.version else "of unknown version"
        cuda = f"CUDA <= {self.cuda}" if self.cuda else "an unknown CUDA version"
        return f"driver {version} supports {cuda}"


@dataclass(frozen=True)
class Gpu:
    index: int
    name: str
    compute_capability: ComputeCapability
    source: str
    uuid: str | None = None
    memory_mib: int | None = None


@dataclass(frozen=True)
class Toolkit:
    """A system CUDA toolkit (a folder with nvcc or CUDA libraries)."""

    version: str
    root: str
    nvcc: str | None
    source: str

    @property
    def cuda(self) -> CudaVersion:
        return CudaVersion.parse(self.version)


@dataclass(frozen=True)
class Cudnn:
    version: str
    path: str
    source: str


@dataclass(frozen=True)
class Problem:
    """A probe found something present but wrong; `fix` says what to do."""

    probe: str
    message: str
    fix: str


@dataclass(frozen=True)
class ProbeReport:
    """What one probe did: ``found``, ``absent``, ``error``, ``timeout`` or ``skipped``."""

    probe: str
    result: str
    detail: str


@dataclass(frozen=True)
class HostProfile:
    os: OperatingSystem
    machine: str
    driver: Driver | None
    gpus: tuple[Gpu, ...] = ()
    toolkits: tuple[Toolkit, ...] = ()
    cudnn: tuple[Cudnn, ...] = ()
    problems: tuple[Problem, ...] = ()
    probes: tuple[ProbeReport, ...] = ()
    label: str = "this machine"
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def capabilities(self) -> tuple[ComputeCapability, ...]:
        return tuple(sorted({gpu.compute_capability for gpu in self.gpus}))

    def to_json(self) -> dict[str, Any]:
        """The SPEC's profile document (plus `problems` and `probes`)."""
        return {
            "schema": SCHEMA,
            "os": self.os,
            "machine": self.machine,
            "driver": None
            if self.driver is None
            else {
                "version": str(self.driver.version) if self.driver.version else None,
                "cuda": str(self.driver.cuda) if self.driver.cuda else None,
                "source": self.driver.source,
                "cuda_source": self.driver.cuda_source or self.driver.source,
            },
            "gpus": [
                {
                    "index": gpu.index,
                    "name": gpu.name,
                    "compute_capability": str(gpu.compute_capability),
                    "uuid": gpu.uuid,
                    "memory_mib": gpu.memory_mib,
                    "source": gpu.source,
                }
                for gpu in self.gpus
            ],
            "toolkits": [
                {"version": t.version, "root": t.root, "nvcc": t.nvcc, "source": t.source}
                for t in self.toolkits
            ],
            "cudnn": [
                {"version": c.version, "path": c.path, "source": c.source} for c in self.cudnn
            ],
            "problems": [
                {"probe": p.probe, "message": p.message, "fix": p.fix} for p in self.problems
            ],
            "probes": [
                {"probe": p.probe, "result": p.result, "detail": p.detail} for p in self.probes
            ],
        }


class _Reader:
    """Reads one JSON object, naming the file and the dotted key in every error."""

    def __init__(self, origin: str) -> None:
        self.origin = origin

    def fail(self, key: str, problem: str) -> InputFileError:
        return InputFileError(
            f"{self.origin}: {key}: {problem}",
            why="a host profile must follow the documented schema",
            fix="compare it with the output of `poetry-cuda detect --json`",
        )

    def get(self, data: dict[str, Any], key: str, path: str, kind: type, *, required: bool) -> Any:
        if key not in data or data[key] is None:
            if required:
                raise self.fail(path, "missing")
            return None
        value = data[key]
        if kind is int and isinstance(value, bool):
            raise self.fail(path, f"expected an integer, got {value!r}")
        if not isinstance(value, kind):
            raise self.fail(path, f"expected {kind.__name__}, got {type(value).__name__}")
        return value

    def parse(self, path: str, value: str, parser: Any) -> Any:
        try:
            return parser(value)
        except ValueError as error:
            raise self.fail(path, str(error)) from None


def profile_from_json(data: object, origin: str) -> HostProfile:
    """Validate a profile document; `origin` names the file in error messages."""
    reader = _Reader(origin)
    if not isinstance(data, dict):
        raise reader.fail("(top level)", "expected a JSON object")
    schema = reader.get(data, "schema", "schema", int, required=False)
    if schema is not None and schema != SCHEMA:
        raise reader.fail("schema", f"unsupported schema {schema} (this version reads {SCHEMA})")
    os_name = reader.get(data, "os", "os", str, required=True)
    if os_name not in OPERATING_SYSTEMS:
        raise reader.fail("os", f"{os_name!r} is not one of {', '.join(OPERATING_SYSTEMS)}")
    machine = reader.get(data, "machine", "machine", str, required=False) or "x86_64"

    driver = None
    raw_driver = reader.get(data, "driver", "driver", dict, required=False)
    if raw_driver is not None:
        version_text = reader.get(raw_driver, "version", "driver.version", str, required=False)
        cuda_text = reader.get(raw_driver, "cuda", "driver.cuda", str, required=False)
        if version_text is None and cuda_text is None:
            raise reader.fail("driver", "give driver.version, driver.cuda or both")
        driver = Driver(
            version=reader.parse("driver.version", version_text, DriverVersion.parse)
            if version_text
            else None,
            cuda=reader.parse("driver.cuda", cuda_text, CudaVersion.parse) if cuda_text else None,
            source=reader.get(raw_driver, "source", "driver.source", str, required=False)
            or "target",
        )

    gpus = []
    for i, raw in enumerate(reader.get(data, "gpus", "gpus", list, required=False) or []):
        key = f"gpus[{i}]"
        if not isinstance(raw, dict):
            raise reader.fail(key, "expected an object")
        cc_text = reader.get(
            raw, "compute_capability", f"{key}.compute_capability", str, required=True
        )
        index = reader.get(raw, "index", f"{key}.index", int, required=False)
        gpus.append(
            Gpu(
                index=i if index is None else index,
                name=reader.get(raw, "name", f"{key}.name", str, required=False) or "NVIDIA GPU",
                compute_capability=reader.parse(
                    f"{key}.compute_capability", cc_text, ComputeCapability.parse
                ),
                source=reader.get(raw, "source", f"{key}.source", str, required=False) or "target",
                uuid=reader.get(raw, "uuid", f"{key}.uuid", str, required=False),
                memory_mib=reader.get(raw, "memory_mib", f"{key}.memory_mib", int, required=False),
            )
        )
    if gpus and driver is None:
        raise reader.fail("driver", "GPUs are listed but no driver is given")

    toolkits = []
    for i, raw in enumerate(reader.get(data, "toolkits", "toolkits", list, required=False) or []):
        key = f"toolkits[{i}]"
        if not isinstance(raw, dict):
            raise reader.fail(key, "expected an object")
        version = reader.get(raw, "version", f"{key}.version", str, required=True)
        reader.parse(f"{key}.version", version, CudaVersion.parse)
        toolkits.append(
            Toolkit(
                version=version,
                root=reader.get(raw, "root", f"{key}.root", str, required=False) or "",
                nvcc=reader.get(raw, "nvcc", f"{key}.nvcc", str, required=False),
                source=reader.get(raw, "source", f"{key}.source", str, required=False) or "target",
            )
        )

    cudnn = []
    for i, raw in enumerate(reader.get(data, "cudnn", "cudnn", list, required=False) or []):
        key = f"cudnn[{i}]"
        if not isinstance(raw, dict):
            raise reader.fail(key, "expected an object")
        cudnn.append(
            Cudnn(
                version=reader.get(raw, "version", f"{key}.version", str, required=True),
                path=reader.get(raw, "path", f"{key}.path", str, required=False) or "",
                source=reader.get(raw, "source", f"{key}.source", str, required=False) or "target",
            )
        )

    return HostProfile(
        os=os_name,
        machine=machine.lower(),
        driver=driver,
        gpus=tuple(gpus),
        toolkits=tuple(toolkits),
        cudnn=tuple(cudnn),
        label=origin,
    )


def load_target(path: Path, *, label: str | None = None) -> HostProfile:
    """Read and validate a target profile file."""
    name = label or str(path)
    if not path.exists():
        raise InputFileError(
            f"{name}: target file not found",
            fix="check the path given to --target, `targets` or POETRY_CUDA_TARGET",
        )
    data = read_bounded(path, limit=PROFILE_LIMIT, name=name)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputFileError(
            f"{name}: cannot read the target file ({error.__class__.__name__}: {error})",
            fix="make the file readable UTF-8 JSON",
        ) from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputFileError(
            f"{name}: not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})",
            why="a target file is a host profile in JSON",
            fix="write it with `poetry-cuda detect --json > FILE` on the target machine",
        ) from None
    except (ValueError, RecursionError) as error:
        # Valid JSON the parser still refuses: an integer of thousands of digits, or
        # nesting deeper than it recurses.
        raise InputFileError(
            f"{name}: not a readable profile ({error.__class__.__name__}: {str(error)[:200]})",
            why="a target file is a host profile in JSON",
            fix="write it with `poetry-cuda detect --json > FILE` on the target machine",
        ) from None
    return profile_from_json(document, name)
