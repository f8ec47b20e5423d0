"""`lock --adopt`: taking hand-written CUDA entries over, in the tables they are written in.

`planning.adoption.review` names the entries the plan contradicts (`taken`) and the
indexes that taking them over leaves unused. This rewrites exactly those, and reports
each change in one line; the managed entries are written afterwards as on every lock.

Each package manager's editor (`backends.registry.editors`) rewrites the entries of
its own tables (Poetry's dependencies and sources, uv's sources and indexes), whichever
manager locks, as each manager's reader read them (`backends.readers`); a PEP 621 or PEP 735 requirement string
loses its label, and a `name @ URL` wheel becomes `name==version` (`requirements_edit`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry_cuda.backends import requirements_edit
from poetry_cuda.backends import toml_edit
from poetry_cuda.backends.registry import editors


if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Sequence

    from tomlkit.toml_document import TOMLDocument

    from poetry_cuda.request.handwritten import HandIndex
    from poetry_cuda.request.handwritten import HandPin


def adopt(
    text: str,
    taken: Sequence[HandPin],
    unused: Sequence[HandIndex],
    outdated: Sequence[HandIndex],
    cuda: str | None,
) -> tuple[str, list[str]]:
    """pyproject.toml's text with `taken` rewritten, `unused` removed and `outdated`
    (Poetry 1.x sources) made explicit, and what changed.

    `cuda`, when given, is written as `[tool.poetry-cuda] cuda`: the variant the pins
    asked for, which must outlive them.
    """
    changes: list[str] = []

    def apply(document: TOMLDocument) -> None:
        done: set[tuple[str, str]] = set()
        for pin in taken:
            if (pin.where, pin.package) in done:
                continue
            done.add((pin.where, pin.package))
            pins = [p for p in taken if (p.where, p.package) == (pin.where, pin.package)]
            edited = _first(editor.adopt_pin(document, pin, pins) for editor in editors())
            if edited is None:  # a requirement string of PEP 621 or PEP 735
                edited = requirements_edit.plain_requirements(document, pin.where, pin.package)
            changes.extend(edited)
        for index in unused:
            changes.extend(_first(editor.drop_index(document, index) for editor in editors()) or [])
        for index in outdated:
            changes.extend(
                _first(editor.make_explicit(document, index) for editor in editors()) or []
            )
        if cuda is not None:
            tool = toml_edit.table(document, "tool", "tool")
            settings = toml_edit.table(tool, "poetry-cuda", "tool.poetry-cuda")
            settings["cuda"] = cuda
            changes.append(
                f'[tool.poetry-cuda] cuda = "{cuda}" set: the build asked for, now that no '
                "hand-written entry pins it"
            )

    def guarded(document: TOMLDocument) -> None:
        try:
            apply(document)
        except (KeyError, TypeError) as error:  # a layout the recognition read differently
            raise toml_edit.layout_error("the adopted entries", repr(error)) from None

    return toml_edit.rewrite(text, "the adopted entries", guarded), changes


def _first(answers: Iterable[list[str] | None]) -> list[str] | None:
    """The first editor's answer that is not None: the one whose table it is."""
    return next((answer for answer in answers if answer is not None), None)
