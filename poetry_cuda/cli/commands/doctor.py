"""`doctor`: check host, locks, installed environment and system libraries; print findings."""

from __future__ import annotations

import os

from typing import TYPE_CHECKING
from typing import ClassVar

from poetry_cuda.cli.commands.base import EXIT_CODES_HELP
from poetry_cuda.cli.commands.base import JSON_OPTION
from poetry_cuda.cli.commands.base import CudaCommand
from poetry_cuda.cli.commands.base import Option
from poetry_cuda.cli.commands.base import backend_line
from poetry_cuda.cli.commands.base import user_language
from poetry_cuda.cli.markup import escape
from poetry_cuda.messages import message


if TYPE_CHECKING:
    from poetry_cuda.doctor.findings import Finding
    from poetry_cuda.messages import Language


JSON_HELP = """
With --json, doctor prints one object:

  {"schema": 1, "project": "<folder or null>", "strict": true | false,
   "status": "ok" | "warn" | "fail",
   "summary": {"ok": N, "warn": N, "fail": N},
   "findings": [{"area": "host" | "locks" | "environment" | "system" | "deep",
                 "status": "ok" | "warn" | "fail", "check": "<what was checked>",
                 "subject": "<package or GPU, or null>", "message": "...",
                 "fix": "<what to do, or null when ok>"}]}

Doctor is read-only and offline. --deep also runs the environment's Python for a short
check (imports, torch.cuda.is_available(), paddle.utils.run_check()), with a time limit.
A machine with no GPU and no NVIDIA driver (a CPU-only CI job) where cuda.lock locks GPU
builds gets one warning saying so, and everything else is still checked; --strict (for a
GPU runner) makes it a failure, and "strict" in the JSON says which was asked.
Exit 0 when nothing failed (warnings allowed), 1 on any failure, 2 on bad input.
"""

STATUS = {
    "ok": "<info>ok</info>  ",
    "warn": "<comment>warn</comment>",
    "fail": "<error>FAIL</error>",
}


class DoctorCommand(CudaCommand):
    name = "doctor"
    description = "Check host, locks, installed environment and system libraries; hint each fix."
    help = JSON_HELP.strip() + "\n\n" + EXIT_CODES_HELP
    options: ClassVar[tuple[Option, ...]] = (
        JSON_OPTION,
        Option(
            "deep",
            "Also import the locked packages inside the environment, and hash every "
            "installed CUDA file against its RECORD.",
        ),
        Option(
            "strict",
            "Fail where GPU builds are locked and this machine has no GPU or driver (a GPU "
            "runner); without it, a machine with neither gets a warning.",
        ),
    )

    def run_command(self) -> int:
        from poetry_cuda.cli.registry import package_manager
        from poetry_cuda.doctor.checkup import deep_checks
        from poetry_cuda.doctor.checkup import record_checks
        from poetry_cuda.doctor.checkup import run_checks
        from poetry_cuda.doctor.facts import gather
        from poetry_cuda.doctor.findings import exit_code
        from poetry_cuda.doctor.findings import report_json
        from poetry_cuda.knowledge.packaged import load

        kb = load()
        facts = gather(
            self.project_start(),
            kb,
            environ=os.environ,
            early=self.prefetched.early,
            load_manager=package_manager,
        )
        strict = bool(self.option("strict"))
        findings = run_checks(facts, kb, strict=strict)
        findings += record_checks(facts, kb, deep=bool(self.option("deep")))
        if self.option("deep"):
            findings += deep_checks(facts, os.environ, strict=strict)
        project = str(facts.project) if facts.project else None
        if self.option("json"):
            self.print_json(report_json(findings, project, strict=strict))
        else:
            if facts.backend is not None:
                self.line(backend_line(*facts.backend, user_language()))
            for line in render(findings, user_language()):
                self.line(line)
        return exit_code(findings)


def render(findings: list[Finding], language: Language) -> list[str]:
    from poetry_cuda.doctor.findings import AREA_TITLES
    from poetry_cuda.doctor.findings import AREAS
    from poetry_cuda.doctor.findings import summary

    esc = escape
    lines = []
    for area in AREAS:
        rows = [f for f in findings if f.area == area]
        if not rows:
            continue
        lines.append(f"<b>{AREA_TITLES[area].text(language)}</b>")
        for finding in rows:
            lines.append(f"  {STATUS[finding.status]}  {esc(finding.shown_message(language))}")
            fix = finding.shown_fix(language)
            if finding.status != "ok" and fix:
                label = finding.fix_label_language(language)
                lines.append(f"        {esc(message('error.fix', fix=fix).text(label))}")
    lines.append(message("doctor.summary", **summary(findings)).text(language))
    return lines
