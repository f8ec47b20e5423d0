"""What the user asked for: `[tool.poetry-cuda]`, validated.

Every key is optional. Errors name the key, say what is allowed, and never leave a
traceback; they are `ConfigError` (exit code 2).
"""

from __future__ import annotations

import re

from dataclasses import field
from typing import TYPE_CHECKING
from typing import Any
from typing import Literal

from packaging.specifiers import InvalidSpecifier
from packaging.specifiers import SpecifierSet

from poetry_cuda.display import quoted
from poetry_cuda.errors import ConfigError
from poetry_cuda.knowledge.model import LAYOUTS
from poetry_cuda.knowledge.model import REQUIREMENT_KINDS
from poetry_cuda.knowledge.model import Layout
from poetry_cuda.knowledge.packaged import mirrors_of
from poetry_cuda.knowledge.packaged import variant_indexes
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import did_you_mean
from poetry_cuda.messages import message
from poetry_cuda.names import canonical_name
from poetry_cuda.records import frozen
from poetry_cuda.schema import Table
from poetry_cuda.schema import Voice
from poetry_cuda.urls import URL_LIMIT
from poetry_cuda.urls import check_index_url
from poetry_cuda.versions import CudaVersion


if TYPE_CHECKING:
    from collections.abc import Callable
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import KnownMirror
    from poetry_cuda.messages import Message


Policy = Literal["newest", "native"]
BackendName = Literal["auto", "poetry", "uv"]
ToolkitMode = Literal["system", "wheels", "redist"]
InstallMode = Literal["copy", "shared"]

POLICIES: tuple[Policy, ...] = ("newest", "native")
BACKENDS: tuple[BackendName, ...] = ("auto", "poetry", "uv")
TOOLKIT_MODES: tuple[ToolkitMode, ...] = ("system", "wheels", "redist")
INSTALL_MODES: tuple[InstallMode, ...] = ("copy", "shared")
MIRROR_KEYS = ("pytorch", "paddle")
REDIST_KEY = "cuda-redist"  # in the mirrors table, but not an index family
REDIST_URL = "https://developer.download.nvidia.com/compute/cuda/redist/"
TABLE = "[tool.poetry-cuda]"

# The most characters of a value poetry-cuda reads; real ones are a small fraction of each.
NAME_LIMIT = 256  # a name, variant, version, CUDA request or requirement
PATH_LIMIT = 4096  # a file path (a target profile), Linux's PATH_MAX
TEXT_LIMIT = 16 * 1024  # a sentence cuda.lock records (a reason, how to satisfy a need)


@frozen
class CudaRequest:
    """The user's `cuda` value: auto, cpu, or a constraint on the CUDA version."""

    text: str
    kind: Literal["auto", "cpu", "version"]
    specifier: SpecifierSet | None = None
    # Where it was given (`--cuda` or the config key): reasons name the user's own words.
    key: str = field(default=f"{TABLE} cuda", compare=False)
    # A request the project's own pins make (`pinned`): what shows it, for reasons.
    pinned_by: str = field(default="", compare=False)
    # The CUDA versions a request of several pinned variants allows (cu118 on Windows,
    # cu121 on Linux), which one specifier cannot say.
    cudas: frozenset[CudaVersion] = frozenset()

    @classmethod
    def pinned(cls, variants: dict[str, CudaVersion | None], evidence: str) -> CudaRequest:
        """The request the project's hand-written pins make: their variants, cpu if only that.

        `variants` maps each pinned variant to its CUDA version; CPU entries beside CUDA
        ones are the authors' builds for other platforms (macOS), not a request.
        """
        cudas = {name: cuda for name, cuda in variants.items() if cuda is not None}
        text = ", ".join(cudas) or "cpu"
        if not cudas:
            return cls(text, "cpu", pinned_by=evidence)
        return cls(text, "version", pinned_by=evidence, cudas=frozenset(cudas.values()))

    @classmethod
    def parse(cls, text: str, *, key: str = f"{TABLE} cuda") -> CudaRequest:
        overlong = too_long(text, NAME_LIMIT, key, "CUDA request")
        if overlong is not None:
            raise overlong
        value = text.strip()
        if value == "auto":
            return cls(value, "auto", key=key)
        if value == "cpu":
            return cls(value, "cpu", key=key)
        try:
            exact = CudaVersion.parse(value)
        except ValueError:
            pass
        else:
            return cls(value, "version", SpecifierSet(f"=={exact}.*"), key=key)
        try:
            specifier = SpecifierSet(value)
        except InvalidSpecifier:
            specifier = None
        if not specifier:
            raise ConfigError(
                message("cuda.not-a-request", key=key, value=quoted(text)),
                why=message("cuda.request-forms"),
                fix=message("cuda.request-fix", table=TABLE),
            )
        return cls(value, "version", specifier, key=key)

    @property
    def said(self) -> str:
        """The request as the user wrote it: ``--cuda cu128`` or ``cuda = "12.8"``."""
        if self.pinned_by:
            return f"the project's own pin of {self.text}"
        if self.key.startswith("--"):
            return f"{self.key} {self.text}"
        return f'cuda = "{self.text}"'

    def allows(self, cuda: CudaVersion | None) -> bool:
        """Whether a variant of this CUDA version (None: CPU) may be chosen."""
        if self.kind == "auto":
            return True
        if self.kind == "cpu":
            return cuda is None
        if self.cudas:
            return cuda in self.cudas
        assert self.specifier is not None
        return cuda is not None and self.specifier.contains(str(cuda), prereleases=True)

    def __str__(self) -> str:
        return self.text


