"""The error root of poetry-cuda.

Every error a user can meet carries three parts (what went wrong, why, and how
to fix it) and the exit code documented in the contract:

* 1: the project's environment needs something this machine lacks (`env`, `run`);
* 2: bad usage, bad configuration or a bad input file;
* 3: no variant satisfies the constraints;
* 4: the package manager's own resolution failed.
"""

from __future__ import annotations

import errno

from poetry_cuda.messages import Language
from poetry_cuda.messages import Localized
from poetry_cuda.messages import labels_language
from poetry_cuda.messages import localize
from poetry_cuda.messages import message


class PoetryCudaError(Exception):
    """Base class of every error poetry-cuda reports to a user.

    Each part may be a catalogue message: `what`, `why` and `fix` hold the English
    text, and `render` shows the message in the reader's language.
    """

    exit_code = 2

    def __init__(self, what: Localized, *, why: Localized = "", fix: Localized = "") -> None:
        self.what = localize(what, "en")
        self.why = localize(why, "en")
        self.fix = localize(fix, "en")
        super().__init__(self.what)
        self._parts = (what, why, fix)

    def render(self, language: Language = "en") -> str:
        """The message as printed: what, then why and fix on their own lines."""
        # Chinese labels only before Chinese texts: an error not wholly translated reads in English.
        language = labels_language(self._parts, language)
        what, why, fix = (localize(part, language) for part in self._parts)
        lines = [what]
        if why:
            lines.append(message("error.why", why=why).text(language))
        if fix:
            lines.append(message("error.fix", fix=fix).text(language))
        return "\n".join(lines)

    @property
    def said(self) -> Localized:
        """What went wrong, as a message to show in the reader's language."""
        return self._parts[0]

    def __str__(self) -> str:
        return self.render()


class UsageError(PoetryCudaError):
    """A command-line option or argument is invalid."""


class ConfigError(PoetryCudaError):
    """`[tool.poetry-cuda]` or another part of pyproject.toml is invalid."""


class InputFileError(PoetryCudaError):
    """A file poetry-cuda reads (target profile, cuda.lock, data) is invalid."""


class UnmetRequirementError(PoetryCudaError):
    """A locked system requirement that no installed toolkit or cuDNN satisfies."""

    exit_code = 1


class CommandNotFoundError(PoetryCudaError):
    """`run`: the command is not on the project's PATH (the shell's exit code 127)."""

    exit_code = 127


class CommandNotExecutableError(PoetryCudaError):
    """`run`: the command exists but cannot be executed (the shell's exit code 126)."""

    exit_code = 126


class NoVariantError(PoetryCudaError):
    """No build of a package satisfies the host, the policy and the project."""

    exit_code = 3


class ResolutionError(PoetryCudaError):
    """Poetry's or uv's own resolution failed; its message is passed on."""

    exit_code = 4


class DetectionError(PoetryCudaError):
    """A probe found a driver that is present but broken (e.g. a version mismatch)."""


class ProjectBusyError(PoetryCudaError):
    """Another poetry-cuda run holds the project and did not finish in time."""


class RefusedFileError(OSError):
    """A file poetry-cuda will not read (a device, one too large), said as a message."""

    def __init__(self, code: int, said: Localized) -> None:
        super().__init__(code, localize(said, "en"))
        self.said = said


def os_problem(error: OSError) -> Localized:
    """What the system said of a file or folder, in the reader's language where it is a common
    refusal; else in the system's words."""
    if isinstance(error, RefusedFileError):
        return error.said
    if error.errno == errno.ENOENT:
        return message("os.not-found")
    if error.errno == errno.ENOTDIR:
        return message("os.not-a-folder")
    if error.errno == errno.EACCES:
        return message("os.permission")
    return str(error.strerror or error)
