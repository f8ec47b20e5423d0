"""Per-user mirrors: `POETRY_CUDA_MIRROR_<FAMILY>`, and the managed sources they redirect.

The variable belongs to one user and is never written anywhere: the committed files keep
the family's own (or the project's configured) index URLs, and only the package manager
running for this user fetches from the mirror. A value is a URL template like a
`[tool.poetry-cuda.mirrors]` entry ("{variant}" replaced, else "/{variant}" appended).
"""

from __future__ import annotations

import dataclasses

from typing import TYPE_CHECKING

from poetry_cuda.errors import ConfigError
from poetry_cuda.knowledge.model import MIRROR_INFIX
from poetry_cuda.knowledge.packaged import mirrors_of
from poetry_cuda.records import frozen
from poetry_cuda.request.settings import MIRROR_KEYS
from poetry_cuda.request.settings import resolve_mirror
from poetry_cuda.urls import check_index_url
from poetry_cuda.urls import url_problem


if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Mapping
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.request.settings import Settings


PREFIX = "POETRY_CUDA_MIRROR_"


@frozen
class Redirect:
    """A managed source fetched from a mirror while everything records `upstream`."""

    name: str  # the source name, as committed
    variable: str  # the variable that asked for it
    upstream: str  # its URL, as committed
    mirror: str  # where this user fetches its pages and files
    cache: str  # the name of the mirror's own cache (never the upstream source's)


def variable(key: str) -> str:
    """`pytorch` -> `POETRY_CUDA_MIRROR_PYTORCH`."""
    return PREFIX + key.upper().replace("-", "_")


def user_mirrors(environ: Mapping[str, str]) -> dict[str, str]:
    """The per-user mirror template of each family key (`pytorch`, `paddle`) that has one.

    Raises ConfigError (exit 2) naming the variable for a malformed value or an unknown family.
    """
    known = {variable(key): key for key in MIRROR_KEYS}
    found = {}
    for name, value in sorted(environ.items()):
        if not name.startswith(PREFIX) or name == REDIST_VARIABLE:
            continue
        if name not in known:
            raise ConfigError(
                f"{name}: no package family of that name takes a per-user mirror",
                why="the part after POETRY_CUDA_MIRROR_ names the family whose indexes the "
                "mirror serves",
                fix=f"use one of {', '.join(sorted(known))}, or unset {name}",
            )
        if value.strip():
            found[known[name]] = template(name, value.strip(), known[name])
    return found


REDIST_VARIABLE = variable("cuda-redist")


def with_user_redist(settings: Settings, environ: Mapping[str, str]) -> Settings:
    """`settings` with this user's mirror of NVIDIA's redist archives, if one is set.

    `POETRY_CUDA_MIRROR_CUDA_REDIST` replaces `[tool.poetry-cuda.mirrors] cuda-redist` for
    this user only: cuda.lock records each archive's path and sha256, not where it came
    from, so a mirror changes no committed byte, and a file the mirror serves differently
    is refused.
    """
    value = environ.get(REDIST_VARIABLE, "").strip()
    if not value:
        return settings
    return dataclasses.replace(settings, redist_mirror=check_index_url(value, REDIST_VARIABLE))


def template(name: str, value: str, key: str) -> str:
    """The URL template `value` stands for: a known mirror's (`sjtu`) or `value` itself,
    checked as a mirror URL. `name` is the variable, `key` the family's mirror key.

    Any text is read without an exception: a malformed value is a ConfigError naming the
    variable and quoting the value, redacted and cut short."""
    if "://" not in value:  # a known mirror's name
        mirror = resolve_mirror(value, name, mirrors_of(key))
        if mirror.layout != "simple":
            raise ConfigError(
                f"{name}: {value!r} is a {mirror.layout} listing of wheels, which Poetry cannot "
                "use as a source",
                why="a per-user mirror redirects Poetry's sources, and Poetry reads only "
                "simple (PEP 503) indexes",
                fix="use a simple mirror: "
                + ", ".join(f'"{m.name}"' for m in mirrors_of(key) if m.layout == "simple"),
            )
        return mirror.template
    problem = url_problem(value)
    if problem is not None and problem.kind == "credentials":
        raise ConfigError(
            f"{name}: the URL holds credentials (user name or password before '@')",
            why="Poetry would show and cache the URL with them, and poetry-cuda keeps "
            "credentials out of every message and file",
            fix="remove them from the URL and give them to Poetry for the source name that "
            "`poetry cuda plan` prints (`poetry config http-basic.<source-name> <user> <token>`): "
            "they are then sent to the mirror",
        )
    return check_index_url(value, name)


def redirects(
    sources: Iterable[tuple[str, str]],
    families: Sequence[Family],
    mirrors: Mapping[str, str],
) -> list[Redirect]:
    """Which of the project's (name, url) sources this user fetches from a mirror, and where.

    Only sources poetry-cuda itself names (`Family.names`: the name vouches for the URL) of a
    family with a per-user mirror; the user's own sources are never touched.
    """
    found = []
    for name, url in sources:
        for family in families:
            mirror = mirrors.get(family.mirror_key or "")
            if mirror is None or not family.names(name, url):
                continue
            variant = name.removeprefix(f"{family.source_prefix}-").partition(MIRROR_INFIX)[0]
            target = family.index_url(variant, mirror)
            if target is not None and target.rstrip("/") != url.rstrip("/"):
                cache = family.source_name(variant, target, mirrored=True)
                found.append(Redirect(name, variable(family.mirror_key or ""), url, target, cache))
    return found