@frozen
class Mirror:
    """Where a family's variants are served instead of its own index, and in which layout."""

    template: str  # "{variant}" is replaced, else "/{variant}" is appended
    layout: Layout = "simple"
    name: str | None = None  # the known mirror it was named by ("sjtu"), if any
    # Where it was given, for messages: `[tool.poetry-cuda] mirrors.pytorch`.
    key: str = field(default="", compare=False)

    def url(self, variant: str) -> str:
        if "{variant}" in self.template:
            return self.template.replace("{variant}", variant)
        return f"{self.template.rstrip('/')}/{variant}"

    def serves(self, url: str) -> bool:
        """Whether `url` is this mirror's page of some variant."""
        return template_pattern(self.template).fullmatch(url.strip()) is not None

    @property
    def said(self) -> str:
        """The setting as the user wrote it, with what it stands for."""
        if self.name is not None:
            return f'{self.key} = "{self.name}" ({self.template}, {self.layout})'
        return f"{self.key} = {self.template} ({self.layout})"


def template_pattern(template: str) -> re.Pattern[str]:
    """What a URL template matches: its URLs for any variant, with or without the last slash."""
    if "{variant}" not in template:
        template = template.rstrip("/") + "/{variant}"
    head, _, tail = template.partition("{variant}")
    return re.compile(
        re.escape(head) + r"(?P<variant>[A-Za-z0-9.]+)" + re.escape(tail.rstrip("/")) + "/?",
        re.IGNORECASE,
    )


def known_names(family: str, layout: Layout | None = None) -> tuple[str, ...]:
    """The names a mirror setting of `family` may use (of one layout, if given)."""
    return tuple(row.name for row in mirrors_of(family) if layout in (None, row.layout))


def mirrors_said(settings: Settings) -> str:
    """The mirror settings in use and the mirrors known by name, for an unreachable index."""
    if settings.mirrors:
        used = "the mirror in use: " + "; ".join(m.said for m in settings.mirrors.values())
    else:
        used = f"no mirror is set in {TABLE.removesuffix(']')}.mirrors], so each family's own index is used"
    known = [
        f"{family} = "
        + ", ".join(
            f'"{row.name}"' + (" (flat: uv only)" if row.layout == "flat" else "")
            for row in mirrors_of(family)
        )
        for family in MIRROR_KEYS
        if mirrors_of(family)
    ]
    return f"{used}; mirrors known by name: {'; '.join(known)}"


MIRROR_FIX = (
    'write a URL template, a table { url = "...", layout = "simple" } (or "flat"), or the name '
    "of a known mirror"
)


