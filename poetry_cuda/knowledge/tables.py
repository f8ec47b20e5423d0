"""The knowledge base's tables: every row of ``data/*.toml`` checked and typed.

A data folder holds ``nvidia.toml`` (driver tables), ``fixed.toml`` (flavours named by
the project, packages that build with nvcc, what doctor reads of their installed builds),
``mirrors.toml`` (mirrors known by name), ``toolkit_wheels.toml`` (`toolkit = "wheels"`),
``redist_components.toml`` (`toolkit = "redist"`) and one file per package family. Every
key is checked while reading: an unknown key, a malformed version or a row without a
source is an `InputFileError` that names the file and the key.

Every row carries `source` and `confidence`; nested rows (a release's variants, a
variant's requirements) inherit them unless they give their own. A row whose own
confidence is ``uncertain`` must say what is unconfirmed in `note`, which is for
maintainers and not loaded. Which files a folder holds and how they are read is `loader`'s.
"""

from __future__ import annotations

import dataclasses
import re

from collections.abc import Mapping
from typing import TYPE_CHECKING
from typing import Any
from typing import get_args

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from poetry_cuda.accelerators import accelerator_of
from poetry_cuda.accelerators import stack_name
from poetry_cuda.errors import InputFileError
from poetry_cuda.files import parse_toml
from poetry_cuda.knowledge.base_images import CUDNN_TAGS
from poetry_cuda.knowledge.base_images import BaseImage
from poetry_cuda.knowledge.model import LAYOUTS
from poetry_cuda.knowledge.model import PLATFORMS
from poetry_cuda.knowledge.model import PROBES
from poetry_cuda.knowledge.model import REQUIREMENT_KINDS
from poetry_cuda.knowledge.model import TOOLKIT_ROOTS
from poetry_cuda.knowledge.model import ArchRange
from poetry_cuda.knowledge.model import Companion
from poetry_cuda.knowledge.model import CompatFloor
from poetry_cuda.knowledge.model import Confidence
from poetry_cuda.knowledge.model import Family
from poetry_cuda.knowledge.model import FixedFlavour
from poetry_cuda.knowledge.model import Installed
from poetry_cuda.knowledge.model import KnowledgeBase
from poetry_cuda.knowledge.model import KnownMirror
from poetry_cuda.knowledge.model import LeadRange
from poetry_cuda.knowledge.model import Mechanism
from poetry_cuda.knowledge.model import NvccParts
from poetry_cuda.knowledge.model import Nvidia
from poetry_cuda.knowledge.model import PlatformArches
from poetry_cuda.knowledge.model import Release
from poetry_cuda.knowledge.model import RequirementKind
from poetry_cuda.knowledge.model import SystemNeed
from poetry_cuda.knowledge.model import ToolkitDriver
from poetry_cuda.knowledge.model import ToolkitPin
from poetry_cuda.knowledge.model import ToolkitWheels
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
    from collections.abc import Iterator


Provenance = tuple[str, Confidence]

SCHEMA = 1
NVIDIA_FILE = "nvidia.toml"
FIXED_FILE = "fixed.toml"
MIRRORS_FILE = "mirrors.toml"
TOOLKIT_WHEELS_FILE = "toolkit_wheels.toml"
REDIST_COMPONENTS_FILE = "redist_components.toml"
BASE_IMAGES_FILE = "base_images.toml"
# The tables of a data folder that are no package family, in the order they are read.
TABLE_FILES = (
    NVIDIA_FILE,
    FIXED_FILE,
    MIRRORS_FILE,
    TOOLKIT_WHEELS_FILE,
    REDIST_COMPONENTS_FILE,
    BASE_IMAGES_FILE,
)
Documents = Mapping[str, dict[str, Any]]
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
        linux = row.parsed("linux", DriverVersion.parse) if row.has("linux") else None
        windows = row.parsed("windows", DriverVersion.parse) if row.has("windows") else None
        source, confidence = provenance(row)
        if linux is None and (windows is not None or confidence != "uncertain"):
            raise row.error("linux", "only an uncertain row with no driver may leave it out")
        toolkits.append(ToolkitDriver(cuda, linux, windows, source, confidence))
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
    _check_accelerator(row, name, cuda)
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
    versions = row.parsed_list("versions", _version)
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
        versions=versions,
    )


