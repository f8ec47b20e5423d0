"""What doctor reports: findings, each with its area, status and a fix hint."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from typing import Any
from typing import Literal


if TYPE_CHECKING:
    from collections.abc import Iterable


SCHEMA = 1
Area = Literal["host", "locks", "environment", "system", "deep"]
Status = Literal["ok", "warn", "fail"]
AREAS: tuple[Area, ...] = ("host", "locks", "environment", "system", "deep")
AREA_TITLES: dict[Area, str] = {
    "host": "Host",
    "locks": "Locks",
    "environment": "Installed environment",
    "system": "System requirements",
    "deep": "Inside the environment (--deep)",
}


@dataclass(frozen=True)
class Finding:
    """One checked fact. `check` names the check (``driver``, ``variant``, ``cudnn``...),
    `subject` what it was checked for (a package, a GPU), `fix` what to do when not ok."""

    area: Area
    status: Status
    check: str
    message: str
    fix: str = ""
    subject: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "area": self.area,
            "status": self.status,
            "check": self.check,
            "subject": self.subject,
            "message": self.message,
            "fix": self.fix or None,
        }


def ok(area: Area, check: str, message: str, *, subject: str | None = None) -> Finding:
    return Finding(area, "ok", check, message, subject=subject)


def warn(area: Area, check: str, message: str, fix: str, *, subject: str | None = None) -> Finding:
    return Finding(area, "warn", check, message, fix, subject)


def fail(area: Area, check: str, message: str, fix: str, *, subject: str | None = None) -> Finding:
    return Finding(area, "fail", check, message, fix, subject)


def summary(findings: Iterable[Finding]) -> dict[str, int]:
    counts = {"ok": 0, "warn": 0, "fail": 0}
    for finding in findings:
        counts[finding.status] += 1
    return counts


def exit_code(findings: Iterable[Finding]) -> int:
    """0 when nothing failed (warnings allowed), 1 on any failure."""
    return 1 if any(f.status == "fail" for f in findings) else 0


def report_json(findings: list[Finding], project: str | None) -> dict[str, Any]:
    counts = summary(findings)
    return {
        "schema": SCHEMA,
        "project": project,
        "status": "fail" if counts["fail"] else "warn" if counts["warn"] else "ok",
        "summary": counts,
        "findings": [f.to_json() for f in findings],
    }
