"""Wheel-variant metadata (PEP 825, with PEP 850's providers), as an index or a wheel publishes it.

Two documents share one shape: the index's ``{name}-{version}-variants.json`` lists every
variant label of a version, and a wheel's ``*.dist-info/variant.json`` the one label in its
file name. Two generations of that shape are read:

- PEP 825 (schema ``https://variants-schema.wheelnext.dev/peps/825/v0.1.x.json``), with the
  providers of the Providers PEP 850 (``.../peps/850/v0.2.x.json``; variantlib writes
  ``.../v0.2.x.json``): ``default-priorities.namespace``, ``variants``, and optionally
  ``providers`` (``requires`` + ``plugin-api``, or ``static-properties`` + ``feature-order``,
  or ``builtin``; ``optional``).
- The draft schema PyTorch published its 2.8 to 2.10 variant wheels with (``.../``,
  ``.../v0.0.2.json``, ``.../v0.0.3.json``): providers with ``enable-if``, ``plugin-use`` or
  ``install-time``; ``default-priorities.feature`` and ``.property``; a top-level
  ``static-properties``.

A property is ``namespace :: feature :: value``; a label's values of one feature are
alternatives (any one supported will do), its features all required. Every document is
checked whole: a bad one is one `InputFileError` (exit 2) naming the file and the key.
"""

from __future__ import annotations

import json
import re

from typing import Any
from typing import Literal

from poetry_cuda.errors import InputFileError
from poetry_cuda.records import frozen
from poetry_cuda.schema import Table
from poetry_cuda.schema import Voice


Generation = Literal["pep825", "draft"]
Properties = dict[str, dict[str, tuple[str, ...]]]  # namespace -> feature -> values
NULL_LABELS = ("null", "00000000")  # PEP 825's null variant; the draft's hash-era spelling

SCHEMA_HOST = "https://variants-schema.wheelnext.dev/"
_PEP_SCHEMA = re.compile(r"(peps/825/v0\.1\.\d+|peps/850/v0\.2\.\d+|v0\.2\.\d+)\.json")
_DRAFT_SCHEMA = re.compile(r"(v0\.0\.\d+\.json)?")
_NAME = re.compile(r"[a-z0-9_]{1,64}")  # a namespace or a feature
_VALUE = re.compile(r"[a-z0-9_.]{1,64}")
_LABEL = re.compile(r"[0-9a-z_.]{1,64}")
_LIMIT = 512  # labels, namespaces, features or values in one list: torch has a dozen
FILE_LIMIT = 4 * 1024 * 1024

_PROVIDER_KEYS = {
    "pep825": (
        "requires",
        "plugin-api",
        "build-requires",
        "static-properties",
        "feature-order",
        "builtin",
        "optional",
    ),
    "draft": ("requires", "plugin-api", "enable-if", "plugin-use", "install-time", "optional"),
}


@frozen
class Provider:
    """Who answers for a namespace: a plugin (`requires`, `plugin_api`) or the metadata itself
    (`static`, values best first). `install_time` False (the draft's ``install-time = false``,
    ``plugin-use = "none"`` without static values, PEP 850's static providers): no plugin runs."""

    namespace: str
    requires: tuple[str, ...] = ()
    plugin_api: str | None = None
    enable_if: str | None = None  # a PEP 508 marker (draft only)
    install_time: bool = True
    optional: bool = False
    static: Properties | None = None  # feature -> values, under the namespace's key
    builtin: str | None = None


@frozen
class VariantMetadata:
    """One ``-variants.json`` or ``variant.json``: `where` names it in messages."""

    where: str
    schema: str
    generation: Generation
    namespaces: tuple[str, ...]  # default-priorities.namespace: the order of namespaces
    variants: dict[str, Properties]  # label -> its properties, as published
    providers: tuple[Provider, ...] = ()
    # The draft's default-priorities.property and top-level static-properties:
    # namespace -> feature -> values best first.
    static: Properties | None = None

    def provider(self, namespace: str) -> Provider | None:
        return next((p for p in self.providers if p.namespace == namespace), None)

    def static_values(self, namespace: str) -> dict[str, tuple[str, ...]] | None:
        """The values best first a namespace's metadata itself gives, where it does."""
        provider = self.provider(namespace)
        if provider is not None and provider.static is not None:
            return provider.static.get(namespace, {})
        plugin = provider is not None and bool(provider.requires)
        if not plugin and self.static is not None and namespace in self.static:
            return self.static[namespace]
        return None


def is_label(text: str) -> bool:
    """Whether `text` is a variant label (PEP 825: ``^[0-9a-z_.]+$``, here at most 64)."""
    return _LABEL.fullmatch(text) is not None


