"""`plan`: decide every CUDA-flavoured package's variant and source, offline."""

from __future__ import annotations

import os

from typing import TYPE_CHECKING
from typing import Any
from typing import ClassVar

from poetry_cuda.cli.commands.base import CUDA_OPTION
from poetry_cuda.cli.commands.base import JSON_OPTION
from poetry_cuda.cli.commands.base import POLICY_OPTION
from poetry_cuda.cli.commands.base import TARGET_OPTION
from poetry_cuda.cli.commands.base import CudaCommand
from poetry_cuda.cli.commands.base import Option
from poetry_cuda.cli.commands.base import backend_line
from poetry_cuda.cli.commands.base import labelled_line
from poetry_cuda.cli.commands.base import user_language
from poetry_cuda.cli.markup import escape
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import labels_language
from poetry_cuda.messages import localize
from poetry_cuda.messages import message
from poetry_cuda.request.tables import MANAGED_GROUP


if TYPE_CHECKING:
    from pathlib import Path

    from poetry_cuda.doctor.index_check import IndexReport
    from poetry_cuda.knowledge.model import KnowledgeBase
    from poetry_cuda.messages import Language
    from poetry_cuda.messages import Localized
    from poetry_cuda.messages import Message
    from poetry_cuda.planning.base_image import BaseImageChoice
    from poetry_cuda.planning.plan import ExtraChoice
    from poetry_cuda.planning.plan import Plan
    from poetry_cuda.planning.planner import Options
    from poetry_cuda.planning.planner import Planned
    from poetry_cuda.request.settings import Settings
    from poetry_cuda.request.user_mirrors import Redirect


class PlanCommand(CudaCommand):
    name = "plan"
    description = "Decide the CUDA variant and index of every CUDA-flavoured package (offline)."
    options: ClassVar[tuple[Option, ...]] = (
        TARGET_OPTION,
        CUDA_OPTION,
        POLICY_OPTION,
        JSON_OPTION,
        Option(
            "check-index",
            "Then ask each chosen index (online) whether it serves the chosen version, and "
            "whether its file links point at it or elsewhere; exit 1 if one does not serve it.",
        ),
    )

    def planning_options(self) -> Options:
        from poetry_cuda.planning.planner import Options

        return Options(
            targets=tuple(self.option("target")),
            cuda=self.option("cuda"),
            policy=self.option("policy"),
        )

    def plan(self, start: Path, kb: KnowledgeBase) -> Planned:
        """The plan `lock` would make, for the same targets (`locking.recorded.plan_for_lock`)."""
        from poetry_cuda.locking.recorded import plan_for_lock

        lock = "poetry cuda lock" if self.invoked_as.startswith("cuda ") else "poetry-cuda lock"
        return plan_for_lock(
            start,
            self.planning_options(),
            kb,
            os.environ,
            detect=self.detect_this_machine,
            command=lock,
            offline=True,
        )

    def run_command(self) -> int:
        from poetry_cuda.knowledge.packaged import load

        planned = self.plan(self.project_start(), load())
        backend, reason = self.backend(planned)
        if backend == "poetry":
            from poetry_cuda.backends.poetry.rules import check_mirrors

            check_mirrors(planned.settings)  # refused now, not when Poetry's lock fails
        redirected = self.user_redirects(planned, backend)
        reports = self.check_index(planned, redirected) if self.option("check-index") else None
        if self.option("json"):
            document = plan_json(planned)
            if reports is not None:
                document["index_check"] = [report.to_json() for report in reports]
            self.print_json(document)
        else:
            for line in render(planned.plan, user_language(), targets_from=planned.targets_from):
                self.line(line)
            image_line = base_image_line(planned, user_language())
            if image_line is not None:
                self.line(image_line)
            for line in mirror_lines(planned.settings, user_language()):
                self.line(line)
            for line in user_mirror_lines(redirected, backend, user_language()):
                self.line(line)
            self.line(backend_line(backend, reason, user_language()))
            if reports is not None:
                checked = message("index.title", how=index_check_said())
                self.line(f"<info>{escape(checked.text(user_language()))}</info>")
                for report in reports:
                    for line in report.lines(user_language()):
                        self.line(f"  {escape(line)}")
        return 0 if reports is None or all(report.ok for report in reports) else 1

    def user_redirects(self, planned: Planned, backend: str) -> list[Redirect]:
        """The sources this user's Poetry fetches from a per-user mirror (uv refuses them)."""
        from poetry_cuda.planning.user_mirrored import user_redirects

        if backend != "poetry":
            return []
        return user_redirects(planned.plan.packages, planned.kb.families, os.environ)

    def check_index(self, planned: Planned, redirected: list[Redirect]) -> list[IndexReport]:
        """Check the indexes the lock would read: a per-user mirror's where one is set."""
        from poetry_cuda.doctor.index_check import check
        from poetry_cuda.planning.user_mirrored import through_mirrors

        choices = through_mirrors(planned.plan.packages, redirected)
        return check(choices, planned.settings, planned.kb.families)

    def backend(self, planned: Planned) -> tuple[str, Message]:
        """Which package manager this project is for, and why (`backend = "auto"` guesses)."""
        from poetry_cuda.backends import choice

        return choice.choose_with_reason(
            planned.settings.backend, planned.project, planned.pyproject
        )