def resolve_mirror(value: object, key: str, known: Sequence[KnownMirror]) -> Mirror:
    """A mirror setting (a template, a known mirror's name, or a table) as a `Mirror`.

    `key` names the setting in messages; `known` are the family's mirrors by name. Pure:
    the per-user setting and `[tool.poetry-cuda.mirrors]` both read through it.
    """
    names = ", ".join(f'"{row.name}"' for row in known) or "none"
    if isinstance(value, str) and "://" not in value:
        row = next((row for row in known if row.name == value.strip().lower()), None)
        if row is None:
            raise ConfigError(
                f"{key}: {quoted(value)} is neither a URL nor a known mirror",
                why=f"the known mirrors of this family are {names}",
                fix=f"use one of them, or {MIRROR_FIX.removeprefix('write ')}",
            )
        return Mirror(check_index_url(row.url, f"{key} ({row.name})"), row.layout, row.name, key)
    if isinstance(value, str):
        return Mirror(check_index_url(value, key), key=key)
    if isinstance(value, dict):
        unknown = sorted(set(value) - {"url", "layout"})
        if unknown:
            what = f"{key}.{unknown[0]}: unknown key"
            hint = did_you_mean(unknown[0], ("url", "layout"), '"')
            raise ConfigError(
                what if hint is None else Phrase((what, hint), ". "),
                fix="a mirror table has only url and layout",
            )
        url = value.get("url")
        if not isinstance(url, str) or not url.strip():
            raise ConfigError(
                f"{key}.url: missing (expected the mirror's URL template)",
                fix='write e.g. { url = "https://mirror.example/whl/{variant}/", layout = "flat" }',
            )
        layout = value.get("layout", "simple")
        if layout not in LAYOUTS:
            said = quoted(layout) if isinstance(layout, str) else repr(layout)
            what = f"{key}.layout: {said} is not one of {', '.join(LAYOUTS)}"
            hint = did_you_mean(layout, LAYOUTS, '"') if isinstance(layout, str) else None
            raise ConfigError(
                what if hint is None else Phrase((what, hint), ". "),
                why="simple: a PEP 503 index (a page per project, as download.pytorch.org); "
                "flat: one page listing the wheel files (what pip's --find-links reads)",
                fix='write layout = "simple" or layout = "flat"',
            )
        return Mirror(check_index_url(url, f"{key}.url"), layout, key=key)
    raise ConfigError(
        f"{key}: expected {MIRROR_FIX.removeprefix('write ')}, got {quoted(repr(value))}",
        fix=MIRROR_FIX,
    )


@frozen
class PackageRule:
    """`[tool.poetry-cuda.packages.NAME]`: hidden needs of a package we don't know."""

    name: str
    needs: tuple[tuple[str, str], ...]  # (kind, specifier) pairs: ("nvcc", ">=12.1,<13")


@frozen
class Settings:
    cuda: CudaRequest = field(default_factory=lambda: CudaRequest("auto", "auto"))
    policy: Policy = "newest"
    allow_cpu_fallback: bool = False
    targets: tuple[str, ...] = ()
    backend: BackendName = "auto"
    toolkit: ToolkitMode = "system"
    # "shared": a Poetry project's locked wheels are linked from the per-user wheel store.
    install: InstallMode = "copy"
    # `poetry run` in the project gets the project's CUDA environment (`env`).
    run_environment: bool = True
    mirrors: dict[str, Mirror] = field(default_factory=dict)
    packages: tuple[PackageRule, ...] = ()
    # `mirrors.cuda-redist`: the folder of NVIDIA's redistrib_<release>.json; None: NVIDIA's.
    redist_mirror: str | None = None
    # `wheel-variants`: family -> the index serving its wheel variants (PEP 825), whose
    # label for the targets `lock` records; the knowledge base's index, or a mirror of it.
    wheel_variants: dict[str, str] = field(default_factory=dict)

    @property
    def redist_url(self) -> str:
        """Where `toolkit = "redist"` fetches its manifests and archives."""
        return self.redist_mirror or REDIST_URL


KEYS = {  # every key of [tool.poetry-cuda]
    "cuda",
    "policy",
    "allow-cpu-fallback",
    "targets",
    "backend",
    "toolkit",
    "install",
    "poetry-run-environment",
    "mirrors",
    "packages",
    "wheel-variants",
}


