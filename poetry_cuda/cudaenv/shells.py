"""The project's environment as shell code (sh, fish, PowerShell) or JSON.

Values are quoted for the shell they are meant for, so `eval "$(poetry-cuda env)"`
(or fish's `poetry-cuda env --shell fish | source`, PowerShell's
`poetry-cuda env --shell powershell | Invoke-Expression`) sets exactly these values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Any


if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence

    from poetry_cuda.cudaenv.decide import ProjectEnv


SCHEMA = 1
SHELLS = ("sh", "bash", "zsh", "fish", "powershell", "pwsh", "json")


def _sh_quote(value: str) -> str:
    return "'" + value.replace("'", "'\"'\"'") + "'"


def _fish_quote(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _ps_quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


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
        "notes": list(env.notes),
    }