def index_check_said() -> Message:
    """How the index check ran: online, and within which limits."""
    from poetry_cuda.doctor.index_check import CHECK_TIMEOUT
    from poetry_cuda.doctor.index_check import REQUEST_TIMEOUT

    return message("index.how", page=f"{REQUEST_TIMEOUT:g}", total=f"{CHECK_TIMEOUT:g}")


def mirror_lines(settings: Settings, language: Language) -> list[str]:
    """The mirrors in use, as set and as expanded (a known name stands for its template)."""
    return [
        labelled_line(message("plan.mirror", said=mirror.said).text(language))
        for mirror in settings.mirrors.values()
    ]


def targets_said(plan: Plan, targets_from: str) -> Localized:
    """The plan's targets as its header names them: those cuda.lock records are said to be
    cuda.lock's, so that "this machine" is never a machine the plan was not made for."""
    from poetry_cuda.planning.targets import DETECTED
    from poetry_cuda.planning.targets import RECORDED

    recorded = targets_from == RECORDED
    machine = message("plan.earlier-machine") if recorded else message("detect.this-machine")
    labels = Phrase(tuple(machine if label == DETECTED else label for label in plan.targets), ", ")
    return message("plan.recorded-targets", labels=labels) if recorded else labels


def user_mirror_lines(redirected: list[Redirect], backend: str, language: Language) -> list[str]:
    """The per-user mirrors in use; in a uv project, that `lock` refuses the variables."""
    if backend != "poetry":
        from poetry_cuda.request.user_mirrors import PREFIX
        from poetry_cuda.request.user_mirrors import REDIST_VARIABLE

        names = sorted(
            n
            for n, v in os.environ.items()
            if n.startswith(PREFIX) and n != REDIST_VARIABLE and v.strip()
        )
        if not names:
            return []
        said = message("plan.user-mirror-uv", variables=", ".join(names))
        return [f"<comment>{escape(said.text(language))}</comment>"]
    return [
        escape(
            message(
                "plan.user-mirror",
                variable=r.variable,
                source=r.name,
                mirror=r.mirror,
                upstream=r.upstream,
            ).text(language)
        )
        for r in redirected
    ]


def plan_json(planned: Planned) -> dict[str, Any]:
    """The plan as `plan --json` prints it, and `lock --json` (with --dry-run) the same."""
    document = planned.plan.to_json()
    image = base_image(planned)
    document["base_image"] = None if image is None else image.image
    return document


