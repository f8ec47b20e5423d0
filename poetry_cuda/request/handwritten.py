"""The CUDA configuration a project's authors wrote by hand, recognised.

People reach a working CUDA setup before they find poetry-cuda: sources or indexes of
any name for download.pytorch.org/whl/cu126 (or a mirror of it), `source =` pins and
`[tool.uv.sources]` entries on torch and its family, `+cu118` labels, wheels pinned by
URL, and projects that offer one extra per build. `recognise` reads all of it, so the
plan can take the authors' variant as their request and the lock can adopt what is
already right. It reads; it never decides what to change (see `planning.adoption`).

The package managers' own tables are read by their backends (`TableReader`, in `tables`),
and what they wrote is recognised here, as are PEP 621 and PEP 735 requirement strings;
the helpers the readers share (`label`, `url_pin`, `index_pin`, ...) are public.
"""

from __future__ import annotations

import dataclasses
import re

from dataclasses import field
from typing import TYPE_CHECKING
from typing import Any
from typing import Literal
from urllib.parse import urlsplit

from packaging.requirements import InvalidRequirement
from packaging.requirements import Requirement

from poetry_cuda.accelerators import accelerator_of
from poetry_cuda.knowledge.packaged import rocm as rocm_knowledge
from poetry_cuda.knowledge.packaged import xpu as xpu_knowledge
from poetry_cuda.names import canonical_name
from poetry_cuda.names import wheel_version
from poetry_cuda.records import frozen
from poetry_cuda.request.settings import template_pattern
from poetry_cuda.request.tables import MANAGED_GROUP


if TYPE_CHECKING:
    from collections.abc import Iterator
    from collections.abc import Mapping
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.request.settings import Mirror
    from poetry_cuda.request.tables import TableReader
    from poetry_cuda.request.tables import WrittenIndex


PinKind = Literal["index", "label", "url"]
"""index: pinned to an index of a variant; label: a `+cu118` constraint; url: a wheel URL."""

_LABEL = re.compile(r"\+([A-Za-z0-9][A-Za-z0-9.]*)")
_EXTRA = re.compile(r"""\bextra\s*==\s*['"]([^'"]+)['"]""")
# Paths of indexes that are not a family's release builds (nightlies, release candidates).
_NOT_RELEASES = {"nightly", "test"}


@frozen
class HandIndex:
    """A source or index the authors wrote that serves a family's builds of one variant."""

    name: str
    url: str
    where: str  # "[[tool.poetry.source]]", "[[tool.uv.index]]", "[tool.uv] extra-index-url"
    # The resolver may take packages from it without a pin (uv's indexes unless explicit,
    # Poetry's primary sources), so it selects the variant by itself.
    implicit: bool
    family: str
    variant: str
    upstream: bool  # the family's own index, not a mirror of it
    # A Poetry 1.x priority it is written with (`secondary = true`), which Poetry 2 refuses.
    old_priority: str = ""
    named: bool = True  # a source can name it (see `WrittenIndex.named`)

    @property
    def said(self) -> str:
        return f"{self.where} {self.name!r} ({self.url})"

    @property
    def evidence(self) -> str:
        """What shows the variant, for a plan's reason."""
        return f"its index {self.name} is {self.url}"


@frozen
class HandPin:
    """One hand-written entry that puts a family member on one variant."""

    package: str  # canonical name
    family: str
    variant: str
    kind: PinKind
    where: str  # the table it is written in: "[tool.poetry.dependencies]", "[tool.uv.sources]"
    written: str  # the entry as the authors wrote it, for messages
    index: str | None = None  # the index it names (kind "index")
    url: str = ""  # that index's URL, or the wheel's URL
    version: str | None = None  # the plain version a label or wheel names
    marker: str = ""
    extra: str | None = None  # the extra (or group) it applies to, in a multi-variant project
    extra_kind: Literal["extra", "group"] = "extra"

    @property
    def evidence(self) -> str:
        """What shows the variant, for a plan's reason (which cuda.lock records): its source,
        label or wheel, and the environments the pin is written for (Windows only)."""
        scope = f" (for {self.marker})" if self.marker else ""
        if self.kind == "index":
            return f"its source {self.index} is {self.url}{scope}"
        if self.kind == "url":
            return f"{self.package} is pinned to the wheel {self.url.rsplit('/', 1)[-1]}{scope}"
        return f"{self.package} is pinned to {self.version}+{self.variant}{scope}"


