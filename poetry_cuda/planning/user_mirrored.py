"""The plan as this user's package manager fetches it: managed sources a per-user mirror
(`POETRY_CUDA_MIRROR_<FAMILY>`) redirects, for what checks an index and what says so.

The plan itself keeps the committed URLs (the team's lock records them); only a check of
the indexes the lock would read, and the lines that tell the user, look through the mirror.
"""

from __future__ import annotations

import dataclasses

from typing import TYPE_CHECKING

from poetry_cuda.request.user_mirrors import redirects
from poetry_cuda.request.user_mirrors import user_mirrors


if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence

    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.planning.plan import Choice
    from poetry_cuda.request.user_mirrors import Redirect


def user_redirects(
    choices: Sequence[Choice], families: Sequence[Family], environ: Mapping[str, str]
) -> list[Redirect]:
    """The managed sources of `choices` this user fetches from a per-user mirror.

    Raises ConfigError (exit 2) for a malformed variable, as `lock` does.
    """
    mirrors = user_mirrors(environ)
    if not mirrors:
        return []
    sources = dict.fromkeys((c.source.name, c.source.url) for c in choices if not c.source.is_pypi)
    return redirects(sources, families, mirrors)


def through_mirrors(choices: Sequence[Choice], redirected: Sequence[Redirect]) -> list[Choice]:
    """`choices` with each redirected source's URL replaced by the mirror's."""
    by_name = {r.name: r for r in redirected}
    return [
        dataclasses.replace(
            c, source=dataclasses.replace(c.source, url=by_name[c.source.name].mirror)
        )
        if c.source.name in by_name
        else c
        for c in choices
    ]
