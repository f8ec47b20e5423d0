"""A fake NVIDIA driver for tests: a fake ``libnvidia-ml.so.1`` and a fake ``nvidia-smi``.

`FakeNvml.build()` compiles ``tests/fake_nvml/fake_nvml.c`` (twice: a current driver
and an old one lacking newer entry points); `FakeNvml.scenario()` returns the
environment variables that make pynvml, in a child process, load the fake with one
scenario's configuration::

    env = fake_nvml.scenario(driver="550.54.14", cuda=12040, gpus=[RTX_4090])
    profile = detect_host(environ=env, paths=HostPaths.under(tmp_path))

The returned dict holds only ``PATH``, ``LD_LIBRARY_PATH`` and ``FAKE_NVML_CONFIG``;
merge it into a full environment where a program needs more.
"""

from __future__ import annotations

import ctypes.util
import os
import shlex
import shutil
import subprocess
import sys

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING


if TYPE_CHECKING:
    from collections.abc import Mapping
    from collections.abc import Sequence


SOURCE = Path(__file__).resolve().parents[1] / "fake_nvml" / "fake_nvml.c"
LIBRARY = "libnvidia-ml.so.1"


@dataclass(frozen=True)
class FakeGpu:
    name: str
    uuid: str
    memory_mib: int
    compute_capability: tuple[int, int]

    def config_line(self) -> str:
        major, minor = self.compute_capability
        return f"gpu={self.name}|{self.uuid}|{self.memory_mib}|{major}|{minor}"


RTX_4090 = FakeGpu(
    "NVIDIA GeForce RTX 4090", "GPU-5a3c9e1f-0b7d-4c2a-9e84-1f6b2d3c4a50", 24564, (8, 9)
)
GTX_1080_TI = FakeGpu(
    "NVIDIA GeForce GTX 1080 Ti", "GPU-9d2e4f61-7a3b-48c5-b1d0-6e2f8a9c0b13", 11264, (6, 1)
)
A100_80GB = FakeGpu(
    "NVIDIA A100-SXM4-80GB", "GPU-2c7f0a94-31e8-4b6d-8a5f-0d9e7c1b2a36", 81920, (8, 0)
)


_SMI_SCRIPT = """#!/bin/sh
{pause}
show() {{
  while IFS= read -r line || [ -n "$line" ]; do printf '%s\\n' "$line"; done < {folder}/"$1".out
}}
case "$*" in
{queries}
  "") show table ;;
  *) exit 2 ;;
esac
exit {exit_code}
"""


@dataclass(frozen=True)
class FakeSmi:
    """What a fake ``nvidia-smi`` prints.

    `query` answers the ``--query-gpu`` call that asks for ``compute_cap``. With
    `old_query` set, that call fails the way drivers before ~510 fail, and
    `old_query` answers the retry without ``compute_cap``. `table` is printed when
    it is run without arguments. `sleep` makes every call hang that many seconds.
    """

    query: str = ""
    old_query: str | None = None
    table: str = ""
    exit_code: int = 0
    sleep: float = 0

    def write(self, directory: Path) -> Path:
        """Write the script as ``directory/nvidia-smi`` (and its outputs beside it)."""
        directory.mkdir(parents=True, exist_ok=True)
        outputs = {"query": self.query, "old-query": self.old_query or "", "table": self.table}
        for name, text in outputs.items():
            (directory / f"{name}.out").write_text(text, encoding="utf-8")
        sleep = shutil.which("sleep") or "/bin/sleep"
        if self.old_query is None:
            queries = "  --query-gpu=*) show query ;;"
        else:
            queries = (
                "  *compute_cap*) echo 'Field \"compute_cap\" is not a valid field to query.';"
                " exit 2 ;;\n"
                "  --query-gpu=*) show old-query ;;"
            )
        # Shell builtins only: the scenario's PATH may hold nothing but this folder.
        text = _SMI_SCRIPT.format(
            pause=f"{shlex.quote(sleep)} {self.sleep:g}" if self.sleep else "",
            folder=shlex.quote(str(directory)),
            queries=queries,
            exit_code=self.exit_code,
        )
        script = directory / "nvidia-smi"
        script.write_text(text, encoding="utf-8")
        script.chmod(0o755)
        return script