def is_null(label: str) -> bool:
    return label in NULL_LABELS


def property_lines(properties: Properties) -> tuple[str, ...]:
    """A label's properties as PEP 825 writes them, one per value, sorted:
    ``nvidia :: sm_arch :: 86_real``."""
    return tuple(
        sorted(
            f"{namespace} :: {feature} :: {value}"
            for namespace, features in properties.items()
            for feature, values in features.items()
            for value in values
        )
    )


def is_property_line(text: str) -> bool:
    """Whether `text` is one property as `property_lines` writes it."""
    parts = text.split(" :: ")
    return (
        len(parts) == 3
        and all(_NAME.fullmatch(part) for part in parts[:2])
        and _VALUE.fullmatch(parts[2]) is not None
    )


def wheel_label(filename: str) -> str | None:
    """The variant label of a wheel's file name (PEP 825: a sixth part), None for a plain wheel."""
    if not filename.endswith(".whl"):
        return None
    parts = filename[: -len(".whl")].split("-")
    # name-version(-build)?-py-abi-plat(-label)?: a build tag starts with a digit, and a
    # variant wheel's Python tag must not, so six parts with a letter at [-4] hold a label.
    if len(parts) == 6 and parts[2][:1].isdigit():
        return None
    if len(parts) in (6, 7) and not parts[-4][:1].isdigit():
        return parts[-1] if _LABEL.fullmatch(parts[-1]) else None
    return None


def parse_variants_json(data: bytes, where: str) -> VariantMetadata:
    """An index's ``{name}-{version}-variants.json`` (every label of a version)."""
    voice = Voice(
        InputFileError,
        f"{where}: ",
        why="wheel-variant metadata (PEP 825) is read whole before any label is chosen",
        fix="fetch the file again from the index; if it stays wrong, the index publishes "
        "broken variant metadata: report it there",
    )
    top = Table(_json(data, where), voice)
    schema = top.text("$schema")
    generation = _generation(top, schema)
    priorities = top.table("default-priorities")
    namespaces = _names(priorities, "namespace")
    if not namespaces:
        raise priorities.error("namespace", "must name at least one namespace")
    static: Properties | None = None
    if generation == "draft":
        priorities.table("feature", {})  # feature order: the providers' own order is used
        properties = priorities.table("property", None)
        static = _properties(properties, namespaces) if properties is not None else None
        top_static = top.table("static-properties", None)
        if top_static is not None:
            static = {**(static or {}), **_properties(top_static, namespaces)}
    priorities.done()
    providers = _providers(top, generation, namespaces)
    variants: dict[str, Properties] = {}
    table = top.table("variants")
    for label in _bounded(table, list(table), "labels"):
        if not _LABEL.fullmatch(label):
            raise table.error(
                f'"{label[:80]}"', "is not a variant label (0-9, a-z, '_' and '.', at most 64)"
            )
        variants[label] = _properties(table.table(label, what="a table of namespaces"), namespaces)
    table.done()
    top.done()
    return VariantMetadata(where, schema, generation, namespaces, variants, providers, static)


def parse_variant_json(data: bytes, where: str, label: str | None = None) -> VariantMetadata:
    """A wheel's ``*.dist-info/variant.json``: the same shape, with exactly one label, the
    one of the wheel's file name when `label` is given."""
    metadata = parse_variants_json(data, where)
    labels = list(metadata.variants)
    if len(labels) != 1 or (label is not None and labels != [label]):
        expected = f"only {label!r}" if label else "exactly one label"
        raise InputFileError(
            f"{where}: variants: lists {', '.join(labels) or 'no label'}; a wheel's variant.json "
            f"holds {expected}",
            why="PEP 825: a wheel's variant.json describes the one variant the wheel is",
            fix="use the wheel as the index published it; a repacked wheel needs its own label",
        )
    return metadata


def _json(data: bytes, where: str) -> dict[str, Any]:
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for key, value in items:
            if key in seen:
                raise ValueError(f"the key {key[:80]!r} appears twice")
            seen[key] = value
        return seen

    if len(data) > FILE_LIMIT:
        raise InputFileError(f"{where}: larger than {FILE_LIMIT // (1024 * 1024)} MiB")
    try:
        document = json.loads(data.decode("utf-8"), object_pairs_hook=pairs)
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError is a ValueError
        raise InputFileError(
            f"{where}: not valid JSON ({error.__class__.__name__}: {str(error)[:200]})",
            fix="fetch the file again from the index",
        ) from None
    if not isinstance(document, dict):
        raise InputFileError(f"{where}: expected a JSON object, got {type(document).__name__}")
    return document


