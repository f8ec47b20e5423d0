"""Reading and validating the knowledge base's TOML files.

A data directory holds ``nvidia.toml`` (driver tables), ``fixed.toml`` (flavours named
by the project, packages that build with nvcc) and one file per package family. Every
key is checked while reading: an unknown key, a malformed version or a row without a
source is an `InputFileError` that names the file and the key.

Every row carries `source` and `confidence`; nested rows (a release's variants, a
variant's requirements) inherit them unless they give their own. A row whose own
confidence is ``uncertain`` must say what is unconfirmed in `note`, which is for
maintainers and not loaded.
"""

from __future__ import annotations

import dataclasses

from typing import TYPE_CHECKING
from typing import Any
from typing import get_args

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from poetry_cuda.errors import InputFileError
from poetry_cuda.files import parse_toml
from poetry_cuda.knowledge.model import PLATFORMS
from poetry_cuda.knowledge.model import REQUIREMENT_KINDS
from poetry_cuda.knowledge.model import ArchRange
from poetry_cuda.knowledge.model import Companion
from poetry_cuda.knowledge.model import CompatFloor
from poetry_cuda.knowledge.model import Confidence
from poetry_cuda.knowledge.model import Family
from poetry_cuda.knowledge.model import FixedFlavour
from poetry_cuda.knowledge.model import KnowledgeBase
from poetry_cuda.knowledge.model import LeadRange
from poetry_cuda.knowledge.model import Mechanism
from poetry_cuda.knowledge.model import Nvidia
from poetry_cuda.knowledge.model import PlatformArches
from poetry_cuda.knowledge.model import Release
from poetry_cuda.knowledge.model import RequirementKind
from poetry_cuda.knowledge.model import SystemNeed
from poetry_cuda.knowledge.model import ToolkitDriver
from poetry_cuda.knowledge.model import Variant
from poetry_cuda.knowledge.model import VersionForm
from poetry_cuda.names import canonical_name
from poetry_cuda.schema import Table
from poetry_cuda.schema import Voice
from poetry_cuda.schema import by
from poetry_cuda.versions import ComputeCapability
from poetry_cuda.versions import CudaVersion
from poetry_cuda.versions import DriverVersion


if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path


Provenance = tuple[str, Confidence]

SCHEMA = 1
NVIDIA_FILE = "nvidia.toml"
FIXED_FILE = "fixed.toml"
CONFIDENCES: tuple[Confidence, ...] = get_args(Confidence)
MECHANISMS: tuple[Mechanism, ...] = get_args(Mechanism)
VERSION_FORMS: tuple[VersionForm, ...] = get_args(VersionForm)


def voice(file: str) -> Voice:
    """How the errors of a packaged data file read: it stops at the first bad row."""
    return Voice(
        InputFileError,
        f"{file}: ",
        why="poetry-cuda checks its knowledge base as it reads it and stops at the first bad row",
        fix=lambda where: (
            f"correct {where} in {file} (a packaged copy that fails here was "
            "modified: reinstall poetry-cuda)"
        ),
    )


def data_table(text: str, file: str, schema: int) -> Table:
    """A packaged data file's top table, once it parses and declares the `schema` read here."""
    try:
        data = parse_toml(text)
    except ValueError as error:
        raise InputFileError(f"{file}: not valid TOML ({error})") from None
    top = Table(data, voice(file))
    if top.value("schema", int, "an integer") != schema:
        raise top.error("schema", f"this poetry-cuda reads schema {schema}")
    return top


def provenance(row: Table, inherited: Provenance | None = None) -> Provenance:
    """The row's source and confidence, or its parent's; uncertainty needs a `note`."""
    own = row.has("confidence")
    if inherited is None:
        source, confidence = row.text("source"), row.choice("confidence", CONFIDENCES)
    else:
        source = row.text("source", inherited[0])
        confidence = row.choice("confidence", CONFIDENCES, inherited[1])
    if row.text("note", None) is None and own and confidence == "uncertain":
        raise row.error("note", "an uncertain row needs a note saying what is unconfirmed")
    return source, confidence


