"""`lock`: plan, write the package manager's configuration, run its lock, write cuda.lock."""

from __future__ import annotations

import os

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
                self.line_error("<error>cuda.lock is stale:</error>")
                for reason in stale:
                    self.line_error(f"  {escape(reason)}")
                self.line_error(f"Fix: run `{self.invocation}`")
                return 1
            self.line("cuda.lock and the managed configuration are fresh.")
            return 0
        planned = outcome.planned
        if self.option("json"):
            self.print_json(planned.plan.to_json())
            return 0
        for line in render(planned.plan, user_language(), targets_from=planned.targets_from):
            self.line(line)
        self.line(self.backend_line(planned))
        adopted = "Would adopt" if dry_run else "Adopted"  # a dry run changes nothing
        for change in outcome.adopted:
            self.line(f"<info>{adopted}</info> {escape(change)}")
        if dry_run:
            self.line("")
            self.line(escape(outcome.diff) if outcome.diff else "pyproject.toml: no change")
            return 0
        for package in outcome.cuda_lock.packages:
            self.line(f"<info>Locked</info> {package.name} {package.version} from {package.source}")
        self.line("Wrote cuda.lock")
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
