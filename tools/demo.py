"""The main job on the bundled example: detect this machine, then plan examples/torch_project.

Runs in a temporary copy of the example, so the checkout is never modified. The
example plans for the host profiles in its `hosts/` folder (an RTX 4090 workstation on
driver 550 and a MacBook), so the result is the same on any machine.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile

from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "torch_project"
SCRIPT = Path(sys.executable).parent / "poetry-cuda"


def step(title: str, *args: str, cwd: Path) -> None:
    print(f"\n== {title}: poetry-cuda {' '.join(args)}", flush=True)
    completed = subprocess.run([str(SCRIPT), *args], cwd=cwd, check=False)
    if completed.returncode != 0:
        raise SystemExit(completed.returncode)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="poetry-cuda-demo-") as temporary:
        project = Path(temporary) / "torch_project"
        shutil.copytree(EXAMPLE, project)
        step("This machine", "detect", cwd=project)
        step("The plan for the example's hosts", "plan", cwd=project)
        step("The same plan as JSON", "plan", "--json", cwd=project)
    return 0


if __name__ == "__main__":
    sys.exit(main())