def _generation(top: Table, schema: str) -> Generation:
    rest = schema.removeprefix(SCHEMA_HOST) if schema.startswith(SCHEMA_HOST) else None
    if rest is not None and _PEP_SCHEMA.fullmatch(rest):
        return "pep825"
    if rest is not None and _DRAFT_SCHEMA.fullmatch(rest):
        return "draft"
    raise top.error(
        "$schema",
        f"{schema[:120]!r} is no variant metadata schema this poetry-cuda reads (PEP 825 "
        "v0.1.x, PEP 850 v0.2.x, or the draft v0.0.x)",
    )


def _bounded(table: Table, items: list[str], what: str) -> list[str]:
    if len(items) > _LIMIT:
        raise table.error("", f"holds {len(items)} {what}; at most {_LIMIT} are read")
    return items


def _names(table: Table, key: str) -> tuple[str, ...]:
    names = table.texts(key, ())
    _bounded(table, list(names), key)
    for i, name in enumerate(names):
        if not _NAME.fullmatch(name):
            raise table.error(f"{key}[{i}]", f"{name[:80]!r} is not a name (a-z, 0-9, '_')")
        if name in names[:i]:
            raise table.error(f"{key}[{i}]", f"{name!r} is listed twice")
    return names


def _properties(table: Table, namespaces: tuple[str, ...]) -> Properties:
    """namespace -> feature -> values, every name and value checked."""
    properties: Properties = {}
    for namespace in _bounded(table, list(table), "namespaces"):
        if namespace not in namespaces:
            raise table.error(
                namespace, "is not in default-priorities.namespace, which must name it"
            )
        properties[namespace] = _features(table.table(namespace, what="a table of features"))
    table.done()
    return properties


def _features(table: Table) -> dict[str, tuple[str, ...]]:
    """feature -> values (at least one each), in the order written."""
    features: dict[str, tuple[str, ...]] = {}
    for feature in _bounded(table, list(table), "features"):
        if not _NAME.fullmatch(feature):
            raise table.error(f'"{feature[:80]}"', "is not a feature name (a-z, 0-9, '_')")
        values = table.texts(feature, what="a list of values")
        if not values:
            raise table.error(feature, "must list at least one value")
        _bounded(table, list(values), "values")
        for i, value in enumerate(values):
            if not _VALUE.fullmatch(value):
                raise table.error(
                    f"{feature}[{i}]", f"{value[:80]!r} is not a value (a-z, 0-9, '_', '.')"
                )
        features[feature] = values
    table.done()
    return features


def _providers(
    top: Table, generation: Generation, namespaces: tuple[str, ...]
) -> tuple[Provider, ...]:
    table = top.table("providers", None)
    if table is None:
        if generation == "draft":
            raise top.error("providers", "missing (the draft schema requires it)")
        return ()
    providers = []
    for namespace in _bounded(table, list(table), "providers"):
        if namespace not in namespaces:
            raise table.error(namespace, "is not in default-priorities.namespace")
        row = table.table(namespace, what="a provider table")
        row.only(_PROVIDER_KEYS[generation])
        providers.append(_provider(row, namespace, generation))
        row.done()
    table.done()
    return tuple(providers)


def _provider(row: Table, namespace: str, generation: Generation) -> Provider:
    requires = row.texts("requires", ())
    plugin_api = row.text("plugin-api", None)
    optional = row.value("optional", bool, "true or false", False)
    if generation == "draft":
        use = row.choice("plugin-use", ("none", "build", "all"), "all")
        install_time = row.value("install-time", bool, "true or false", use != "build")
        if use == "none" and requires:
            raise row.error("requires", 'must be empty with plugin-use = "none"')
        return Provider(
            namespace,
            requires,
            plugin_api,
            row.text("enable-if", None),
            install_time,
            optional,
        )
    kinds = [
        k for k in ("requires", "build-requires", "static-properties", "builtin") if row.has(k)
    ]
    if len(kinds) != 1:
        raise row.error(
            "",
            "needs exactly one of requires, build-requires, static-properties or builtin "
            f"(it has {', '.join(kinds) or 'none'})",
        )
    row.texts("build-requires", ())
    static: Properties | None = None
    if row.has("static-properties"):
        features = _features(row.table("static-properties", what="a table of features"))
        order = row.texts("feature-order", ())
        if (len(features) > 1 or order) and sorted(order) != sorted(features):
            raise row.error("feature-order", "must list every static feature, once")
        static = {namespace: {feature: features[feature] for feature in order or features}}
    return Provider(
        namespace,
        requires,
        plugin_api,
        None,
        "requires" in kinds,
        optional,
        static,
        row.text("builtin", None),
    )
