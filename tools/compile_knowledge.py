"""Compile the knowledge base's TOML files to the JSON that poetry-cuda ships beside them.

Run it after editing any file in ``poetry_cuda/knowledge/data/`` and commit the result:

    .venv/bin/python tools/compile_knowledge.py          # rewrite data/compiled.json
    .venv/bin/python tools/compile_knowledge.py --check  # exit 1 when it is out of date

Every row is validated first, so a file that does not validate is reported and nothing is
written. Until the compiled file is regenerated, poetry-cuda reads the TOML (correct, only
slower) and tests/knowledge/test_compiled.py fails, naming this command.
Exit status: 0 written (or up to date), 1 out of date (--check), 2 a data file is invalid.
"""

from __future__ import annotations

import argparse
import sys

from pathlib import Path
from typing import TYPE_CHECKING

from poetry_cuda.errors import PoetryCudaError
from poetry_cuda.files import replace_bytes
from poetry_cuda.knowledge.compiled import FILE
from poetry_cuda.knowledge.compiled import compile_data
from poetry_cuda.knowledge.loader import read_data
from poetry_cuda.knowledge.packaged import DATA


if TYPE_CHECKING:
    from collections.abc import Sequence


COMMAND = "python tools/compile_knowledge.py"


def compiled(directory: Path) -> bytes:
    """The compiled file of the TOML files in `directory`."""
    return compile_data(read_data(directory))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether it is current")
    parser.add_argument("--data", type=Path, default=DATA, help="the data folder (default: ours)")
    args = parser.parse_args(argv)
    target = args.data / FILE
    try:
        fresh = compiled(args.data)
    except PoetryCudaError as error:
        print(error.render(), file=sys.stderr)
        return 2
    current = target.read_bytes() if target.is_file() else None
    if args.check:
        if current != fresh:
            print(f"{target} is out of date: run `{COMMAND}`", file=sys.stderr)
            return 1
        print(f"{target} is up to date")
        return 0
    if current != fresh:
        replace_bytes(target, fresh)
    print(f"wrote {target} ({len(fresh)} bytes)" if current != fresh else f"{target} unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
