"""An interpreter that has what the base install of poetry-cuda brings, and nothing Poetry does.

The test environment has Poetry (and with it virtualenv, dulwich, requests, ...);
a user who installed poetry-cuda without its `poetry` extra has none of them. `blocker`
writes a `sitecustomize` that makes every module only Poetry's dependencies bring
unimportable in a child process (poetry-core's `poetry.core` stays: the base install has it),
so a command that reaches one fails there as it fails for that user. The set is computed
from the installed distributions' metadata, so a new dependency of Poetry is blocked too.
"""

from __future__ import annotations

from functools import cache
from importlib import metadata
from typing import TYPE_CHECKING

from packaging.requirements import Requirement

from poetry_cuda.names import canonical_name


if TYPE_CHECKING:
    from pathlib import Path


SITECUSTOMIZE = '''
import sys

BLOCKED = {blocked!r}


class WithoutPoetry:
    """Poetry is not installed: only what poetry-cuda's base install brings imports."""

    def find_spec(self, name, path=None, target=None):
        top = name.split(".", 1)[0]
        poetry = top == "poetry" and name != "poetry" and not (
            name == "poetry.core" or name.startswith("poetry.core.")
        )
        if poetry or top in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, WithoutPoetry())
'''


def closure(name: str, extras: frozenset[str] = frozenset()) -> set[str]:
    """The canonical names of `name` and every distribution it requires (with `extras`),
    as installed here, markers evaluated for this interpreter."""
    found: set[str] = set()
    pending = [(canonical_name(name), extras)]
    while pending:
        current, wanted = pending.pop()
        if current in found:
            continue
        found.add(current)
        for line in metadata.distribution(current).requires or ():
            requirement = Requirement(line)
            environments = [{"extra": extra} for extra in wanted or {""}]
            marker = requirement.marker
            if marker is None or any(marker.evaluate(env) for env in environments):
                pending.append((canonical_name(requirement.name), frozenset(requirement.extras)))
    return found


def top_level_modules(distribution: str) -> set[str]:
    """The top-level import names a distribution installs."""
    files = metadata.distribution(distribution).files or ()
    names = set()
    for file in files:
        first = file.parts[0]
        if first.endswith((".dist-info", ".data", ".pth")) or first in {"..", "__pycache__"}:
            continue
        names.add(first.removesuffix(".py").split(".", 1)[0])
    return names


@cache
def poetry_only_modules() -> frozenset[str]:
    """The top-level modules that the `poetry` extra brings and the base install does not
    (`poetry` itself, a namespace poetry-core shares, is handled apart)."""
    base = closure("poetry-cuda")
    extra = closure("poetry") - base
    base_modules = set().union(*(top_level_modules(d) for d in base))
    modules = set().union(*(top_level_modules(d) for d in extra))
    return frozenset(modules - base_modules - {"poetry"})


def blocker(folder: Path) -> dict[str, str]:
    """The environment variables under which a child Python cannot import what only Poetry
    brings (a `sitecustomize` written into `folder`)."""
    folder.mkdir(parents=True, exist_ok=True)
    blocked = sorted(poetry_only_modules())
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE.format(blocked=blocked))
    return {"PYTHONPATH": str(folder)}
