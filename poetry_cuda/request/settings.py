"""What the user asked for: `[tool.poetry-cuda]`, validated.

Every key is optional. Errors name the key, say what is allowed, and never leave a
traceback; they are `ConfigError` (exit code 2).
"""

from __future__ import annotations

import ipaddress
import re

from dataclasses import dataclass
from dataclasses import field
from typing import Any
from typing import Literal
from urllib.parse import SplitResult
from urllib.parse import urlsplit

from packaging.specifiers import InvalidSpecifier
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

from poetry_cuda.errors import ConfigError
from poetry_cuda.versions import CudaVersion


Policy = Literal["newest", "native"]
Backend = Literal["auto", "poetry", "uv"]
ToolkitMode = Literal["system", "wheels"]

POLICIES: tuple[Policy, ...] = ("newest", "native")
BACKENDS: tuple[Backend, ...] = ("auto", "poetry", "uv")
TOOLKIT_MODES: tuple[ToolkitMode, ...] = ("system", "wheels")
MIRROR_KEYS = ("pytorch", "paddle")
REQUIREMENT_KINDS = ("cuda-runtime", "cudnn", "nccl", "nvcc", "tensorrt", "driver")
TABLE = "[tool.poetry-cuda]"


@dataclass(frozen=True)
class CudaRequest:
    """The user's `cuda` value: auto, cpu, or a constraint on the CUDA version."""

    text: str
    kind: Literal["auto", "cpu", "version"]
    specifier: SpecifierSet | None = None

    @classmethod
    def parse(cls, text: str, *, key: str = f"{TABLE} cuda") -> CudaRequest:
        value = text.strip()
        if value == "auto":
            return cls(value, "auto")
        if value == "cpu":
            return cls(value, "cpu")
        try:
            exact = CudaVersion.parse(value)
        except ValueError:
            pass
        else:
            return cls(value, "version", SpecifierSet(f"=={exact}.*"))
        try:
            specifier = SpecifierSet(value)
        except InvalidSpecifier:
            specifier = None
        if not specifier:
            raise ConfigError(
                f"{key}: {text!r} is not a CUDA request",
                why="it must be 'auto', 'cpu', a variant such as 'cu124', a version such as "
                "'12.4', or a range such as '>=12.1,<12.7'",
                fix=f'write e.g. cuda = "cu124" in {TABLE} or pass --cuda cu124',
            )
        return cls(value, "version", specifier)

    def allows(self, cuda: CudaVersion | None) -> bool:
        """Whether a variant of this CUDA version (None: CPU) may be chosen."""
        if self.kind == "auto":
            return True
        if self.kind == "cpu":
            return cuda is None
        assert self.specifier is not None
        return cuda is not None and self.specifier.contains(str(cuda), prereleases=True)

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class PackageRule:
    """`[tool.poetry-cuda.packages.NAME]`: hidden needs of a package we don't know."""

    name: str
    needs: tuple[tuple[str, str], ...]  # (kind, specifier) pairs: ("nvcc", ">=12.1,<13")


@dataclass(frozen=True)
class Settings:
    cuda: CudaRequest = field(default_factory=lambda: CudaRequest("auto", "auto"))
    policy: Policy = "newest"
    allow_cpu_fallback: bool = False
    targets: tuple[str, ...] = ()
    backend: Backend = "auto"
    toolkit: ToolkitMode = "system"
    # `poetry run` in the project gets the project's CUDA environment (`env`).
    run_environment: bool = True
    mirrors: dict[str, str] = field(default_factory=dict)
    packages: tuple[PackageRule, ...] = ()


KEYS = {  # every key of [tool.poetry-cuda]
    "cuda",
    "policy",
    "allow-cpu-fallback",
    "targets",
    "backend",
    "toolkit",
    "poetry-run-environment",
    "mirrors",
    "packages",
}


def _bad(key: str, problem: str, fix: str) -> ConfigError:
    return ConfigError(f"{TABLE} {key}: {problem}", fix=fix)


def _choice(table: dict[str, Any], key: str, choices: tuple[str, ...], default: str) -> str:
    value = table.get(key, default)
    if not isinstance(value, str) or value not in choices:
        raise _bad(
            key,
            f"{value!r} is not one of {', '.join(repr(c) for c in choices)}",
            f'write e.g. {key} = "{default}"',
        )
    return value


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_index_url(url: str, key: str) -> str:
    """Index URLs must be https; plain http is allowed for loopback hosts only.

    A URL with whitespace or control characters, or an authority that URL parsers may read
    differently (a stray bracket, backslash or port), is refused whatever its scheme; so is
    one with credentials or a query, which would be committed with it.
    """
    candidate = url.replace("{variant}", "variant")
    parts = _well_formed(candidate)
    if parts is not None and "@" in parts.netloc:
        raise ConfigError(
            f"{key}: the URL holds credentials (user name or password before '@')",
            why="pyproject.toml and cuda.lock are committed, and poetry-cuda copies the mirror "
            "URL into both",
            fix="remove them from the URL and give them to the package manager, for the source "
            "name that `poetry cuda plan` prints: Poetry: `poetry config "
            "http-basic.<source-name> <user> <token>`; uv: the environment variables "
            "UV_INDEX_<NAME>_USERNAME and UV_INDEX_<NAME>_PASSWORD, NAME being the source name "
            "in upper case with '-' as '_'",
        )
    if parts is not None and (parts.query or parts.fragment or "?" in url or "#" in url):
        raise ConfigError(
            f"{key}: the URL has a query string or a fragment ('?' or '#')",
            why="a package index is a base URL that the variant and package names extend; "
            "a token in a query would be committed, and the variant would land in the query",
            fix="use the index's base URL; give a token as credentials to the package manager "
            "(`poetry config http-basic.<source-name> ...`, or uv's "
            "UV_INDEX_<NAME>_USERNAME / UV_INDEX_<NAME>_PASSWORD)",
        )
    if parts is not None and parts.scheme == "https":
        return url
    if parts is not None and parts.scheme == "http" and is_loopback(parts.hostname or ""):
        return url
    raise ConfigError(
        f"{key}: {url!r} is not an https URL",
        why="package indexes are fetched without any other integrity check than TLS and the "
        "lock's hashes; plain http is accepted only for loopback hosts (127.0.0.0/8, ::1, "
        "localhost)",
        fix="use an https:// URL for the mirror",
    )