def _cc(text: str) -> ComputeCapability:
    return ComputeCapability.parse(text)


def _spec(text: str) -> str:
    SpecifierSet(text)
    return text


def _version(text: str) -> str:
    Version(text)
    return text


def _name(text: str) -> str:
    if canonical_name(text) != text:
        raise ValueError(f"{text!r} is not a normalized name (write {canonical_name(text)!r})")
    return text


def _url_template(text: str) -> str:
    if not text.startswith("https://") or "{variant}" not in text:
        raise ValueError(f"{text!r} must be an https URL containing '{{variant}}'")
    return text


def _platform(text: str) -> str:
    if text not in PLATFORMS:
        raise ValueError(f"{text!r} is not one of {', '.join(PLATFORMS)}")
    return text


def _requirement(
    row: Table, inherited: Provenance | None, kind: RequirementKind | None
) -> SystemNeed:
    source, confidence = provenance(row, inherited)
    requirement = SystemNeed(
        kind=row.choice("kind", REQUIREMENT_KINDS) if kind is None else kind,
        spec=row.parsed("spec", _spec) if kind is None else row.parsed("spec", _spec, ""),
        reason=row.text("reason"),
        satisfy=row.text("satisfy"),
        source=source,
        confidence=confidence,
    )
    row.done()
    return requirement


def _read(directory: Path, name: str) -> bytes:
    try:
        return (directory / name).read_bytes()
    except OSError as error:
        raise InputFileError(
            f"{name}: cannot be read ({error.strerror or error})",
            fix="reinstall poetry-cuda, whose knowledge base ships this file",
        ) from None


def read_data(directory: Path) -> dict[str, bytes]:
    """The bytes of every data file in `directory` by name: nvidia.toml, fixed.toml, then
    the families' files in name order."""
    families = sorted(
        entry.name
        for entry in directory.iterdir()
        if entry.name.endswith(".toml") and entry.name not in (NVIDIA_FILE, FIXED_FILE)
    )
    return {name: _read(directory, name) for name in (NVIDIA_FILE, FIXED_FILE, *families)}


def parse_data(name: str, data: bytes) -> dict[str, Any]:
    """The TOML document of the data file `name`, read as text mode reads it (LF line breaks)."""
    try:
        text = data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
        return parse_toml(text)
    except ValueError as error:  # tomllib's and tomlkit's parse errors are ValueErrors
        raise InputFileError(
            f"{name}: not valid TOML: {error}",
            fix=f"correct the syntax of {name} (a packaged copy that fails here was modified: "
            "reinstall poetry-cuda)",
        ) from None


def _top(name: str, document: dict[str, Any]) -> Table:
    top = Table(document, voice(name))
    schema = top.value("schema", int, "the schema number")
    if schema != SCHEMA:
        raise top.error("schema", f"is {schema}; this poetry-cuda reads schema {SCHEMA}")
    return top


def _nvidia(top: Table) -> Nvidia:
    toolkits = []
    for row in top.tables("toolkit", by("cuda")):
        cuda = row.parsed("cuda", CudaVersion.parse)
        linux = row.parsed("linux", DriverVersion.parse)
        windows = row.parsed("windows", DriverVersion.parse) if row.has("windows") else None
        toolkits.append(ToolkitDriver(cuda, linux, windows, *provenance(row)))
        row.done()
    floors = []
    for row in top.tables("floor", by("major")):
        major = row.value("major", int, "a CUDA major version")
        linux = row.parsed("linux", DriverVersion.parse)
        windows = row.parsed("windows", DriverVersion.parse)
        floors.append(CompatFloor(major, linux, windows, *provenance(row)))
        row.done()
    arches = []
    for row in top.tables("arch", by("major")):
        major = row.value("major", int, "a CUDA major version")
        arches.append(ArchRange(major, row.parsed("oldest", _cc), *provenance(row)))
        row.done()
    top.done()
    return Nvidia(tuple(toolkits), tuple(floors), tuple(arches))


