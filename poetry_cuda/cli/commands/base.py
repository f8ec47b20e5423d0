"""What every poetry-cuda command shares: its options, output, error rendering and exit codes.

A command is written once, against `Port` (its options and arguments, and the output
streams), and served two ways: by the console script's front end (`cli.script`, argparse
generated from the command's `Option` and `Argument` specs), and by cleo inside Poetry
(`cli.commands.cleo_command`). Both print the same markup: cleo renders it in Poetry, and
`cli.markup` for the script.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import sys

from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any
from typing import ClassVar
from typing import NamedTuple
from typing import Protocol

from poetry_cuda.cli.markup import escape
from poetry_cuda.cli.prefetch import Prefetched
from poetry_cuda.cli.prefetch import start_ahead
from poetry_cuda.cli.registry import detect_this_machine
from poetry_cuda.display import echoed
from poetry_cuda.display import shown
from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.errors import UsageError
from poetry_cuda.locking.interrupts import INTERRUPTED_EXIT
from poetry_cuda.locking.interrupts import Interrupted
from poetry_cuda.locking.interrupts import interruptible
from poetry_cuda.locking.interrupts import stopping
from poetry_cuda.messages import Phrase
from poetry_cuda.messages import did_you_mean
from poetry_cuda.messages import labels_language
from poetry_cuda.messages import language_of
from poetry_cuda.messages import message


if TYPE_CHECKING:
    from collections.abc import Mapping

    from poetry_cuda.host.profiles import HostProfile
    from poetry_cuda.messages import Language
    from poetry_cuda.messages import Localized


BROKEN_PIPE_EXIT = 141  # the shell's 128 + SIGPIPE
EXIT_CODES_HELP = (
    "Exit codes: 0 success; 1 doctor found a failure or lock --check found the lock "
    "stale; 2 bad usage, configuration or input file; 3 no variant satisfies the "
    "constraints; 4 the package manager's resolution failed; 130 interrupted."
)


class Option(NamedTuple):
    """A `--name` option: a flag, or one that takes a value (several with `multiple`);
    `value` names the value in the script's help (`--target=FILE`), NAME by default;
    `short` is its one-letter form (`-o`), if any."""

    name: str
    description: str
    flag: bool = True
    multiple: bool = False
    value: str = ""
    short: str = ""

    @property
    def shown_value(self) -> str:
        return self.value or self.name.upper()


class Argument(NamedTuple):
    """A positional argument (optional and repeatable ones only, so far). With `rest`,
    it takes everything after its first word, options included (`run python -V`)."""

    name: str
    description: str
    optional: bool = True
    multiple: bool = False
    rest: bool = False
    value: str = ""

    @property
    def shown_value(self) -> str:
        return self.value or self.name.upper()


TARGET_OPTION = Option(
    "target",
    "Plan for the host described by this profile (repeatable; see `detect --json`).",
    flag=False,
    multiple=True,
    value="FILE",
)
CUDA_OPTION = Option(
    "cuda", "auto, cpu, a variant (cu124), a version (12.4) or a range.", False, value="SPEC"
)
POLICY_OPTION = Option("policy", "newest (default) or native.", flag=False)
JSON_OPTION = Option("json", "Print JSON instead of the report.")


class Port(Protocol):
    """Where a command reads its input and writes its output."""

    def option(self, name: str) -> Any: ...

    def argument(self, name: str) -> Any: ...

    def write(self, text: str, *, error: bool = False, raw: bool = False) -> None:
        """One line of markup on stdout (stderr with `error`), `fitted` to the stream; or,
        `raw`, what a program reads, written `exact` or refused."""

    def is_verbose(self) -> bool: ...

    @property
    def project_directory(self) -> str | None:
        """Poetry's --project/--directory, where given."""


# Every locale's encoding survives the output: a project folder named in UTF-8 under a
# GB18030 (or latin-1, ASCII, cp1252) locale, a file name the file system encoding could not
# decode (held as lone surrogates), a message in Chinese on an ASCII stream.


def _encoding(stream: object) -> tuple[str, str] | None:
    """The stream's encoding and error handler; None for one that takes any text (a buffer)."""
    encoding = getattr(stream, "encoding", None)
    if not isinstance(encoding, str):
        return None
    try:
        codecs.lookup(encoding)
    except LookupError:
        return None
    errors = getattr(stream, "errors", None)
    try:
        codecs.lookup_error(errors if isinstance(errors, str) else "strict")
    except LookupError:
        errors = "strict"
    return encoding, errors if isinstance(errors, str) else "strict"