# [userinfo@]host[:port], the host a bracketed IPv6 address or a name without delimiters.
_AUTHORITY = re.compile(
    r"(?:[^@/?#\[\]\\]*@)?(?:\[[0-9A-Fa-f:.]+\]|[^@:/?#\[\]\\]+)(?::[0-9]{1,5})?"
)


def _well_formed(url: str) -> SplitResult | None:
    if any(char.isspace() or not char.isprintable() for char in url):
        return None
    try:
        parts = urlsplit(url)
        _ = parts.port  # ValueError for a port that is not a number below 65536
    except ValueError:
        return None
    if not parts.hostname or not _AUTHORITY.fullmatch(parts.netloc):
        return None
    return parts


def parse_settings(pyproject: dict[str, Any]) -> Settings:
    """Read `[tool.poetry-cuda]` from a parsed pyproject.toml (a plain dict)."""
    tool = pyproject.get("tool", {})
    table = tool.get("poetry-cuda", {}) if isinstance(tool, dict) else {}
    if not isinstance(table, dict):
        raise ConfigError(f"{TABLE} must be a table", fix=f"write it as a {TABLE} section")
    unknown = sorted(set(table) - KEYS)
    if unknown:
        raise _bad(
            unknown[0],
            "unknown key",
            f"remove it; the known keys are {', '.join(sorted(KEYS))}",
        )

    cuda = table.get("cuda", "auto")
    if not isinstance(cuda, str):
        raise _bad("cuda", f"expected a string, got {cuda!r}", 'write e.g. cuda = "auto"')

    fallback = table.get("allow-cpu-fallback", False)
    if not isinstance(fallback, bool):
        raise _bad(
            "allow-cpu-fallback",
            f"expected true or false, got {fallback!r}",
            "write allow-cpu-fallback = true",
        )

    run_environment = table.get("poetry-run-environment", True)
    if not isinstance(run_environment, bool):
        raise _bad(
            "poetry-run-environment",
            f"expected true or false, got {run_environment!r}",
            "write poetry-run-environment = false to keep `poetry run` as Poetry has it",
        )

    targets = table.get("targets", [])
    if (
        isinstance(targets, str)
        or not isinstance(targets, list)
        or not all(isinstance(t, str) and t for t in targets)
    ):
        raise _bad("targets", "expected a list of paths", 'write targets = ["hosts/*.json"]')

    mirrors = table.get("mirrors", {})
    if not isinstance(mirrors, dict):
        raise _bad(
            "mirrors", "expected a table", 'write [tool.poetry-cuda.mirrors] pytorch = "..."'
        )
    for key, url in mirrors.items():
        if key not in MIRROR_KEYS:
            raise _bad(
                f"mirrors.{key}", "unknown index family", f"use one of {', '.join(MIRROR_KEYS)}"
            )
        if not isinstance(url, str):
            raise _bad(f"mirrors.{key}", f"expected a URL string, got {url!r}", "quote the URL")
        check_index_url(url, f"{TABLE} mirrors.{key}")

    return Settings(
        cuda=CudaRequest.parse(cuda),
        policy=_choice(table, "policy", POLICIES, "newest"),  # type: ignore[arg-type]
        allow_cpu_fallback=fallback,
        targets=tuple(targets),
        backend=_choice(table, "backend", BACKENDS, "auto"),  # type: ignore[arg-type]
        toolkit=_choice(table, "toolkit", TOOLKIT_MODES, "system"),  # type: ignore[arg-type]
        run_environment=run_environment,
        mirrors=dict(mirrors),
        packages=_parse_package_rules(table.get("packages", {})),
    )


def _parse_package_rules(raw: object) -> tuple[PackageRule, ...]:
    if not isinstance(raw, dict):
        raise _bad(
            "packages", "expected a table of packages", "write [tool.poetry-cuda.packages.NAME]"
        )
    rules = []
    for name, rule in raw.items():
        key = f"packages.{name}"
        if not isinstance(rule, dict) or set(rule) - {"needs"}:
            raise _bad(
                key, "expected a table with one key, needs", 'write needs = ["nvcc>=12.1,<13"]'
            )
        needs = rule.get("needs", [])
        if not isinstance(needs, list):
            raise _bad(f"{key}.needs", "expected a list", 'write needs = ["cudnn>=9"]')
        parsed = []
        for need in needs:
            parsed.append(_parse_need(need, f"{key}.needs"))
        rules.append(PackageRule(name=canonicalize_name(name), needs=tuple(parsed)))
    return tuple(rules)


def _parse_need(need: object, key: str) -> tuple[str, str]:
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
    raise _bad(
        key,
        f"{need!r} is not a requirement",
        f"write KIND followed by a version range, KIND one of {', '.join(REQUIREMENT_KINDS)}: "
        '"nvcc>=12.1,<13"',
    )
