"""`lock`: plan, write the package manager's configuration, run its lock, write cuda.lock."""

from __future__ import annotations

import os

from typing import TYPE_CHECKING
from typing import ClassVar

from poetry_cuda.cli.commands.base import CUDA_OPTION
from poetry_cuda.cli.commands.base import JSON_OPTION
from poetry_cuda.cli.commands.base import POLICY_OPTION
from poetry_cuda.cli.commands.base import TARGET_OPTION
from poetry_cuda.cli.commands.base import Option
from poetry_cuda.cli.commands.base import backend_line
from poetry_cuda.cli.commands.base import user_language
from poetry_cuda.cli.commands.plan import PlanCommand
from poetry_cuda.cli.commands.plan import base_image_line
from poetry_cuda.cli.commands.plan import plan_json
from poetry_cuda.cli.commands.plan import render
from poetry_cuda.cli.markup import escape
from poetry_cuda.messages import localize
from poetry_cuda.messages import message


if TYPE_CHECKING:
    from poetry_cuda.messages import Localized


class LockCommand(PlanCommand):
    name = "lock"
    description = (
        "Plan, write the choice as the package manager's configuration, lock, write cuda.lock."
    )
    options: ClassVar[tuple[Option, ...]] = (
        TARGET_OPTION,
        CUDA_OPTION,
        POLICY_OPTION,
        Option("regenerate", "Ignore the existing lock and resolve anew."),
        Option("check", "Exit 1 when cuda.lock or the managed entries are stale."),
        Option("dry-run", "Print the plan and the pyproject.toml diff; write nothing."),
        Option(
            "adopt",
            "Take over the hand-written CUDA entries the plan contradicts (keeping the "
            "variant they pin unless --cuda says otherwise).",
        ),
        JSON_OPTION,
    )

    def run_command(self) -> int:
        from poetry_cuda.cli.registry import package_manager
        from poetry_cuda.knowledge.packaged import load
        from poetry_cuda.locking import service

        check, dry_run = self.option("check"), self.option("dry-run")
        ask = service.Ask(
            self.planning_options(),
            command=self.invocation,
            inside_poetry=self.invocation if self.invoked_as.startswith("cuda ") else None,
            adopt=self.option("adopt"),
            regenerate=self.option("regenerate"),
        )
        start = self.project_start()
        detect, kb = self.detect_this_machine, load()
        if check:
            stale = service.check_project(
                start, ask, kb, os.environ, detect=detect, load_manager=package_manager
            ).stale
        elif dry_run:
            outcome = service.preview_project(
                start, ask, kb, os.environ, detect=detect, load_manager=package_manager
            )
        else:
            outcome = service.lock_project(
                start,
                ask,
                kb,
                os.environ,
                detect=detect,
                load_manager=package_manager,
                notify=self.notify,
                ahead=self.prefetched.ahead,
            )
        if check:
            if stale:
                language = user_language()
                header = message("check.stale").text(language)
                self.line_error(f"<error>{escape(header)}</error>")
                for reason in stale:
                    self.line_error(f"  {escape(localize(reason, language))}")
                fix = message("check.fix", command=self.invocation)
                self.line_error(escape(message("error.fix", fix=fix).text(language)))
                return 1
            self.line(escape(message("check.fresh").text(user_language())))
            return 0
        planned = outcome.planned
        if self.option("json"):
            self.print_json(plan_json(planned))
            return 0
        language = user_language()
        for line in render(planned.plan, language, targets_from=planned.targets_from):
            self.line(line)
        image_line = base_image_line(planned, language)
        if image_line is not None:
            self.line(image_line)
        why = outcome.backend_reason or self.backend(planned)[1]
        self.line(backend_line(outcome.cuda_lock.backend, why, language))
        adopted = "Would adopt" if dry_run else "Adopted"  # a dry run changes nothing
        for change in outcome.adopted:
            self.line(f"<info>{adopted}</info> {escape(change)}")
        if dry_run:
            self.line("")
            unchanged = message("lock.no-change").text(language)
            self.line(escape(outcome.diff) if outcome.diff else escape(unchanged))
            return 0
        for package in outcome.cuda_lock.packages:
            locked = message(
                "lock.locked", name=package.name, version=package.version, source=package.source
            )
            self.line(f"<info>{escape(locked.text(language))}</info>")
        self.line(escape(message("lock.wrote").text(language)))
        return 0

    def notify(self, said: Localized) -> None:
        self.line_error(escape(localize(said, user_language())))

    @property
    def invocation(self) -> str:
        """This command as the user runs it: `poetry cuda lock` or `poetry-cuda lock`."""
        return (
            f"poetry {self.invoked_as}"
            if self.invoked_as.startswith("cuda ")
            else "poetry-cuda lock"
        )