VOICE = Voice(ConfigError, f"{TABLE} ", fix=message("config.correct", table=TABLE))


def overlong(data: object, limit: Callable[[tuple[str, ...]], int]) -> tuple[str, int, int] | None:
    """The first string of parsed TOML or JSON `data` longer than its limit, as (where, its
    length, the limit), or None. `limit` gives a value's limit from the keys leading to it;
    a key itself may have NAME_LIMIT characters. Read without recursion, in document order.
    """
    stack: list[tuple[object, str, tuple[str, ...]]] = [(data, "", ())]
    while stack:
        value, where, keys = stack.pop()
        if isinstance(value, str) and len(value) > (most := limit(keys)):
            return where or "(top level)", len(value), most
        children: list[tuple[object, str, tuple[str, ...]]] = []
        if isinstance(value, dict):
            for key, item in value.items():
                if len(key) > NAME_LIMIT:
                    return f"a key in {where or '(top level)'}", len(key), NAME_LIMIT
                children.append((item, f"{where}.{key}" if where else key, (*keys, key)))
        elif isinstance(value, list):
            children = [(item, f"{where}[{i}]", keys) for i, item in enumerate(value)]
        stack.extend(reversed(children))
    return None


def too_long(value: str, limit: int, key: str, what: str) -> ConfigError | None:
    """The error for a `what` at `key` longer than `limit` characters, or None."""
    if len(value) <= limit:
        return None
    return ConfigError(
        f"{key}: {quoted(value, 60)} is {len(value)} characters long, more than the {limit} "
        f"any {what} needs",
        why="a value that long is not a real one; poetry-cuda refuses it rather than carry it "
        "into its plans, files and messages",
        fix=f"correct {key}",
    )