@frozen
class HandWritten:
    """Everything CUDA-specific the authors configured in pyproject.toml."""

    indexes: tuple[HandIndex, ...] = ()
    pins: tuple[HandPin, ...] = ()
    # Every package each recognised index serves by name, the family's or not.
    users: dict[str, frozenset[str]] = field(default_factory=dict)

    def asked(self, family: str) -> tuple[HandPin, ...]:
        """The family's pins that hold for the whole project, whatever extra is installed."""
        multi = bool(self.extras(family))
        return tuple(
            p for p in self.pins if p.family == family and not (multi and p.extra is not None)
        )

    def extra_kind(self, name: str) -> Literal["extra", "group"]:
        return next((p.extra_kind for p in self.pins if p.extra == name), "extra")

    def extras(self, family: str) -> dict[str, str]:
        """Each extra (or group) of a multi-variant project and the variant it installs.

        A project is multi-variant for a family when its extras pin at least two variants
        (uv's guide: `cpu` and `cu124` extras); one optional CUDA extra is an ordinary pin.
        """
        found: dict[str, str] = {}
        for pin in self.pins:
            if pin.family == family and pin.extra is not None:
                found.setdefault(pin.extra, pin.variant)
        return found if len(set(found.values())) > 1 else {}

    def implicit(self, family: str) -> tuple[HandIndex, ...]:
        """The family's indexes the resolver takes its packages from without a pin."""
        return tuple(i for i in self.indexes if i.family == family and i.implicit)

    def index(self, name: str) -> HandIndex | None:
        return next((i for i in self.indexes if i.name == name), None)


def known_variants(family: Family) -> set[str]:
    return {v.name for release in family.releases for v in release.variants}


def publishes(family: Family, variant: str) -> bool:
    """Whether `variant` names builds of the family: a variant of its releases, or a ROCm or
    XPU label (`rocm6.2.4`, `xpu`, in any form `accelerator_of` knows) where the knowledge's
    ROCm or XPU index is the family's own index at that label."""
    if variant in known_variants(family):
        return True
    accelerator = accelerator_of(variant)
    if accelerator == "rocm":
        stack_index = rocm_knowledge().index.url.replace("{variant}", variant)
    elif accelerator == "xpu":
        stack_index = xpu_knowledge().index.url
    else:
        return False
    own = family.index_url(variant)
    return own is not None and own.rstrip("/") == stack_index.rstrip("/")


def index_variant(
    url: str, families: Sequence[Family], mirrors: Mapping[str, Mirror]
) -> tuple[Family, str, bool] | None:
    """The family and variant an index URL serves, and whether it is the family's own.

    Known by the family's index template or the configured mirror's; any other URL whose
    path names the family and ends in a variant it publishes (`.../pytorch-wheels/cu121/`,
    `.../torch/whl/cu121/simple/`) is taken for a mirror of it.
    """
    url = url.strip()
    for family in families:
        if family.index is None:
            continue
        mirror = mirrors.get(family.mirror_key or "")
        mirrored = mirror.template if mirror else None
        for template, upstream in ((family.index, True), (mirrored, False)):
            if template is None:
                continue
            match = template_pattern(template).fullmatch(url)
            if match and publishes(family, match["variant"]):
                return family, match["variant"], upstream
    parts = urlsplit(url)
    segments = [s for s in parts.path.lower().split("/") if s]
    if segments and segments[-1] == "simple":
        segments.pop()
    if not segments or _NOT_RELEASES & set(segments):
        return None
    where = (parts.hostname or "") + "/" + "/".join(segments[:-1])
    for family in families:
        if family.index is None:
            continue
        words = {family.name, family.mirror_key or family.name}
        if publishes(family, segments[-1]) and any(w in where for w in words):
            return family, segments[-1], False
    return None


def recognise(
    pyproject: Mapping[str, Any],
    families: Sequence[Family],
    mirrors: Mapping[str, Mirror],
    readers: Sequence[TableReader],
) -> HandWritten:
    """The hand-written CUDA configuration of a parsed pyproject.toml (plain data): what
    the package managers' own tables say (`readers`), and PEP 508 requirement strings.

    poetry-cuda's own entries are not: its Poetry group, its uv sources for the packages of
    its dependency group, and an index it names (`Family.names`) that only those use.
    """
    members = {m: f for f in families for m in (*f.members, *f.companions)}
    found = tuple(
        index
        for reader in readers
        for written in reader.indexes(pyproject)
        if (index := _recognised(written, families, mirrors)) is not None
    )
    by_name = {i.name: i for i in found}
    pins: list[HandPin] = []
    users: dict[str, set[str]] = {}
    for reader in readers:
        for entry in reader.entries(pyproject):
            if entry.managed_shape and _ours(by_name.get(str(entry.index)), families):
                continue  # poetry-cuda's own source, of a package its group does not hold
            if isinstance(entry.index, str) and entry.index in by_name:
                users.setdefault(entry.index, set()).add(canonical_name(entry.package))
            family = members.get(canonical_name(entry.package))
            if family is not None:
                pins.extend(reader.pins(family, entry, by_name))
    for where, extra, text in _requirement_strings(pyproject):
        pins.extend(_requirement_pin(members, text, where, extra))
    indexes = tuple(
        index
        for index in found
        if index.implicit
        or index.name in users
        or not any(family.names(index.name, index.url) for family in families)
    )
    return HandWritten(indexes, tuple(pins), {k: frozenset(v) for k, v in users.items()})


