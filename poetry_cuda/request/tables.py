"""A package manager's own tables in pyproject.toml, as what the authors asked for.

Besides PEP 621 and PEP 735, which every manager reads, each package manager has tables of
its own: Poetry's dependency tables, groups and sources, uv's indexes and sources. Their
format is their backend's (`backends.<name>.reader`, a `TableReader`); what they say comes
back as the plain values below, which `read_dependencies` and `recognise` combine with what
the standards say. Every reader reads every project: the authors may have written either
manager's tables, whichever locks it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any
from typing import Protocol

from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Mapping

    from poetry_cuda.knowledge.model import Family
    from poetry_cuda.request.dependencies import Dependency
    from poetry_cuda.request.handwritten import HandIndex
    from poetry_cuda.request.handwritten import HandPin


# The dependency group poetry-cuda writes (Poetry's group, a PEP 735 group for uv): its own
# output, which no reader takes for the authors' request.
MANAGED_GROUP = "poetry-cuda"


@frozen
class WrittenIndex:
    """A source or index as the authors wrote it, before anything is made of its URL."""

    name: str
    url: object  # as written: only a string is an index's URL
    where: str  # "[[tool.poetry.source]]", "[[tool.uv.index]]", "[tool.uv] extra-index-url"
    # The resolver may take packages from it without a pin (uv's indexes unless explicit,
    # Poetry's primary sources), so it selects the variant by itself.
    implicit: bool
    # A Poetry 1.x priority it is written with (`secondary = true`), which Poetry 2 refuses.
    old_priority: str = ""
    # Whether a package's source can name it: not a `[tool.uv] extra-index-url`, nor an
    # index written without a name (its `name` is then its URL, for messages).
    named: bool = True


@frozen
class WrittenEntry:
    """One package's entry in a manager's own table, as the authors wrote it."""

    where: str  # the table: "[tool.poetry.dependencies]", "[tool.uv.sources]"
    package: str  # the name as written
    entry: Any  # the entry itself: a constraint string or a table (one of a list's)
    index: object  # the index it names (`source = ...`, `index = ...`), if any
    # Written in the shape poetry-cuda writes its own (one index, on the platforms of its
    # builds): its own where that index is one it names too (`recognise`), whichever
    # packages its group holds (an optional package's is in no group).
    managed_shape: bool = False


class TableReader(Protocol):
    """What a package manager's own tables in a parsed pyproject.toml say."""

    def dependencies(self, pyproject: Mapping[str, Any]) -> list[Dependency]:
        """The dependencies its own tables declare (besides PEP 621 and 735), in file order."""
        ...

    def indexes(self, pyproject: Mapping[str, Any]) -> list[WrittenIndex]:
        """Every source or index its own tables declare, in file order."""
        ...

    def entries(self, pyproject: Mapping[str, Any]) -> list[WrittenEntry]:
        """Every package entry of its own tables that may pin a build (not poetry-cuda's)."""
        ...

    def pins(
        self, family: Family, entry: WrittenEntry, indexes: Mapping[str, HandIndex]
    ) -> list[HandPin]:
        """What `entry`, of a member of `family`, pins: an index of `indexes`, a label, a
        wheel; [] where it pins no build."""
        ...