def _check_accelerator(row: Table, name: str, cuda: CudaVersion | None) -> None:
    """A variant's label names its accelerator (`accelerators.accelerator_of`), and only a
    CUDA build has a CUDA version."""
    accelerator = accelerator_of(name)
    if accelerator is None:
        raise row.error(
            "name",
            f"{name!r} names no accelerator (expected e.g. 'cu124', 'rocm6.4', 'xpu', 'cpu')",
        )
    if accelerator == "cuda" and cuda is None:
        raise row.error("cuda", f"missing: {name} is a CUDA build")
    if accelerator != "cuda" and cuda is not None:
        raise row.error("cuda", f"{name} is a {stack_name(accelerator)} build, not a CUDA one")


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
    requires_python = row.parsed("requires_python", _spec) if row.has("requires_python") else None
    pypi_table = row.value("pypi", dict, "a table of platform = variant", {})
    leads = [pair[lead] for pair in pairs]
    variants = []
    for table in row.tables("variant", by("name")):
        variant = _variant(table, (source, confidence))
        stray = [v for v in variant.versions if v not in leads]
        if stray:
            raise row.error(
                f"variant.{variant.name}.versions",
                f"{', '.join(stray)} is not a {lead} version of {series}",
            )
        variants.append(variant)
    names = [v.name for v in variants]
    pypi: dict[str, str] = {}
    for platform, variant in pypi_table.items():
        if platform not in PLATFORMS:
            raise row.error(f"pypi.{platform}", f"not one of {', '.join(PLATFORMS)}")
        if variant not in names:
            raise row.error(f"pypi.{platform}", f"{variant!r} is not a variant of {series}")
        pypi[platform] = variant
    row.done()
    return Release(
        series,
        pairs,
        tuple(variants),
        pypi,
        source,
        confidence,
        version_form,
        ranges,
        requires_python,
    )


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
    installed = head.table("installed", None)
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
        installed=None if installed is None else _installed(installed, lead),
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
        sass = row.parsed_list("sass", _cc)
        ptx = row.parsed_list("ptx", _cc)
        if oldest is None and (sass or ptx):
            oldest = min(sass + ptx)
        built = row.parsed("built", CudaVersion.parse) if row.has("built") else None
        if built is not None and not SpecifierSet(cuda).contains(str(built)):
            raise row.error("built", f"{built} is outside the row's cuda {cuda}")
        platforms = row.parsed_list("platforms", _platform)
        python = row.parsed("requires_python", _spec) if row.has("requires_python") else None
        source, confidence = provenance(row)
        requirements = tuple(
            _requirement(r, (source, confidence), None)
            for r in row.tables("requirement", by("kind"))
        )
        row.done()
        flavours.append(
            FixedFlavour(
                package,
                extra,
                versions,
                cuda,
                oldest,
                requirements,
                source,
                confidence,
                platforms=platforms,
                sass=sass,
                ptx=ptx,
                built=built,
                requires_python=python,
            )
        )
    nvcc = []
    for row in top.tables("nvcc", by("package")):
        package = row.parsed("package", _name)
        at_run_time = row.value("at-run-time", bool, "true or false", False)
        requirement = _requirement(row, None, "nvcc")
        nvcc.append((package, dataclasses.replace(requirement, at_run_time=at_run_time)))
    return tuple(flavours), tuple(nvcc)


def _relative(text: str) -> str:
    """A path below site-packages, as a wheel's RECORD writes one."""
    parts = text.split("/")
    if not text or text.startswith("/") or "\\" in text or ".." in parts or "" in parts:
        raise ValueError(f"{text!r} is not a relative path such as 'torch/version.py'")
    return text


def _module(text: str) -> str:
    if not all(part.isidentifier() for part in text.split(".")):
        raise ValueError(f"{text!r} is not a module name")
    return text


def _pattern(text: str) -> str:
    try:
        groups = re.compile(text).groups
    except re.error as error:
        raise ValueError(f"{text!r} is not a regular expression ({error})") from None
    if groups != 1:
        raise ValueError(f"{text!r} must have one group, the CUDA version")
    return text


def _installed(row: Table, lead: str | None) -> Installed:
    """What doctor reads of a package's installed build; a family's row defaults to its lead."""
    if lead is None or row.has("packages"):
        packages = row.parsed_list("packages", _name)
    else:
        packages = (lead,)
    version_file = row.parsed("version_file", _relative) if row.has("version_file") else None
    pattern = row.parsed("cuda_pattern", _pattern) if row.has("cuda_pattern") else None
    if (version_file is None) != (pattern is None):
        raise row.error("cuda_pattern", "version_file and cuda_pattern go together")
    installed = Installed(
        packages=packages,
        module=row.parsed("module", _module),
        version_file=version_file,
        cuda_pattern=pattern,
        kernels=row.parsed_list("kernels", _relative),
        probe=row.choice("probe", PROBES) if row.has("probe") else None,
        preferred=row.value("preferred", bool, "true or false", False),
        source=row.text("source"),
        confidence=provenance(row)[1],
    )
    row.done()
    return installed