def parse_settings(pyproject: dict[str, Any]) -> Settings:
    """Read `[tool.poetry-cuda]` from a parsed pyproject.toml (a plain dict)."""
    tool = pyproject.get("tool", {})
    raw = tool.get("poetry-cuda", {}) if isinstance(tool, dict) else {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{TABLE} must be a table", fix=f"write it as a {TABLE} section")
    found = overlong(raw, _setting_limit)
    if found is not None:
        where, length, limit = found
        raise ConfigError(
            f"{TABLE} {where}: a value of {length} characters, more than the {limit} any "
            "setting needs",
            why="a value that long is not a real one; poetry-cuda refuses it rather than carry "
            "it into its plans, files and messages",
            fix=f"correct it in {TABLE}",
        )
    table = Table(raw, VOICE)
    table.only(KEYS, fix=message("config.known-keys", keys=", ".join(sorted(KEYS))))
    cuda = table.value("cuda", str, "a string", "auto", fix=_example('cuda = "auto"'))
    fallback = table.value(
        "allow-cpu-fallback",
        bool,
        "true or false",
        False,
        fix="write allow-cpu-fallback = true",
    )
    run_environment = table.value(
        "poetry-run-environment",
        bool,
        "true or false",
        True,
        fix="write poetry-run-environment = false to keep `poetry run` as Poetry has it",
    )
    targets_fix = 'write targets = ["hosts/*.json"]'
    targets = table.texts("targets", (), what="a list of paths", item="a path", fix=targets_fix)
    for i, target in enumerate(targets):
        if not target:
            raise table.error(f"targets[{i}]", "must not be empty", fix=targets_fix)

    mirrors = table.table("mirrors", {}, fix='write [tool.poetry-cuda.mirrors] pytorch = "..."')
    chosen = {}
    redist = None
    for key in mirrors:
        if key == REDIST_KEY:
            url = mirrors.value(key, str, "a URL", fix=f'write {key} = "https://.../redist/"')
            redist = check_index_url(url, f"{TABLE} {mirrors.where(key)}")
            continue
        if key not in MIRROR_KEYS:
            raise mirrors.error(
                key,
                "unknown index family",
                fix=f"use one of {', '.join(MIRROR_KEYS)}, or {REDIST_KEY}",
                hint=did_you_mean(key, (*MIRROR_KEYS, REDIST_KEY), '"'),
            )
        chosen[key] = resolve_mirror(
            mirrors.data[key], f"{TABLE} {mirrors.where(key)}", mirrors_of(key)
        )

    return Settings(
        wheel_variants=_parse_wheel_variants(table),
        cuda=CudaRequest.parse(cuda),
        policy=table.choice("policy", POLICIES, "newest", fix=_example('policy = "newest"')),
        allow_cpu_fallback=fallback,
        targets=targets,
        backend=table.choice("backend", BACKENDS, "auto", fix=_example('backend = "auto"')),
        toolkit=table.choice(
            "toolkit", TOOLKIT_MODES, "system", fix=_example('toolkit = "system"')
        ),
        install=table.choice(
            "install", INSTALL_MODES, "copy", fix='write install = "copy" or install = "shared"'
        ),
        run_environment=run_environment,
        mirrors=chosen,
        redist_mirror=redist,
        packages=_parse_package_rules(
            table.table(
                "packages",
                {},
                what="a table of packages",
                fix="write [tool.poetry-cuda.packages.NAME]",
            )
        ),
    )


def _example(setting: str) -> Message:
    """The fix of a bad value: an example of a good one."""
    return message("config.write-example", example=setting)


def _setting_limit(keys: tuple[str, ...]) -> int:
    """The most characters of a value of `[tool.poetry-cuda]` at `keys`."""
    top = keys[0] if keys else ""
    return (
        PATH_LIMIT
        if top == "targets"
        else URL_LIMIT
        if top in ("mirrors", "wheel-variants")
        else NAME_LIMIT
    )


def _parse_wheel_variants(table: Table) -> dict[str, str]:
    """`wheel-variants`: ``torch = true`` (the family's variant index as the knowledge base
    has it) or ``torch = "URL"`` (a mirror of that index); false leaves the family out."""
    given = table.table(
        "wheel-variants", {}, fix="write [tool.poetry-cuda.wheel-variants] torch = true"
    )
    if not given.data:
        return {}
    known = {row.family: row.url for row in variant_indexes()}
    chosen = {}
    for family in given:
        if family not in known:
            raise given.error(
                family,
                "no variant index of this family is known",
                fix=f"use one of {', '.join(sorted(known))}",
            )
        value = given.data[family]
        if value is False:
            continue
        if value is True:
            chosen[family] = known[family]
        elif isinstance(value, str):
            url = check_index_url(value, f"{TABLE} {given.where(family)}")
            chosen[family] = url if url.endswith("/") else f"{url}/"
        else:
            raise given.error(
                family,
                "must be true, false or the URL of a mirror of the family's variant index",
                fix=f'write {family} = true, or {family} = "https://.../simple/"',
            )
    return chosen


def _parse_package_rules(packages: Table) -> tuple[PackageRule, ...]:
    rules = []
    for name in packages:
        rule = packages.table(
            name,
            what="a table with one key, needs",
            fix='write needs = ["nvcc>=12.1,<13"]',
        )
        rule.only(("needs",), fix='write needs = ["nvcc>=12.1,<13"]')
        needs = rule.value("needs", list, "a list", [], fix='write needs = ["cudnn>=9"]')
        parsed = tuple(_parse_need(need, rule) for need in needs)
        rules.append(PackageRule(name=canonical_name(name), needs=parsed))
    return tuple(rules)


def _parse_need(need: object, rule: Table) -> tuple[str, str]:
    if isinstance(need, str):
        kind = next(
            (k for k in sorted(REQUIREMENT_KINDS, key=len, reverse=True) if need.startswith(k)),
            None,
        )
        if kind is not None:
            spec = need[len(kind) :].strip()
            try:
                SpecifierSet(spec)
            except InvalidSpecifier:
                pass
            else:
                return kind, spec
    raise rule.error(
        "needs",
        f"{quoted(need) if isinstance(need, str) else repr(need)} is not a requirement",
        fix=f"write KIND followed by a version range, KIND one of {', '.join(REQUIREMENT_KINDS)}: "
        '"nvcc>=12.1,<13"',
    )