def _ours(index: HandIndex | None, families: Sequence[Family]) -> bool:
    """Whether `index` is one poetry-cuda writes: explicit, with the name it gives the URL."""
    return (
        index is not None
        and not index.implicit
        and any(family.names(index.name, index.url) for family in families)
    )


def table(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    """`data[key]` where it is a table, else {} (what is not is reported elsewhere)."""
    found = data.get(key) if isinstance(data, dict) else None
    return found if isinstance(found, dict) else {}


def array(data: Mapping[str, Any], key: str) -> list[Any]:
    """`data[key]` where it is an array, else []."""
    found = data.get(key) if isinstance(data, dict) else None
    return found if isinstance(found, list) else []


def _recognised(
    written: WrittenIndex, families: Sequence[Family], mirrors: Mapping[str, Mirror]
) -> HandIndex | None:
    """The index as a family's, where its URL serves one of the family's variants."""
    if not isinstance(written.url, str):
        return None
    known = index_variant(written.url, families, mirrors)
    if known is None:
        return None
    family, variant, upstream = known
    return HandIndex(
        written.name,
        written.url,
        written.where,
        written.implicit,
        family.name,
        variant,
        upstream,
        written.old_priority,
        written.named,
    )


def extra_of(marker: str) -> str | None:
    """The extra a marker selects (`extra == 'cu124'`), if it selects one."""
    match = _EXTRA.search(marker)
    return canonical_name(match.group(1)) if match else None


def written_as(name: str, entry: object) -> str:
    """An entry as the authors wrote it, for messages: `torch = { version = "2.5.1" }`."""
    if isinstance(entry, dict):
        body = ", ".join(f"{k} = {_value(v)}" for k, v in entry.items())
        return f"{name} = {{ {body} }}"
    return f"{name} = {_value(entry)}"


def _value(value: object) -> str:
    return f'"{value}"' if isinstance(value, str) else str(value).lower()


def label(family: Family, text: object) -> tuple[str, str] | None:
    """(plain version, variant) of a constraint or version that carries a known label."""
    if not isinstance(text, str):
        return None
    match = _LABEL.search(text)
    if match is None or not publishes(family, match.group(1)):
        return None
    version = re.sub(r"^[=<>!~^ ]+", "", text[: match.start()]).strip()
    return version, match.group(1)


def url_pin(
    family: Family, name: str, url: str, where: str, written: str, marker: str
) -> list[HandPin]:
    """A package pinned to a wheel by URL or path: the variant its label names."""
    version, _, variant = (wheel_version(url) or "").partition("+")
    if not publishes(family, variant):
        return []
    return [
        HandPin(
            canonical_name(name),
            family.name,
            variant,
            "url",
            where,
            written,
            url=url,
            version=version,
            marker=marker,
            extra=extra_of(marker),
        )
    ]


def index_pin(
    name: str,
    index: HandIndex,
    where: str,
    written: str,
    marker: str,
    extra: str | None,
    kind: Literal["extra", "group"] = "extra",
) -> HandPin:
    """A package pinned to one of the authors' CUDA indexes: that index's variant."""
    return HandPin(
        canonical_name(name),
        index.family,
        index.variant,
        "index",
        where,
        written,
        index=index.name,
        url=index.url,
        marker=marker,
        extra=extra,
        extra_kind=kind,
    )


def _requirement_strings(pyproject: Mapping[str, Any]) -> Iterator[tuple[str, str | None, str]]:
    """(table, extra or None, text) of every PEP 508 requirement string."""
    project = table(pyproject, "project")
    for text in array(project, "dependencies"):
        yield "[project] dependencies", None, text
    for extra, texts in table(project, "optional-dependencies").items():
        for text in texts if isinstance(texts, list) else []:
            yield f"[project.optional-dependencies] {extra}", canonical_name(extra), text
    for group, items in table(pyproject, "dependency-groups").items():
        if group == MANAGED_GROUP:
            continue
        for text in items if isinstance(items, list) else []:
            yield f"[dependency-groups] {group}", None, text


def _requirement_pin(
    members: Mapping[str, Family], text: object, where: str, extra: str | None
) -> list[HandPin]:
    if not isinstance(text, str):
        return []
    try:
        requirement = Requirement(text)
    except InvalidRequirement:
        return []  # reported where dependencies are read
    name = canonical_name(requirement.name)
    family = members.get(name)
    if family is None:
        return []
    marker = str(requirement.marker) if requirement.marker else ""
    if requirement.url:
        pins = url_pin(family, name, requirement.url, where, repr(text), marker)
        return [dataclasses.replace(p, extra=extra or p.extra) for p in pins]
    labelled = label(family, str(requirement.specifier))
    if labelled is None:
        return []
    # A label in an extra's requirement names that extra's build (uv's guide: torch==2.5.1+cpu).
    return [
        HandPin(
            name,
            family.name,
            labelled[1],
            "label",
            where,
            repr(text),
            version=labelled[0],
            marker=marker,
            extra=extra,
        )
    ]