def _mirrors(top: Table) -> tuple[KnownMirror, ...]:
    rows: list[KnownMirror] = []
    for row in top.tables("mirror", lambda r, i: f"{r.get('family', i)}.{r.get('name', i)}"):
        family, name = row.text("family"), row.text("name")
        if any(known.family == family and known.name == name for known in rows):
            raise row.error("name", f"{family}.{name} is listed twice")
        if not _MIRROR_NAME.fullmatch(name):
            raise row.error("name", f"{name!r} is not a name (lower-case letters, digits, '-')")
        url = row.text("url")
        if not _is_template(url):
            raise row.error("url", "must be an https URL template with {variant}")
        source, confidence = provenance(row)
        rows.append(
            KnownMirror(family, name, url, row.choice("layout", LAYOUTS), source, confidence)
        )
        row.done()
    top.done()
    return tuple(rows)


# A mirror's name is what users write in its place (`pytorch = "sjtu"`), compared lower-cased.
_MIRROR_NAME = re.compile("[a-z0-9][a-z0-9-]{0,62}")
# https://host/path with "{variant}" in the path: no userinfo, port, query or fragment, and
# nothing a URL parser could read two ways (the request layer's full rule holds it too).
_TEMPLATE = re.compile(r"https://[a-z0-9.-]+/[A-Za-z0-9._~/{}-]*")


def _is_template(url: str) -> bool:
    return len(url) <= 2048 and "{variant}" in url and _TEMPLATE.fullmatch(url) is not None


# An Ubuntu release as image tags spell it.
_UBUNTU = re.compile(r"ubuntu[0-9]{2}\.[0-9]{2}")


def _base_images(top: Table) -> tuple[BaseImage, ...]:
    rows: list[BaseImage] = []
    for row in top.tables("image", by("cuda")):
        cuda = row.parsed("cuda", Version)
        if len(cuda.release) != 3 or cuda.local or cuda.pre or cuda.post or cuda.dev:
            raise row.error("cuda", "must be a CUDA point release such as 12.4.1")
        if rows and cuda >= rows[-1].cuda:
            raise row.error("cuda", "rows must be ordered newest CUDA first")
        if rows and cuda.release[:2] == rows[-1].cuda.release[:2]:
            raise row.error("cuda", "one row per CUDA minor: its current point release")
        os = tuple(row.texts("os"))
        cudnn_os = tuple(row.texts("cudnn-os", ()))
        if not os or any(not _UBUNTU.fullmatch(name) for name in os):
            raise row.error("os", "must list Ubuntu releases as tags spell them: ubuntu22.04")
        if list(os) != sorted(os, reverse=True):
            raise row.error("os", "must be ordered newest first")
        if any(name not in os for name in cudnn_os):
            raise row.error("cudnn-os", "every release must also be in `os`")
        tag = row.choice("cudnn-tag", CUDNN_TAGS) if row.has("cudnn-tag") else None
        cudnn = row.parsed("cudnn", Version) if row.has("cudnn") else None
        if (tag is None) != (cudnn is None) or (tag is None) != (not cudnn_os):
            raise row.error("cudnn-tag", "cudnn-tag, cudnn and cudnn-os go together")
        if tag is not None and cudnn is not None and tag != "cudnn" and tag[-1] != str(cudnn.major):
            raise row.error("cudnn-tag", f"{tag} tags carry cuDNN {tag[-1]}, not {cudnn}")
        source, confidence = provenance(row)
        rows.append(BaseImage(cuda, os, tag, cudnn, cudnn_os, source, confidence))
        row.done()
    top.done()
    return tuple(rows)