def fitted(text: str, stream: object) -> str:
    """`text` as `stream` carries it: each character its encoding lacks written as a
    backslash escape (`\\u9879`, `\\udc93`), as Python writes them on stderr, never an error.

    Text the stream's own error handler takes (Python's surrogateescape for the C locale)
    is written as it is.
    """
    found = _encoding(stream)
    if found is None:
        return text
    encoding, errors = found
    try:
        text.encode(encoding, errors)
    except UnicodeEncodeError:
        return text.encode(encoding, "backslashreplace").decode(encoding)
    return text


def exact(text: str, stream: object) -> str:
    """`text` if `stream` writes it exactly, else a UsageError (exit 2) naming the character.

    For what a program reads back (the shell code `env` prints): a character replaced there
    would be a different value, a different path. A lone surrogate (a file name's byte the
    file system encoding could not decode) is written back as that byte only where the stream
    itself does so (Python's surrogateescape, which it uses for UTF-8 under the C locale).
    """
    found = _encoding(stream)
    if found is None:
        return text
    encoding, errors = found
    try:
        text.encode(encoding, "surrogateescape" if errors == "surrogateescape" else "strict")
    except UnicodeEncodeError as problem:
        bad = text[problem.start]
        stream_name = message("exact.stderr" if stream is sys.stderr else "exact.stdout")
        raise UsageError(
            message(
                "exact.refused",
                stream=stream_name,
                encoding=encoding,
                character=repr(bad),
                around=_around(text, problem.start),
            ),
            why=message(
                "exact.undecodable" if 0xDC80 <= ord(bad) <= 0xDCFF else "exact.no-code",
                encoding=encoding,
            ),
            fix=message("exact.fix"),
        ) from None
    return text


def _around(text: str, position: int) -> str:
    """The line of `text` that holds `position`: its start (the variable it sets) and the
    characters just before and after the position."""
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    line = text[start : end if end >= 0 else len(text)]
    at = position - start
    if len(line) <= 120:
        return repr(line)
    head, tail = line[:30], line[max(30, at - 50) : at + 30]
    return f"{head!r}...{tail!r}" if at - 50 > 30 else repr(line[: at + 30]) + "..."


def reader_gone() -> int:
    """The reader of stdout went away (`plan | head -1`): stop quietly, with the code of a
    pipeline member that SIGPIPE stopped, and send the rest of the output (and the flush
    at exit) nowhere."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return BROKEN_PIPE_EXIT


def user_language() -> Language:
    """The language of the user's locale, read here, at the interface edge, and passed on."""
    return language_of(os.environ)


def error_lines(error: PoetryCudaError, language: Language) -> list[str]:
    """The error's what (in the error style), then its why and fix, as markup lines."""
    lines = shown(error.render(language)).splitlines()
    return [f"<error>{escape(lines[0])}</error>", *(escape(line) for line in lines[1:])]


def labelled_line(text: str, style: str = "info") -> str:
    """A rendered catalogue line ``Label: rest`` (or its Chinese form) with its label styled as one."""
    for colon in (": ", "："):
        label, found, rest = text.partition(colon)
        if found:
            return f"<{style}>{escape(label)}</{style}>{colon}{escape(rest)}"
    return escape(text)


def backend_line(name: str, reason: Localized, language: Language) -> str:
    """One line of a report: which package manager, and why (`Backend: uv (uv.lock exists)`)."""
    return labelled_line(message("backend.line", name=name, reason=reason).text(language))


def literal_help(text: str) -> str:
    """`text` shown as written in `--help`, which cleo passes through str.format and tags."""
    return escape(text).replace("{", "{{").replace("}", "}}")


def unknown_command(
    name: str, known: list[str], program: str, lister: str, *, prefix: str = ""
) -> UsageError:
    """`name` is none of the `known` commands: say so once, with the nearest ones.

    cleo's own suggestion counts a swap of two letters as two edits and misses `lokc`;
    `did_you_mean` catches swaps and one-letter slips alike. `program` is how the user runs
    them (`poetry cuda`, `poetry-cuda`), `lister` what lists them; `prefix` is the
    namespace the names are shown in ("cuda ").
    """
    what: Localized = message("usage.unknown-command", name=prefix + echoed(name))
    hint = did_you_mean(name, known, prefix=prefix)
    return UsageError(
        what if hint is None else Phrase((what, hint), " "),
        fix=message("usage.list-fix", lister=lister, program=program),
    )


def parser_problem(said: str) -> Localized:
    """What argparse (the script) or cleo (inside Poetry) says of a bad option, as a catalogue
    message where it is one they say; else in their words."""
    said = said.strip()
    unknown = re.fullmatch(r'The option "(.+)" does not exist\.?', said)
    if unknown:
        return message("usage.unknown-option", name=echoed(unknown.group(1)))
    needs = re.fullmatch(r'The "(.+)" option requires a value\.?', said) or re.fullmatch(
        r"argument (\S+): expected one argument", said
    )
    if needs:
        return message("usage.needs-value", name=needs.group(1))
    takes = re.fullmatch(r'The "(.+)" option does not accept a value\.?', said) or re.fullmatch(
        r"argument (\S+): ignored explicit argument .*", said
    )
    if takes:
        return message("usage.takes-no-value", name=takes.group(1))
    return said


