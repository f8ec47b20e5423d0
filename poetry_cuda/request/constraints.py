"""Version constraints as the project writes them, PEP 440 or Poetry syntax.

poetry-core's parser is the reference for both (``^2.6``, ``~2.5.1``, ``>=2.4,<3``,
``2.5.*``), so the prediction here agrees with what Poetry's resolver will accept.
Local version labels are compared separately: ``==2.5.1+cpu`` is a version pin plus a
variant request, and the variant part is checked against the choice by the caller.
"""

from __future__ import annotations

import re

from functools import cache
from typing import TYPE_CHECKING

from poetry.core.constraints.version import Version
from poetry.core.constraints.version import parse_constraint
from poetry.core.constraints.version.exceptions import ParseConstraintError
from poetry.core.version.exceptions import InvalidVersionError

from poetry_cuda.display import quoted
from poetry_cuda.errors import ConfigError


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry.core.constraints.version import VersionConstraint


_LOCAL_LABEL = re.compile(r"\+[A-Za-z0-9][A-Za-z0-9.]*")


@cache
def _parse(text: str) -> VersionConstraint:
    return parse_constraint(_LOCAL_LABEL.sub("", text))


def check(text: str, origin: str) -> None:
    """Raise ConfigError when `text` is not a version constraint."""
    try:
        _parse(text)
    except (ParseConstraintError, InvalidVersionError, ValueError):
        raise ConfigError(
            f"{origin}: {quoted(text)} is not a version constraint",
            fix="write a PEP 440 or Poetry constraint such as '>=2.4', '^2.5' or '==2.5.1'",
        ) from None


def allows(text: str, version: str) -> bool:
    """Whether constraint `text` (its local label ignored) admits `version`."""
    return _parse(text).allows(Version.parse(version))


def is_open_above(text: str, version: str) -> bool:
    """Whether the constraint also admits releases newer than `version`."""
    return overlaps(text, f">{version}")


def overlaps(first: str, second: str) -> bool:
    """Whether two constraints admit at least one common version."""
    return not _parse(first).intersect(_parse(second)).is_empty()


def compatible(texts: Sequence[str]) -> bool:
    """Whether the constraints admit at least one common version (none: they do)."""
    found = None
    for text in texts:
        parsed = _parse(text)
        found = parsed if found is None else found.intersect(parsed)
    return found is None or not found.is_empty()