def _toolkit_wheels(top: Table) -> tuple[ToolkitWheels, ...]:
    rows = []
    for row in top.tables("major", by("cuda")):
        major = row.value("cuda", int, "a CUDA major such as 12")
        minors = row.parsed_list("minors", CudaVersion.parse)
        if any(minor.major != major for minor in minors):
            raise row.error("minors", f"every minor must be {major}.x")
        source, confidence = provenance(row)
        packages = row.texts("packages")
        pins = []
        for pin in row.tables("pin", lambda r, i: f"{r.get('package', i)}@{r.get('minor', i)}"):
            package = pin.text("package")
            minor = pin.parsed("minor", CudaVersion.parse)
            if package not in packages or minor not in minors:
                raise pin.error("package", f"{package} {minor} is not among the row's wheels")
            spec = pin.parsed("spec", _spec)
            pins.append(ToolkitPin(package, minor, spec, *provenance(pin, (source, confidence))))
            pin.done()
        rows.append(
            ToolkitWheels(
                cuda=major,
                packages=packages,
                minors=minors,
                nvcc=row.value("nvcc", bool, "true or false"),
                root=row.choice("root", TOOLKIT_ROOTS),
                source=source,
                confidence=confidence,
                pins=tuple(pins),
            )
        )
        row.done()
    top.done()
    return tuple(rows)


def _nvcc_parts(top: Table) -> tuple[NvccParts, ...]:
    rows: list[NvccParts] = []
    for row in top.tables("release", by("first")):
        first = row.parsed("first", CudaVersion.parse)
        if rows and first <= rows[-1].first:
            raise row.error("first", "rows must be in increasing order of `first`")
        names = row.texts("components")
        if "cuda_nvcc" not in names:
            raise row.error("components", "must include cuda_nvcc")
        rows.append(NvccParts(first, names, *provenance(row)))
        row.done()
    top.done()
    if not rows:
        raise top.error("release", "the table has no rows")
    return tuple(rows)


def family_files(documents: Documents) -> Iterator[str]:
    """The names of the package families' files among `documents`."""
    return (name for name in documents if name not in TABLE_FILES)


def validate(documents: Documents) -> KnowledgeBase:
    """The knowledge base of `documents` (as `loader.read_data` names them, parsed), every
    row checked."""
    nvidia = validate_nvidia(documents)
    fixed = _top(FIXED_FILE, documents[FIXED_FILE])
    flavours, nvcc = _fixed(fixed)
    installed = tuple(_installed(row, None) for row in fixed.tables("installed", by("module")))
    fixed.done()
    families = tuple(_family(_top(name, documents[name])) for name in family_files(documents))
    return KnowledgeBase(
        nvidia,
        families,
        flavours,
        nvcc,
        fixed_installed=installed,
        mirrors=validate_mirrors(documents),
        toolkit_wheels=validate_toolkit_wheels(documents),
        nvcc_parts=validate_nvcc_parts(documents),
        base_images=validate_base_images(documents),
    )


# One table of the documents, checked alone: what a command that needs only it reads from
# the compiled form, whose every row the compile checked (`loader`).


def validate_nvidia(documents: Documents) -> Nvidia:
    """Only the driver tables of `documents`, checked."""
    return _nvidia(_top(NVIDIA_FILE, documents[NVIDIA_FILE]))


def validate_mirrors(documents: Documents) -> tuple[KnownMirror, ...]:
    """Only the mirrors known by name, checked."""
    return _mirrors(_top(MIRRORS_FILE, documents[MIRRORS_FILE]))


def validate_toolkit_wheels(documents: Documents) -> tuple[ToolkitWheels, ...]:
    """Only the toolkit wheels per CUDA major, checked."""
    return _toolkit_wheels(_top(TOOLKIT_WHEELS_FILE, documents[TOOLKIT_WHEELS_FILE]))


def validate_nvcc_parts(documents: Documents) -> tuple[NvccParts, ...]:
    """Only the redistributables' components nvcc needs, checked."""
    return _nvcc_parts(_top(REDIST_COMPONENTS_FILE, documents[REDIST_COMPONENTS_FILE]))


def validate_base_images(documents: Documents) -> tuple[BaseImage, ...]:
    """Only NVIDIA's CUDA container images, checked."""
    return _base_images(_top(BASE_IMAGES_FILE, documents[BASE_IMAGES_FILE]))


def validate_installed(documents: Documents) -> tuple[Installed, ...]:
    """Only what doctor reads of installed builds (the families' rows, then fixed.toml's),
    checked."""
    rows = []
    for name in family_files(documents):
        head = _top(name, documents[name]).table("family")
        row = head.table("installed", None)
        if row is not None:
            rows.append(_installed(row, head.parsed("lead", _name)))
    fixed = _top(FIXED_FILE, documents[FIXED_FILE])
    rows += [_installed(row, None) for row in fixed.tables("installed", by("module"))]
    return tuple(rows)