def _variant(row: Table, inherited: Provenance) -> Variant:
    name = row.text("name")
    cuda = row.parsed("cuda", CudaVersion.parse) if row.has("cuda") else None
    sass = row.parsed_list("sass", _cc)
    ptx = row.parsed_list("ptx", _cc)
    platforms = row.parsed_list("platforms", _platform)
    source, confidence = provenance(row, inherited)
    builds = []
    for build in row.tables("build", by("platform")):
        platform = build.parsed("platform", _platform)
        if platform not in platforms:
            raise build.error("platform", f"{platform} is not among the variant's platforms")
        builds.append(
            PlatformArches(
                platform,
                build.parsed_list("sass", _cc),
                build.parsed_list("ptx", _cc),
                *provenance(build, (source, confidence)),
            )
        )
        build.done()
    requirements = tuple(
        _requirement(r, (source, confidence), None) for r in row.tables("requirement", by("kind"))
    )
    row.done()
    return Variant(
        name=name,
        cuda=cuda,
        sass=sass,
        ptx=ptx,
        platforms=platforms,
        requirements=requirements,
        source=source,
        confidence=confidence,
        platform_arches=tuple(builds),
    )


def _pairs(
    row: Table, lead: str, members: tuple[str, ...]
) -> tuple[tuple[dict[str, str], ...], tuple[LeadRange, ...]]:
    """The release's pairs, and the ranges of the members written as ``{version, requires}``."""
    pairs = []
    ranges = []
    for i, raw in enumerate(row.value("pairs", list, "a list of {member = version} tables")):
        key = f"pairs[{i}]"
        if not isinstance(raw, dict) or lead not in raw:
            raise row.error(key, f"expected a table naming the lead package {lead}, got {raw!r}")
        if not isinstance(raw[lead], str):
            raise row.error(f"{key}.{lead}", "expected a version string: the lead has no range")
        versions: dict[str, str] = {}
        for member, entry in raw.items():
            where = f"{key}.{member}"
            if member not in members:
                raise row.error(where, f"not a member ({', '.join(members)})")
            if isinstance(entry, dict):
                ranged = Table(entry, row.voice, row.where(where))
                versions[member] = ranged.parsed("version", _version)
                requires = ranged.parsed("requires", _spec)
                if not SpecifierSet(requires).contains(raw[lead], prereleases=True):
                    raise ranged.error(
                        "requires", f"leaves out the {lead} {raw[lead]} it is paired with"
                    )
                ranges.append(LeadRange(member, versions[member], requires))
                ranged.done()
            elif isinstance(entry, str):
                versions[member] = row.parse(where, entry, _version)
            else:
                raise row.error(
                    where, f"expected a version string or {{version, requires}}, got {entry!r}"
                )
        # The lead comes first: `Release.versions` reads it from there.
        pairs.append({m: versions[m] for m in members if m in versions})
    return tuple(pairs), tuple(ranges)


def _release(row: Table, lead: str, members: tuple[str, ...]) -> Release:
    series = row.text("series")
    if not all(part.isdigit() for part in series.split(".")):
        raise row.error("series", f"{series!r} is not a release series such as '2.5'")
    version_form = row.choice("version_form", VERSION_FORMS) if row.has("version_form") else None
    source, confidence = provenance(row)
    pairs, ranges = _pairs(row, lead, members)
    pypi_table = row.value("pypi", dict, "a table of platform = variant", {})
    variants = tuple(_variant(v, (source, confidence)) for v in row.tables("variant", by("name")))
    names = [v.name for v in variants]
    pypi: dict[str, str] = {}
    for platform, variant in pypi_table.items():
        if platform not in PLATFORMS:
            raise row.error(f"pypi.{platform}", f"not one of {', '.join(PLATFORMS)}")
        if variant not in names:
            raise row.error(f"pypi.{platform}", f"{variant!r} is not a variant of {series}")
        pypi[platform] = variant
    row.done()
    return Release(series, pairs, variants, pypi, source, confidence, version_form, ranges)


