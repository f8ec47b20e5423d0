"""The main job on the bundled example: lock examples/torch_project and install the lock.

download.pytorch.org serves multi-gigabyte wheels, so the demo locks against a local
index on 127.0.0.1 with the same layout (`/whl/<variant>/<project>/`) and small wheels
built on the spot, set as the project's pytorch mirror. Everything runs in a temporary
copy of the example, so the checkout is never modified. The example plans for the host
profiles in its `hosts/` folder (an RTX 4090 on driver 550.54.14, and a MacBook), so the
result is the same on any machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from poetry_cuda.messages import language_of
from tests.support.catalog import WorldServer
from tests.support.catalog import build_world


EXAMPLE = ROOT / "examples" / "torch_project"
BIN = Path(sys.executable).parent
# The demo's own headings, in the reader's language as poetry-cuda's messages are.
TITLES = {
    "en": {
        "detect": "This machine",
        "plan": "The plan",
        "lock": "Lock",
        "check": "Is the lock fresh?",
        "install": "Install without the plugin",
        "entries": "(the {name} entries)",
        "torch": "The installed torch:",
    },
    "zh": {
        "detect": "本机",
        "plan": "计划",
        "lock": "锁定",
        "check": "锁文件是最新的吗？",
        "install": "不用插件安装",
        "entries": "（其中 {name} 的条目）",
        "torch": "安装的 torch：",
    },
}
TITLE = TITLES[language_of(os.environ)]


def step(title: str, program: str, *args: str, cwd: Path, env: dict[str, str]) -> None:
    print(f"\n== {title}: {program} {' '.join(args)}", flush=True)
    completed = subprocess.run([str(BIN / program), *args], cwd=cwd, env=env, check=False)
    if completed.returncode != 0:
        raise SystemExit(completed.returncode)


def show(path: Path, *, only: str | None = None) -> None:
    entries = TITLE["entries"].format(name=only) if only else ""
    space = "" if entries.startswith("（") else " "
    print(f"\n== {path.name}" + (space + entries if only else ""), flush=True)
    text = path.read_text()
    if only is None:
        print(text)
        return
    for block in text.split("\n[[package]]\n"):
        if f'name = "{only}"' in block:
            print("[[package]]\n" + "\n".join(block.splitlines()[:8]) + "\n...")


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="poetry-cuda-demo-") as temporary:
        home = Path(temporary)
        world = build_world(home / "index")
        project = home / "torch_project"
        shutil.copytree(EXAMPLE, project)
        env = {
            **os.environ,
            "POETRY_CACHE_DIR": str(home / "cache"),
            "POETRY_CONFIG_DIR": str(home / "config"),
            "POETRY_VIRTUALENVS_IN_PROJECT": "true",
            "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
        }
        with WorldServer(world) as server:
            pyproject = project / "pyproject.toml"
            pyproject.write_text(
                pyproject.read_text().replace('">=3.10,<3.14"', '">=3.11,<3.12"')
                + f'\n[tool.poetry-cuda.mirrors]\npytorch = "{server.pytorch_mirror}"\n'
                + f'\n[[tool.poetry.source]]\nname = "local-pypi"\nurl = "{server.pypi_url}"\n'
                + 'priority = "primary"\n'
            )
            step(TITLE["detect"], "poetry-cuda", "detect", cwd=project, env=env)
            step(TITLE["plan"], "poetry-cuda", "plan", cwd=project, env=env)
            step(TITLE["lock"], "poetry", "cuda", "lock", cwd=project, env=env)
            show(project / "cuda.lock")
            show(project / "poetry.lock", only="torch")
            step(TITLE["check"], "poetry", "cuda", "lock", "--check", cwd=project, env=env)
            step(
                TITLE["install"],
                "poetry",
                "--no-plugins",
                "install",
                cwd=project,
                env=env,
            )
            python = project / ".venv" / "bin" / "python"
            print(f"\n== {TITLE['torch']}", flush=True)
            subprocess.run(
                [str(python), "-c", "import torch; print(torch.__version__)"], check=True
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