class FakeNvmlUnavailableError(Exception):
    """The fake library cannot be built here (tests using it are skipped)."""


def real_nvml_present() -> bool:
    """Whether the dynamic linker would find a real libnvidia-ml without LD_LIBRARY_PATH."""
    return ctypes.util.find_library("nvidia-ml") is not None


def _clean_path() -> list[str]:
    return [
        entry
        for entry in os.environ.get("PATH", "").split(os.pathsep)
        if entry and not Path(entry, "nvidia-smi").exists()
    ]


class FakeNvml:
    """The compiled fake libraries and a folder for each scenario's files."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.current = directory / "current"
        self.old = directory / "old"
        self.empty = directory / "empty"
        self._scenarios = 0

    @classmethod
    def build(cls, directory: Path) -> FakeNvml:
        """Compile both variants into `directory`; raises `FakeNvmlUnavailableError` without gcc."""
        if not sys.platform.startswith("linux"):
            raise FakeNvmlUnavailableError("the fake libnvidia-ml.so.1 is a Linux shared library")
        gcc = shutil.which("gcc")
        if gcc is None:
            raise FakeNvmlUnavailableError(
                "gcc is not installed: cannot build the fake libnvidia-ml"
            )
        fake = cls(directory)
        fake.empty.mkdir(parents=True, exist_ok=True)
        for target, flags in ((fake.current, []), (fake.old, ["-DFAKE_NVML_OLD_DRIVER"])):
            target.mkdir(parents=True, exist_ok=True)
            command = [gcc, "-shared", "-fPIC", "-O1", *flags, "-o", str(target / LIBRARY)]
            subprocess.run([*command, str(SOURCE)], check=True, capture_output=True, timeout=120)
        return fake

    def scenario(
        self,
        *,
        driver: str = "550.54.14",
        cuda: int = 12040,
        gpus: Sequence[FakeGpu] = (RTX_4090,),
        init_error: int | None = None,
        init_sleep: int | None = None,
        init_marker: Path | None = None,
        init_crash: bool = False,
        fail_calls: Mapping[str, int] | None = None,
        old_driver: bool = False,
        library: bool = True,
        nvidia_smi: FakeSmi | None = None,
        path: Sequence[str] | None = None,
    ) -> dict[str, str]:
        """The environment for one scenario.

        `library=False` leaves the library out (no driver installed); `old_driver`
        loads the variant without ``nvmlSystemGetCudaDriverVersion_v2`` and
        ``nvmlDeviceGetCudaComputeCapability``. `path` is the PATH (default: the
        current one minus every folder holding an ``nvidia-smi``); a `nvidia_smi`
        script's folder is put in front of it.
        """
        self._scenarios += 1
        folder = self.directory / f"scenario-{self._scenarios}"
        folder.mkdir()
        lines = [f"driver={driver}", f"cuda={cuda}", *(gpu.config_line() for gpu in gpus)]
        if init_error is not None:
            lines.append(f"init_error={init_error}")
        if init_sleep is not None:
            lines.append(f"init_sleep={init_sleep}")
        if init_marker is not None:
            lines.append(f"init_marker={init_marker}")
        if init_crash:
            lines.append("init_crash=1")
        lines += [f"fail_call={name}:{code}" for name, code in (fail_calls or {}).items()]
        config = folder / "fake-nvml.conf"
        config.write_text("\n".join(lines) + "\n", encoding="utf-8")

        entries = _clean_path() if path is None else list(path)
        if nvidia_smi is not None:
            entries.insert(0, str(nvidia_smi.write(folder / "bin").parent))
        library_dir = self.empty if not library else self.old if old_driver else self.current
        return {
            "PATH": os.pathsep.join(entries),
            "LD_LIBRARY_PATH": str(library_dir),
            "FAKE_NVML_CONFIG": str(config),
        }