def _family(top: Table) -> Family:
    head = top.table("family")
    name = head.text("name")
    lead = head.parsed("lead", _name)
    members = head.parsed_list("members", _name)
    if lead not in members:
        raise head.error("members", f"must include the lead package {lead}")
    mechanism = head.choice("mechanism", MECHANISMS)
    version_form = head.choice("version_form", VERSION_FORMS)
    index = head.parsed("index", _url_template) if head.has("index") else None
    mirror_key = head.text("mirror_key", None)
    source_prefix = head.text("source_prefix")
    source, confidence = provenance(head)
    companions = _companions(head, members, (source, confidence))
    head.done()
    releases = tuple(_release(r, lead, members) for r in top.tables("release", by("series")))
    top.done()
    return Family(
        name=name,
        lead=lead,
        members=members,
        mechanism=mechanism,
        version_form=version_form,
        index=index,
        mirror_key=mirror_key,
        source_prefix=source_prefix,
        releases=releases,
        source=source,
        companion_rows=companions,
        confidence=confidence,
    )


def _companions(
    head: Table, members: tuple[str, ...], inherited: Provenance
) -> tuple[Companion, ...]:
    rows: list[Companion] = []
    for row in head.tables("companion", by("name")):
        name = row.parsed("name", _name)
        if name in members or any(c.name == name for c in rows):
            raise row.error("name", f"{name} is already a member or a companion")
        labelled = row.value("labelled", bool, "true or false")
        rows.append(Companion(name, labelled, *provenance(row, inherited)))
        row.done()
    return tuple(rows)


def _fixed(top: Table) -> tuple[tuple[FixedFlavour, ...], tuple[tuple[str, SystemNeed], ...]]:
    flavours = []
    for row in top.tables("flavour", by("package")):
        package = row.parsed("package", _name)
        extra = row.parsed("extra", _name) if row.has("extra") else None
        versions = row.parsed("versions", _spec)
        cuda = row.parsed("cuda", _spec)
        oldest = row.parsed("oldest_arch", _cc) if row.has("oldest_arch") else None
        source, confidence = provenance(row)
        requirements = tuple(
            _requirement(r, (source, confidence), None)
            for r in row.tables("requirement", by("kind"))
        )
        row.done()
        flavours.append(
            FixedFlavour(package, extra, versions, cuda, oldest, requirements, source, confidence)
        )
    nvcc = []
    for row in top.tables("nvcc", by("package")):
        package = row.parsed("package", _name)
        at_run_time = row.value("at-run-time", bool, "true or false", False)
        requirement = _requirement(row, None, "nvcc")
        nvcc.append((package, dataclasses.replace(requirement, at_run_time=at_run_time)))
    top.done()
    return tuple(flavours), tuple(nvcc)


def validate(documents: Mapping[str, dict[str, Any]]) -> KnowledgeBase:
    """The knowledge base of `documents` (as `read_data` names them, parsed), every row checked."""
    nvidia = _nvidia(_top(NVIDIA_FILE, documents[NVIDIA_FILE]))
    fixed, nvcc = _fixed(_top(FIXED_FILE, documents[FIXED_FILE]))
    families = tuple(
        _family(_top(name, document))
        for name, document in documents.items()
        if name not in (NVIDIA_FILE, FIXED_FILE)
    )
    return KnowledgeBase(nvidia, families, fixed, nvcc)


def validate_nvidia(documents: Mapping[str, dict[str, Any]]) -> Nvidia:
    """Only the driver tables of `documents`, checked."""
    return _nvidia(_top(NVIDIA_FILE, documents[NVIDIA_FILE]))


def load_directory(directory: Path) -> KnowledgeBase:
    """Read and validate every data file in `directory` (uncached; see `load`)."""
    data = read_data(directory)
    return validate({name: parse_data(name, raw) for name, raw in data.items()})