def base_image(planned: Planned) -> BaseImageChoice | None:
    """The NVIDIA CUDA image that meets the plan on its Linux targets (`planning.base_image`)."""
    from poetry_cuda.knowledge.packaged import base_images
    from poetry_cuda.planning.base_image import base_image_for

    plan = planned.plan
    return base_image_for(plan, planned.targets, plan.system_requirements, base_images())


def base_image_line(planned: Planned, language: Language) -> str | None:
    choice = base_image(planned)
    if choice is None:
        return None
    if choice.image:
        said = message("plan.base-image", image=choice.image, reason=choice.reason)
    else:
        said = message("plan.base-image-none", reason=choice.reason)
    return labelled_line(said.text(language))


def fork_kind(fork: ExtraChoice) -> Message:
    """How a fork is installed: an extra, a group or a platform marker (the name says
    which), with the marker an extra or group holds under."""
    kind = {
        "extra": message("plan.fork-extra"),
        "group": message("plan.fork-group"),
        "marker": message("plan.fork-marker"),
    }[fork.kind]
    if fork.kind == "marker" or not fork.marker:
        return kind
    return message("plan.fork-where", kind=kind, marker=fork.marker)


def render(plan: Plan, language: Language, *, targets_from: str = "") -> list[str]:
    """The plan for people; `targets_from` says where its targets came from (`Planned`)."""
    esc = escape
    said = targets_said(plan, targets_from)
    header = message("plan.header", targets=said, policy=plan.policy)
    lines = [f"<info>{esc(header.text(language))}</info>"]
    if not plan.packages and not plan.extras:
        lines.append(f"  {esc(message('plan.no-packages').text(language))}")
    width = max((len(c.name) for c in plan.packages), default=0)
    for choice in plan.packages:
        where = "PyPI" if choice.source.is_pypi else f"{choice.source.name} ({choice.source.url})"
        source = message("plan.from", where=where).text(language)
        expect = message("plan.expects", version=choice.version) if choice.version else ""
        lines.append(
            f"  <c1>{choice.name.ljust(width)}</c1>  <b>{choice.variant}</b>{esc(source)}"
            f"{esc(localize(expect, language))}"
        )
        lines.append(f"  {' ' * width}  {esc(localize(choice.reason, language))}")
    if plan.extras:
        lines.append(f"<info>{esc(message('plan.extras').text(language))}</info>")
        extra_width = max(len(e.name) for e in plan.extras)
        for extra in plan.extras:
            serves = message("plan.fork-serves", targets=", ".join(extra.serves))
            version = f" {extra.version}" if extra.version else ""
            lines.append(
                f"  <c1>{esc(extra.name.ljust(extra_width))}</c1>  {extra.family}{version} "
                f"<b>{extra.variant}</b> ({esc(fork_kind(extra).text(language))})"
                f"{esc(serves.text(language)) if extra.serves else ''}"
            )
            lines.append(f"  {' ' * extra_width}  {esc(extra.reason)}")
    if plan.system_requirements:
        title, note = message("system.title"), message("system.no-resolver")
        lines.append(f"<info>{title.text(language)}</info> {note.text(language)}")
        for req in plan.system_requirements:
            spec = f" {req.spec}" if req.spec else ""
            needs = message(
                "system.needs-because",
                package=req.package,
                kind=req.kind,
                spec=spec,
                reason=req.reason,
            )
            lines.append(f"  {esc(needs.text(language))}")
            satisfy = message("system.to-satisfy", satisfy=req.satisfy)
            lines.append(f"    {esc(satisfy.text(language))}")
    if plan.additions:
        added = message("plan.added", group=MANAGED_GROUP).text(language)
        lines.append(f"<info>{esc(added)}</info>")
        for addition in plan.additions:
            lines.append(f"  {addition.name}{esc(addition.spec)}: {esc(addition.reason)}")
    for warning in plan.warnings:
        label = labels_language([warning], language)
        said = message("warning.line", text=warning).text(label)
        lines.append(labelled_line(said, "comment"))
    return lines
