"""`lock --adopt`: taking hand-written CUDA entries over, in the tables they are written in.

`planning.adoption.review` names the entries the plan contradicts (`taken`) and the
indexes that taking them over leaves unused. This rewrites exactly those, and reports
each change in one line; the managed entries are written afterwards as on every lock.

Each package manager's editor rewrites the entries of its own tables (`EDITORS`: Poetry's
dependencies and sources, uv's sources and indexes), whichever manager locks, as each
manager's reader read them (`backends.readers`); a PEP 621 or PEP 735 requirement string
loses its label, and a `name @ URL` wheel becomes `name==version` (`requirements_edit`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Protocol

from poetry_cuda.backends import requirements_edit
from poetry_cuda.backends import toml_edit
from poetry_cuda.backends.poetry import editor as poetry_editor
from poetry_cuda.backends.uv import editor as uv_editor


if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Sequence

    from tomlkit.toml_document import TOMLDocument

    from poetry_cuda.request.handwritten import HandIndex
    from poetry_cuda.request.handwritten import HandPin


class AdoptingEditor(Protocol):
    """A manager's editor, for the hand-written entries of its own tables; each answers
    None for an entry of another's table."""

    def adopt_pin(
        self, document: TOMLDocument, pin: HandPin, pins: Sequence[HandPin]
    ) -> list[str] | None:
        """Rewrite the entry `pin` (one of `pins`, its table's entries on that package)."""
        ...

    def drop_index(self, document: TOMLDocument, index: HandIndex) -> list[str] | None:
        """Remove an index nothing uses any more."""
        ...

    def make_explicit(self, document: TOMLDocument, index: HandIndex) -> list[str] | None:
        """Rewrite an index whose priority the manager no longer reads."""
        ...


EDITORS: tuple[AdoptingEditor, ...] = (poetry_editor, uv_editor)


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
            edited = _first(editor.adopt_pin(document, pin, pins) for editor in EDITORS)
            if edited is None:  # a requirement string of PEP 621 or PEP 735
                edited = requirements_edit.plain_requirements(document, pin.where, pin.package)
            changes.extend(edited)
        for index in unused:
            changes.extend(_first(editor.drop_index(document, index) for editor in EDITORS) or [])
        for index in outdated:
            changes.extend(
                _first(editor.make_explicit(document, index) for editor in EDITORS) or []
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
