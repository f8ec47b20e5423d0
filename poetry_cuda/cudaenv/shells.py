"""The project's environment as shell code (sh, fish, PowerShell) or JSON.

Values are quoted for the shell they are meant for, so `eval "$(poetry-cuda env)"`
(or fish's `poetry-cuda env --shell fish | source`, PowerShell's
`poetry-cuda env --shell powershell | Invoke-Expression`) sets exactly these values.
"""

from __future__ import annotations

import re

from typing import TYPE_CHECKING
from typing import Any

from poetry_cuda.display import CONTROL


if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence

    from poetry_cuda.cudaenv.decide import ProjectEnv


SCHEMA = 1
SHELLS = ("sh", "bash", "zsh", "fish", "powershell", "pwsh", "json")


# Characters that would act on a terminal if `env` is run without `eval` to look at it:
# they are written as escapes the shell turns back into the same character.
_CONTROL = re.compile(f"({CONTROL.pattern})")
# Every character PowerShell's tokenizer ends a single-quoted string at: the apostrophe and
# the four typographic single quotes (left, right, low-9, high-reversed-9).
_PS_QUOTES = re.compile("(['\u2018\u2019\u201a\u201b])")


def _pieces(value: str) -> list[tuple[bool, str]]:
    """`value` as (is_control, text) runs, so each shell can quote the two kinds apart."""
    return [(i % 2 == 1, part) for i, part in enumerate(_CONTROL.split(value)) if part]


def _sh_quote(value: str) -> str:
    # Single quotes keep everything literal but a single quote, which is closed, escaped
    # and reopened; a control character comes from printf, octal bytes being POSIX.
    quoted: list[str] = []
    for control, text in _pieces(value) or [(False, "")]:
        if control:
            octal = "".join(f"\\{byte:03o}" for byte in text.encode())
            quoted.append(f"\"$(printf '{octal}')\"")
        else:
            quoted.append("'" + text.replace("'", "'\\''") + "'")
    return "".join(quoted)


def _fish_quote(value: str) -> str:
    # In fish's single quotes only \\ and \' are escapes; adjacent parts form one word.
    quoted: list[str] = []
    for control, text in _pieces(value) or [(False, "")]:
        if control:
            quoted.append("".join(f"\\u{ord(char):04x}" for char in text))
        else:
            quoted.append("'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'")
    return "".join(quoted)


def _ps_quote(value: str) -> str:
    # In a single-quoted string a doubled quote character stands for itself; control
    # characters are added as [char] values (Windows PowerShell 5.1 has no `e).
    quoted: list[str] = []
    for control, text in _pieces(value) or [(False, "")]:
        if control:
            quoted.extend(f"[char]0x{ord(char):04x}" for char in text)
        else:
            quoted.append("'" + _PS_QUOTES.sub(r"\1\1", text) + "'")
    if not quoted[0].startswith("'"):
        quoted.insert(0, "''")  # a string first, so that + joins strings
    return quoted[0] if len(quoted) == 1 else "(" + " + ".join(quoted) + ")"


def render(shell: str, values: Mapping[str, str], unset: Sequence[str], env: ProjectEnv) -> str:
    """The code for `shell` that sets `values` and unsets `unset`."""
    lines = []
    if shell in ("sh", "bash", "zsh"):
        lines += [f"unset {name}" for name in unset]
        lines += [f"export {name}={_sh_quote(value)}" for name, value in values.items()]
    elif shell == "fish":
        lines += [f"set -e {name}" for name in unset]
        for name, value in values.items():
            if name.endswith("PATH") and name not in ("CUDA_PATH",):
                parts = " ".join(_fish_quote(p) for p in value.split(env.separator) if p)
                lines.append(f"set -gx {name} {parts}")
            else:
                lines.append(f"set -gx {name} {_fish_quote(value)}")
    elif shell in ("powershell", "pwsh"):
        lines += [f"Remove-Item Env:{name} -ErrorAction SilentlyContinue" for name in unset]
        lines += [f"$env:{name} = {_ps_quote(value)}" for name, value in values.items()]
    else:
        raise ValueError(f"unknown shell {shell!r}")
    return "\n".join(lines)


def to_json(values: Mapping[str, str], unset: Sequence[str], env: ProjectEnv) -> dict[str, Any]:
    toolkit = env.toolkit
    return {
        "schema": SCHEMA,
        "cuda": env.cuda,
        "toolkit": None
        if toolkit is None
        else {
            "root": toolkit.root,
            "version": toolkit.version,
            "nvcc": toolkit.nvcc,
            "origin": toolkit.origin,
        },
        "set": dict(values),
        "unset": list(unset),
        "path": list(env.path),
        "library_path": list(env.libraries),
        "library_variable": env.library_variable,
        "notes": [str(note) for note in env.notes],
    }
