"""`lock`: plan, write the package manager's configuration, run its lock, write cuda.lock."""

from __future__ import annotations

import dataclasses
import os

from contextlib import nullcontext
from typing import ClassVar

from poetry_cuda.cli.commands.base import CUDA_OPTION
from poetry_cuda.cli.commands.base import JSON_OPTION
from poetry_cuda.cli.commands.base import POLICY_OPTION
from poetry_cuda.cli.commands.base import TARGET_OPTION
from poetry_cuda.cli.commands.base import Option
from poetry_cuda.cli.commands.base import user_language
from poetry_cuda.cli.commands.plan import PlanCommand
from poetry_cuda.cli.commands.plan import render
from poetry_cuda.cli.markup import escape
from poetry_cuda.messages import message


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
        from poetry_cuda.backends.base import choose_for_lock
        from poetry_cuda.backends.readers import READERS
        from poetry_cuda.cli.registry import package_manager
        from poetry_cuda.knowledge.packaged import load
        from poetry_cuda.locking import lock
        from poetry_cuda.locking import transaction
        from poetry_cuda.planning.planner import plan_project
        from poetry_cuda.request.project import find_project

        check, dry_run = self.option("check"), self.option("dry-run")
        project = find_project(self.project_start())
        inside_poetry = self.invocation if self.invoked_as.startswith("cuda ") else None
        # Reading alone needs no turn; a lock holds the project from planning to cuda.lock,
        # so that it plans on what the run before it left.
        with nullcontext() if check or dry_run else transaction.session(project, self.notify):
            # Without a target given, lock again for the hosts cuda.lock was made for.
            options = dataclasses.replace(
                self.planning_options(), recorded=lock.recorded_targets(project)
            )
            planned = plan_project(
                project,
                options,
                load(),
                os.environ,
                detect=self.detect_this_machine,
                readers=READERS,
            )
            settings = planned.settings
            backend = package_manager(
                choose_for_lock(
                    settings.backend, project, planned.pyproject, inside_poetry=inside_poetry
                )
            )
            if check:
                stale = lock.stale_reasons(planned, backend)
            elif dry_run:
                outcome = lock.preview(
                    planned, backend, adopt=self.option("adopt"), command=self.invocation
                )
            else:
                outcome = lock.lock(
                    planned,
                    backend,
                    regenerate=self.option("regenerate"),
                    notify=self.notify,
                    adopt=self.option("adopt"),
                    command=self.invocation,
                    ahead=self.prefetched.ahead,
                )
        if check:
            if stale:
                language = user_language()
                header = message("check.stale").text(language)
                self.line_error(f"<error>{escape(header)}</error>")
                for reason in stale:
                    self.line_error(f"  {escape(reason)}")
                fix = message("check.fix", command=self.invocation)
                self.line_error(escape(message("error.fix", fix=fix).text(language)))
                return 1
            self.line(escape(message("check.fresh").text(user_language())))
            return 0
        planned = outcome.planned
        if self.option("json"):
            self.print_json(planned.plan.to_json())
            return 0
        language = user_language()
        for line in render(planned.plan, language):
            self.line(line)
        self.line(self.backend_line(planned))
        for change in outcome.adopted:
            self.line(f"<info>Adopted</info> {escape(change)}")
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

    def notify(self, message: str) -> None:
        self.line_error(escape(message))

    @property
    def invocation(self) -> str:
        """This command as the user runs it: `poetry cuda lock` or `poetry-cuda lock`."""
        return (
            f"poetry {self.invoked_as}"
            if self.invoked_as.startswith("cuda ")
            else "poetry-cuda lock"
        )
