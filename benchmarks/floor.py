"""The floor: the least a CUDA plan needs, with the standard library only.

Reads the project's pyproject.toml (tomllib; tomlkit on Python 3.10, as poetry-cuda does),
the host profiles its `[tool.poetry-cuda]`
`targets` name (JSON files like the ones `poetry-cuda detect --json` prints), and prints,
for each pinned package of a small inline table, the highest CUDA build each host's
driver runs (or the CPU build). `benchmarks/commands.py` times it next to
`poetry-cuda plan`, `detect`, `doctor` and `env` in the same interpreter: what no
implementation of those commands can go below.

    .venv/bin/python benchmarks/floor.py [PROJECT]
"""

from __future__ import annotations

import json
import sys

from pathlib import Path
from typing import Any


if sys.version_info >= (3, 11):
    import tomllib

    def parse(text: str) -> dict[str, Any]:
        return tomllib.loads(text)
else:  # Python 3.10 has no tomllib: the parser poetry-cuda itself falls back to.
    import tomlkit

    def parse(text: str) -> dict[str, Any]:
        return tomlkit.parse(text).unwrap()


# Package -> version -> the CUDA builds published for it (as on download.pytorch.org).
VARIANTS = {
    "torch": {"2.4.1": ("11.8", "12.1", "12.4"), "2.5.1": ("11.8", "12.1", "12.4")},
    "torchvision": {"0.19.1": ("11.8", "12.1", "12.4"), "0.20.1": ("11.8", "12.1", "12.4")},
}


def cuda(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def choose(builds: tuple[str, ...], host: dict[str, object]) -> str:
    driver = host.get("driver")
    if not isinstance(driver, dict) or not driver.get("cuda"):
        return "cpu"
    limit = cuda(str(driver["cuda"]))
    fitting = [build for build in builds if cuda(build) <= limit]
    if not fitting:
        return "cpu"
    return "cu" + max(fitting, key=cuda).replace(".", "")


def main() -> int:
    project = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    pyproject = parse((project / "pyproject.toml").read_text(encoding="utf-8"))
    targets = pyproject.get("tool", {}).get("poetry-cuda", {}).get("targets", [])
    hosts = {
        path.name: json.loads(path.read_text(encoding="utf-8"))
        for pattern in targets
        for path in sorted(project.glob(pattern))
    }
    for requirement in pyproject.get("project", {}).get("dependencies", []):
        name, _, version = requirement.partition("==")
        builds = VARIANTS.get(name.strip(), {}).get(version.strip())
        if builds is None:
            continue
        for host, profile in hosts.items():
            print(f"{name.strip()} {version.strip()}: {choose(builds, profile)} for {host}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
