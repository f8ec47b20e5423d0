"""What doctor reports: findings, each with its area, status and a fix hint."""

from __future__ import annotations

import dataclasses

from typing import TYPE_CHECKING
from typing import Any
from typing import Literal

from poetry_cuda.messages import labels_language
from poetry_cuda.messages import localize
from poetry_cuda.messages import message
from poetry_cuda.records import frozen


if TYPE_CHECKING:
    from collections.abc import Iterable

    from poetry_cuda.messages import Language
    from poetry_cuda.messages import Localized
    from poetry_cuda.messages import Message


SCHEMA = 1
Area = Literal["host", "locks", "environment", "system", "deep"]
Status = Literal["ok", "warn", "fail"]
AREAS: tuple[Area, ...] = ("host", "locks", "environment", "system", "deep")
AREA_TITLES: dict[Area, Message] = {
    "host": message("doctor.area.host"),
    "locks": message("doctor.area.locks"),
    "environment": message("doctor.area.environment"),
    "system": message("doctor.area.system"),
    "deep": message("doctor.area.deep"),
}


@frozen
class Finding:
    """One checked fact. `check` names the check (``driver``, ``variant``, ``cudnn``...),
    `subject` what it was checked for (a package, a GPU), `fix` what to do when not ok."""

    area: Area
    status: Status
    check: str
    message: str
    fix: str = ""
    subject: str | None = None
    # The message and fix as built, for a reader of another language; JSON stays English.
    localized: tuple[Localized, Localized] | None = dataclasses.field(
        default=None, compare=False, repr=False
    )

    def shown_message(self, language: Language) -> str:
        return self._shown(0, self.message, language)

    def shown_fix(self, language: Language) -> str:
        return self._shown(1, self.fix, language)

    def fix_label_language(self, language: Language) -> Language:
        """The language of the fix's label: Chinese only before a Chinese fix."""
        if self.localized is None or localize(self.localized[1], "en") != self.fix:
            return "en"
        return labels_language([self.localized[1]], language)

    def _shown(self, part: int, english: str, language: Language) -> str:
        # A finding copied with another text (dataclasses.replace) shows that text as it is.
        if self.localized is None or localize(self.localized[part], "en") != english:
            return english
        return localize(self.localized[part], language)

    def to_json(self) -> dict[str, Any]:
        return {
            "area": self.area,
            "status": self.status,
            "check": self.check,
            "subject": self.subject,
            "message": self.message,
            "fix": self.fix or None,
        }


def _finding(
    area: Area, status: Status, check: str, text: Localized, fix: Localized, subject: str | None
) -> Finding:
    english = localize(text, "en"), localize(fix, "en")
    return Finding(area, status, check, *english, subject, localized=(text, fix))


def ok(area: Area, check: str, text: Localized, *, subject: str | None = None) -> Finding:
    return _finding(area, "ok", check, text, "", subject)


def warn(
    area: Area, check: str, text: Localized, fix: Localized, *, subject: str | None = None
) -> Finding:
    return _finding(area, "warn", check, text, fix, subject)


def fail(
    area: Area, check: str, text: Localized, fix: Localized, *, subject: str | None = None
) -> Finding:
    return _finding(area, "fail", check, text, fix, subject)


def summary(findings: Iterable[Finding]) -> dict[str, int]:
    counts = {"ok": 0, "warn": 0, "fail": 0}
    for finding in findings:
        counts[finding.status] += 1
    return counts


def exit_code(findings: Iterable[Finding]) -> int:
    """0 when nothing failed (warnings allowed), 1 on any failure."""
    return 1 if any(f.status == "fail" for f in findings) else 0


def report_json(
    findings: list[Finding], project: str | None, *, strict: bool = False
) -> dict[str, Any]:
    counts = summary(findings)
    return {
        "schema": SCHEMA,
        "project": project,
        "strict": strict,
        "status": "fail" if counts["fail"] else "warn" if counts["warn"] else "ok",
        "summary": counts,
        "findings": [f.to_json() for f in findings],
    }