def error_json(error: PoetryCudaError) -> dict[str, object]:
    """What `--json` prints on standard output for a failed command: ``{"error": {"what",
    "why", "fix", "exit_code"}}``, the texts in English (why and fix empty where the error
    has none), the exit code the command returns."""
    return {
        "error": {
            "what": error.what,
            "why": error.why,
            "fix": error.fix,
            "exit_code": error.exit_code,
        }
    }


class CudaCommand:
    """A command whose expected failures print one message and return their exit code.

    `name` is its short name; an instance knows the name it runs under (`cuda lock` in
    Poetry, `lock` in the console script) as `invoked_as`.
    """

    name: ClassVar[str]
    description: ClassVar[str]
    help: ClassVar[str] = EXIT_CODES_HELP
    options: ClassVar[tuple[Option, ...]] = ()
    arguments: ClassVar[tuple[Argument, ...]] = ()

    def __init__(self, port: Port, invoked_as: str) -> None:
        self.port = port
        self.invoked_as = invoked_as
        # What `execute` starts ahead (`cli.prefetch`) for the command to collect and hand
        # down: the NVML worker to detection, uv's part of a lock to the lock.
        self.prefetched = Prefetched()

    def execute(self) -> int:
        """Run the command: its exit code, an error's, 130 when interrupted, 141 when the
        reader of its output went away.

        What the command will wait for starts first (`prefetch`), and what it did not
        collect is stopped when it ends."""
        self.prefetched = start_ahead(self.name, self.option, os.environ, self.project_start())
        try:
            return self._execute()
        except BrokenPipeError:
            return reader_gone()
        finally:
            self.prefetched.stop()

    def _execute(self) -> int:
        try:
            with interruptible():
                return self.run_command()
        except (KeyboardInterrupt, Interrupted):
            pass
        except PoetryCudaError as error:
            if not stopping():  # else the failure is what the interruption left
                self.report_error(error)
                return error.exit_code
        except Exception:
            if not stopping():
                raise
        self.line_error(f"<error>{escape(message('interrupted').text(user_language()))}</error>")
        return INTERRUPTED_EXIT

    def run_command(self) -> int:
        raise NotImplementedError

    def option(self, name: str) -> Any:
        return self.port.option(name)

    def argument(self, name: str) -> Any:
        return self.port.argument(name)

    def report_error(self, error: PoetryCudaError) -> None:
        """The error on standard error; with --json also on standard output, as the JSON
        object `error_json` makes, so a script that reads the output reads why it is empty."""
        for line in error_lines(error, user_language()):
            self.port.write(line, error=True)
        if any(o.name == JSON_OPTION.name for o in self.options) and self.option("json"):
            self.print_json(error_json(error))

    def detect_this_machine(self, environ: Mapping[str, str]) -> HostProfile:
        """This machine's profile, from the NVML worker started ahead if there is one (what
        planning takes as `detect`)."""
        return detect_this_machine(environ, early=self.prefetched.early)

    def project_start(self) -> Path:
        """Where to look for the project: Poetry's --project/--directory, else the cwd."""
        directory = self.port.project_directory
        return Path(directory) if directory else Path.cwd()

    # The output edge: every line a command prints passes `shown`, which escapes terminal
    # control characters and redacts credentials in whatever the line quotes.

    def line(self, text: str) -> None:
        self.port.write(shown(text))

    def line_error(self, text: str) -> None:
        self.port.write(shown(text), error=True)

    def raw(self, text: str, *, error: bool = False) -> None:
        """`text` as is, without markup (what a shell or another program reads)."""
        self.port.write(text, error=error, raw=True)

    def print_json(self, data: object) -> None:
        # json.dumps escapes every control and non-ASCII character (ensure_ascii).
        self.raw(shown(json.dumps(data, indent=2)))

    def warn(self, warning: Localized) -> None:
        language = user_language()
        said = message("warning.line", text=warning).text(labels_language([warning], language))
        self.line_error(f"<comment>{escape(said)}</comment>")


def section(
    title: str, rows: list[str], empty: str | None = None, *, colon: str = ": "
) -> list[str]:
    """A titled list for a report; without rows, one line saying so (or nothing).

    `colon` follows the title: ": " in English, its full-width form in Chinese.
    """
    if rows:
        return [f"<info>{title}</info>{colon.rstrip()}", *rows]
    return [f"<comment>{title}</comment>{colon}{empty}"] if empty is not None else []
