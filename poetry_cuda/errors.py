"""The error root of poetry-cuda.

Every error a user can meet carries three parts (what went wrong, why, and how
to fix it) and the exit code documented in the contract:

* 2: bad usage, bad configuration or a bad input file;
* 3: no variant satisfies the constraints;
* 4: the package manager's own resolution failed.
"""

from __future__ import annotations


class PoetryCudaError(Exception):
    """Base class of every error poetry-cuda reports to a user."""

    exit_code = 2

    def __init__(self, what: str, *, why: str = "", fix: str = "") -> None:
        super().__init__(what)
        self.what = what
        self.why = why
        self.fix = fix

    def render(self) -> str:
        """The message as printed: what, then why and fix on their own lines."""
        lines = [self.what]
        if self.why:
            lines.append(f"Why: {self.why}")
        if self.fix:
            lines.append(f"Fix: {self.fix}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


class UsageError(PoetryCudaError):
    """A command-line option or argument is invalid."""


class ConfigError(PoetryCudaError):
    """`[tool.poetry-cuda]` or another part of pyproject.toml is invalid."""


class InputFileError(PoetryCudaError):
    """A file poetry-cuda reads (target profile, cuda.lock, data) is invalid."""


class NoVariantError(PoetryCudaError):
    """No build of a package satisfies the host, the policy and the project."""

    exit_code = 3


class ResolutionError(PoetryCudaError):
    """Poetry's or uv's own resolution failed; its message is passed on."""

    exit_code = 4


class DetectionError(PoetryCudaError):
    """A probe found a driver that is present but broken (e.g. a version mismatch)."""
